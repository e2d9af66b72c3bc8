#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! The terminal UI end to end: `pi` under tmux against the mock model, keys
//! sent with `send-keys`, the screen read with `capture-pane`.

use crate::tui_support;

use pi_test_support::Turn;
use serde_json::json;
use tui_support::{Scene, canonical, have_tmux, idle, messages_of};

fn edit_script() -> Vec<Turn> {
    vec![
        Turn::tool("edit", json!({"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]})),
        Turn::text("Changed **two**."),
    ]
}

#[test]
fn a_prompt_streams_a_tool_call_and_a_diff() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(edit_script());
    s.write("a.txt", "one\ntwo\nthree\n");
    let t = s.start(100, 30, "");
    t.type_text("change it");
    t.keys(&["Enter"]);
    let screen = t.wait("the answer", |s| s.contains("Changed two.") && idle(s));
    assert!(screen.contains(" change it"), "{screen}");
    assert!(screen.contains(" edit a.txt"), "{screen}");
    for line in ["  1 one", " -2 two", " +2 TWO", "  3 three"] {
        assert!(screen.lines().any(|l| l == line), "{line:?} missing:\n{screen}");
    }
    assert!(screen.contains("↑20 ↓10"), "usage in the footer:\n{screen}");
    assert_eq!(std::fs::read_to_string(s.work().join("a.txt")).unwrap(), "one\nTWO\nthree\n");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn the_regular_mode_prints_into_the_scrollback() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(edit_script());
    s.write("a.txt", "one\ntwo\nthree\n");
    let t = s.start(80, 12, "--tui-mode regular");
    t.type_text("change it");
    t.keys(&["Enter"]);
    t.wait("the answer", |s| s.contains("Changed two.") && idle(s));
    let history = t.history();
    for line in [" change it", " edit a.txt", " -2 two", " +2 TWO", " Changed two."] {
        assert!(history.lines().any(|l| l == line), "{line:?} missing:\n{history}");
    }
    assert_eq!(history.matches(" edit a.txt").count(), 1, "printed once:\n{history}");
    // A narrower terminal: everything is printed again at the new width.
    t.resize(40, 12);
    let screen = t.wait("the reflow", |s| s.lines().any(|l| l.starts_with("─") && l.chars().count() == 40));
    assert!(screen.lines().all(|l| l.chars().count() <= 40), "{screen}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn escape_aborts_a_running_bash() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::tool("bash", json!({"command": "echo started; sleep 30; echo fin$((1+1))ished"}))]);
    let t = s.start(100, 30, "");
    t.type_text("run");
    t.keys(&["Enter"]);
    t.wait_for("started");
    let asked = std::time::Instant::now();
    t.keys(&["Escape"]);
    let screen = t.wait("the abort", |s| s.contains("Operation aborted") && idle(s));
    assert!(asked.elapsed() < std::time::Duration::from_secs(10), "stopped quickly");
    assert!(!screen.contains("fin2ished"), "{screen}");
    assert!(screen.contains("Command aborted") || screen.contains("aborted"), "{screen}");
    assert_eq!(s.server.requests().len(), 1, "no request after the abort");
}

#[test]
fn enter_steers_and_alt_enter_queues_a_follow_up() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![
        Turn::tool("bash", json!({"command": "sleep 3; echo slept"})),
        Turn::text("steered answer"),
        Turn::text("follow-up answer"),
    ]);
    let t = s.start(100, 30, "");
    t.type_text("start");
    t.keys(&["Enter"]);
    t.wait_for("Working");
    t.type_text("steer me");
    t.keys(&["Enter"]);
    t.type_text("later please");
    t.keys(&["M-Enter"]);
    let queued = t.wait("the queue", |s| s.contains("Steering: steer me") && s.contains("Follow-up: later please"));
    assert!(queued.contains("to edit all queued messages"), "{queued}");
    t.wait("both answers", |s| s.contains("follow-up answer") && idle(s));
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 3, "tool turn, steered turn, follow-up turn");
    let users = |i: usize| -> Vec<String> {
        reqs[i].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].to_string())
            .collect()
    };
    assert!(users(1).last().unwrap().contains("steer me"), "{:?}", users(1));
    assert!(!users(1).iter().any(|u| u.contains("later please")));
    assert!(users(2).last().unwrap().contains("later please"), "{:?}", users(2));
}

