//! End-to-end: what a model's `compat` switches and the credential change in
//! the requests `pi` sends, and the failures it does not retry, through the
//! binary against the mock model server (each request shape as the
//! reference, Pi 1.6.0, sent it for the same `models.json`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

/// A scratch install whose one model, on `api`, has these extra fields
/// (`compat`, `thinkingLevelMap`, …), with retries 10 ms apart.
fn setup(server: &MockServer, api: &str, model_extra: Value) -> Scratch {
    let s = Scratch::new(server);
    server.write_models_json_with(&s.agent_dir(), api, model_extra);
    std::fs::write(s.agent_dir().join("settings.json"), r#"{"retry": {"baseDelayMs": 10}}"#).unwrap();
    s
}

fn run(s: &Scratch, args: &[&str]) -> Output {
    s.pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Replace the key of `models.json` (a subscription token, say).
fn set_key(s: &Scratch, key: &str) {
    let path = s.agent_dir().join("models.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["providers"]["mock"]["apiKey"] = key.into();
    std::fs::write(&path, doc.to_string()).unwrap();
}

#[test]
fn anthropic_posts_to_the_beta_endpoint_with_adaptive_thinking() {
    let server = MockServer::start(vec![Turn::text("hi")]);
    let s = setup(
        &server,
        "anthropic-messages",
        json!({"reasoning": true, "thinkingLevelMap": {"high": "hi-effort"},
               "compat": {"forceAdaptiveThinking": true, "supportsEagerToolInputStreaming": false}}),
    );
    let out = run(&s, &["--thinking", "high", "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/v1/messages?beta=true");
    assert_eq!(r.header("x-api-key"), Some("x"));
    assert_eq!(r.header("anthropic-dangerous-direct-browser-access"), Some("true"));
    assert_eq!(r.header("anthropic-beta"), Some("fine-grained-tool-streaming-2025-05-14"));
    assert_eq!(r.body["thinking"], json!({"type": "adaptive", "display": "summarized"}));
    assert_eq!(r.body["output_config"], json!({"effort": "hi-effort"}));
    assert!(r.body["tools"][0].get("eager_input_streaming").is_none());
}

#[test]
fn anthropic_subscription_tokens_speak_as_claude_code_and_calls_come_back() {
    let server = MockServer::start(vec![Turn::tool("Read", json!({"path": "f.txt"})), Turn::text("done")]);
    let s = setup(&server, "anthropic-messages", json!({"reasoning": true}));
    set_key(&s, "sk-ant-oat01-test");
    std::fs::write(s.work.join("f.txt"), "file content\n").unwrap();
    let out = run(&s, &["--thinking", "low", "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    let r = &reqs[0];
    assert_eq!(r.header("authorization"), Some("Bearer sk-ant-oat01-test"));
    assert_eq!(r.header("x-api-key"), None);
    assert_eq!(r.header("user-agent"), Some("claude-cli/2.1.322"));
    assert_eq!(r.header("x-app"), Some("cli"));
    assert_eq!(
        r.header("anthropic-beta"),
        Some("claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14")
    );
    assert_eq!(r.body["system"][0]["text"], "You are Claude Code, Anthropic's official CLI for Claude.");
    assert_eq!(r.body["tools"][0]["name"], "Read");
    // The call to "Read" ran the read tool; its result went back.
    let second = reqs[1].body["messages"].to_string();
    assert!(second.contains("file content"), "{second}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n");
}

#[test]
fn completions_thinking_format_and_tool_result_name() {
    let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("done")]);
    let s = setup(
        &server,
        "openai-completions",
        json!({"reasoning": true, "compat": {"thinkingFormat": "qwen", "requiresToolResultName": true,
               "openRouterRouting": {"only": ["a"]}}}),
    );
    std::fs::write(s.work.join("f.txt"), "x\n").unwrap();
    let out = run(&s, &["--thinking", "medium", "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs[0].body["enable_thinking"], true);
    assert_eq!(reqs[0].body["reasoning_effort"], "medium");
    assert_eq!(reqs[0].body["provider"], json!({"only": ["a"]}));
    let result = reqs[1].body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").cloned().unwrap();
    assert_eq!(result["name"], "read");
    // The script is used up: the answer fails, the request is what counts.
    let _ = run(&s, &["--thinking", "off", "go"]);
    assert_eq!(server.requests()[2].body["enable_thinking"], false);
}

#[test]
fn a_429_with_x_should_retry_false_is_not_retried() {
    for api in ["openai-completions", "anthropic-messages"] {
        let server = MockServer::start(vec![
            Turn::error(429, "slow down").with_header("x-should-retry", "false"),
            Turn::text("no"),
        ]);
        let s = setup(&server, api, json!({}));
        let out = run(&s, &["go"]);
        assert!(!out.status.success(), "{api}");
        assert_eq!(server.requests().len(), 1, "{api}: one request only");
    }
    // Without the header the same answer is retried.
    let server = MockServer::start(vec![Turn::error(429, "slow down"), Turn::text("after retry")]);
    let s = setup(&server, "openai-completions", json!({}));
    let out = run(&s, &["go"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "after retry\n");
    // And x-should-retry: true makes a 400 worth another attempt.
    let server = MockServer::start(vec![
        Turn::error(400, "try again").with_header("x-should-retry", "true"),
        Turn::text("after retry"),
    ]);
    let s = setup(&server, "openai-completions", json!({}));
    let out = run(&s, &["go"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "after retry\n");
}

#[test]
fn quota_and_billing_errors_are_not_retried() {
    let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    let billing = r#"{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}}"#;
    for (api, body) in [("openai-completions", quota), ("openai-responses", quota), ("anthropic-messages", billing)] {
        let server = MockServer::start(vec![Turn::status(429, body), Turn::text("no")]);
        let s = setup(&server, api, json!({}));
        let out = run(&s, &["go"]);
        assert!(!out.status.success(), "{api}");
        assert_eq!(server.requests().len(), 1, "{api}: one request only");
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(said.contains("429"), "{api}: {said}");
    }
}
