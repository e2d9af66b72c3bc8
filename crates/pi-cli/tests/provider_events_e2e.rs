//! End-to-end: the provider-level events (`context_with_system`,
//! `before_provider_headers`, `before_provider_request`,
//! `after_provider_response`, `provider_stream_event`) reach an extension
//! through the `pi` binary and change the request as the reference's do.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn};

fn run(s: &Scratch, mode: &str) -> (Output, String) {
    let ext = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../pi-ext/tests/fixtures/provider-events.ts");
    let log = s.work.join("provider.log");
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", ext.to_str().unwrap(), "hi"])
        .env("PROVIDER_LOG", &log)
        .env("PROVIDER_MODE", mode)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out, std::fs::read_to_string(&log).unwrap_or_default())
}

#[test]
fn provider_events_change_the_request_and_hear_the_answer() {
    let server = MockServer::start(vec![Turn::text("hello")]);
    let s = Scratch::new(&server);
    let (out, log) = run(&s, "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hello");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "context_with_system system,user sections=preamble,tools,rules,docs,cwd", "{log}");
    assert_eq!(lines[1], "before_provider_headers {}", "{log}");
    assert_eq!(lines[2], "before_provider_request model=mock-1", "{log}");
    assert_eq!(lines[3], "before_provider_request temperature=0.5", "{log}");
    assert_eq!(lines[4], "after_provider_response 200 text/event-stream", "{log}");
    assert!(lines.len() > 6, "{log}");
    assert!(lines[5..].iter().all(|l| *l == "provider_stream_event mock/mock-1 openai-completions object"), "{log}");
    // The second payload handler's failure is reported; the request still goes.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("second handler fails"), "{stderr}");
    let request = &server.requests()[0];
    assert_eq!(request.body["temperature"], serde_json::json!(0.5));
    let header = |n: &str| request.headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    assert_eq!(header("x-added").as_deref(), Some("1"));
    assert_eq!(header("authorization"), None, "a null header is deleted");
}

#[test]
fn context_with_system_owns_the_prompt_and_tools_of_the_request() {
    let server = MockServer::start(vec![Turn::text("hello")]);
    let s = Scratch::new(&server);
    let (out, _) = run(&s, "system");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let body = &server.requests()[0].body;
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], "EDITED");
    let tools: Vec<&str> =
        body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["read"]);

    // Without its leading system message the request has no prompt and no
    // tools, and the handler is told (the reference's words).
    let server = MockServer::start(vec![Turn::text("hello")]);
    let s = Scratch::new(&server);
    let (out, _) = run(&s, "drop");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Handler removed the leading system message"));
    let body = &server.requests()[0].body;
    assert_eq!(body["messages"][0]["role"], "user");
    assert!(body.get("tools").is_none_or(|t| t.as_array().is_some_and(Vec::is_empty)), "{body}");
}