/// As the reference's interactive mode: a message typed while a run streams
/// goes through the `input` handlers before it is queued (one they handle is
/// not queued), with `source: "interactive"`.
#[test]
fn a_message_typed_while_a_run_streams_meets_the_input_handlers_first() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![
        Turn::tool("bash", json!({"command": "sleep 3; echo slept"})),
        Turn::text("steered answer"),
        Turn::text("spare"),
    ]);
    let t = s.start(100, 30, &format!("-e {}", crate::common::ext_fixture("commands.ts")));
    t.type_text("start");
    t.keys(&["Enter"]);
    t.wait_for("Working");
    t.type_text("ping");
    t.keys(&["Enter"]);
    t.type_text("?q steer me");
    t.keys(&["Enter"]);
    t.wait("the queue", |s| s.contains("Steering: Brief (interactive): steer me"));
    t.wait("the answer", |s| s.contains("steered answer") && idle(s));
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 2, "the handled message sent nothing");
    assert_eq!(pi_test_support::user_texts(&reqs[1].body), ["start", "Brief (interactive): steer me"]);
}

/// Start in a folder with `.pi/settings.json`, answer the trust question
/// with the option `downs` below the first, quit; the screen after start-up.
fn trust_answer(downs: usize) -> (Scene, String) {
    let s = Scene::new(vec![]);
    s.write(".pi/settings.json", "{}");
    let t = s.start(100, 30, "");
    let q = t.wait_for("Trust project folder?");
    assert!(q.contains(&canonical(&s.work())), "{q}");
    assert!(q.contains("This allows pi to load .pi settings and resources"), "{q}");
    for o in [
        "Trust",
        "Trust parent folder (",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
    ] {
        assert!(q.contains(o), "{o} missing:\n{q}");
    }
    for _ in 0..downs {
        t.keys(&["Down"]);
    }
    t.keys(&["Enter"]);
    let screen = t.wait("the UI after trust", |s| s.contains("mock-1") && idle(s));
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
    (s, screen)
}

fn trust_json(s: &Scene) -> serde_json::Value {
    std::fs::read_to_string(s.agent_dir().join("trust.json"))
        .map(|b| serde_json::from_str(&b).unwrap())
        .unwrap_or(json!({}))
}

const UNTRUSTED: &str = "This project is not trusted.";

#[test]
fn trust_dialog_trust_saves_the_folder() {
    if !have_tmux() {
        return;
    }
    let (s, screen) = trust_answer(0);
    assert_eq!(trust_json(&s), json!({ canonical(&s.work()): true }));
    assert!(!screen.contains(UNTRUSTED), "{screen}");
}

#[test]
fn trust_dialog_parent_saves_the_parent() {
    if !have_tmux() {
        return;
    }
    let (s, screen) = trust_answer(1);
    assert_eq!(trust_json(&s), json!({ canonical(s.root.path()): true }));
    assert!(!screen.contains(UNTRUSTED), "{screen}");
}

#[test]
fn trust_dialog_session_only_saves_nothing() {
    if !have_tmux() {
        return;
    }
    let (s, screen) = trust_answer(2);
    assert_eq!(trust_json(&s), json!({}));
    assert!(!screen.contains(UNTRUSTED), "{screen}");
}

#[test]
fn trust_dialog_do_not_trust_saves_false() {
    if !have_tmux() {
        return;
    }
    let (s, screen) = trust_answer(3);
    assert_eq!(trust_json(&s), json!({ canonical(&s.work()): false }));
    assert!(screen.contains(UNTRUSTED), "{screen}");
}

