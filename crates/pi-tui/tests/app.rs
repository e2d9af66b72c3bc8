#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! The UI's behaviour without a terminal: keys in, requests and screens out.

use std::path::PathBuf;

use pi_agent::AgentEvent;
use pi_tui::host::{Controls, DialogAnswer, DialogRequest, ModelInfo, Request, UiCall, UiHandle, Update};
use pi_tui::keys::Keybindings;
use pi_tui::theme::{Theme, ThemeCatalog};
use pi_tui::{App, Options, ScreenMode};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn model(id: &str, reasoning: bool) -> ModelInfo {
    ModelInfo { provider: "mock".into(), id: id.into(), name: id.into(), reasoning, context_window: 1000 }
}

fn app_with(controls: Controls) -> App {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::mem::forget(rx);
    App::new(Options {
        mode: ScreenMode::Fullscreen,
        theme: Theme::dark(true),
        theme_name: "dark".into(),
        themes: ThemeCatalog::load(&[], &[]),
        truecolor: true,
        keys: Keybindings::defaults(),
        cwd: PathBuf::from("/nonexistent/project"),
        home: None,
        agent_dir: PathBuf::from("/nonexistent/agent"),
        version: "0.1.0".into(),
        header_more: Vec::new(),
        models: vec![model("a", false), model("b", true)],
        cycle: Vec::new(),
        model: model("a", false),
        thinking: None,
        controls,
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
    })
}

fn key(app: &mut App, code: KeyCode, m: KeyModifiers) {
    app.key(&KeyEvent::new(code, m));
}

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

fn enter(app: &mut App) {
    key(app, KeyCode::Enter, KeyModifiers::NONE);
}

fn screen(app: &mut App) -> String {
    app.screen(80, 24).iter().map(pi_tui::lines::plain).collect::<Vec<_>>().join("\n")
}

