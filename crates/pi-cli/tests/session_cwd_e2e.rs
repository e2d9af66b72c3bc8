//! A resumed session runs in the folder it was made in, as the reference's
//! (docs/sessions.md: `--session` and `--resume` use the session's working
//! directory; `--fork` and a new session use the current one): the system
//! prompt's folder and context files, the project's trust and settings, and
//! the tools' folder are the session's.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::process::Stdio;

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

/// A session made in `cwd` with one exchange, written as the reference writes it.
fn session_in(cwd: &Path, file: &Path) {
    let ts = "2026-01-01T00:00:00.000Z";
    let lines = [
        json!({"type": "session", "version": 3, "id": "0190aaaa-0000-7000-8000-000000000001", "timestamp": ts, "cwd": cwd}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": ts,
               "message": {"role": "user", "content": [{"type": "text", "text": "before"}], "timestamp": 1}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "timestamp": ts,
               "message": {"role": "assistant", "content": [{"type": "text", "text": "noted"}], "api": "openai-completions",
                           "provider": "mock", "model": "mock-1", "usage": {"input": 1, "output": 1, "cacheRead": 0,
                           "cacheWrite": 0, "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                           "cacheWrite": 0, "total": 0}}, "stopReason": "stop", "timestamp": 2}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(file, text).unwrap();
}

fn system_prompt(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap_or_default().to_string()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn tool_results(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().unwrap();
    messages.iter().filter(|m| m["role"] == "tool").map(|m| m["content"].as_str().unwrap_or_default().into()).collect()
}

/// The session's folder `there` (with its own context file, a trusted
/// `.pi/settings.json` choosing tools, a file) and the current folder (with
/// its own context file).
fn two_folders(s: &Scratch) -> std::path::PathBuf {
    let there = s.tmp.join("there");
    std::fs::create_dir_all(there.join(".pi")).unwrap();
    std::fs::write(there.join("AGENTS.md"), "Rules of there").unwrap();
    std::fs::write(there.join(".pi/settings.json"), r#"{"defaultTools": ["read", "bash", "ls"]}"#).unwrap();
    std::fs::write(there.join("only-there.txt"), "x").unwrap();
    std::fs::write(s.work.join("AGENTS.md"), "Rules of here").unwrap();
    let trust = json!({there.canonicalize().unwrap().to_string_lossy(): true});
    std::fs::write(s.agent_dir().join("trust.json"), trust.to_string()).unwrap();
    there
}

#[test]
fn a_session_given_by_path_runs_in_its_own_folder() {
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": "pwd; ls"})), Turn::text("done")]);
    let s = Scratch::new(&server);
    let there = two_folders(&s);
    let file = s.tmp.join("old.jsonl");
    session_in(&there, &file);
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--model", "mock/mock-1", "--session"])
        .arg(&file)
        .arg("go")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0].body;
    let prompt = system_prompt(first);
    assert!(prompt.contains("Rules of there") && !prompt.contains("Rules of here"), "{prompt}");
    assert!(prompt.contains(&*there.to_string_lossy()), "the prompt names the session's folder: {prompt}");
    assert_eq!(tool_names(first), ["read", "bash", "ls"], "the session folder's trusted settings apply");
    let results = tool_results(&requests[1].body);
    assert_eq!(results.len(), 1);
    assert!(results[0].starts_with(&format!("{}\n", there.display())), "bash ran there: {}", results[0]);
    assert!(results[0].contains("only-there.txt"), "{}", results[0]);
    // The conversation went on in the session's file.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.lines().count() > 3 && text.contains("\"done\""), "{text}");
}

#[test]
fn a_session_whose_folder_is_the_current_one_or_a_new_one_runs_here() {
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": "pwd"})), Turn::text("done")]);
    let s = Scratch::new(&server);
    let there = two_folders(&s);
    let file = s.tmp.join("old.jsonl");
    session_in(&there, &file);
    // --fork copies the session into the current folder.
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--model", "mock/mock-1", "--fork"])
        .arg(&file)
        .arg("go")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requests = server.requests();
    let prompt = system_prompt(&requests[0].body);
    assert!(prompt.contains("Rules of here") && !prompt.contains("Rules of there"), "{prompt}");
    let results = tool_results(&requests[1].body);
    assert!(results[0].starts_with(&format!("{}\n", s.work.display())), "bash ran here: {}", results[0]);
}

/// RPC `switch_session` to a session made in another folder: from then on
/// the run is there, as the reference's (black-box: its bash printed the
/// session's folder and its prompt carried that folder's context file).
#[test]
fn rpc_switch_session_moves_to_the_sessions_folder() {
    use std::io::Write;
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": "pwd; ls"})), Turn::text("done")]);
    let s = Scratch::new(&server);
    let there = two_folders(&s);
    let file = s.tmp.join("old.jsonl");
    session_in(&there, &file);
    let (mut child, mut stdin, mut out) = s.rpc(env!("CARGO_BIN_EXE_pi"), &[]);
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(json!({"id": "1", "type": "switch_session", "sessionPath": file}));
    let r = pi_test_support::read_until(&mut out, |v| v["type"] == "response" && v["id"] == "1");
    assert_eq!(r["success"], true, "{r}");
    send(json!({"id": "2", "type": "bash", "command": "pwd"}));
    let r = pi_test_support::read_until(&mut out, |v| v["type"] == "response" && v["id"] == "2");
    assert_eq!(r["data"]["output"].as_str().unwrap().trim(), there.to_string_lossy(), "{r}");
    send(json!({"id": "3", "type": "prompt", "message": "go"}));
    pi_test_support::read_until(&mut out, |v| v["type"] == "agent_end");
    drop(stdin);
    let _ = child.wait();
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0].body;
    let prompt = system_prompt(first);
    assert!(prompt.contains("Rules of there") && !prompt.contains("Rules of here"), "{prompt}");
    assert!(prompt.contains(&*there.to_string_lossy()), "the prompt names the session's folder: {prompt}");
    assert_eq!(tool_names(first), ["read", "bash", "ls"], "the session folder's trusted settings apply");
    let results = tool_results(&requests[1].body);
    assert!(results[0].starts_with(&format!("{}\n", there.display())), "bash ran there: {}", results[0]);
    assert!(results[0].contains("only-there.txt"), "{}", results[0]);
    // The earlier conversation is the context, and it went on in the file.
    assert!(pi_test_support::user_texts(first).contains(&"before".to_string()), "{first}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"done\""), "{text}");
}
