#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! `/undo` in the terminal UI (B11), under tmux against the mock model: what
//! would change is shown first (declining writes nothing); a
//! file the user changed after the agent's turn is named and the user asked;
//! declining restores nothing; `/undo --force` restores it; with nothing
//! left to undo, it says so.

use crate::tui_support;

use pi_test_support::Turn;
use serde_json::json;
use tui_support::{Scene, have_tmux, idle};

#[test]
fn undo_asks_about_a_file_changed_since_and_restores_when_forced() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![
        Turn::tool("write", json!({"path": "a.txt", "content": "written by the agent\n"})),
        Turn::text("all written"),
    ]);
    s.write("a.txt", "original\n");
    let t = s.start(110, 30, "");
    t.type_text("change a.txt");
    t.keys(&["Enter"]);
    t.wait("the turn", |sc| sc.contains("all written") && idle(sc));
    assert_eq!(std::fs::read_to_string(s.work().join("a.txt")).unwrap(), "written by the agent\n");
    t.type_text("/undo");
    t.keys(&["Enter"]);
    let preview = t.wait_for("Undo the agent's last turn?");
    assert!(preview.contains("a.txt  +1 -1"), "{preview}");
    t.keys(&["Escape"]);
    t.wait_for("Nothing restored.");
    assert_eq!(std::fs::read_to_string(s.work().join("a.txt")).unwrap(), "written by the agent\n");
    s.write("a.txt", "the user's own edit\n");
    t.type_text("/undo");
    t.keys(&["Enter"]);
    t.wait_for("Undo the agent's last turn?");
    t.keys(&["Enter"]); // Yes: then the file changed since is named
    let question = t.wait_for("Restore files changed since the agent's turn?");
    assert!(question.contains("a.txt"), "{question}");
    t.keys(&["Escape"]);
    t.wait_for("Nothing restored.");
    assert_eq!(std::fs::read_to_string(s.work().join("a.txt")).unwrap(), "the user's own edit\n");
    t.type_text("/undo --force");
    t.keys(&["Enter"]);
    t.wait_for("Restored 1 file as they were at checkpoint");
    assert_eq!(std::fs::read_to_string(s.work().join("a.txt")).unwrap(), "original\n");
    t.type_text("/undo");
    t.keys(&["Enter"]);
    t.wait_for("Nothing to undo");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}
