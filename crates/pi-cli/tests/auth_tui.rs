#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! `/login` and `/logout` in the terminal UI (under tmux): an API key saved
//! through the dialog, the methods offered for an account provider, and the
//! key removed again.

use crate::tui_support;

use tui_support::{Scene, have_tmux};

#[test]
fn slash_login_saves_a_key_and_slash_logout_removes_it() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    let t = s.start(120, 30, "");
    t.type_text("/login openai");
    t.keys(&["Enter"]);
    t.wait_for("Enter OpenAI API key");
    t.type_text("sk-from-tui");
    t.keys(&["Enter"]);
    t.wait_for("Saved API key for OpenAI.");
    let auth = s.agent_dir().join("auth.json");
    let stored: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&auth).unwrap()).unwrap();
    assert_eq!(stored["openai"], serde_json::json!({"type": "api_key", "key": "sk-from-tui"}));
    t.type_text("/login anthropic");
    t.keys(&["Enter"]);
    let d = t.wait_for("Select Anthropic login method");
    assert!(d.contains("Copy code login (headless)") && d.contains("Enter an API key"), "{d}");
    t.keys(&["Escape"]);
    t.type_text("/logout openai");
    t.keys(&["Enter"]);
    t.wait_for("Removed stored API key for OpenAI.");
    let stored: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&auth).unwrap()).unwrap();
    assert!(stored.get("openai").is_none(), "{stored}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}