#[test]
fn enter_sends_then_steers_and_alt_enter_queues() {
    let controls = Controls::default();
    let mut app = app_with(controls.clone());
    assert_eq!(app.take_requests(), [Request::ListFiles]);
    typed(&mut app, "hello");
    enter(&mut app);
    assert_eq!(app.take_requests(), [Request::Prompt("hello".into())]);
    app.update(Update::Agent(Box::new(AgentEvent::AgentStart)));
    typed(&mut app, "steer");
    enter(&mut app);
    typed(&mut app, "later");
    key(&mut app, KeyCode::Enter, KeyModifiers::ALT);
    assert!(app.take_requests().is_empty());
    assert_eq!(controls.queued(), (vec!["steer".to_string()], vec!["later".to_string()]));
    let s = screen(&mut app);
    assert!(s.contains("Steering: steer") && s.contains("Follow-up: later") && s.contains("Working"), "{s}");
    // Escape: the queue goes back to the editor and the run is aborted.
    typed(&mut app, "draft");
    key(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(app.editor.text(), "steer\n\nlater\n\ndraft");
    assert_eq!(controls.queued(), (vec![], vec![]));
}

#[test]
fn user_commands_and_slash_commands_go_to_the_host() {
    let mut app = app_with(Controls::default());
    app.take_requests();
    typed(&mut app, "!!ls");
    enter(&mut app);
    assert_eq!(app.take_requests(), [Request::Bash { command: "ls".into(), exclude: true }]);
    app.update(Update::BashOutput("a\x1b]0;t\x07b\n".into()));
    app.update(Update::BashDone { exit_code: Some(2), cancelled: false, full_output_path: None });
    let s = screen(&mut app);
    assert!(s.contains("$ ls") && s.contains(" ab") && s.contains("Exit code 2"), "{s}");
    app.update(Update::Done);
    typed(&mut app, "/reload");
    enter(&mut app);
    assert_eq!(app.take_requests(), [Request::Command { name: "reload".into(), args: String::new() }]);
}

#[test]
fn models_and_thinking() {
    let mut app = app_with(Controls::default());
    app.take_requests();
    key(&mut app, KeyCode::Char('p'), KeyModifiers::CONTROL);
    assert_eq!(app.take_requests(), [Request::SetModel { provider: "mock".into(), id: "b".into(), save: false }]);
    app.update(Update::Done);
    key(&mut app, KeyCode::BackTab, KeyModifiers::SHIFT);
    assert!(app.take_requests().is_empty(), "model a does not reason");
    app.update(Update::Model(model("b", true)));
    key(&mut app, KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(app.take_requests(), [Request::SetThinking("minimal".into())]);
    typed(&mut app, "/model mock/a");
    enter(&mut app);
    assert_eq!(app.take_requests(), [Request::SetModel { provider: "mock".into(), id: "a".into(), save: false }]);
}

#[test]
fn an_extension_dialog_answers_through_its_channel() {
    let mut app = app_with(Controls::default());
    let (tx, mut rx) = tokio::sync::oneshot::channel();
    let req = DialogRequest::Select { title: "Pick".into(), options: vec!["x".into(), "y".into()] };
    app.update(Update::Ui(UiCall::Dialog(req, tx)));
    assert!(screen(&mut app).contains("→ x"));
    key(&mut app, KeyCode::Down, KeyModifiers::NONE);
    enter(&mut app);
    assert_eq!(rx.try_recv().unwrap(), DialogAnswer::Value("y".into()));
    let (tx, mut rx) = tokio::sync::oneshot::channel();
    app.update(Update::Ui(UiCall::Dialog(
        DialogRequest::Confirm { title: "Sure?".into(), message: String::new() },
        tx,
    )));
    key(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(rx.try_recv().unwrap(), DialogAnswer::Confirmed(false));
}

#[test]
fn ctrl_c_clears_then_quits_and_ctrl_d_quits_when_empty() {
    let mut app = app_with(Controls::default());
    typed(&mut app, "text");
    key(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL);
    assert!(!app.quit, "ctrl+d deletes while there is text");
    key(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.editor.is_empty() && !app.quit);
    key(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.quit);
    let mut app = app_with(Controls::default());
    key(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL);
    assert!(app.quit);
}

#[test]
fn statuses_widgets_and_notifications_from_extensions() {
    let mut app = app_with(Controls::default());
    app.update(Update::Ui(UiCall::Status("k".into(), Some("build \x1b[2Jok".into()))));
    app.update(Update::Ui(UiCall::Widget(
        "w".into(),
        Some(vec!["\x1b[1mwidget\x1b[0m line".into()]),
        pi_tui::host::WidgetPlace::Above,
    )));
    app.update(Update::Ui(UiCall::Notify(pi_tui::transcript::Level::Warning, "careful".into())));
    let s = screen(&mut app);
    assert!(s.contains("build ok") && s.contains("widget line") && s.contains("Warning: careful"), "{s}");
    assert!(!s.contains('\x1b'));
}

#[test]
fn scrolling_and_search_in_fullscreen() {
    let mut app = app_with(Controls::default());
    for i in 0..60 {
        app.update(Update::Notice(pi_tui::transcript::Level::Info, format!("note {i}")));
    }
    let s = screen(&mut app);
    assert!(s.contains("note 59") && !s.contains("note 10\n"), "follows the end");
    key(&mut app, KeyCode::Home, KeyModifiers::CONTROL);
    let s = screen(&mut app);
    assert!(s.contains("pi  v0.1.0") && s.contains("Jump to latest message"), "{s}");
    key(&mut app, KeyCode::End, KeyModifiers::CONTROL);
    assert!(screen(&mut app).contains("note 59"));
    key(&mut app, KeyCode::Char('f'), KeyModifiers::CONTROL | KeyModifiers::SHIFT);
    typed(&mut app, "note 3");
    let s = screen(&mut app);
    assert!(s.contains("Search: note 3") && s.contains("1/11"), "{s}");
    key(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    assert!(!screen(&mut app).contains("Search:"));
}
