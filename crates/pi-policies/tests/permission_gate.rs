//! `permission-gate` through the dispatcher: dangerous commands are refused
//! without a UI, asked about with one, and the reference's texts reach the
//! model.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::sync::Arc;

use common::{Asked, FakeUi, assert_blocked, assert_ran, call, dispatcher, nested};
use pi_policies::{Approver, PolicyOptions, builtin};
use serde_json::json;

fn gate(cwd: &std::path::Path, ui: Option<Arc<dyn Approver>>) -> pi_agent::Dispatcher {
    let opts = PolicyOptions { cwd: cwd.to_path_buf(), ui };
    dispatcher(builtin("permission-gate", opts).unwrap())
}

fn victim(dir: &std::path::Path) -> std::path::PathBuf {
    let v = dir.join("victim");
    std::fs::create_dir_all(v.join("inner")).unwrap();
    std::fs::write(v.join("inner/f.txt"), "keep me").unwrap();
    v
}

#[tokio::test]
async fn without_ui_dangerous_commands_are_blocked_and_do_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let v = victim(dir.path());
    let d = gate(dir.path(), None);
    for cmd in [
        "rm -rf victim",
        "rm -r victim",
        "rm -fr victim",
        "rm -f -r victim",
        "rm victim -R",
        "sudo true",
        "chmod 777 victim",
    ] {
        let f = call(&d, dir.path(), "bash", json!({ "command": cmd })).await;
        assert_blocked(&f, "Dangerous command blocked (no UI for confirmation)");
        assert!(v.join("inner/f.txt").exists(), "{cmd} ran");
    }
    let f = call(&d, dir.path(), "powershell", json!({ "command": "rm -r victim" })).await;
    assert_blocked(&f, "Dangerous command blocked (no UI for confirmation)");
}

#[tokio::test]
async fn harmless_commands_and_other_tools_pass() {
    let dir = tempfile::tempdir().unwrap();
    let v = victim(dir.path());
    let d = gate(dir.path(), None);
    let f = call(&d, dir.path(), "bash", json!({ "command": "rm victim/inner/f.txt && echo gone" })).await;
    assert_ran(&f);
    assert_eq!(f.result.text_content(), "gone\n");
    assert!(!v.join("inner/f.txt").exists());
    // Only the shell tools are looked at.
    let f = call(&d, dir.path(), "write", json!({ "path": "sudo.txt", "content": "rm -rf /" })).await;
    assert_ran(&f);
}

#[tokio::test]
async fn with_ui_yes_runs_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let v = victim(dir.path());
    let ui = FakeUi::new(false, Some("Yes"));
    let d = gate(dir.path(), Some(ui.clone()));
    let f = call(&d, dir.path(), "bash", json!({ "command": "rm -rf victim" })).await;
    assert_ran(&f);
    assert!(!v.exists());
    assert_eq!(
        ui.asked(),
        vec![Asked::Select(
            "⚠️ Dangerous command:\n\n  rm -rf victim\n\nAllow?".into(),
            vec!["Yes".into(), "No".into()]
        )]
    );
}

#[tokio::test]
async fn with_ui_anything_but_yes_blocks() {
    for answer in [Some("No"), None, Some("yes")] {
        let dir = tempfile::tempdir().unwrap();
        let v = victim(dir.path());
        let ui = FakeUi::new(true, answer);
        let d = gate(dir.path(), Some(ui.clone()));
        let f = call(&d, dir.path(), "bash", json!({ "command": "rm -rf victim" })).await;
        assert_blocked(&f, "Blocked by user");
        assert!(v.join("inner/f.txt").exists());
        assert_eq!(ui.asked().len(), 1);
    }
}

#[tokio::test]
async fn harmless_commands_do_not_ask() {
    let dir = tempfile::tempdir().unwrap();
    let ui = FakeUi::new(false, None);
    let d = gate(dir.path(), Some(ui.clone()));
    assert_ran(&call(&d, dir.path(), "bash", json!({ "command": "echo hi" })).await);
    assert!(ui.asked().is_empty());
}

#[tokio::test]
async fn nested_calls_are_gated_too() {
    let dir = tempfile::tempdir().unwrap();
    let v = victim(dir.path());
    let d = gate(dir.path(), None);
    let f = nested(&d, dir.path(), "bash", json!({ "command": "sudo rm -rf victim" })).await;
    assert_blocked(&f, "Dangerous command blocked (no UI for confirmation)");
    assert!(v.exists());
}
