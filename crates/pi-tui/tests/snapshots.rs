#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! Widget snapshots: each tool's rendering, the editor, dialogs and the
//! footer, drawn through ratatui's `TestBackend` at 40, 80 and 200 columns.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use pi_tui::dialog::{Dialog, DialogCtx, SelectDialog, trust};
use pi_tui::footer::{FooterData, Totals};
use pi_tui::host::{Controls, DialogRequest, ModelInfo, UiCall, UiHandle, Update};
use pi_tui::keys::Keybindings;
use pi_tui::theme::{Theme, ThemeCatalog};
use pi_tui::transcript::{Ctx, Kind, ToolOutcome, ToolState, Transcript};
use pi_tui::{App, Options, ScreenMode};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Line;
use serde_json::{Value, json};

const WIDTHS: [u16; 3] = [40, 80, 200];

/// `lines` drawn into a `TestBackend` as wide as `width`.
fn draw(lines: &[Line<'static>], width: u16) -> String {
    let height = u16::try_from(lines.len().max(1)).unwrap();
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
    t.draw(|f| {
        for (y, l) in lines.iter().enumerate() {
            f.buffer_mut().set_line(0, y as u16, l, width);
        }
    })
    .unwrap();
    format!("{}", t.backend())
}

fn text(s: &str) -> pi_tools::Content {
    pi_tools::Content::Text { text: s.to_string() }
}

fn tool(name: &str, args: Value, result: Option<(Vec<pi_tools::Content>, Option<Value>, bool)>) -> ToolState {
    let mut t = ToolState::new("call_1", name, args);
    if let Some((content, details, is_error)) = result {
        t.result = Some(ToolOutcome { content, details, is_error });
        t.duration_ms = Some(1234);
    }
    t
}

/// The tool's box, as the transcript draws it, at each width.
fn snapshot_tool(name: &str, state: ToolState, expanded: bool) {
    let theme = Theme::dark(true);
    for w in WIDTHS {
        let mut t = Transcript::new();
        t.push(Kind::Tool(Box::new(state.clone())));
        let ctx = Ctx {
            theme: &theme,
            width: w as usize,
            expanded,
            show_thinking: true,
            home: Some(Path::new("/home/u")),
            expand_key: "ctrl+o",
            now: Instant::now(),
        };
        let h = t.height(&ctx);
        let lines = t.window(&ctx, 0, h);
        insta::assert_snapshot!(format!("{name}_{w}"), draw(&lines, w));
    }
}

#[test]
fn bash_tools() {
    let out: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    snapshot_tool(
        "bash_done",
        tool("bash", json!({"command": "seq 12"}), Some((vec![text(&out)], None, false))),
        false,
    );
    snapshot_tool(
        "bash_expanded",
        tool("bash", json!({"command": "seq 12"}), Some((vec![text(&out)], None, false))),
        true,
    );
    let mut running = tool("bash", json!({"command": "make test", "timeout": 30}), None);
    running.partial = Some(ToolOutcome { content: vec![text("compiling...\n")], details: None, is_error: false });
    snapshot_tool("bash_running", running, false);
    let failed =
        tool("bash", json!({"command": "false"}), Some((vec![text("boom\n\nCommand exited with code 1")], None, true)));
    snapshot_tool("bash_error", failed, false);
    let details = json!({"truncation": {"truncated": true, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 5000}, "fullOutputPath": "/tmp/pi-bash-1.log"});
    let cut = tool(
        "bash",
        json!({"command": "seq 5000"}),
        Some((
            vec![text("4999\n5000\n\n[Showing lines 3001-5000 of 5000. Full output: /tmp/pi-bash-1.log]")],
            Some(details),
            false,
        )),
    );
    snapshot_tool("bash_truncated", cut, false);
}

#[test]
fn file_tools() {
    let src = "fn main() {\n    println!(\"hi\");\n}\n";
    snapshot_tool(
        "read_collapsed",
        tool(
            "read",
            json!({"path": "/home/u/src/main.rs", "offset": 10, "limit": 20}),
            Some((vec![text(src)], None, false)),
        ),
        false,
    );
    snapshot_tool(
        "read_expanded",
        tool("read", json!({"path": "src/main.rs"}), Some((vec![text(src)], None, false))),
        true,
    );
    snapshot_tool(
        "read_error",
        tool("read", json!({"path": "nope.txt"}), Some((vec![text("ENOENT: no such file or directory")], None, true))),
        false,
    );
    let diff = "  1 one\n- 2 two three\n+ 2 TWO three\n  3 four\n    ...\n 40 end";
    snapshot_tool(
        "edit_diff",
        tool(
            "edit",
            json!({"path": "a.txt", "edits": []}),
            Some((vec![text("Successfully replaced 1 block(s) in a.txt.")], Some(json!({"diff": diff})), false)),
        ),
        false,
    );
    snapshot_tool(
        "edit_error",
        tool(
            "edit",
            json!({"path": "a.txt", "edits": []}),
            Some((vec![text("Could not find the exact text in a.txt.")], None, true)),
        ),
        false,
    );
    let content: String = (1..=14).map(|i| format!("const X{i}: u32 = {i};\n")).collect();
    snapshot_tool(
        "write_preview",
        tool(
            "write",
            json!({"path": "consts.rs", "content": content}),
            Some((vec![text("Successfully wrote 300 bytes")], None, false)),
        ),
        false,
    );
    snapshot_tool("write_invalid", tool("write", json!({"path": "x", "content": 5}), None), false);
}

#[test]
fn search_tools() {
    let hits: String = (1..=18).map(|i| format!("src/f{i}.rs:{i}: let x = {i};\n")).collect();
    snapshot_tool(
        "grep_limited",
        tool(
            "grep",
            json!({"pattern": "let x", "path": "src", "glob": "*.rs", "limit": 18}),
            Some((vec![text(&hits)], Some(json!({"matchLimitReached": 18})), false)),
        ),
        false,
    );
    snapshot_tool(
        "find_results",
        tool(
            "find",
            json!({"pattern": "**/*.toml"}),
            Some((vec![text("Cargo.toml\ncrates/a/Cargo.toml")], None, false)),
        ),
        false,
    );
    snapshot_tool(
        "ls_entries",
        tool(
            "ls",
            json!({"limit": 3}),
            Some((vec![text("a/\nb.txt\nc.md")], Some(json!({"entryLimitReached": 3})), false)),
        ),
        false,
    );
    snapshot_tool(
        "generic_tool",
        tool(
            "deploy",
            json!({"env": "staging", "dry_run": true}),
            Some((vec![text("deployed 3 services")], None, false)),
        ),
        false,
    );
    snapshot_tool("generic_tool_expanded", tool("deploy", json!({"env": "staging", "notes": "a\nb"}), None), true);
}

fn options(mode: ScreenMode) -> (Options, tokio::sync::mpsc::UnboundedReceiver<Update>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let model = ModelInfo {
        provider: "mock".into(),
        id: "mock-2".into(),
        name: "Mock Two".into(),
        reasoning: true,
        context_window: 128_000,
    };
    let o = Options {
        mode,
        theme: Theme::dark(true),
        theme_name: "dark".into(),
        themes: ThemeCatalog::load(&[], &[]),
        truecolor: true,
        keys: Keybindings::defaults(),
        cwd: PathBuf::from("/home/u/project"),
        home: Some(PathBuf::from("/home/u")),
        agent_dir: PathBuf::from("/home/u/.pi/agent"),
        version: "0.1.0".into(),
        header_more: Vec::new(),
        models: vec![model.clone()],
        cycle: Vec::new(),
        model,
        thinking: Some("medium".into()),
        controls: Controls::default(),
        commands: Vec::new(),
        trusted: true,
        notices: Vec::new(),
        initial: Vec::new(),
        hide_thinking: false,
        autocomplete_max_visible: 5,
        auto_compact: false,
        session_name: None,
        ui: UiHandle::new(tx),
        history: Vec::new(),
    };
    (o, rx)
}

fn screens(name: &str, height: u16, setup: impl Fn(&mut App)) {
    for w in WIDTHS {
        let (o, _rx) = options(ScreenMode::Fullscreen);
        let mut app = App::new(o);
        setup(&mut app);
        let lines = app.screen(w as usize, height as usize);
        insta::assert_snapshot!(format!("{name}_{w}"), draw(&lines, w));
    }
}

fn type_text(app: &mut App, s: &str) {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    for c in s.chars() {
        app.key(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
}

#[test]
fn the_editor() {
    screens("editor_empty", 12, |_| {});
    screens("editor_multiline", 14, |app| {
        type_text(app, "first line of a prompt that is long enough to wrap at forty columns");
        app.key(&ratatui::crossterm::event::KeyEvent::new(
            ratatui::crossterm::event::KeyCode::Char('j'),
            ratatui::crossterm::event::KeyModifiers::CONTROL,
        ));
        type_text(app, "second");
    });
    screens("editor_bash_mode", 12, |app| type_text(app, "!ls -la"));
    screens("editor_working", 12, |app| app.update(Update::Agent(Box::new(pi_agent::AgentEvent::AgentStart))));
    screens("editor_completion", 16, |app| type_text(app, "/se"));
}

#[test]
fn dialogs() {
    let dialog = |req: DialogRequest| {
        move |app: &mut App| {
            let (tx, _rx) = tokio::sync::oneshot::channel();
            std::mem::forget(_rx);
            app.update(Update::Ui(UiCall::Dialog(req.clone(), tx)));
        }
    };
    screens(
        "dialog_select",
        20,
        dialog(DialogRequest::Select {
            title: "Pick a color".into(),
            options: vec!["red".into(), "green".into(), "blue".into()],
        }),
    );
    screens(
        "dialog_confirm",
        20,
        dialog(DialogRequest::Confirm { title: "Run it?".into(), message: "rm -rf build".into() }),
    );
    screens(
        "dialog_input",
        20,
        dialog(DialogRequest::Input { title: "Your name".into(), placeholder: Some("type here".into()) }),
    );
    screens(
        "dialog_editor",
        20,
        dialog(DialogRequest::Editor { title: "Notes".into(), prefill: Some("line one\nline two".into()) }),
    );
    screens("dialog_settings", 22, |app| {
        type_text(app, "/settings");
        app.key(&ratatui::crossterm::event::KeyEvent::new(
            ratatui::crossterm::event::KeyCode::Enter,
            ratatui::crossterm::event::KeyModifiers::NONE,
        ));
    });
    screens("dialog_model_picker", 22, |app| {
        app.key(&ratatui::crossterm::event::KeyEvent::new(
            ratatui::crossterm::event::KeyCode::Char('l'),
            ratatui::crossterm::event::KeyModifiers::CONTROL,
        ));
    });
}

#[test]
fn trust_dialogs() {
    let theme = Theme::dark(true);
    let keys = Keybindings::defaults();
    let cwd = Path::new("/home/u/project");
    let options = pi_config::trust::trust_options(cwd, true);
    let title = pi_config::text::trust_prompt_title(cwd);
    for w in WIDTHS {
        let mut d = trust::startup(&title, &options);
        let lines = d.lines(w as usize, &DialogCtx { theme: &theme, keys: &keys });
        insta::assert_snapshot!(format!("trust_startup_{w}"), draw(&lines, w));
    }
    // A fixed folder: its name is part of the picture.
    let root = Path::new("/tmp/pi-tui-snapshot-trust");
    let _ = std::fs::remove_dir_all(root);
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let store = pi_config::TrustStore::new(&root.join("agent"));
    store.set(root, Some(true)).unwrap();
    for w in WIDTHS {
        let (mut d, opts): (SelectDialog, _) = trust::command(&store, &project, true).unwrap();
        assert_eq!(opts.len(), 3);
        let lines = d.lines(w as usize, &DialogCtx { theme: &theme, keys: &keys });
        insta::assert_snapshot!(format!("trust_command_{w}"), draw(&lines, w));
    }
}

#[test]
fn the_footer() {
    let theme = Theme::dark(true);
    let model = ModelInfo {
        provider: "openai".into(),
        id: "gpt-5".into(),
        name: "GPT-5".into(),
        reasoning: true,
        context_window: 400_000,
    };
    let mut totals = Totals::default();
    totals.add(&pi_ai::Usage {
        input: 12_345,
        output: 2_345,
        cache_read: 40_000,
        cache_write: 0,
        total_tokens: 54_690,
        ..Default::default()
    });
    totals.cost = 0.0421;
    let mut statuses = BTreeMap::new();
    statuses.insert("lint".to_string(), "lint: ok".to_string());
    for w in WIDTHS {
        let data = FooterData {
            cwd: Path::new("/home/u/src/project"),
            home: Some(Path::new("/home/u")),
            branch: Some("main"),
            session_name: Some("refactor"),
            totals: &totals,
            model: &model,
            thinking: Some("high"),
            providers: 2,
            statuses: &statuses,
            auto_compact: true,
        };
        let lines = pi_tui::footer::render(&data, w as usize, &theme);
        insta::assert_snapshot!(format!("footer_{w}"), draw(&lines, w));
    }
}
