//! A linear conversation of 100,000 entries (a chain as deep as it is long):
//! resumed over RPC (`switch_session`), then `get_tree`, `export_html`,
//! `get_fork_messages`, `fork` and `get_state` all answer, and `--session`
//! continues it in print mode. Nothing walks the chain by recursion.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::rpc_driver;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use pi_test_support::{MockServer, Scratch, Turn};
use rpc_driver::Rpc;
use serde_json::json;

/// Entries in the session.
const ENTRIES: usize = 100_000;
/// How long one command over the whole session may take (a debug build on a busy machine).
const WITHIN: Duration = Duration::from_secs(120);

/// The id of entry `i`.
fn id(i: usize) -> String {
    format!("{i:08x}")
}

/// Write a session of `n` messages, user and assistant in turn, each the child of the one before.
fn write_session(path: &Path, cwd: &Path, n: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let header = json!({"type": "session", "version": 3, "id": "01a24a34-3ddd-7268-8992-4b46f66aedf5",
        "timestamp": "2026-12-06T07:14:27.421Z", "cwd": cwd});
    writeln!(f, "{header}").unwrap();
    let usage = r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#;
    for i in 0..n {
        let parent = if i == 0 { "null".to_string() } else { format!("\"{}\"", id(i - 1)) };
        let message = if i % 2 == 0 {
            format!(r#"{{"role":"user","content":[{{"type":"text","text":"q{i}"}}],"timestamp":1}}"#)
        } else {
            format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"a{i}"}}],"api":"openai-completions","provider":"mock","model":"mock-1","usage":{usage},"stopReason":"stop","timestamp":1}}"#
            )
        };
        writeln!(
            f,
            r#"{{"type":"message","id":"{}","parentId":{parent},"timestamp":"2026-12-06T07:14:27.421Z","message":{message}}}"#,
            id(i)
        )
        .unwrap();
    }
    f.flush().unwrap();
}

#[test]
fn a_hundred_thousand_entry_session_is_resumed_walked_exported_and_forked() {
    // Spare answers: continuing so long a session may compact it first.
    let server = MockServer::start((0..5).map(|_| Turn::text("ok")).collect());
    let scratch = Scratch::new(&server);
    let file = scratch.tmp.join("long.jsonl");
    write_session(&file, &scratch.work, ENTRIES);
    let mut rpc = Rpc::start(&scratch, &[]);

    let r = rpc.ask(json!({"type": "switch_session", "sessionPath": file}), WITHIN).expect("switch_session answered");
    assert_eq!(r["success"], true, "{r}");

    rpc.send(json!({"id": "tree", "type": "get_tree"}));
    let tree = rpc
        .find(WITHIN, |v| v.as_str().is_some_and(|t| t.starts_with(r#"{"id":"tree","type":"response""#)))
        .expect("get_tree answered (as a line too deep for serde_json's default limit)");
    let tree = tree.as_str().unwrap();
    assert!(tree.contains(r#""success":true,"data":{"tree":[{"entry":"#), "{}", &tree[..300]);
    assert_eq!(tree.matches(r#"{"entry":"#).count(), ENTRIES, "every entry once");
    assert!(tree.ends_with(&format!(r#""leafId":"{}"}}}}"#, id(ENTRIES - 1))), "{}", &tree[tree.len() - 200..]);

    let html = scratch.tmp.join("long.html");
    let r = rpc.ask(json!({"type": "export_html", "outputPath": html}), WITHIN).expect("export_html answered");
    assert_eq!(r["success"], true, "{r}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.len() > ENTRIES * 10, "the page holds the conversation ({} bytes)", page.len());

    let r = rpc.ask(json!({"type": "get_fork_messages"}), WITHIN).expect("get_fork_messages answered");
    assert_eq!(r["data"]["messages"].as_array().map(Vec::len), Some(ENTRIES / 2), "one per user message");

    let last_user = id(ENTRIES - 2);
    let r = rpc.ask(json!({"type": "fork", "entryId": last_user}), WITHIN).expect("fork answered");
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["data"]["text"], format!("q{}", ENTRIES - 2));

    let r = rpc.ask(json!({"type": "get_state"}), WITHIN).expect("get_state answered");
    assert_eq!(r["data"]["messageCount"], ENTRIES - 2, "the fork holds the branch before the message: {r}");
    rpc.close_and_wait(WITHIN);

    // Continued from the command line (compacted first: it is far past the context window).
    let out = scratch
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--model", "mock/mock-1", "--session"])
        .arg(&file)
        .arg("one more")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    let sent = server.requests();
    let last = sent.last().unwrap().body["messages"].to_string();
    assert!(last.contains("one more"), "the new message was sent");
}
