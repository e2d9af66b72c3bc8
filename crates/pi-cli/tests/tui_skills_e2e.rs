#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! Prompt templates and skills in the terminal UI (under tmux, against the
//! mock model): they are offered in `/` completion with their descriptions,
//! and `/template args` and `/skill:name args` reach the model expanded.

use crate::tui_support;

use pi_test_support::Turn;
use tui_support::{Scene, have_tmux, idle};

fn user_texts(s: &Scene) -> Vec<String> {
    s.server
        .requests()
        .iter()
        .map(|r| {
            let users: Vec<&serde_json::Value> =
                r.body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "user").collect();
            let last = users.last().unwrap();
            match &last["content"] {
                serde_json::Value::String(t) => t.clone(),
                v => v.as_array().unwrap().iter().filter_map(|p| p["text"].as_str()).collect(),
            }
        })
        .collect()
}

#[test]
fn templates_and_skills_complete_and_expand() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::text("first done"), Turn::text("second done")]);
    let prompts = s.agent_dir().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(prompts.join("rev.md"), "---\ndescription: Review things\n---\nReview $1 and ${@:2}").unwrap();
    let skill = s.agent_dir().join("skills/deploy");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), "---\nname: deploy\ndescription: Ship it\n---\nSteps.").unwrap();
    let t = s.start(100, 30, "");
    t.type_text("/re");
    t.wait("the completion", |sc| sc.contains("Review things"));
    t.type_text("v \"a b\" c d");
    t.keys(&["Enter"]);
    t.wait("the first answer", |sc| sc.contains("first done") && idle(sc));
    t.type_text("/skill:dep");
    t.wait("the skill in completion", |sc| sc.contains("Ship it"));
    t.type_text("loy now");
    t.keys(&["Enter"]);
    t.wait("the second answer", |sc| sc.contains("second done") && idle(sc));
    let texts = user_texts(&s);
    assert_eq!(texts[0], "Review a b and c d");
    let file = skill.join("SKILL.md");
    assert_eq!(
        texts[1],
        format!(
            "<skill name=\"deploy\" location=\"{}\">\nReferences are relative to {}.\n\nSteps.\n</skill>\n\nnow",
            file.display(),
            skill.display()
        )
    );
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}
