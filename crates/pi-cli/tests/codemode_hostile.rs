#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! Hostile scripts get a clear error result, never a crash or a hang: a
//! spinning script stopped by an abort, a 1 GB string, memory and stack
//! exhaustion, a promise that never settles, tampering with built-ins and
//! `tools`, the output limits.

use crate::codemode_support;

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use codemode_support::{Env, result, script};
use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

fn run(code: &str) -> String {
    let env = Env::new();
    let server = MockServer::start(script(code));
    let out = env.run(&server, &["--no-session", "--tools", "read,bash,codemode"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    result(&server)
}

fn failed(body: &str) -> String {
    format!("Script failed\nWall time X seconds\nOutput:\n\nScript error:\n{body}\n\nNo tool calls were made.")
}

#[test]
fn resource_exhaustion_fails_the_script_only() {
    assert_eq!(
        run("const s = 'x'.repeat(1024*1024*1024); return s.length"),
        failed("RangeError: invalid string length\n    at repeat (native)\n    at <anonymous> (codemode.js:1:42)")
    );
    assert_eq!(
        run("let s = 'x'; while (true) { s = s + s; }"),
        failed("InternalError: string too long\n    at <anonymous> (codemode.js:1:65)")
    );
    assert_eq!(
        run("const a = []; while (true) a.push(new Array(1e6).fill(1.5))"),
        failed("InternalError: out of memory\n    at <anonymous> (codemode.js:1:77)")
    );
    let deep = run("function f(n) { return f(n+1) + 1 } ; return f(0)");
    assert!(
        deep.contains("Script error:\nRangeError: Maximum call stack size exceeded\n    at f (codemode.js:1:53)"),
        "{deep}"
    );
    assert_eq!(
        run("await new Promise(() => {}); return 1"),
        failed(
            "Error: The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here."
        )
    );
}

#[test]
fn built_ins_and_tools_cannot_be_changed() {
    let code = "const out = []; for (const f of [() => { Array.prototype.toString = () => 'x' }, () => { JSON.stringify = null; return typeof JSON.stringify }, () => { Object.defineProperty(tools, 'x', {value: 1}) }, () => { tools.read = 1; return typeof tools.read }, () => { Object.setPrototypeOf(Array.prototype, null) }, () => { globalThis.text = 1; return typeof text }, () => { class E extends Error { constructor() { super('m'); this.name = 'N' } }; return String(new E()) }]) { try { out.push(String(f())) } catch (e) { out.push(e.name + ': ' + e.message) } } Object.prototype.toJSON = () => 'hacked'; out.push(JSON.stringify({a: 1})); return out";
    let text = run(code);
    let v: Value = serde_json::from_str(text.rsplit_once("\n\n").unwrap().1).unwrap();
    assert_eq!(
        v,
        json!([
            "TypeError: Cannot assign to read only property 'toString' of a built-in",
            "function",
            "TypeError: object is not extensible",
            "function",
            "TypeError: object is not extensible",
            "function",
            "N: m",
            "{\"a\":1}"
        ])
    );
}

#[test]
fn output_limits_end_the_script() {
    let text = run("for (let i = 0; i < 100001; i++) console.log(''); return 'never'");
    assert!(text.starts_with("Script failed\n"), "{text}");
    assert!(text.contains("Script error:\nRangeError: script output exceeded the limit of 16777216 characters or 100000 text(), image(), and console calls. Print a summary instead, or write large data to a file with a tool.\n    at <anonymous> (codemode.js:1:"), "{}", &text[text.len().saturating_sub(600)..]);
    let caught = run(
        "try { for (let i = 0; i < 20; i++) text('x'.repeat(1024 * 1024)) } catch (e) { return 'caught' } return 'never'",
    );
    assert!(
        caught.starts_with("Script failed\n") && caught.contains("RangeError: script output exceeded the limit"),
        "catching the error does not resume the script"
    );
}

/// CPU time (user + system, clock ticks) of process `pid`.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[test]
fn an_abort_stops_a_spinning_script_without_a_timeout() {
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tool("codemode", json!({"code": "text('a'); while (true) {}"})),
        Turn::text("later"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    env.settings(json!({}));
    let mut child = env
        .cmd(&["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1", "--tools", "+codemode"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    writeln!(stdin, "{}", json!({"type": "prompt", "message": "go"})).unwrap();
    while next()["type"] != "tool_execution_start" {}
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    writeln!(stdin, "{}", json!({"type": "abort", "id": "a"})).unwrap();
    let end = loop {
        let v = next();
        if v["type"] == "tool_execution_end" {
            break v;
        }
    };
    assert!(started.elapsed() < Duration::from_secs(5));
    let texts: Vec<&str> =
        end["result"]["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect();
    assert_eq!(texts[1], "a\nScript error:\nScript aborted: This operation was aborted\n\nNo tool calls were made.");
    // The script's thread stopped: the process no longer burns CPU.
    std::thread::sleep(Duration::from_millis(300));
    let before = cpu_ticks(child.id());
    std::thread::sleep(Duration::from_secs(1));
    let spent = cpu_ticks(child.id()) - before;
    assert!(spent < 30, "still spinning: {spent} ticks in a second");
    drop(stdin);
    let _ = child.wait();
}
