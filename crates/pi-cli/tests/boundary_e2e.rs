//! End-to-end: the turn boundaries `turn_end` and `agent_before_settle`
//! take what their handlers propose, as the reference does: entries
//! appended in order (a context edit changes what the model sees), one more
//! request on `continue: true`, a bad proposal reported and left out.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::Value;

fn run(server: &MockServer, mode: &str, extra: &[&str]) -> (Output, String, Scratch) {
    let s = Scratch::new(server);
    let ext = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../pi-ext/tests/fixtures/boundary.ts");
    let log = s.work.join("boundary.log");
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--model", "mock/mock-1", "-e", ext.to_str().unwrap()])
        .args(extra)
        .arg("hi")
        .env("BOUNDARY_LOG", &log)
        .env("BOUNDARY_MODE", mode)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out, std::fs::read_to_string(&log).unwrap_or_default(), s)
}

/// Role and text of each message of request `n` after the system prompt.
fn sent(server: &MockServer, n: usize) -> Vec<(String, String)> {
    let body = &server.requests()[n].body;
    body["messages"].as_array().unwrap()[1..]
        .iter()
        .map(|m| {
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
                _ => String::new(),
            };
            (m["role"].as_str().unwrap().to_string(), text)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn turn_end_can_replace_the_answer_and_ask_for_one_more_request() {
    let server = MockServer::start(vec![Turn::text("first"), Turn::text("second")]);
    let (out, log, s) = run(&server, "replace", &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "second");
    assert_eq!(server.requests().len(), 2);
    // The edited answer is gone; the custom message goes as a user message.
    assert_eq!(sent(&server, 1), pairs(&[("user", "hi"), ("user", "Answer again.")]));
    assert!(log.contains("turn_end seen entries=2 continue=true\n"), "{log}");
    assert!(log.contains("turn_end #1 completed"), "{log}");
    // The session records the edit and the custom message.
    let session = std::fs::read_dir(s.home.join(".pi/agent/sessions")).unwrap().next().unwrap().unwrap().path();
    let file = std::fs::read_dir(session).unwrap().next().unwrap().unwrap().path();
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(r#""type":"context_edit""#), "{text}");
    assert!(text.contains(r#""type":"custom_message""#), "{text}");
}

#[test]
fn agent_before_settle_continues_with_a_new_run() {
    let server = MockServer::start(vec![Turn::text("first"), Turn::text("second")]);
    let (out, log, _s) = run(&server, "settle", &["--no-session"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "second");
    assert_eq!(
        sent(&server, 1),
        pairs(&[("user", "hi"), ("assistant", "first"), ("user", "Review the final diff before replying.")])
    );
    // Asked again after the second run; settled once, at the end.
    assert_eq!(log.matches("agent_before_settle completed").count(), 2, "{log}");
    assert_eq!(log.matches("agent_settled").count(), 1, "{log}");
    assert!(log.ends_with("agent_settled\n"), "{log}");
}

#[test]
fn a_bad_proposal_is_reported_and_a_continuation_needs_something_to_answer() {
    let server = MockServer::start(vec![Turn::text("first"), Turn::text("second")]);
    let (out, _log, s) = run(&server, "bad", &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Extension error (<boundary>): turn_end proposed entries were not appended: entry 1"),
        "{stderr}"
    );
    // The conversation ends with the model's answer: nothing to continue from (the reference's words).
    assert!(stderr.contains("turn_end requested continuation without runnable model context"), "{stderr}");
    assert_eq!(server.requests().len(), 1);
    let session = std::fs::read_dir(s.home.join(".pi/agent/sessions")).unwrap().next().unwrap().unwrap().path();
    let file = std::fs::read_dir(session).unwrap().next().unwrap().unwrap().path();
    assert!(!std::fs::read_to_string(file).unwrap().contains("kept?"), "nothing of a bad proposal is appended");

    // A custom entry alone: recorded, no further request.
    let server = MockServer::start(vec![Turn::text("first")]);
    let (out, _log, s) = run(&server, "note", &[]);
    assert!(out.status.success());
    assert_eq!(server.requests().len(), 1);
    let session = std::fs::read_dir(s.home.join(".pi/agent/sessions")).unwrap().next().unwrap().unwrap().path();
    let file = std::fs::read_dir(session).unwrap().next().unwrap().unwrap().path();
    assert!(std::fs::read_to_string(file).unwrap().contains(r#""customType":"note""#));
}
