//! Running `tests/rpc_client/drive.mjs` against one side (ours or the
//! reference) with the mock model, and comparing two recordings.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::process::Stdio;

use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

/// What the mock model answers, in order: a `read` call and "done" (the
/// first prompt), a stream that stalls until aborted (steer, follow-up,
/// abort), summaries (compaction: the reference asks twice, for the history
/// and for the cut turn's start), then spare answers.
fn turns() -> Vec<Turn> {
    vec![
        Turn::tool("read", json!({"path": "hello.txt"})),
        Turn::text("done"),
        // One text chunk, then nothing: the events before the steer are fixed.
        Turn::raw_sse(&format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-s", "object": "chat.completion.chunk",
            "created": 0, "model": "mock-1",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": "waiting"}, "finish_reason": null}]})
        ))
        .stall(),
        Turn::text("## Goal\nsummary"),
        Turn::text("## Turn\nprefix"),
        Turn::text("spare"),
    ]
}

/// Run the driver with `cli` as the client's `cliPath` (`bin`: our `pi`,
/// run by `spawn-pi.mjs`; `node_dir`: put first on `PATH` for the client's
/// `node`), and return its recording.
pub fn drive(client_js: &Path, cli: &Path, bin: Option<&Path>, node_dir: Option<&Path>) -> Value {
    let server = MockServer::start(turns());
    let dir = tempfile::tempdir().unwrap();
    let (home, work, tmp, scratch) =
        (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"), dir.path().join("scratch"));
    let agent_dir = home.join(".pi/agent");
    for d in [&agent_dir, &work, &tmp, &scratch] {
        std::fs::create_dir_all(d).unwrap();
    }
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "x",
        "models": [{"id": "mock-1", "reasoning": true}, {"id": "mock-2"}],
    }}});
    std::fs::write(agent_dir.join("models.json"), models.to_string()).unwrap();
    // Keep almost nothing on compaction, so a short session compacts.
    std::fs::write(agent_dir.join("settings.json"), r#"{"compaction": {"keepRecentTokens": 1}}"#).unwrap();
    std::fs::write(work.join("hello.txt"), "hello\n").unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc_client");
    let mut cmd = std::process::Command::new("node");
    cmd.arg(here.join("drive.mjs"))
        .current_dir(&work)
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .env("RPC_CLIENT_JS", client_js)
        .env("RPC_CLI_PATH", cli)
        .env("RPC_CWD", &work)
        .env("RPC_SCRATCH", &scratch)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::null());
    if let Some(bin) = bin {
        cmd.env("PI_BIN", bin);
    }
    if let Some(node_dir) = node_dir {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![node_dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap());
    }
    let out = cmd.output().expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!("the driver printed no recording ({e}): {text}\nstderr: {}", String::from_utf8_lossy(&out.stderr))
    })
}

/// Where `ours` differs from `expected`, one line per difference, by step.
pub fn differences(expected: &Value, ours: &Value) -> Vec<String> {
    let steps = |v: &Value| v["steps"].as_array().cloned().unwrap_or_default();
    let (want, got) = (steps(expected), steps(ours));
    let mut out = Vec::new();
    for w in &want {
        let name = w["step"].as_str().unwrap_or_default();
        match got.iter().find(|g| g["step"] == w["step"]) {
            Some(g) => diff_value(&format!("[{name}]"), w, g, &mut out),
            None => out.push(format!("[{name}] missing from ours")),
        }
    }
    for g in got.iter().filter(|g| !want.iter().any(|w| w["step"] == g["step"])) {
        out.push(format!("[{}] only in ours", g["step"].as_str().unwrap_or_default()));
    }
    out
}

fn diff_value(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                match g.get(k) {
                    Some(gv) => diff_value(&format!("{path}.{k}"), wv, gv, out),
                    None => out.push(format!("{path}.{k}: missing from ours (reference: {})", brief(wv))),
                }
            }
            for (k, gv) in g.iter().filter(|(k, _)| !w.contains_key(*k)) {
                out.push(format!("{path}.{k}: only in ours ({})", brief(gv)));
            }
        }
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                diff_value(&format!("{path}[{i}]"), wv, gv, out);
            }
        }
        _ if want == got => {}
        _ => out.push(format!("{path}: reference {} / ours {}", brief(want), brief(got))),
    }
}

fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 600 { format!("{}…", s.chars().take(600).collect::<String>()) } else { s }
}
