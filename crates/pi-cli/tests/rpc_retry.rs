//! RPC switches of automatic retries through the binary against the mock
//! model: `set_auto_retry` false leaves a 503 failed at once; `abort_retry`
//! during the wait ends the retry with "Retry cancelled" (answered after
//! `auto_retry_end`; with no retry waiting, at once).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Scratch, Turn, read_until};
use serde_json::json;

/// An RPC `pi` whose retries wait 30 s: its stdin and stdout, and the server.
fn start(turns: Vec<Turn>) -> (Scratch, std::process::Child, std::process::ChildStdin, impl BufRead, MockServer) {
    let server = MockServer::start(turns);
    let scratch = Scratch::new(&server);
    let settings = json!({"retry": {"enabled": true, "maxRetries": 3, "baseDelayMs": 30000}});
    std::fs::write(scratch.agent_dir().join("settings.json"), settings.to_string()).unwrap();
    let (child, stdin, out) = scratch.rpc(env!("CARGO_BIN_EXE_pi"), &[]);
    (scratch, child, stdin, out, server)
}

#[test]
fn set_auto_retry_false_fails_at_once() {
    let (_dir, mut child, mut stdin, mut out, server) = start(vec![Turn::error(503, "busy"), Turn::text("never")]);
    writeln!(stdin, "{}", json!({"id": "r", "type": "set_auto_retry", "enabled": false})).unwrap();
    read_until(&mut out, |v| v["id"] == "r");
    let began = Instant::now();
    writeln!(stdin, "{}", json!({"id": "p", "type": "prompt", "message": "hi"})).unwrap();
    let end = read_until(&mut out, |v| v["type"] == "agent_end" || v["type"] == "auto_retry_start");
    assert_eq!(end["type"], "agent_end", "no retry was planned: {end}");
    assert!(began.elapsed() < Duration::from_secs(20));
    assert_eq!(server.requests().len(), 1);
    drop(stdin);
    child.wait().unwrap();
}

#[test]
fn abort_retry_ends_the_wait_with_retry_cancelled() {
    let (_dir, mut child, mut stdin, mut out, server) = start(vec![Turn::error(503, "busy"), Turn::text("never")]);
    let began = Instant::now();
    writeln!(stdin, "{}", json!({"id": "p", "type": "prompt", "message": "hi"})).unwrap();
    let ended = read_until(&mut out, |v| v["type"] == "agent_end");
    assert_eq!(ended["willRetry"], true, "{ended}");
    let start = read_until(&mut out, |v| v["type"] == "auto_retry_start");
    assert_eq!(start["attempt"], 1);
    let edit = read_until(&mut out, |v| v["type"] == "entry_appended");
    assert_eq!(edit["entry"]["type"], "context_edit", "the failed answer is omitted: {edit}");
    writeln!(stdin, "{}", json!({"id": "a", "type": "abort_retry"})).unwrap();
    let end = read_until(&mut out, |v| v["type"] == "auto_retry_end");
    assert_eq!((end["success"].as_bool(), end["finalError"].as_str()), (Some(false), Some("Retry cancelled")), "{end}");
    // The answer comes once the end is announced, as the reference sends it.
    let answer = read_until(&mut out, |v| v["id"] == "a");
    assert_eq!(answer["success"], true, "{answer}");
    // As the reference: the failed run already ended (`agent_end` with `willRetry`); the session settles.
    read_until(&mut out, |v| v["type"] == "agent_settled");
    assert!(began.elapsed() < Duration::from_secs(20), "the 30 s wait was cut short");
    assert_eq!(server.requests().len(), 1, "no second attempt");
    drop(stdin);
    child.wait().unwrap();
}

#[test]
fn abort_retry_with_no_retry_waiting_is_answered_at_once() {
    let (_dir, mut child, mut stdin, mut out, _server) = start(vec![Turn::text("fine")]);
    let began = Instant::now();
    writeln!(stdin, "{}", json!({"id": "a", "type": "abort_retry"})).unwrap();
    let answer = read_until(&mut out, |v| v["id"] == "a");
    assert_eq!(answer["success"], true, "{answer}");
    assert!(began.elapsed() < Duration::from_secs(5), "answered at once");
    drop(stdin);
    child.wait().unwrap();
}