#[test]
fn trust_dialog_do_not_trust_this_session_saves_nothing() {
    if !have_tmux() {
        return;
    }
    let (s, screen) = trust_answer(4);
    assert_eq!(trust_json(&s), json!({}));
    assert!(screen.contains(UNTRUSTED), "{screen}");
}

#[test]
fn slash_trust_saves_a_decision_for_later_runs() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, "");
    t.type_text("/trust");
    t.keys(&["Enter"]);
    let d = t.wait_for("Project trust");
    assert!(d.contains("Saved decision: none") && d.contains("Current session: trusted"), "{d}");
    assert!(!d.contains("this session only"), "three options only:\n{d}");
    t.keys(&["Down", "Down", "Enter"]);
    t.wait_for("Saved trust decision: untrusted. Restart pi for this to take effect.");
    assert_eq!(trust_json(&s), json!({ canonical(&s.work()): false }));
}

#[test]
fn slash_model_switches_the_model() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::text("from two")]);
    let t = s.start(100, 30, "");
    t.type_text("/model mock-2");
    t.keys(&["Enter"]);
    t.wait("the footer", |s| s.contains("mock-2 • thinking off"));
    t.type_text("hello");
    t.keys(&["Enter"]);
    t.wait("the answer", |s| s.contains("from two") && idle(s));
    assert_eq!(s.server.requests()[0].body["model"], "mock-2");
    // The picker: ctrl+l, type to filter, enter.
    t.keys(&["C-l"]);
    t.wait_for("Choose a model");
    t.type_text("mock-1");
    t.keys(&["Enter"]);
    t.wait("the footer", |s| s.lines().last().is_some_and(|l| l.trim_end().ends_with("mock-1")));
    // Both choices are recorded in the session after the start's, as RPC's
    // are (and the reference's); the terminal UI used to record none.
    t.type_text("/export out.jsonl");
    t.keys(&["Enter"]);
    t.wait_for("Session exported to:");
    let exported = std::fs::read_to_string(s.work().join("out.jsonl")).unwrap();
    let chosen: Vec<String> = exported
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["type"] == "model_change")
        .map(|e| e["modelId"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(chosen, ["mock-1", "mock-2", "mock-1"], "{exported}");
}

#[test]
fn an_extension_select_dialog_is_answered_with_keys() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::tool("pick", json!({})), Turn::text("thanks")]);
    s.write(
        "pick.ts",
        r#"export default function (pi: any) {
  pi.registerTool({
    name: "pick", label: "Pick", description: "Pick a color",
    parameters: { type: "object", properties: {} },
    async execute(_id: string, _p: any, _s: any, _u: any, ctx: any) {
      const c = await ctx.ui.select("Pick a color", ["red", "green", "blue"]);
      return { content: [{ type: "text", text: `picked ${c}` }] };
    },
  });
}
"#,
    );
    let t = s.start(100, 30, "-e pick.ts");
    t.type_text("choose");
    t.keys(&["Enter"]);
    let d = t.wait_for("Pick a color");
    assert!(d.contains("→ red"), "{d}");
    t.keys(&["Down", "Enter"]);
    t.wait("the answer", |s| s.contains("thanks") && idle(s));
    assert!(
        messages_of(&s.server, "tool").iter().any(|m| m.contains("picked green")),
        "{:?}",
        messages_of(&s.server, "tool")
    );
}

#[test]
fn resizing_reflows_without_a_garbled_screen() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(edit_script());
    s.write("a.txt", "one\ntwo\nthree\n");
    let t = s.start(120, 40, "");
    t.type_text("change it");
    t.keys(&["Enter"]);
    let before = t.wait("the answer", |s| s.contains("Changed two.") && idle(s));
    t.resize(40, 10);
    // The whole frame for the new size (a capture may catch one half drawn).
    let small = t.wait("the small screen", |s| {
        s.lines().filter(|l| l.starts_with('─')).count() == 2
            && s.lines().all(|l| l.chars().count() <= 40)
            && s.contains("mock-1")
            && s.contains("Changed two.")
    });
    assert!(small.lines().filter(|l| !l.is_empty()).count() <= 10, "{small}");
    t.resize(120, 40);
    // The same screen as before, once the frame for the new size is drawn.
    t.wait("the screen as before", |s| s == before);
}

