//! pi-mcp against its misbehaving fixture servers: `pi-mcp-rmcp-fixture`
//! (rmcp's server side) for a crash mid-call, no `initialize`, progress, a
//! tool-list change, 5 MB, 1,000 tools and streamable HTTP with 401; the
//! hand-written `pi-mcp-fixture` for garbage on stdout and HTTP failures
//! before the protocol, which rmcp's server cannot be made to produce. Every
//! misbehaviour gives a clear error result or state, and the session goes on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use std::time::Duration;

use pi_agent::Exposure;
use pi_mcp::{Admit, LogFile, McpConfig, McpManager, Registrar, Status};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_registered_with_their_exposure_and_calls_return_results() {
    let (m, sink) = start(vec![rmcp_server("fx", "ok", 10.0)]);
    ready(&m).await;
    assert_eq!(m.servers()[0].status(), Status::Connected(6));
    let echo = sink.tool("mcp__fx__echo").unwrap();
    assert_eq!(echo.def().exposure, Exposure::Direct, "toolExposure by the server's own name");
    assert!(echo.def().default_active);
    assert_eq!(sink.tool("mcp__fx__big").unwrap().def().exposure, Exposure::Deferred, "codemode registers deferred");
    assert_eq!(echo.def().description, "fixture tool echo");
    let r = call(&sink, "mcp__fx__echo", json!({"text": "hi"})).await;
    assert_eq!((r.text_content().as_str(), r.is_error), ("echo: hi", false));
    let f = call(&sink, "mcp__fx__fail", json!({})).await;
    assert_eq!((f.text_content().as_str(), f.is_error), ("it failed", true));
    assert_eq!(f.structured.unwrap()["isError"], json!(true), "scripts get the whole result");
    let big = call(&sink, "mcp__fx__big", json!({})).await;
    let t = big.text_content();
    assert!(
        t.starts_with("Warning: truncated output (original token count: 1310720)") && t.len() < 21_000,
        "{}",
        &t[..200]
    );
    let path = big.details.unwrap()["fullOutputPath"].as_str().unwrap().to_string();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 5 * 1024 * 1024);
    let _ = std::fs::remove_file(path);
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_call_is_an_error_and_the_next_call_reconnects() {
    let (m, sink) = start(vec![rmcp_server("fx", "ok", 10.0)]);
    ready(&m).await;
    let r = call(&sink, "mcp__fx__crash", json!({})).await;
    assert!(r.is_error, "{}", r.text_content());
    assert!(r.text_content().starts_with("MCP tool fx/crash failed: "), "{}", r.text_content());
    let again = call(&sink, "mcp__fx__echo", json!({"text": "back"})).await;
    assert_eq!(again.text_content(), "echo: back");
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_initializes_fails_in_time_and_others_connect() {
    let (m, sink) = start(vec![rmcp_server("stuck", "hang", 0.5), rmcp_server("fine", "ok", 10.0)]);
    ready(&m).await;
    assert!(matches!(m.servers()[0].status(), Status::Failed(_)), "{:?}", m.servers()[0].status());
    assert_eq!(m.servers()[1].status(), Status::Connected(6));
    assert!(sink.tool("mcp__fine__echo").is_some());
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_on_stdout_does_not_break_the_connection() {
    let (m, sink) = start(vec![server("g", "garbage", 10.0)]);
    ready(&m).await;
    // Lines that are not JSON-RPC are skipped (rmcp's reader, as the reference's).
    assert_eq!(m.servers()[0].status(), Status::Connected(1), "{:?}", m.servers()[0].status());
    let r = call(&sink, "mcp__g__echo", json!({"text": "x"})).await;
    assert_eq!(r.text_content(), "echo: x");
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_resets_the_timeout_and_a_list_change_adds_tools() {
    let (m, sink) = start(vec![rmcp_server("fx", "ok", 0.3)]);
    ready(&m).await;
    let r = call(&sink, "mcp__fx__slow", json!({})).await;
    assert_eq!(r.text_content(), "slow done", "0.6 s with progress every 50 ms under a 0.3 s timeout");
    assert!(sink.tool("mcp__fx__extra").is_none());
    let g = call(&sink, "mcp__fx__grow", json!({})).await;
    assert_eq!(g.text_content(), "grown");
    for _ in 0..100 {
        if sink.tool("mcp__fx__extra").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(sink.tool("mcp__fx__extra").is_some(), "tools/list_changed registers the new tool");
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_tools_register() {
    let (m, sink) = start(vec![rmcp_server("many", "many", 10.0)]);
    ready(&m).await;
    assert_eq!(m.servers()[0].status(), Status::Connected(1000));
    assert_eq!(sink.0.lock().unwrap().len(), 1000);
    m.shutdown().await;
}

const RMCP: &str = env!("CARGO_BIN_EXE_pi-mcp-rmcp-fixture");
const HAND: &str = env!("CARGO_BIN_EXE_pi-mcp-fixture");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_servers_connect_and_401_asks_for_sign_in() {
    let (port, _child) = http_fixture(RMCP, "http");
    let (port401, _child401) = http_fixture(RMCP, "http401");
    let (m, sink) = start(vec![http_server("web", port), http_server("locked", port401)]);
    ready(&m).await;
    assert_eq!(m.servers()[0].status(), Status::Connected(6), "{:?}", m.servers()[0].status());
    let r = call(&sink, "mcp__web__echo", json!({"text": "over http"})).await;
    assert_eq!(r.text_content(), "echo: over http");
    let slow = call(&sink, "mcp__web__slow", json!({})).await;
    assert_eq!(slow.text_content(), "slow done");
    let g = call(&sink, "mcp__web__grow", json!({})).await;
    assert_eq!(g.text_content(), "grown");
    for _ in 0..100 {
        if sink.tool("mcp__web__extra").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(sink.tool("mcp__web__extra").is_some(), "tools/list_changed over HTTP registers the new tool");
    match m.servers()[1].status() {
        Status::Failed(why) => assert!(why.contains("needs sign-in (HTTP 401)"), "{why}"),
        other => panic!("{other:?}"),
    }
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_http_failures_are_retried_as_the_reference_retries_them() {
    // 503 to the first request of each method: initialize, then tools/list
    // (the connection is retried twice), resources/list (retried once), tools/call (never).
    let (port, _child) = http_fixture(HAND, "httpflaky");
    let (port503, _child503) = http_fixture(HAND, "http503");
    let (m, sink) = start(vec![http_server("flaky", port), http_server("down", port503)]);
    ready(&m).await;
    assert_eq!(m.servers()[0].status(), Status::Connected(1), "{:?}", m.servers()[0].status());
    let listed = call(&sink, "list_mcp_resources", json!({"server": "flaky"})).await;
    assert!(!listed.is_error, "retried once: {}", listed.text_content());
    let v: serde_json::Value = serde_json::from_str(&listed.text_content()).unwrap();
    let keys: Vec<&String> = v["resources"][0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["server", "uri", "mimeType", "name"], "the server's own key order, read from its HTTP answer");
    let first = call(&sink, "mcp__flaky__echo", json!({"text": "x"})).await;
    assert!(first.is_error, "a tool call is not retried (the server may have done it)");
    assert_eq!(
        first.text_content(),
        "MCP HTTP request failed with status 503: busy",
        "the status and the body, as the reference words them"
    );
    let second = call(&sink, "mcp__flaky__echo", json!({"text": "x"})).await;
    assert_eq!(second.text_content(), "echo: x");
    match m.servers()[1].status() {
        Status::Failed(why) => assert!(why.contains("503"), "{why}"),
        other => panic!("a server that always answers 503 fails after its retries: {other:?}"),
    }
    m.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_listed_before_binding_are_registered_in_the_order_the_servers_answered() {
    // As the reference registers each server's tools as they come: the second
    // server in the file answers first, so its tools come first.
    let config = McpConfig {
        servers: vec![server("late", "slow", 10.0), server("early", "ok", 10.0)],
        auto_enable_codemode: true,
        problems: vec![],
        session_dir: None,
    };
    let m =
        McpManager::new(config, LogFile::default(), std::sync::Arc::new(|_: &str| Admit::Register { activate: true }));
    m.start();
    ready(&m).await;
    let sink = std::sync::Arc::new(Sink::default());
    m.bind(sink.clone());
    let names: Vec<String> = sink.0.lock().unwrap().iter().map(|t| t.def().name.clone()).collect();
    assert_eq!(names, ["mcp__early__echo", "mcp__late__echo"]);
    m.shutdown().await;
}
