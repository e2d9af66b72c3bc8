//! The records `pi --mode rpc` prints, as insta snapshots
//! (`tests/snapshots/`): the response to each command that answers with
//! data (and to the setters, which answer without), with the events printed
//! before it, and the events of one prompt whose answer calls a tool. Paths,
//! ids, times and durations are replaced by placeholders (an id keeps its
//! placeholder wherever it appears, so the records still show which entry
//! points at which); the system message's prompt text and tool declarations
//! (compared with the reference elsewhere) by their names.
//!
//! Field names are the reference's (`docs/rpc.md`); a snapshot that changes
//! is a change of the protocol.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::rpc_driver;

use std::collections::HashMap;
use std::io::BufReader;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use pi_test_support::{MockServer, Scratch, Turn};
use rpc_driver::Rpc;
use serde_json::{Value, json};

/// How long one command may take (a debug build on a busy machine).
const WITHIN: Duration = Duration::from_secs(30);

/// What the mock model answers: a `read` call and its answer (the prompt),
/// then summaries for `compact` (the reference asks for the history and for
/// the cut turn's start), then spares.
fn turns() -> Vec<Turn> {
    vec![
        Turn::tool("read", json!({"path": "hello.txt"})),
        Turn::text("It says hello."),
        Turn::text("## Goal\nRead hello.txt"),
        Turn::text("## Turn\nprefix"),
        Turn::text("spare"),
        Turn::text("spare"),
    ]
}

/// Replaces what changes from run to run.
struct Normaliser {
    /// Folder paths and their placeholders, longest first.
    paths: Vec<(String, &'static str)>,
    /// Ids seen so far, numbered in order of appearance.
    ids: HashMap<String, String>,
}

/// Keys whose string value is an id made afresh each run.
const ID_KEYS: &[&str] = &["sessionId", "parentId", "entryId", "targetId", "firstKeptEntryId", "fromId", "leafId"];

impl Normaliser {
    fn new(scratch: &Scratch, server: &MockServer) -> Normaliser {
        let mut paths = vec![(server.base_url(), "[MOCK SERVER]")];
        for (dir, name) in [(&scratch.home, "[HOME]"), (&scratch.work, "[WORK]"), (&scratch.tmp, "[TMP]")] {
            paths.push((dir.display().to_string(), name));
            if let Ok(real) = dir.canonicalize() {
                paths.push((real.display().to_string(), name));
            }
        }
        paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        Normaliser { paths, ids: HashMap::new() }
    }

    fn id(&mut self, raw: &str) -> String {
        let n = self.ids.len() + 1;
        self.ids.entry(raw.to_string()).or_insert_with(|| format!("[id{n}]")).clone()
    }

    /// `v` with its volatile parts replaced.
    fn apply(&mut self, v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                let mut out = serde_json::Map::new();
                for (k, x) in o {
                    let x = match (k.as_str(), x) {
                        ("timestamp", Value::Number(_) | Value::String(_)) => json!("[timestamp]"),
                        ("durationMs", Value::Number(_)) => json!("[durationMs]"),
                        // The estimate counts the system prompt, which names
                        // the scratch folders: their length varies by machine.
                        ("estimatedTokensAfter", Value::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => {
                            json!("[estimate > 0]")
                        }
                        ("id" | "parentSession", Value::String(s)) if is_volatile_id(s) => json!(self.id(s)),
                        (k, Value::String(s)) if ID_KEYS.contains(&k) => json!(self.id(s)),
                        _ => self.apply(x),
                    };
                    out.insert(k.clone(), x);
                }
                if out.get("role") == Some(&json!("system")) {
                    summarise_system_message(&mut out);
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| self.apply(x)).collect()),
            Value::String(s) => Value::String(self.text(s)),
            other => other.clone(),
        }
    }

    /// A string with the scratch folders named and any uuid replaced.
    fn text(&mut self, s: &str) -> String {
        let mut s = s.to_string();
        for (path, name) in &self.paths {
            s = s.replace(path.as_str(), name);
        }
        while let Some(at) = find_uuid(&s) {
            let id = self.id(&s[at..at + 36]);
            s.replace_range(at..at + 36, &id);
        }
        while let Some(at) = find_time(&s) {
            s.replace_range(at..at + 24, "[time]");
        }
        s
    }

    /// A record as its snapshot shows it.
    fn show(&mut self, v: &Value) -> String {
        let mut v = self.apply(v);
        // A streaming update's usage is the partial message's as far as the
        // provider has read when the event is printed: present, not fixed.
        if v["type"] == "message_update" && v.get("usage").is_some() {
            v["usage"] = json!("[usage so far]");
        }
        serde_json::to_string_pretty(&v).unwrap()
    }

