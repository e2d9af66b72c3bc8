//! MCP servers that are big or hostile, through the binary with the stdio
//! fixture `tests/fixtures/mcp/many-tools.cjs` (needs `node`): start-up
//! with 10,000 `direct` tools grows linearly, and an answer too deep or too
//! large fails its call at once with a message naming the limit.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/many-tools.cjs")
}

/// A scratch install whose only MCP server is the fixture in `mode` with `tools` tools, all `direct`.
fn with_server(server: &MockServer, mode: &str, tools: usize) -> Scratch {
    let scratch = Scratch::new(server);
    let entry = json!({"command": "node", "args": [fixture(), mode, tools.to_string()], "exposure": "direct"});
    std::fs::write(scratch.agent_dir().join("mcp.json"), json!({"mcpServers": {"many": entry}}).to_string()).unwrap();
    scratch
}

/// Start `pi -p` and return how long until the model's first request, and the child.
fn first_request_after(server: &MockServer, scratch: &Scratch) -> (Duration, std::process::Child) {
    let t = Instant::now();
    let child = scratch
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "hi"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(server.wait_for_requests(1, Duration::from_secs(120)), "no request within 120 s");
    (t.elapsed(), child)
}

fn declared(server: &MockServer) -> usize {
    let body = &server.requests()[0].body;
    body["tools"].as_array().map(|t| t.iter().filter(|t| t.to_string().contains("mcp__many__")).count()).unwrap_or(0)
}

#[test]
fn ten_thousand_direct_tools_start_in_linear_time() {
    let mut times = Vec::new();
    for n in [1_000, 10_000] {
        let server = MockServer::start(vec![Turn::text("ok")]);
        let scratch = with_server(&server, "ok", n);
        let (took, child) = first_request_after(&server, &scratch);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(declared(&server), n, "every tool declared");
        eprintln!("{n} direct MCP tools: first request after {took:?}");
        times.push(took);
    }
    // Linear: ten times the tools within well under a hundred times the time
    // (quadratic start-up took 5 s at 1,000 and never reached 5,000).
    let (small, big) = (times[0], times[1]);
    assert!(big < Duration::from_secs(2) || big < small * 25, "1,000 tools {small:?}, 10,000 tools {big:?}");
}

/// Run one call of `tool_0` from the fixture in `mode`; the second request's
/// tool result text, and how long after the call it came.
fn call_result(mode: &str) -> (String, Duration) {
    let server = MockServer::start(vec![Turn::tool("mcp__many__tool_0", json!({})), Turn::text("done")]);
    let scratch = with_server(&server, mode, 1);
    let (_, child) = first_request_after(&server, &scratch);
    let t = Instant::now();
    assert!(server.wait_for_requests(2, Duration::from_secs(90)), "no answer to the call");
    let took = t.elapsed();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let messages = server.requests()[1].body["messages"].clone();
    let result =
        messages.as_array().unwrap().iter().rev().find(|m| m["role"] == "tool").cloned().unwrap_or(Value::Null);
    (result["content"].to_string(), took)
}

#[test]
fn a_too_deep_answer_fails_the_call_at_once_naming_the_limit() {
    let (text, took) = call_result("deep");
    assert!(text.contains("MCP_MAX_MESSAGE_DEPTH"), "{text}");
    assert!(took < Duration::from_secs(1), "answered after {took:?}");
}

#[test]
fn a_too_large_answer_fails_the_call_at_once_naming_the_limit() {
    let (text, took) = call_result("big");
    assert!(text.contains("MCP_MAX_MESSAGE_BYTES"), "{text}");
    // Generating and reading 20 MB (a debug build) is most of this.
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
}

/// The names of the fixture's tools the first request declared.
fn declared_names(server: &MockServer) -> Vec<String> {
    let body = &server.requests()[0].body;
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .filter(|n| n.starts_with("mcp__many__"))
        .map(String::from)
        .collect()
}

#[test]
fn a_slow_direct_server_delays_only_its_own_tools_once_its_list_is_known() {
    let three = ["mcp__many__tool_0", "mcp__many__tool_1", "mcp__many__tool_2"];
    // First session: the server answers at once; its list is kept in the agent dir.
    let first = MockServer::start(vec![Turn::text("ok")]);
    let scratch = with_server(&first, "ok", 3);
    let (_, child) = first_request_after(&first, &scratch);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(declared_names(&first), three);
    assert!(scratch.agent_dir().join("mcp-tools-cache.json").is_file(), "the list is kept");
    // Second session: the server answers 4 s late. The first request does
    // not wait for it and declares its tools from the kept list; the call
    // to one waits for the server and gets its answer.
    let second = MockServer::start(vec![Turn::tool("mcp__many__tool_1", json!({})), Turn::text("done")]);
    second.write_models_json(&scratch.agent_dir(), "openai-completions");
    let t = Instant::now();
    let child = scratch
        .pi(env!("CARGO_BIN_EXE_pi"))
        .env("MANY_TOOLS_DELAY_MS", "4000")
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "hi"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(second.wait_for_requests(1, Duration::from_secs(60)), "no request");
    let first_request = t.elapsed();
    assert!(first_request < Duration::from_secs(3), "the first request waited for the slow server: {first_request:?}");
    assert_eq!(declared_names(&second), three, "declared from the kept list");
    assert!(second.wait_for_requests(2, Duration::from_secs(60)), "no answer to the call");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(t.elapsed() >= Duration::from_secs(4), "the call waited for the server");
    let messages = second.requests()[1].body["messages"].clone();
    let result = messages.as_array().unwrap().iter().rev().find(|m| m["role"] == "tool").cloned().unwrap();
    assert!(result["content"].to_string().contains("called tool_1"), "{result}");
}

#[test]
fn a_kept_list_is_withdrawn_when_its_server_cannot_start() {
    let first = MockServer::start(vec![Turn::text("ok")]);
    let scratch = with_server(&first, "ok", 2);
    let (_, child) = first_request_after(&first, &scratch);
    assert!(child.wait_with_output().unwrap().status.success());
    // The same entry, but the server now exits at once: the kept tools may
    // be offered before that is known, never after.
    let second = MockServer::start(vec![Turn::tool("mcp__many__tool_0", json!({})), Turn::text("done")]);
    second.write_models_json(&scratch.agent_dir(), "openai-completions");
    let out = scratch
        .pi(env!("CARGO_BIN_EXE_pi"))
        .env("MANY_TOOLS_EXIT", "1")
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requests = second.requests();
    assert_eq!(requests.len(), 2);
    let later = requests[1].body["tools"].to_string();
    assert!(!later.contains("mcp__many__"), "withdrawn once the server failed: {later}");
    let result = requests[1].body["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "tool").cloned();
    assert!(
        !result.unwrap()["content"].to_string().contains("called tool_0"),
        "the call cannot have reached the server"
    );
}
