#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! `/tree` in the terminal UI, under tmux against the mock model: the
//! session's entries are listed with the current point marked; choosing an
//! earlier user message moves the conversation there (its text back in the
//! editor) and, because the agent changed files after it, asks whether the
//! files go back too (B11: files and conversation rewound together).

use crate::tui_support;

use pi_test_support::Turn;
use serde_json::json;
use tui_support::{Scene, have_tmux, idle};

#[test]
fn tree_moves_the_conversation_and_brings_the_files_back_when_asked() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![
        Turn::text("hello there"),
        Turn::tool("write", json!({"path": "a.txt", "content": "written by the agent\n"})),
        Turn::text("all written"),
    ]);
    s.write("a.txt", "original\n");
    let t = s.start(110, 30, "");
    t.type_text("say hello");
    t.keys(&["Enter"]);
    t.wait("the first turn", |sc| sc.contains("hello there") && idle(sc));
    t.type_text("change a.txt");
    t.keys(&["Enter"]);
    t.wait("the second turn", |sc| sc.contains("all written") && idle(sc));
    assert_eq!(std::fs::read_to_string(s.work().join("a.txt")).unwrap(), "written by the agent\n");

    t.type_text("/tree");
    t.keys(&["Enter"]);
    let listed = t.wait_for("Session Tree");
    assert!(listed.contains("user: say hello") && listed.contains("user: change a.txt"), "{listed}");
    assert!(listed.contains("← current"), "{listed}");
    assert!(listed.contains("[write]"), "the default view lists tool results: {listed}");
    // The filter switches inside the navigator: user messages only, then back.
    t.keys(&["C-u"]);
    let users = t.wait_for("[user]");
    assert!(!users.contains("[write]") && !users.contains("assistant:"), "{users}");
    assert!(users.contains("user: say hello") && users.contains("user: change a.txt"), "{users}");
    t.keys(&["C-u"]);
    t.wait("the default view again", |sc| sc.contains("[write]") && !sc.contains("[user]"));
    // A label typed for the current row (shift+l): the navigator comes back with it.
    t.keys(&["L"]);
    t.wait_for("Label (empty to remove):");
    t.type_text("checkpoint-one");
    t.keys(&["Enter"]);
    let labelled = t.wait("the label on its row", |sc| sc.contains("[checkpoint-one]") && sc.contains("Session Tree"));
    assert!(labelled.contains("← current"), "{labelled}");
    // Filter to the second prompt and choose it: the conversation goes back to before it.
    t.type_text("change a");
    t.keys(&["Enter"]);
    let question = t.wait_for("Summarize branch?");
    assert!(question.contains("Summarize with custom prompt"), "{question}");
    t.keys(&["Enter"]); // No summary
    let asked = t.wait_for("Restore the files too?");
    assert!(asked.contains("Navigated to selected point"), "{asked}");
    assert!(asked.contains("These files would change:"), "what would change is shown: {asked}");
    t.keys(&["Enter"]); // Yes
    t.wait_for("Restored 1 file as they were at checkpoint");
    assert_eq!(std::fs::read_to_string(s.work().join("a.txt")).unwrap(), "original\n");
    // The chosen prompt is back in the editor, ready to be edited and sent again.
    let screen = t.wait_for("change a.txt");
    assert!(!screen.contains("all written"), "the answer after the chosen point is gone: {screen}");
    t.keys(&["C-c"]); // clears the editor
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn tree_summarizes_the_branch_left_behind_when_asked() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![
        Turn::text("hello there"),
        Turn::tool("read", json!({"path": "notes.txt"})),
        Turn::text("read it"),
        Turn::text("## Goal\nBRANCH-SUMMARY-BODY"),
        Turn::text("answered after the summary"),
    ]);
    s.write("notes.txt", "n\n");
    let t = s.start(110, 30, "");
    t.type_text("say hello");
    t.keys(&["Enter"]);
    t.wait("the first turn", |sc| sc.contains("hello there") && idle(sc));
    t.type_text("read the notes");
    t.keys(&["Enter"]);
    t.wait("the second turn", |sc| sc.contains("read it") && idle(sc));
    t.type_text("/tree");
    t.keys(&["Enter"]);
    t.wait_for("Session Tree");
    // Back to the first answer: the second prompt and what followed are left behind.
    t.type_text("hello there");
    t.keys(&["Enter"]);
    t.wait_for("Summarize branch?");
    t.keys(&["Down", "Enter"]); // Summarize
    t.wait_for("Navigated to selected point");
    let summary_request = s.server.requests()[3].body.to_string();
    assert!(
        summary_request.contains("<conversation>") && summary_request.contains("read the notes"),
        "{summary_request}"
    );
    assert!(summary_request.contains("## Next Steps"), "the summary's sections are asked for: {summary_request}");
    // The conversation goes on from the first answer, with the summary in its context.
    t.type_text("go on");
    t.keys(&["Enter"]);
    t.wait("the next turn", |sc| sc.contains("answered after the summary") && idle(sc));
    let users = tui_support::messages_of(&s.server, "user").join("\n");
    assert!(users.contains("BRANCH-SUMMARY-BODY"), "the summary is in the context: {users}");
    assert!(users.contains("<read-files>") && users.contains("notes.txt"), "the files read are listed: {users}");
    assert!(!users.contains("read the notes"), "the branch left behind is not: {users}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}