    /// Records as one snapshot.
    fn show_all(&mut self, records: &[Value]) -> String {
        records.iter().map(|r| self.show(r)).collect::<Vec<_>>().join("\n")
    }
}

/// The system message's prompt sections and tool declarations by name only.
fn summarise_system_message(m: &mut serde_json::Map<String, Value>) {
    if let Some(Value::Object(sections)) = m.get_mut("sections") {
        for (_, text) in sections.iter_mut().filter(|(_, t)| t.is_string()) {
            *text = json!("[section text]");
        }
    }
    if let Some(Value::Array(tools)) = m.get_mut("toolsAdded") {
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            for key in ["description", "parameters"] {
                if tool.contains_key(key) {
                    tool.insert(key.into(), json!(format!("[{key}]")));
                }
            }
        }
    }
}

/// A session id (a uuid) or an entry id (8 hex digits).
fn is_volatile_id(s: &str) -> bool {
    find_uuid(s) == Some(0) && s.len() == 36 || s.len() == 8 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Where the first uuid (8-4-4-4-12 hex digits) in `s` starts.
fn find_uuid(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (0..b.len().saturating_sub(35)).find(|&i| {
        b[i..i + 36].iter().enumerate().all(|(j, c)| match j {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
    })
}

/// Where the first time of a session file's name (`2026-01-02T03-04-05-678Z`,
/// or ISO 8601's `2026-01-02T03:04:05.678Z`) in `s` starts.
fn find_time(s: &str) -> Option<usize> {
    const PATTERN: &[u8] = b"0000-00-00T00:00:00.000Z";
    let b = s.as_bytes();
    (0..b.len().saturating_sub(PATTERN.len() - 1)).find(|&i| {
        b[i..i + PATTERN.len()].iter().zip(PATTERN).all(|(c, p)| match p {
            b'0' => c.is_ascii_digit(),
            b':' | b'.' => matches!(c, b'-' | b':' | b'.'),
            p => c == p,
        })
    })
}

/// Send `cmd`; its response and the events printed before it.
fn step(rpc: &mut Rpc, cmd: Value) -> (Value, Vec<Value>) {
    let r = rpc.ask(cmd.clone(), WITHIN).unwrap_or_else(|| panic!("no answer to {cmd}"));
    (r, rpc.drain())
}

/// Snapshot a step's records: the events before the response, then it.
fn snap(norm: &mut Normaliser, name: &str, (response, events): (Value, Vec<Value>)) -> Value {
    let mut records = events;
    records.push(response.clone());
    insta::assert_snapshot!(name, norm.show_all(&records));
    response
}

fn write_setup(scratch: &Scratch, server: &MockServer) {
    let agent_dir = scratch.agent_dir();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "x",
        "models": [{"id": "mock-1", "reasoning": true}, {"id": "mock-2"}],
    }}});
    std::fs::write(agent_dir.join("models.json"), models.to_string()).unwrap();
    // Keep almost nothing on compaction, so a short session compacts.
    std::fs::write(agent_dir.join("settings.json"), r#"{"compaction": {"keepRecentTokens": 1}}"#).unwrap();
    std::fs::write(scratch.work.join("hello.txt"), "hello\n").unwrap();
}

