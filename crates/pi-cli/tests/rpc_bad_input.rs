//! RPC bad input: an unknown command, a line that is not JSON and JSON that
//! names no command each get the reference's error response and the loop
//! goes on; 10,000 commands written before any answer is read are all
//! answered, in order, with bounded memory.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, Write};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

/// Peak resident memory allowed while 10,000 queued commands are answered.
const PEAK_RSS_LIMIT_KB: u64 = 100 * 1024;

/// Start `pi --mode rpc`, write `lines` from a thread (so a full pipe cannot
/// stall the writer against our reader), read every record printed until
/// `done` says stop, note the peak memory, then close standard input and
/// wait for the exit.
fn session(lines: Vec<String>, done: impl Fn(&[Value]) -> bool) -> (Vec<Value>, Option<u64>) {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let scratch = Scratch::new(&server);
    let (mut child, mut stdin, mut reader) = scratch.rpc(env!("CARGO_BIN_EXE_pi"), &[]);
    let writer = std::thread::spawn(move || {
        let mut all = String::new();
        for l in lines {
            all.push_str(&l);
            all.push('\n');
        }
        stdin.write_all(all.as_bytes()).unwrap();
        stdin.flush().unwrap();
        stdin
    });
    let mut records = Vec::new();
    let mut line = String::new();
    while !done(&records) {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        records.push(serde_json::from_str(line.trim_end()).unwrap_or_else(|_| panic!("not JSON: {line:?}")));
    }
    let peak = peak_rss_kb(child.id());
    drop(writer.join().unwrap());
    assert!(child.wait().unwrap().success());
    (records, peak)
}

/// `VmHWM` of a live process, in kB (Linux).
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn responses(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r["type"] == "response").collect()
}

#[test]
fn unknown_commands_and_malformed_lines_get_the_reference_answers_and_the_loop_goes_on() {
    let lines = [
        r#"{"id":"a","type":"frobnicate"}"#,
        "not json",
        r#"{"type":"get_state""#,
        "42",
        "[]",
        r#"{"id":"b"}"#,
        "null",
        r#"{"id":"n","type":5}"#,
        r#"{"id":"c","type":"get_last_assistant_text"}"#,
    ];
    let (records, _) = session(lines.iter().map(|l| l.to_string()).collect(), |r| responses(r).len() == lines.len());
    let got = responses(&records);
    assert_eq!(got.len(), lines.len(), "{records:#?}");
    assert_eq!(
        *got[0],
        json!({"id": "a", "type": "response", "command": "frobnicate", "success": false,
            "error": "Unknown command: frobnicate"})
    );
    for r in [got[1], got[2]] {
        assert_eq!(r["command"], "parse", "{r}");
        assert_eq!(r["success"], false);
        assert!(r.get("id").is_none());
        assert!(r["error"].as_str().unwrap().starts_with("Failed to parse command: "), "{r}");
    }
    let untyped = json!({"type": "response", "success": false, "error": "Unknown command: undefined"});
    assert_eq!(*got[3], untyped);
    assert_eq!(*got[4], untyped);
    assert_eq!(
        *got[5],
        json!({"id": "b", "type": "response", "success": false, "error": "Unknown command: undefined"})
    );
    // The reference stops here (it reads `null.id`); we answer and go on.
    assert_eq!(*got[6], untyped);
    assert_eq!(
        *got[7],
        json!({"id": "n", "type": "response", "command": 5, "success": false, "error": "Unknown command: 5"})
    );
    assert_eq!(
        *got[8],
        json!({"id": "c", "type": "response", "command": "get_last_assistant_text", "success": true, "data": {}})
    );
}

#[test]
fn ten_thousand_queued_commands_are_all_answered_in_order() {
    const N: usize = 10_000;
    let lines: Vec<String> = (0..N)
        .map(|i| match i % 4 {
            0 | 1 => json!({"id": format!("q{i}"), "type": "get_state"}).to_string(),
            2 => json!({"id": format!("q{i}"), "type": "no_such_command"}).to_string(),
            _ => json!({"id": format!("q{i}"), "type": "steer"}).to_string(),
        })
        .collect();
    let (records, peak) = session(lines, |r| r.len() == N);
    let got = responses(&records);
    assert_eq!(got.len(), N, "every command answered");
    for (i, r) in got.iter().enumerate() {
        assert_eq!(r["id"], format!("q{i}"), "answered in order");
        let want_ok = i % 4 < 2;
        assert_eq!(r["success"], want_ok, "{r}");
    }
    if let Some(kb) = peak {
        eprintln!("peak memory with {N} queued commands: {kb} kB");
        assert!(kb < PEAK_RSS_LIMIT_KB, "peak memory {kb} kB");
    }
}
