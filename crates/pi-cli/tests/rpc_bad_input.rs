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

/// Every command with a missing or mistyped argument is answered with an
/// error that names it (the reference's own words where it has an error of
/// its own), and nothing about the session changes: no silent default.
#[test]
fn missing_or_mistyped_arguments_are_named_and_change_nothing() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({"type": "prompt"}), "Invalid prompt command: missing \"message\" (a string)"),
        (json!({"type": "prompt", "message": 5}), "Invalid prompt command: \"message\" must be a string"),
        (
            json!({"type": "prompt", "message": "hi", "images": "x"}),
            "Invalid prompt command: \"images\" must be a list of images, each {\"type\": \"image\", \"data\": <base64 text>, \"mimeType\": <text>}",
        ),
        (
            json!({"type": "prompt", "message": "hi", "streamingBehavior": "now"}),
            "Invalid prompt command: \"streamingBehavior\" must be \"steer\" or \"followUp\"",
        ),
        (json!({"type": "steer"}), "Invalid steer command: missing \"message\" (a string)"),
        (json!({"type": "follow_up", "message": 1}), "Invalid follow_up command: \"message\" must be a string"),
        (
            json!({"type": "set_steering_mode"}),
            "Invalid set_steering_mode command: missing \"mode\" (\"all\" or \"one-at-a-time\")",
        ),
        (
            json!({"type": "set_steering_mode", "mode": "bogus"}),
            "Invalid set_steering_mode command: \"mode\" must be \"all\" or \"one-at-a-time\"",
        ),
        (
            json!({"type": "set_follow_up_mode", "mode": 5}),
            "Invalid set_follow_up_mode command: \"mode\" must be \"all\" or \"one-at-a-time\"",
        ),
        (
            json!({"type": "set_auto_compaction"}),
            "Invalid set_auto_compaction command: missing \"enabled\" (true or false)",
        ),
        (
            json!({"type": "set_auto_compaction", "enabled": "yes"}),
            "Invalid set_auto_compaction command: \"enabled\" must be true or false",
        ),
        (
            json!({"type": "set_auto_retry", "enabled": 0}),
            "Invalid set_auto_retry command: \"enabled\" must be true or false",
        ),
        (
            json!({"type": "set_thinking_level"}),
            "Invalid set_thinking_level command: missing \"level\" (one of off, minimal, low, medium, high, xhigh, max)",
        ),
        (
            json!({"type": "set_thinking_level", "level": "huge"}),
            "Invalid set_thinking_level command: \"level\" must be one of off, minimal, low, medium, high, xhigh, max",
        ),
        (json!({"type": "set_model"}), "Model not found: undefined/undefined"),
        (json!({"type": "set_model", "provider": "mock", "modelId": 5}), "Model not found: mock/5"),
        (
            json!({"type": "compact", "customInstructions": 5}),
            "Invalid compact command: \"customInstructions\" must be a string",
        ),
        (json!({"type": "bash"}), "Invalid bash command: missing \"command\" (a string)"),
        (json!({"type": "bash", "command": 5}), "Invalid bash command: \"command\" must be a string"),
        (
            json!({"type": "export_html", "outputPath": 5}),
            "Invalid export_html command: \"outputPath\" must be a string",
        ),
        (json!({"type": "switch_session"}), "Invalid switch_session command: missing \"sessionPath\" (a string)"),
        (
            json!({"type": "switch_session", "sessionPath": 5}),
            "Invalid switch_session command: \"sessionPath\" must be a string",
        ),
        (
            json!({"type": "new_session", "parentSession": 5}),
            "Invalid new_session command: \"parentSession\" must be a string",
        ),
        (json!({"type": "fork"}), "Invalid entry ID for forking"),
        (json!({"type": "fork", "entryId": 5}), "Invalid entry ID for forking"),
        (json!({"type": "get_entries", "since": 5}), "Entry not found: 5"),
        (json!({"type": "set_session_name"}), "Invalid set_session_name command: missing \"name\" (a string)"),
        (json!({"type": "set_session_name", "name": 5}), "Invalid set_session_name command: \"name\" must be a string"),
    ];
    let mut lines = vec![json!({"id": "before", "type": "get_state"}).to_string()];
    for (i, (cmd, _)) in cases.iter().enumerate() {
        let mut cmd = cmd.clone();
        cmd["id"] = json!(format!("c{i}"));
        lines.push(cmd.to_string());
    }
    lines.push(json!({"id": "after", "type": "get_state"}).to_string());
    let want = lines.len();
    let (records, _) = session(lines, |r| responses(r).len() == want);
    let got = responses(&records);
    assert_eq!(got.len(), want, "{records:#?}");
    for (i, (cmd, error)) in cases.iter().enumerate() {
        let r = got.iter().find(|r| r["id"] == format!("c{i}")).unwrap_or_else(|| panic!("no answer to {cmd}"));
        assert_eq!(r["command"], cmd["type"], "{r}");
        assert_eq!(r["success"], false, "{cmd} → {r}");
        assert_eq!(r["error"], *error, "{cmd}");
    }
    // Nothing started, nothing was set: the state is as it was.
    let state = |id: &str| got.iter().find(|r| r["id"] == id).unwrap()["data"].clone();
    let (mut before, mut after) = (state("before"), state("after"));
    for s in [&mut before, &mut after] {
        s.as_object_mut().unwrap().remove("sessionId");
    }
    assert_eq!(before, after);
    assert_eq!(after["steeringMode"], "one-at-a-time");
    assert_eq!(after["autoCompactionEnabled"], true);
    assert_eq!(after["messageCount"], 0);
    assert!(!records.iter().any(|r| r["type"] == "agent_start"), "no run started");
}

/// Images sent with an RPC prompt reach the model, prepared as the
/// reference prepares them: one it can send as it came, one it cannot
/// decode replaced by the reference's note after the text.
#[test]
fn images_of_an_rpc_prompt_reach_the_model() {
    let server = MockServer::start(vec![Turn::text("seen")]);
    let scratch = Scratch::new(&server);
    server.write_models_json_with(&scratch.agent_dir(), "openai-completions", json!({"input": ["text", "image"]}));
    let (mut child, mut stdin, mut reader) = scratch.rpc(env!("CARGO_BIN_EXE_pi"), &[]);
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP4z8AARwzEcQCukw/x0F8jngAAAABJRU5ErkJggg==";
    let cmd = json!({"id": "p", "type": "prompt", "message": "what is this?", "images": [
        {"type": "image", "data": png, "mimeType": "image/png"},
        {"type": "image", "data": "bm90IGFuIGltYWdl", "mimeType": "image/png"}]});
    writeln!(stdin, "{cmd}").unwrap();
    pi_test_support::read_until(&mut reader, |v| v["type"] == "agent_end");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let requests = server.requests();
    let body = &requests[0].body;
    let user = body["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "user").unwrap();
    assert_eq!(
        user["content"],
        json!([
            {"type": "text", "text": "what is this?\n\n[Image omitted: could not be resized below the inline image size limit.]"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}}
        ])
    );
}
