//! End-to-end: the agent's lifecycle events reach extensions through the
//! `pi` binary, in the reference's order and with its fields, and the
//! transforming ones (`context`, `message_end`) change what happens.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, ToolCallSpec, Turn};
use serde_json::json;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../pi-ext/tests/fixtures").join(name)
}

fn run(s: &Scratch, args: &[&str]) -> Output {
    s.pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The text of the last `role: "tool"` message the model was sent.
fn last_tool_text(server: &MockServer) -> String {
    let requests = server.requests();
    let body = &requests.last().unwrap().body;
    let tool = body["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "tool").unwrap();
    tool["content"].as_str().unwrap().to_string()
}

#[test]
fn lifecycle_events_arrive_in_the_references_order_and_message_end_can_replace() {
    let server = MockServer::start(vec![
        Turn::tools(vec![ToolCallSpec::new("read", json!({"path": "f.txt"})), ToolCallSpec::new("nope", json!({}))]),
        Turn::tool("agent_events", json!({})),
        Turn::text("ok"),
    ]);
    let s = Scratch::new(&server);
    std::fs::write(s.work.join("f.txt"), "hi\n").unwrap();
    let ext = fixture("agent-events.ts");
    let out = run(&s, &["-e", ext.to_str().unwrap(), "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // As the reference logs them (measured side by side: case ext-agent-events).
    let expected = "agent_start
turn_start #0
message_start system
message_end system
message_start user
message_end user
context user
message_start assistant
message_end assistant
tool_execution_start read
tool_execution_start nope
tool_execution_end nope error=true text=\"Tool nope not found\"
tool_execution_end read error=false text=\"hi\\n\"
message_start toolResult
message_end toolResult
message_start toolResult
message_end toolResult
turn_end assistant #0 completed results=2 entries=0 continue=false
turn_start #1
context user,assistant,toolResult,toolResult
message_start assistant
message_end assistant
tool_execution_start agent_events";
    assert_eq!(last_tool_text(&server), expected);
    // message_end replaced the final answer's text.
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[seen] ok");
}

#[test]
fn a_context_answer_that_is_not_a_list_sends_no_messages_and_failing_handlers_are_reported() {
    let server = MockServer::start(vec![Turn::text("done")]);
    let s = Scratch::new(&server);
    let ext = s.work.join("ctx.js");
    std::fs::write(
        &ext,
        r#"export default function (pi) {
  pi.on("context", async (event) => ({ messages: [...event.messages, { role: "user", content: [{ type: "text", text: "(note)" }], timestamp: 1 }] }));
  pi.on("agent_start", async () => { throw new Error("start failed"); });
  pi.on("context", async () => ({ messages: "not a list" }));
}"#,
    )
    .unwrap();
    let out = run(&s, &["-e", ext.to_str().unwrap(), "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "done");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("Extension error ({}): start failed", ext.display())), "{stderr}");
    // The second handler's answer is not a list: reported, and (as the
    // reference) no messages go, only the system prompt.
    assert!(stderr.contains("context handler returned messages that are not a list (string)"), "{stderr}");
    let requests = server.requests();
    let body = &requests[0].body;
    let roles: Vec<&str> = body["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system"]);
}

#[test]
fn a_context_handler_adds_a_message_to_the_request_only() {
    let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("done")]);
    let s = Scratch::new(&server);
    std::fs::write(s.work.join("f.txt"), "hi\n").unwrap();
    let ext = s.work.join("note.js");
    std::fs::write(
        &ext,
        r#"export default function (pi) {
  pi.on("context", async (event) => ({ messages: [...event.messages, { role: "user", content: [{ type: "text", text: "(note)" }], timestamp: 1 }] }));
}"#,
    )
    .unwrap();
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--model", "mock/mock-1", "--mode", "json", "-e", ext.to_str().unwrap(), "go"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    // Each request ends with the note; the conversation itself never holds it.
    for r in server.requests() {
        let last = r.body["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["content"], json!([{"type": "text", "text": "(note)"}]), "{last}");
    }
    let notes = String::from_utf8_lossy(&out.stdout).matches("(note)").count();
    assert_eq!(notes, 0, "the note is not a message of the session");
}

#[test]
fn an_extension_sets_the_model_and_thinking_level_for_the_next_request() {
    let server = MockServer::start(vec![Turn::tool("show_log", json!({})), Turn::text("done")]);
    let s = Scratch::new(&server);
    let models = json!({"providers": {"mock": {"baseUrl": format!("{}/v1", server.base_url()), "api": "openai-completions",
        "apiKey": "x", "models": [{"id": "mock-1"}, {"id": "mock-2", "reasoning": true}]}}});
    std::fs::write(s.agent_dir().join("models.json"), models.to_string()).unwrap();
    let ext = fixture("set-model.ts");
    let out = run(&s, &["-e", ext.to_str().unwrap(), "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for r in server.requests() {
        assert_eq!((r.body["model"].as_str(), r.body["reasoning_effort"].as_str()), (Some("mock-2"), Some("high")));
    }
    let log = last_tool_text(&server);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(
        &lines[..4],
        ["before: mock-1 off", "setModel: true now mock-2", "thinking: high high", "unknown: false"],
        "{log}"
    );
    // The events come once the handler's turn is over (the reference's come during it).
    assert!(
        lines.contains(&"model_select set mock-1 -> mock-2") && lines.contains(&"thinking_level_select off -> high"),
        "{log}"
    );
}

#[test]
fn ctx_compact_in_a_tool_aborts_the_run_then_compacts_and_tells_the_callbacks() {
    let server = MockServer::start(vec![Turn::tool("compact_now", json!({})), Turn::text("never")]);
    let s = Scratch::new(&server);
    let log = s.work.join("compact.log");
    let ext = fixture("compact-now.ts");
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", ext.to_str().unwrap(), "go"])
        .env("COMPACT_LOG", &log)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    // As the reference: the run ends with an aborted answer, no second request is made.
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim(), "This operation was aborted");
    assert_eq!(server.requests().len(), 1);
    // A session this small has nothing to compact: the callback hears why.
    let heard = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(heard, "error Nothing to compact (session too small)\n");
}

#[test]
fn ctx_compact_from_a_command_compacts_with_its_instructions() {
    use std::io::Write;
    let server =
        MockServer::start(vec![Turn::text("first answer"), Turn::text("second answer"), Turn::text("SUMMARY")]);
    let s = Scratch::new(&server);
    let log = s.work.join("compact.log");
    let ext = fixture("compact-now.ts");
    let mut child = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1", "-e", ext.to_str().unwrap()])
        .env("COMPACT_LOG", &log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    // Two exchanges long enough that the first can be summarised.
    let long = "word ".repeat(20_000);
    for _ in 0..2 {
        writeln!(stdin, "{}", json!({"type": "prompt", "message": long})).unwrap();
        pi_test_support::read_until(&mut out, |e| e["type"] == "agent_settled");
    }
    writeln!(stdin, "{}", json!({"type": "prompt", "message": "/compact-now keep it short"})).unwrap();
    pi_test_support::read_until(&mut out, |e| e["type"] == "compaction_end");
    drop(stdin);
    let _ = child.wait();
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "the answers, then the summary");
    let summary_request = requests[2].body.to_string();
    assert!(summary_request.contains("keep it short"), "the instructions reach the summary request");
    let heard = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(heard, "complete string string\n");
}

#[test]
fn ctx_reload_loads_the_extensions_again_as_new_instances() {
    use std::io::Write;
    let server = MockServer::start(vec![
        Turn::tool("state", json!({})),
        Turn::text("one"),
        Turn::tool("state", json!({})),
        Turn::text("two"),
    ]);
    let s = Scratch::new(&server);
    let ext = fixture("reload-state.ts");
    let (mut child, mut stdin, mut out) = s.rpc(env!("CARGO_BIN_EXE_pi"), &["-e", ext.to_str().unwrap()]);
    for message in ["go", "/reload-now", "again"] {
        writeln!(stdin, "{}", json!({"type": "prompt", "message": message})).unwrap();
        if message == "/reload-now" {
            pi_test_support::read_until(&mut out, |e| e["type"] == "response" && e["data"]["disposition"] == "handled");
        } else {
            pi_test_support::read_until(&mut out, |e| e["type"] == "agent_settled");
        }
    }
    drop(stdin);
    let _ = child.wait();
    let texts: Vec<String> = server
        .requests()
        .iter()
        .filter_map(|r| {
            let m = r.body["messages"].as_array()?.last()?.clone();
            (m["role"] == "tool").then(|| m["content"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    // As the reference: the module is loaded anew (its counter starts again) and the new instance
    // heard session_start and resources_discover with reason "reload".
    assert_eq!(texts, ["loads=1 seen=start:startup,discover:startup", "loads=1 seen=start:reload,discover:reload"]);
}

/// Drive `pi --mode rpc` with the session-events fixture: prompt, then `command`, then a prompt.
fn rpc_session_run(command: serde_json::Value, cancel: &str) -> (String, serde_json::Value) {
    use std::io::Write;
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    let s = Scratch::new(&server);
    let log = s.work.join("session.log");
    let ext = fixture("session-events.ts");
    let mut child = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["--mode", "rpc", "--offline", "--model", "mock/mock-1", "-e", ext.to_str().unwrap()])
        .env("SESSION_LOG", &log)
        .env("SESSION_CANCEL", cancel)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{}", json!({"type": "prompt", "message": "go"})).unwrap();
    pi_test_support::read_until(&mut out, |e| e["type"] == "agent_settled");
    writeln!(stdin, "{command}").unwrap();
    let answer = pi_test_support::read_until(&mut out, |e| e["type"] == "response" && e["id"] == "r");
    drop(stdin);
    let _ = child.wait();
    (std::fs::read_to_string(&log).unwrap_or_default(), answer)
}

#[test]
fn rpc_new_session_asks_the_extensions_then_loads_them_again() {
    let (log, answer) = rpc_session_run(json!({"type": "new_session", "id": "r"}), "");
    assert_eq!(answer["data"], json!({"cancelled": false}));
    // The reference's order and fields (measured side by side).
    assert_eq!(
        log,
        "session_start reason=startup
resources_discover reason=startup
session_before_switch reason=new
session_shutdown reason=new targetSessionFile=<path>
session_start reason=new previousSessionFile=<path>
resources_discover reason=startup
session_shutdown reason=quit
"
    );
    let (log, answer) = rpc_session_run(json!({"type": "new_session", "id": "r"}), "switch");
    assert_eq!(answer["data"], json!({"cancelled": true}));
    assert_eq!(
        log,
        "session_start reason=startup\nresources_discover reason=startup\nsession_before_switch reason=new\nsession_shutdown reason=quit\n"
    );
}

#[test]
fn rpc_clone_and_fork_ask_session_before_fork() {
    let (log, answer) = rpc_session_run(json!({"type": "clone", "id": "r"}), "fork");
    assert_eq!(answer["data"], json!({"cancelled": true}));
    // A clone names the leaf it copies through.
    assert!(log.contains("session_before_fork entryId=") && log.contains(" position=at\n"), "{log}");
    assert!(!log.contains("entryId=null"), "{log}");
    let (log, answer) = rpc_session_run(json!({"type": "clone", "id": "r"}), "");
    assert_eq!(answer["data"], json!({"cancelled": false}));
    assert!(log.contains("session_shutdown reason=fork targetSessionFile=<path>\nsession_start reason=fork previousSessionFile=<path>\n"), "{log}");
}

#[test]
fn a_commands_new_session_loads_the_extensions_again_before_it_resolves() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let log = s.work.join("session.log");
    let ext = fixture("session-events.ts");
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", ext.to_str().unwrap(), "/new-now"])
        .env("SESSION_LOG", &log)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "session_start reason=startup
resources_discover reason=startup
session_before_switch reason=new
session_shutdown reason=new
session_start reason=new
resources_discover reason=startup
newSession cancelled=false
session_shutdown reason=quit
"
    );
}