/// A session file to switch to: its header and one user message.
fn other_session(dir: &Path, cwd: &Path) -> std::path::PathBuf {
    let file = dir.join("other.jsonl");
    let header = json!({"type": "session", "version": 3, "id": "0198c5f0-0000-7000-8000-000000000001",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd});
    let entry = json!({"type": "message", "id": "a1b2c3d4", "parentId": null, "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "earlier"}], "timestamp": 1_767_225_601_000_i64}});
    std::fs::write(&file, format!("{header}\n{entry}\n")).unwrap();
    file
}

/// `pi --mode rpc` in `scratch`, keeping its sessions in `$TMPDIR/sessions`
/// (a session file, so that `export_html`, `fork` and the rest have one).
fn start(scratch: &Scratch) -> Rpc {
    let mut child = scratch
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["--mode", "rpc", "--offline", "--model", "mock/mock-1", "--session-dir"])
        .arg(scratch.tmp.join("sessions"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn pi");
    let stdin = child.stdin.take().expect("stdin");
    let out = BufReader::new(child.stdout.take().expect("stdout"));
    Rpc::over(child, stdin, out)
}

#[test]
fn every_rpc_record_keeps_its_shape() {
    let server = MockServer::start(turns());
    let scratch = Scratch::new(&server);
    write_setup(&scratch, &server);
    let mut norm = Normaliser::new(&scratch, &server);
    let mut rpc = start(&scratch);

    let first = rpc.ask(json!({"type": "get_state"}), rpc_driver::STARTUP_WITHIN).expect("pi serves");
    snap(&mut norm, "get_state__before_any_prompt", (first, rpc.drain()));
    snap(&mut norm, "get_last_assistant_text__none_yet", step(&mut rpc, json!({"type": "get_last_assistant_text"})));

    // One prompt: the model calls `read`, then answers.
    let started = rpc.ask(json!({"type": "prompt", "message": "Read hello.txt"}), WITHIN).unwrap();
    insta::assert_snapshot!("prompt", norm.show(&started));
    let mut events = Vec::new();
    while events.last().is_none_or(|e: &Value| e["type"] != "agent_settled") {
        events.push(rpc.find(WITHIN, |_| true).expect("the run's events up to agent_settled"));
    }
    insta::assert_snapshot!("prompt__events", norm.show_all(&events));

    for (name, cmd) in [
        ("get_state", json!({"type": "get_state"})),
        ("get_messages", json!({"type": "get_messages"})),
        ("get_last_assistant_text", json!({"type": "get_last_assistant_text"})),
        ("get_available_models", json!({"type": "get_available_models"})),
        ("set_model", json!({"type": "set_model", "provider": "mock", "modelId": "mock-1"})),
        ("get_available_thinking_levels", json!({"type": "get_available_thinking_levels"})),
        ("set_thinking_level", json!({"type": "set_thinking_level", "level": "high"})),
        ("cycle_thinking_level", json!({"type": "cycle_thinking_level"})),
        ("cycle_model", json!({"type": "cycle_model"})),
        ("cycle_thinking_level__not_supported", json!({"type": "cycle_thinking_level"})),
        ("set_steering_mode", json!({"type": "set_steering_mode", "mode": "all"})),
        ("set_follow_up_mode", json!({"type": "set_follow_up_mode", "mode": "one-at-a-time"})),
        ("set_auto_compaction", json!({"type": "set_auto_compaction", "enabled": true})),
        ("set_auto_retry", json!({"type": "set_auto_retry", "enabled": true})),
        ("abort_retry", json!({"type": "abort_retry"})),
        ("set_session_name", json!({"type": "set_session_name", "name": "shapes run"})),
        ("clear_queue", json!({"type": "clear_queue"})),
        ("abort", json!({"type": "abort"})),
        ("bash", json!({"type": "bash", "command": "echo hi"})),
        ("abort_bash", json!({"type": "abort_bash"})),
        ("get_commands", json!({"type": "get_commands"})),
        ("get_session_stats", json!({"type": "get_session_stats"})),
        ("compact", json!({"type": "compact"})),
        ("get_state__after_compact", json!({"type": "get_state"})),
        ("get_session_stats__after_compact", json!({"type": "get_session_stats"})),
    ] {
        snap(&mut norm, name, step(&mut rpc, cmd));
    }
    let all = snap(&mut norm, "get_entries", step(&mut rpc, json!({"type": "get_entries"})));
    let entries = all["data"]["entries"].as_array().expect("entries");
    let since = entries[entries.len() - 2]["id"].clone();
    snap(&mut norm, "get_entries__since", step(&mut rpc, json!({"type": "get_entries", "since": since})));
    let export = json!({"type": "export_html", "outputPath": scratch.tmp.join("session.html")});
    snap(&mut norm, "export_html", step(&mut rpc, export));

    let forkable = snap(&mut norm, "get_fork_messages", step(&mut rpc, json!({"type": "get_fork_messages"})));
    let entry_id = forkable["data"]["messages"][0]["entryId"].as_str().expect("a message to fork from").to_string();
    snap(&mut norm, "clone", step(&mut rpc, json!({"type": "clone"})));
    snap(&mut norm, "fork", step(&mut rpc, json!({"type": "fork", "entryId": entry_id})));
    snap(&mut norm, "get_state__forked", step(&mut rpc, json!({"type": "get_state"})));
    let other = other_session(&scratch.tmp, &scratch.work);
    snap(&mut norm, "switch_session", step(&mut rpc, json!({"type": "switch_session", "sessionPath": other})));
    snap(&mut norm, "get_state__switched", step(&mut rpc, json!({"type": "get_state"})));
    // The switched-to session has one entry: its tree is short.
    snap(&mut norm, "get_tree", step(&mut rpc, json!({"type": "get_tree"})));
    snap(&mut norm, "new_session", step(&mut rpc, json!({"type": "new_session"})));
    snap(&mut norm, "get_state__new_session", step(&mut rpc, json!({"type": "get_state"})));

    let left = rpc.drain();
    assert!(left.is_empty(), "records after the last answer: {left:#?}");
    rpc.close_and_wait(WITHIN);
}