#[test]
fn tool_and_model_output_cannot_drive_the_terminal() {
    if !have_tmux() {
        return;
    }
    let evil = r"printf '\033[2J\033[H\033]52;c;SGVsbG8=\007\033]0;PWNED\007\033[31mRED\033[0m visible\n'";
    let s = Scene::new(vec![
        Turn::tool("bash", json!({"command": evil})),
        Turn::text("done \u{1b}]0;PWNED2\u{7} \u{1b}]52;c;SGk=\u{7}\u{1b}[2J end"),
    ]);
    let t = s.start(100, 30, "");
    let title = t.display("#{pane_title}");
    t.type_text("go");
    t.keys(&["Enter"]);
    let screen = t.wait("the answer", |s| s.contains("done") && s.contains("end") && idle(s));
    assert!(screen.contains("RED visible"), "the text stays:\n{screen}");
    assert!(screen.contains("pi  v"), "the screen was not cleared:\n{screen}");
    assert_eq!(t.display("#{pane_title}"), title, "the title did not change");
    assert!(!t.display("#{pane_title}").contains("PWNED"));
    assert_eq!(t.buffers(), "", "nothing reached the clipboard");
}

fn declared(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["function"]["name"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn slash_reload_activates_newly_default_tools() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::text("one"), Turn::text("two")]);
    let settings = |tools: serde_json::Value| {
        std::fs::write(s.agent_dir().join("settings.json"), json!({"defaultTools": tools}).to_string()).unwrap()
    };
    settings(json!(["read", "bash", "edit"]));
    let t = s.start(100, 30, "-t -bash");
    t.type_text("first");
    t.keys(&["Enter"]);
    t.wait("the first answer", |s| s.contains("one") && idle(s));
    settings(json!(["read", "bash", "edit", "grep"]));
    t.type_text("/reload");
    t.keys(&["Enter"]);
    t.wait_for("Reloaded keybindings");
    t.type_text("second");
    t.keys(&["Enter"]);
    t.wait("the second answer", |s| s.contains("two") && idle(s));
    let reqs = s.server.requests();
    assert_eq!(declared(&reqs[0].body), ["read", "edit"]);
    assert_eq!(declared(&reqs[1].body), ["read", "edit", "grep"]);
}

#[test]
fn without_a_terminal_on_both_ends_there_is_no_ui() {
    if !have_tmux() {
        return;
    }
    // Standard input a terminal, standard output a file: print mode.
    let s = Scene::new(vec![Turn::text("plain answer")]);
    let out = s.root.path().join("out.txt");
    let command = s.command(&format!("hello > {}", out.display()));
    let t = tui_support::Tmux::start(80, 20, &command);
    t.wait_for("PI-EXIT-0");
    let printed = std::fs::read(&out).unwrap();
    assert_eq!(String::from_utf8_lossy(&printed), "plain answer\n");
    // Neither a terminal: print mode too, nothing but the answer.
    let s = Scene::new(vec![Turn::text("piped answer")]);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pi"))
        .args(["--offline", "--model", "mock/mock-1", "--no-session", "hello"])
        .current_dir(s.work())
        .env("HOME", s.home())
        .env("TMPDIR", s.tmp())
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), "piped answer\n");
}

#[test]
fn a_terminating_signal_gives_the_terminal_back() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(80, 20, "");
    assert_eq!(t.display("#{alternate_on}"), "1", "fullscreen uses the alternate screen");
    let shell = t.display("#{pane_pid}");
    // pi is the shell's child.
    let pi = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            let after = stat.rsplit_once(") ").map(|x| x.1).unwrap_or("");
            stat.contains("(pi)") && after.split_whitespace().nth(1) == Some(shell.as_str())
        })
        .expect("pi's process");
    assert!(std::process::Command::new("kill").args(["-TERM", &pi]).status().unwrap().success());
    t.wait_for("PI-EXIT-143");
    assert_eq!(t.display("#{alternate_on}"), "0", "the normal screen is back");
}

#[test]
fn a_user_command_streams_and_escape_stops_it() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(100, 30, "");
    t.type_text("!echo one; sleep 30");
    t.keys(&["Enter"]);
    t.wait_for(" one");
    t.keys(&["Escape"]);
    let screen = t.wait("the cancel", |s| s.contains("Command cancelled") && idle(s));
    assert!(screen.contains("$ echo one; sleep 30"), "{screen}");
    t.type_text("!!echo two; exit 3");
    t.keys(&["Enter"]);
    t.wait("the exit code", |s| s.contains("Exit code 3"));
}

#[test]
fn slash_compact_name_and_export_act_on_the_session() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![
        Turn::text("first answer"),
        Turn::text("second answer"),
        Turn::text("## Goal\nthe summary"),
        Turn::text("## Turn\nthe prefix"),
    ]);
    std::fs::write(s.agent_dir().join("settings.json"), json!({"compaction": {"keepRecentTokens": 1}}).to_string())
        .unwrap();
    let t = s.start(100, 30, "");
    for prompt in ["one", "two"] {
        t.type_text(prompt);
        t.keys(&["Enter"]);
        t.wait("the answer", |sc| sc.contains(&format!("{prompt}\n")) || idle(sc));
    }
    t.wait("the second answer", |sc| sc.contains("second answer") && idle(sc));
    t.type_text("/compact keep the names");
    t.keys(&["Enter"]);
    let screen = t.wait("the compaction", |sc| sc.contains("Compacted from"));
    assert!(screen.contains("[compaction]"), "{screen}");
    let requests = s.server.requests();
    assert_eq!(requests.len(), 4, "the history and the split turn's start are summarized");
    assert!(requests[2].body.to_string().contains("keep the names"), "the instructions reach the summarizer");
    t.type_text("/name demo");
    t.keys(&["Enter"]);
    t.wait_for("Session name set: demo");
    t.type_text("/export out.jsonl");
    t.keys(&["Enter"]);
    t.wait_for("Session exported to:");
    let exported = std::fs::read_to_string(s.work().join("out.jsonl")).unwrap();
    let kinds: Vec<String> = exported
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(kinds.first().map(String::as_str), Some("session"));
    assert!(kinds.iter().any(|k| k == "compaction"), "{kinds:?}");
    assert!(exported.contains("\"name\":\"demo\""), "{exported}");
    // Nothing new since (the name is not a message): nothing to compact.
    t.type_text("/compact");
    t.keys(&["Enter"]);
    t.wait_for("Compaction failed: Nothing to compact (session too small)");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn slash_clone_and_fork_copy_the_session() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::text("first answer"), Turn::text("second answer")]);
    let t = s.start(100, 30, "");
    t.type_text("/fork");
    t.keys(&["Enter"]);
    t.wait_for("No messages to fork from");
    for prompt in ["one", "two"] {
        t.type_text(prompt);
        t.keys(&["Enter"]);
        t.wait("the answer", |sc| sc.contains(&format!("{prompt}\n")) && idle(sc));
    }
    t.wait("both answers", |sc| sc.contains("second answer") && idle(sc));
    t.type_text("/clone");
    t.keys(&["Enter"]);
    let screen = t.wait_for("Cloned to new session");
    assert!(screen.contains("first answer") && screen.contains("second answer"), "the copy shows it all:\n{screen}");
    t.type_text("/fork");
    t.keys(&["Enter"]);
    t.wait_for("Fork from Message");
    t.keys(&["Down", "Enter"]);
    let screen = t.wait_for("Forked to new session");
    assert!(screen.contains("first answer"), "what came before stays:\n{screen}");
    assert!(!screen.contains("second answer"), "the chosen prompt and after are gone:\n{screen}");
    let editor_has_two = screen.lines().any(|l| l.trim() == "two");
    assert!(editor_has_two, "the prompt is back in the editor:\n{screen}");
    t.keys(&["C-d"]);
}
