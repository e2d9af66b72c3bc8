//! End-to-end: the real `pi` binary against the mock model server on
//! 127.0.0.1 (OpenAI Chat Completions, Anthropic Messages), in print, JSON and
//! RPC modes, with sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, ToolCallSpec, Turn};
use serde_json::{Value, json};

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(home.join(".pi/agent")).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        Env { _dir: dir, home, work }
    }

    fn agent_dir(&self) -> PathBuf {
        self.home.join(".pi/agent")
    }

    fn settings(&self, v: Value) {
        std::fs::write(self.agent_dir().join("settings.json"), v.to_string()).unwrap();
    }

    fn no_retry(&self) {
        self.settings(json!({"retry": {"enabled": false}}));
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let tmp = self.home.parent().unwrap().join("tmp");
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &tmp);
        c.args(args);
        c
    }

    /// `pi --mode rpc` with the mock model: the child, its stdin and its stdout lines.
    fn rpc(&self, extra: &[&str]) -> (Child, ChildStdin, BufReader<ChildStdout>) {
        let mut args = vec!["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1"];
        args.extend_from_slice(extra);
        let mut child =
            self.cmd(&args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let reader = BufReader::new(child.stdout.take().unwrap());
        (child, stdin, reader)
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut base = vec!["-p", "--offline", "--model", "mock/mock-1"];
        base.extend_from_slice(args);
        self.cmd(&base).stdin(Stdio::null()).output().unwrap()
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `role: "tool"` messages of a recorded Chat Completions request.
fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The JSON-mode event lines of a run.
fn json_events(o: &Output) -> Vec<Value> {
    stdout(o).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// The first tool result message among JSON-mode events.
fn first_tool_result(events: &[Value]) -> Value {
    events
        .iter()
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
        .map(|e| e["message"].clone())
        .expect("a tool result message")
}

fn declared(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn multi_turn_tool_loop() {
    let env = Env::new();
    std::fs::write(env.work.join("f.txt"), "hello file\n").unwrap();
    let server = MockServer::start(vec![
        Turn::tool("read", json!({"path": "f.txt"})),
        Turn::tool("bash", json!({"command": "echo from-bash"})),
        Turn::text("all done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "go"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "all done\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(tool_messages(&reqs[1].body).last().unwrap().1, "hello file\n");
    assert_eq!(tool_messages(&reqs[2].body).last().unwrap().1, "from-bash\n");
    assert_eq!(declared(&reqs[0].body), ["read", "bash", "edit", "write"]);
}

#[test]
fn two_calls_in_one_turn_answer_in_call_order() {
    let env = Env::new();
    std::fs::write(env.work.join("f.txt"), "quick\n").unwrap();
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::new("bash", json!({"command": "sleep 0.4; echo slow"})).with_id("first"),
            ToolCallSpec::new("read", json!({"path": "f.txt"})).with_id("second"),
        ]),
        Turn::text("ok"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let started = Instant::now();
    let out = env.run(&["--no-session", "go"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let msgs = tool_messages(&server.requests()[1].body);
    assert_eq!(msgs, [("first".to_string(), "slow\n".to_string()), ("second".to_string(), "quick\n".to_string())]);
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn malformed_arguments_and_unknown_tools_are_reported_to_the_model() {
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::raw("read", "{\"path\": "),
            ToolCallSpec::new("nosuch", json!({})),
            ToolCallSpec::new("read", json!({})),
        ]),
        Turn::text("ok"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "go"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let msgs = tool_messages(&server.requests()[1].body);
    assert!(msgs[0].1.starts_with("Invalid arguments for tool \"read\": "), "{}", msgs[0].1);
    assert!(msgs[0].1.contains("Received arguments:\n{\"path\": "), "{}", msgs[0].1);
    assert_eq!(msgs[1].1, "Tool nosuch not found");
    assert_eq!(msgs[2].1, "Validation failed for tool \"read\":\n  - path: missing\n\nReceived arguments:\n{}");
}

#[test]
fn rate_limit_is_retried() {
    let env = Env::new();
    env.settings(json!({"retry": {"baseDelayMs": 50}}));
    let server = MockServer::start(vec![Turn::error(429, "slow down"), Turn::text("after retry")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "go"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "after retry\n");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn server_error_exits_1_with_the_servers_message() {
    let env = Env::new();
    env.no_retry();
    let server = MockServer::start(vec![Turn::error(500, "boom")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), "500: {\"message\":\"boom\"}");
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_failed_message_does_not_stop_the_next_one() {
    let env = Env::new();
    env.no_retry();
    let server = MockServer::start(vec![Turn::error(400, "bad thing"), Turn::text("two")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "first", "second"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "two\n");
    assert_eq!(stderr(&out), "");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_stream_cut_mid_way_exits_1() {
    let env = Env::new();
    env.no_retry();
    let server = MockServer::start(vec![Turn::text("this answer never ends properly").cut()]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "go"]);
    assert_eq!(out.status.code(), Some(1), "stdout: {}", stdout(&out));
    assert!(!stderr(&out).trim().is_empty());
}

#[test]
fn anthropic_messages_tool_loop() {
    let env = Env::new();
    std::fs::write(env.work.join("f.txt"), "anthropic file\n").unwrap();
    let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("done")]);
    server.write_models_json(&env.agent_dir(), "anthropic-messages");
    let out = env.run(&["--no-session", "go"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
    let body = &server.requests()[1].body;
    let text = body.to_string();
    assert!(text.contains("tool_result") && text.contains("anthropic file"), "{text}");
}

#[test]
fn tool_selection_flags_decide_the_declared_tools() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["--tools", "read,grep,find,ls"], &["read", "grep", "find", "ls"]),
        (&["--tools", "ls,read"], &["ls", "read"]),
        (&["--tools", "read,bash", "--exclude-tools", "read"], &["bash"]),
        (&["-t", "+grep,-bash"], &["read", "edit", "write", "grep"]),
        (&["--no-builtin-tools"], &[]),
        (&["--tools", ""], &[]),
        (
            &["--tools", "*"],
            &["read", "bash", "powershell", "edit", "write", "grep", "find", "ls", "codemode", "tool_search"],
        ),
    ];
    for (flags, want) in cases {
        let env = Env::new();
        let server = MockServer::start(vec![Turn::text("ok")]);
        server.write_models_json(&env.agent_dir(), "openai-completions");
        let mut args = vec!["--no-session"];
        args.extend_from_slice(flags);
        args.push("go");
        let out = env.run(&args);
        assert!(out.status.success(), "{flags:?}: {}", stderr(&out));
        assert_eq!(declared(&server.requests()[0].body), *want, "{flags:?}");
    }
}

#[test]
fn mixed_tool_list_is_an_error() {
    let env = Env::new();
    let server = MockServer::start(vec![]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "-t", "read,+bash", "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), "Error: -t: tool names cannot be mixed with +name or -name entries");
    let out = env.run(&["--no-session", "--tools", "+gr*", "go"]);
    assert_eq!(
        stderr(&out).trim_end(),
        "Error: --tools: +name and -name entries take exact tool names, not patterns: +gr*"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn no_model_configured_names_the_ways_to_configure_one() {
    let env = Env::new();
    let out = env.cmd(&["-p", "hello"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // As the reference: the session starts without a model, the prompt is
    // refused with the way to add one, and nothing is sent.
    let err = stderr(&out);
    let mut lines = err.lines();
    assert_eq!(
        lines.next(),
        Some("Warning: No models available. Use /login to log into a provider via OAuth or API key. See:")
    );
    let refusal: Vec<&str> = lines.skip(2).collect();
    assert_eq!(
        refusal[..3],
        [
            "No API key found for the selected model.",
            "",
            "Use /login to log into a provider via OAuth or API key. See:"
        ]
    );
    assert!(refusal[3].ends_with("docs/providers.md") && refusal[4].ends_with("docs/models.md"), "{err}");
    assert!(stdout(&out).is_empty());
    let out = env.cmd(&["-p", "--model", "nosuch/x", "hello"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // As the reference: the error, then the warning that no model is available.
    let err = stderr(&out);
    let mut lines = err.lines();
    assert_eq!(lines.next(), Some("Error: Model \"nosuch/x\" not found. Use --list-models to see available models."));
    assert_eq!(
        lines.next(),
        Some("Warning: No models available. Use /login to log into a provider via OAuth or API key. See:")
    );
}

#[test]
fn json_mode_lines_all_parse_in_the_documented_order() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": "echo x"})), Turn::text("fin")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "--mode", "json", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).expect(l)).collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types[0], "session");
    assert_eq!(types[1], "agent_start");
    assert_eq!(*types.last().unwrap(), "agent_settled");
    let pos = |t: &str| types.iter().position(|x| *x == t).unwrap_or_else(|| panic!("no {t} in {types:?}"));
    assert!(pos("turn_start") < pos("message_update"));
    assert!(pos("tool_execution_start") < pos("tool_execution_end"));
    assert!(pos("tool_execution_end") < pos("turn_end"));
    assert!(pos("turn_end") < pos("agent_end"));
    assert!(
        events
            .iter()
            .filter(|e| e["type"] == "message_update")
            .all(|e| e["assistantMessageEvent"].get("partial").is_none())
    );
    let end = events.iter().find(|e| e["type"] == "tool_execution_end").unwrap();
    assert_eq!(end["result"]["content"][0]["text"], "x\n");
}

#[test]
fn failed_calls_carry_empty_details_and_only_calls_that_ran_a_duration() {
    let env = Env::new();
    std::fs::write(env.work.join("f.txt"), "hi\n").unwrap();
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::new("edit", json!({"path": "f.txt", "edits": 5})).with_id("invalid"),
            ToolCallSpec::new("read", json!({"path": "missing.txt"})).with_id("thrown"),
            ToolCallSpec::new("nope", json!({})).with_id("unknown"),
            ToolCallSpec::new("read", json!({"path": "f.txt"})).with_id("fine"),
        ]),
        Turn::text("ok"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "--mode", "json", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);
    let end =
        |id: &str| events.iter().find(|e| e["type"] == "tool_execution_end" && e["toolCallId"] == id).unwrap().clone();
    let message = |id: &str| {
        events
            .iter()
            .find(|e| e["type"] == "message_end" && e["message"]["toolCallId"] == id)
            .map(|e| e["message"].clone())
            .unwrap()
    };
    for id in ["invalid", "unknown"] {
        assert_eq!(end(id)["result"]["details"], json!({}), "{id}");
        assert!(end(id).get("durationMs").is_none(), "{id}");
        assert_eq!(message(id)["details"], json!({}), "{id}");
        assert!(message(id).get("durationMs").is_none(), "{id}");
    }
    assert_eq!(end("thrown")["result"]["details"], json!({}));
    assert!(end("thrown")["durationMs"].is_number());
    assert!(message("thrown")["durationMs"].is_number());
    assert!(end("fine")["result"].get("details").is_none());
    assert!(message("fine")["durationMs"].is_number());
}

#[test]
fn sessions_are_written_private_and_continue_restores_the_conversation() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("first answer"), Turn::text("second answer")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["remember this"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = env.agent_dir().join("sessions");
    let sub: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(sub.len(), 1);
    assert!(
        sub[0].file_name().unwrap().to_string_lossy().starts_with("--") && sub[0].to_string_lossy().ends_with("--")
    );
    let files: Vec<PathBuf> = std::fs::read_dir(&sub[0]).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!((header["type"].as_str(), header["version"].as_u64()), (Some("session"), Some(3)));

    // A torn last line is reported and the rest still loads.
    let mut f = std::fs::OpenOptions::new().append(true).open(&files[0]).unwrap();
    f.write_all(b"{\"type\":\"message\",\"id\":\"tor").unwrap();
    drop(f);
    let out = env.run(&["--continue", "and now?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("Skipped unreadable line"), "{}", stderr(&out));
    let body = &server.requests()[1].body;
    let all = body["messages"].to_string();
    assert!(all.contains("remember this") && all.contains("first answer") && all.contains("and now?"), "{all}");
}

fn rpc_read(reader: &mut impl BufRead) -> Value {
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

fn rpc_until(reader: &mut impl BufRead, pred: impl Fn(&Value) -> bool) -> Value {
    loop {
        let v = rpc_read(reader);
        if pred(&v) {
            return v;
        }
    }
}

#[test]
fn rpc_commands_and_abort() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("hello from rpc"), Turn::text("never finished").stall()]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let (mut child, mut stdin, mut reader) = env.rpc(&[]);
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let is_response = |v: &Value| v["type"] == "response";

    send(json!({"id": "s1", "type": "get_state"}));
    let r = rpc_until(&mut reader, is_response);
    assert_eq!((r["id"].as_str(), r["success"].as_bool()), (Some("s1"), Some(true)));
    assert_eq!(r["data"]["isStreaming"], false);
    assert_eq!(r["data"]["model"]["id"], "mock-1");

    send(json!({"id": "u1", "type": "frobnicate"}));
    let r = rpc_until(&mut reader, is_response);
    assert_eq!(r["error"], "Unknown command: frobnicate");
    assert_eq!(r["success"], false);

    // JSON that names no command: the reference's answer (no `command`).
    send(json!("not an object"));
    let r = rpc_until(&mut reader, is_response);
    assert_eq!(r, json!({"type": "response", "success": false, "error": "Unknown command: undefined"}));

    send(json!({"id": "p1", "type": "prompt", "message": "hi"}));
    let r = rpc_until(&mut reader, is_response);
    assert_eq!(r["data"]["disposition"], "started");
    rpc_until(&mut reader, |v| v["type"] == "agent_settled");

    send(json!({"id": "t1", "type": "get_last_assistant_text"}));
    let r = rpc_until(&mut reader, is_response);
    assert_eq!(r["data"]["text"], "hello from rpc");

    send(json!({"id": "m1", "type": "get_messages"}));
    let r = rpc_until(&mut reader, is_response);
    let roles: Vec<&str> =
        r["data"]["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant"], "the system message first, as the reference");

    send(json!({"id": "st1", "type": "get_session_stats"}));
    let r = rpc_until(&mut reader, is_response);
    assert_eq!(r["data"]["assistantMessages"], 1);

    send(json!({"id": "b1", "type": "bash", "command": "echo rpc-bash"}));
    let r = rpc_until(&mut reader, is_response);
    assert_eq!((r["data"]["output"].as_str(), r["data"]["exitCode"].as_i64()), (Some("rpc-bash\n"), Some(0)));

    // A prompt whose stream stalls, aborted.
    send(json!({"id": "p2", "type": "prompt", "message": "again"}));
    rpc_until(&mut reader, |v| v["type"] == "response" && v["id"] == "p2");
    assert!(server.wait_for_requests(2, Duration::from_secs(10)));
    send(json!({"id": "p3", "type": "prompt", "message": "while busy"}));
    let r = rpc_until(&mut reader, |v| v["type"] == "response" && v["id"] == "p3");
    assert_eq!(r["success"], false);
    let started = Instant::now();
    send(json!({"id": "a1", "type": "abort"}));
    let settled = rpc_until(&mut reader, |v| v["type"] == "agent_settled");
    assert_eq!(settled["aborted"], true);
    rpc_until(&mut reader, |v| v["type"] == "response" && v["id"] == "a1");
    assert!(started.elapsed() < Duration::from_secs(5));

    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success());
}

#[test]
fn a_failed_request_still_starts_its_message_in_json_mode() {
    let env = Env::new();
    env.no_retry();
    let server = MockServer::start(vec![Turn::error(500, "boom")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "--mode", "json", "go"]);
    let events = json_events(&out);
    let assistant = |t: &str| {
        events
            .iter()
            .position(|e| e["type"] == t && e["message"]["role"] == "assistant")
            .unwrap_or_else(|| panic!("no {t}"))
    };
    assert!(assistant("message_start") < assistant("message_end"));
    let end = &events[assistant("message_end")]["message"];
    assert_eq!((end["stopReason"].as_str(), end["thinkingLevel"].as_str()), (Some("error"), Some("off")));
    assert_eq!(end["errorMessage"], "500: {\"message\":\"boom\"}");
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_ends_the_run_and_its_commands() {
    let env = Env::new();
    let marker = format!("pi-e2e-sleep-{}", std::process::id());
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": format!("exec -a {marker} sleep 100")}))]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let mut child = env
        .cmd(&["-p", "--offline", "--no-session", "--model", "mock/mock-1", "go"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let running = || {
        std::fs::read_dir("/proc").unwrap().filter_map(Result::ok).any(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).starts_with(&marker))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !running() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(running(), "the command never started");
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    std::thread::sleep(Duration::from_millis(100));
    assert!(!running(), "the command outlived pi");
}

/// An extension whose command reloads (`ctx.reload()`).
const RELOADER: &str = r#"export default function (pi) {
  pi.registerCommand("reload-now", { description: "Reload", handler: async (_args, ctx) => { await ctx.reload(); } });
}"#;

#[test]
fn rpc_reload_activates_newly_default_tools_but_not_removed_ones() {
    let env = Env::new();
    env.settings(json!({"defaultTools": ["read", "bash", "edit"]}));
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    // RPC has no /reload (as the reference: it goes to the model); an extension command's ctx.reload() does it.
    let ext = env.work.join("reloader.js");
    std::fs::write(&ext, RELOADER).unwrap();
    let (mut child, mut stdin, mut reader) = env.rpc(&["-t", "-bash", "-e", ext.to_str().unwrap()]);
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    send(json!({"id": "p1", "type": "prompt", "message": "first"}));
    rpc_until(&mut reader, |v| v["type"] == "agent_settled");
    // The user adds grep to defaultTools (and would re-add bash): only grep is new.
    env.settings(json!({"defaultTools": ["read", "bash", "edit", "grep"]}));
    send(json!({"id": "r1", "type": "prompt", "message": "/reload-now"}));
    let r = rpc_until(&mut reader, |v| v["type"] == "response");
    assert_eq!(r["data"]["disposition"], "handled");
    send(json!({"id": "p2", "type": "prompt", "message": "second"}));
    rpc_until(&mut reader, |v| v["type"] == "agent_settled");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let reqs = server.requests();
    assert_eq!(declared(&reqs[0].body), ["read", "edit"]);
    assert_eq!(declared(&reqs[1].body), ["read", "edit", "grep"]);
}

/// An extension that reloads and that switches `grep` off.
const RELOADER_AND_DROPPER: &str = r#"export default function (pi) {
  pi.registerCommand("reload-now", { description: "Reload", handler: async (_args, ctx) => { await ctx.reload(); } });
  pi.registerCommand("drop-grep", { description: "No grep", handler: async () => {
    pi.setActiveTools(pi.getActiveTools().filter((t) => t !== "grep"));
  } });
}"#;

#[test]
fn rpc_remembers_what_a_reload_learned_for_the_next_one() {
    let env = Env::new();
    env.settings(json!({"defaultTools": ["read", "edit"]}));
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let ext = env.work.join("reloader.js");
    std::fs::write(&ext, RELOADER_AND_DROPPER).unwrap();
    let (mut child, mut stdin, mut reader) = env.rpc(&["-e", ext.to_str().unwrap()]);
    // pi has read its settings once it answers.
    writeln!(stdin, "{}", json!({"id": "s0", "type": "get_state"})).unwrap();
    stdin.flush().unwrap();
    rpc_until(&mut reader, |v| v["type"] == "response" && v["id"] == "s0");
    let mut send = |id: &str, message: &str| {
        writeln!(stdin, "{}", json!({"id": id, "type": "prompt", "message": message})).unwrap();
        stdin.flush().unwrap();
    };
    let handled = |reader: &mut BufReader<_>, id: &str| {
        let id = id.to_string();
        let r = rpc_until(reader, move |v| v["type"] == "response" && v["id"] == id.as_str());
        assert_eq!(r["data"]["disposition"], "handled", "{r}");
    };
    // grep is added to defaultTools: the first reload switches it on.
    env.settings(json!({"defaultTools": ["read", "edit", "grep"]}));
    send("r1", "/reload-now");
    handled(&mut reader, "r1");
    // The extension switches it off (from the next run on).
    send("d1", "/drop-grep");
    handled(&mut reader, "d1");
    send("p1", "one");
    rpc_until(&mut reader, |v| v["type"] == "agent_settled");
    // A second reload with the settings unchanged must leave it off: it is
    // not new since the last reload (RPC used to forget what that one learned).
    send("r2", "/reload-now");
    handled(&mut reader, "r2");
    send("p2", "two");
    rpc_until(&mut reader, |v| v["type"] == "agent_settled");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let reqs = server.requests();
    assert_eq!(declared(&reqs[0].body), ["read", "edit"]);
    assert_eq!(declared(&reqs[1].body), ["read", "edit"]);
}

#[test]
fn shipped_policies_switched_on_by_flag_or_setting() {
    let env = Env::new();
    std::fs::create_dir_all(env.work.join("sub")).unwrap();
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::new("write", json!({"path": ".env", "content": "SECRET=1"})),
            ToolCallSpec::new("write", json!({"path": "my.env.bak", "content": "ok"})),
            ToolCallSpec::new("bash", json!({"command": "rm -rf sub"})),
        ]),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    env.settings(json!({"extensions": ["builtin:permission-gate"]}));
    let out = env.run(&["--no-session", "-e", "builtin:protected-paths", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let msgs = tool_messages(&server.requests()[1].body);
    assert_eq!(msgs[0].1, "Path \".env\" is protected");
    assert_eq!(msgs[1].1, "Successfully wrote to my.env.bak");
    assert_eq!(msgs[2].1, "Dangerous command blocked (no UI for confirmation)");
    assert!(!env.work.join(".env").exists());
    assert!(env.work.join("sub").exists());
}

#[test]
fn an_extension_that_cannot_load_stops_start_up() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("never")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "-e", "builtin:nosuch", "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("Error: Failed to load extension \"builtin:nosuch\": "), "{}", stderr(&out));
    assert!(server.requests().is_empty());
}

#[test]
fn rpc_queues_models_and_new_session() {
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "sleep 1; echo slow"})),
        Turn::text("after steering"),
        Turn::text("follow-up answer"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let (mut child, mut stdin, mut reader) = env.rpc(&[]);
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let response = |reader: &mut BufReader<_>, id: &str| {
        let id = id.to_string();
        rpc_until(reader, move |v| v["type"] == "response" && v["id"] == id.as_str())
    };

    send(json!({"id": "m", "type": "get_available_models"}));
    let r = response(&mut reader, "m");
    assert!(r["data"]["models"].as_array().unwrap().iter().any(|m| m["id"] == "mock-1"));
    send(json!({"id": "sm", "type": "set_model", "provider": "mock", "modelId": "mock-1"}));
    assert_eq!(response(&mut reader, "sm")["data"]["id"], "mock-1");
    send(json!({"id": "bad", "type": "set_model", "provider": "nope", "modelId": "x"}));
    assert_eq!(response(&mut reader, "bad")["error"], "Model not found: nope/x");

    send(json!({"id": "p", "type": "prompt", "message": "start"}));
    response(&mut reader, "p");
    rpc_until(&mut reader, |v| v["type"] == "tool_execution_start");
    send(json!({"id": "s", "type": "steer", "message": "steer this way"}));
    assert_eq!(response(&mut reader, "s")["data"]["disposition"], "queued");
    send(json!({"id": "f", "type": "follow_up", "message": "and then this"}));
    assert_eq!(response(&mut reader, "f")["data"]["disposition"], "queued");
    send(json!({"id": "f2", "type": "prompt", "message": "dropped", "streamingBehavior": "followUp"}));
    response(&mut reader, "f2");
    send(json!({"id": "c", "type": "clear_queue"}));
    let r = response(&mut reader, "c");
    assert_eq!(r["data"]["steering"], json!(["steer this way"]));
    assert_eq!(r["data"]["followUp"], json!(["and then this", "dropped"]));
    send(json!({"id": "s2", "type": "steer", "message": "steer this way"}));
    response(&mut reader, "s2");
    send(json!({"id": "f3", "type": "follow_up", "message": "and then this"}));
    response(&mut reader, "f3");
    rpc_until(&mut reader, |v| v["type"] == "agent_settled");

    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let second = reqs[1].body["messages"].to_string();
    let (tool_at, steer_at) = (second.find("slow").unwrap(), second.find("steer this way").unwrap());
    assert!(tool_at < steer_at, "the steering message comes after the tool result");
    assert!(reqs[2].body["messages"].to_string().contains("and then this"));

    send(json!({"id": "n", "type": "new_session"}));
    assert_eq!(response(&mut reader, "n")["data"]["cancelled"], false);
    send(json!({"id": "g", "type": "get_messages"}));
    assert_eq!(response(&mut reader, "g")["data"]["messages"], json!([]));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

fn fixture(name: &str) -> String {
    format!("{}/../pi-ext/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn typescript_extensions_gate_calls_and_add_tools() {
    let env = Env::new();
    std::fs::create_dir_all(env.work.join("sub")).unwrap();
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::new("bash", json!({"command": "rm -rf sub"})),
            ToolCallSpec::new("greet", json!({"name": "Ada", "times": 2, "loud": true})),
        ]),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let (gate, tools) = (fixture("permission-gate.ts"), fixture("typebox-tool.ts"));
    let out = env.run(&["--no-session", "-e", &gate, "-e", &tools, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = server.requests();
    let names = declared(&reqs[0].body);
    assert!(names.contains(&"greet".to_string()) && !names.contains(&"failing".to_string()), "{names:?}");
    assert!(!names.contains(&"schema_of_greet".to_string()), "codemode tools are not declared: {names:?}");
    let msgs = tool_messages(&reqs[1].body);
    assert_eq!(msgs[0].1, "Dangerous command blocked (no UI for confirmation)");
    assert_eq!(msgs[1].1, "Hello, Ada! Hello, Ada!");
    assert!(env.work.join("sub").exists());
}

#[test]
fn extensions_are_discovered_and_project_ones_need_trust() {
    let env = Env::new();
    std::fs::create_dir_all(env.agent_dir().join("extensions")).unwrap();
    std::fs::copy(fixture("typebox-tool.ts"), env.agent_dir().join("extensions/greet.ts")).unwrap();
    std::fs::create_dir_all(env.work.join(".pi/extensions")).unwrap();
    std::fs::copy(fixture("permission-gate.ts"), env.work.join(".pi/extensions/gate.ts")).unwrap();
    for (flag, gated) in [("--no-approve", false), ("--approve", true)] {
        let server =
            MockServer::start(vec![Turn::tool("bash", json!({"command": "rm -rf nothing-here"})), Turn::text("ok")]);
        server.write_models_json(&env.agent_dir(), "openai-completions");
        let out = env.run(&["--no-session", flag, "go"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let reqs = server.requests();
        assert!(declared(&reqs[0].body).contains(&"greet".to_string()), "user extension loads either way");
        let result = &tool_messages(&reqs[1].body)[0].1;
        assert_eq!(result == "Dangerous command blocked (no UI for confirmation)", gated, "{flag}: {result}");
    }
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "--no-extensions", "go"]);
    assert!(out.status.success());
    assert!(!declared(&server.requests()[0].body).contains(&"greet".to_string()));
}

#[test]
fn a_script_extension_that_fails_to_load_stops_start_up() {
    let env = Env::new();
    std::fs::write(env.work.join("broken.ts"), "export default function (pi) { throw new Error('nope'); }").unwrap();
    let server = MockServer::start(vec![Turn::text("never")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "-e", "broken.ts", "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("Error: Failed to load extension \""), "{}", stderr(&out));
    let out = env.run(&["--no-session", "-e", "missing.ts", "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(server.requests().is_empty());
}

#[test]
fn selection_applies_to_extension_tools_too() {
    let tools = fixture("typebox-tool.ts");
    let cases: &[(&[&str], &[&str])] = &[
        (&["--no-builtin-tools"], &["greet"]),
        (&["--tools", "read,greet"], &["read", "greet"]),
        (&["--tools", "read"], &["read"]),
        (&["--exclude-tools", "greet"], &["read", "bash", "edit", "write"]),
        (&["--no-tools"], &[]),
    ];
    for (flags, want) in cases {
        let env = Env::new();
        let server = MockServer::start(vec![Turn::text("ok")]);
        server.write_models_json(&env.agent_dir(), "openai-completions");
        let mut args = vec!["--no-session", "-e", tools.as_str()];
        args.extend_from_slice(flags);
        args.push("go");
        let out = env.run(&args);
        assert!(out.status.success(), "{flags:?}: {}", stderr(&out));
        assert_eq!(declared(&server.requests()[0].body), *want, "{flags:?}");
    }
}

#[test]
fn a_failing_tool_result_handler_is_reported_and_the_result_stands() {
    let env = Env::new();
    std::fs::write(env.work.join("f.txt"), "content\n").unwrap();
    let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("done")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let throwing = fixture("throwing.ts");
    let out = env.run(&["--no-session", "-e", &throwing, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = std::fs::canonicalize(&throwing).unwrap();
    assert!(stderr(&out).contains(&format!("Extension error ({}): result boom", shown.display())), "{}", stderr(&out));
    assert_eq!(tool_messages(&server.requests()[1].body)[0].1, "content\n");
}

#[test]
fn nested_calls_get_ids_and_a_record_in_the_session() {
    let env = Env::new();
    std::fs::write(env.work.join("f.txt"), "x\n").unwrap();
    let server = MockServer::start(vec![
        Turn::tool(
            "run_tools",
            json!({"calls": [{"name": "read", "args": {"path": "f.txt"}}, {"name": "missing", "args": {}}]}),
        ),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let nested = fixture("nested.ts");
    let out = env.run(&["--mode", "json", "--no-session", "-e", &nested, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);
    let starts: Vec<(String, Option<String>)> = events
        .iter()
        .filter(|e| e["type"] == "tool_execution_start")
        .map(|e| (e["toolCallId"].as_str().unwrap().to_string(), e["parentToolCallId"].as_str().map(String::from)))
        .collect();
    let parent = starts[0].0.clone();
    assert_eq!(starts[1], (format!("{parent}/1"), Some(parent.clone())));
    assert_eq!(starts[2], (format!("{parent}/2"), Some(parent.clone())));
    let result = first_tool_result(&events);
    let record = &result["nestedCalls"];
    assert_eq!(record["calls"].as_array().unwrap().len(), 2, "{record}");
    assert_eq!(record["complete"], true);
    assert_eq!(tool_messages(&server.requests()[1].body)[0].1, format!("{parent}/1:ok | {parent}/2:error"));
}

#[test]
fn rpc_extension_dialogs_travel_as_ui_requests() {
    let env = Env::new();
    std::fs::create_dir_all(env.work.join("keep")).unwrap();
    std::fs::create_dir_all(env.work.join("gone")).unwrap();
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "rm -rf keep"})),
        Turn::tool("bash", json!({"command": "rm -rf gone"})),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let gate = fixture("permission-gate.ts");
    for spec in ["builtin:permission-gate", gate.as_str()] {
        std::fs::create_dir_all(env.work.join("keep")).unwrap();
        std::fs::create_dir_all(env.work.join("gone")).unwrap();
        if spec != "builtin:permission-gate" {
            server.push(vec![
                Turn::tool("bash", json!({"command": "rm -rf keep"})),
                Turn::tool("bash", json!({"command": "rm -rf gone"})),
                Turn::text("done"),
            ]);
        }
        let (mut child, mut stdin, mut reader) = env.rpc(&["-e", spec]);
        writeln!(stdin, "{}", json!({"type": "prompt", "message": "go"})).unwrap();
        for answer in ["No", "Yes"] {
            let req = rpc_until(&mut reader, |v| v["type"] == "extension_ui_request" && v["method"] == "select");
            assert!(req["title"].as_str().unwrap().contains("Dangerous command"), "{req}");
            assert_eq!(req["options"], json!(["Yes", "No"]));
            writeln!(stdin, "{}", json!({"type": "extension_ui_response", "id": req["id"], "value": answer})).unwrap();
            stdin.flush().unwrap();
        }
        rpc_until(&mut reader, |v| v["type"] == "agent_settled");
        drop(stdin);
        assert!(child.wait().unwrap().success());
        assert!(env.work.join("keep").exists(), "{spec}: a 'No' must block");
        assert!(!env.work.join("gone").exists(), "{spec}: a 'Yes' lets the command run");
    }
    let reqs = server.requests();
    assert_eq!(tool_messages(&reqs[1].body)[0].1, "Blocked by user");
}

#[test]
fn version_help_and_bad_options() {
    let env = Env::new();
    let out = env.cmd(&["--version"]).output().unwrap();
    assert!(out.status.success());
    // The Pi release it is a drop-in for, this build's version as semver build metadata, one line.
    assert_eq!(stdout(&out), format!("1.6.0+pi-rs.{}\n", env!("CARGO_PKG_VERSION")));
    let out = env.cmd(&["--help"]).output().unwrap();
    assert!(out.status.success());
    let help = stdout(&out);
    for needle in ["Usage:", "pi tool NAME", "--tools", "--exclude-tools", "--approve", "--mode", "read", "powershell"]
    {
        assert!(help.contains(needle), "help lacks {needle}");
    }
    let out = env.cmd(&["-zz"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), "Error: Unknown option: -zz");
}

#[test]
fn handlers_mutate_in_load_order_and_terminate_ends_the_run() {
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "echo"})),
        Turn::tools(vec![ToolCallSpec::new("bash", json!({"command": "echo stop"}))]),
        Turn::text("never requested"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let (a, b, t) = (fixture("mutate-a.ts"), fixture("mutate-b.ts"), fixture("terminate.ts"));
    let out = env.run(&["--no-session", "-e", &a, "-e", &b, "-e", &t, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = server.requests();
    // What ran is the command as both handlers changed it, in load order.
    assert_eq!(tool_messages(&reqs[1].body)[0].1, "a b\n");
    // The second batch's only call asked to terminate: no further request.
    assert_eq!(reqs.len(), 2, "terminate must end the run after the batch");
}

#[test]
fn a_project_trust_handler_decides_trust_and_remembers_it() {
    let env = Env::new();
    std::fs::create_dir_all(env.work.join(".pi")).unwrap();
    std::fs::write(env.work.join(".pi/settings.json"), r#"{"defaultTools": ["read", "ls"]}"#).unwrap();
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let lifecycle = fixture("lifecycle.ts");
    let out = env.run(&["--no-session", "-e", &lifecycle, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names = declared(&server.requests()[0].body);
    assert!(names.starts_with(&["read".to_string(), "ls".to_string()]), "trusted by the handler: {names:?}");
    let store = std::fs::read_to_string(env.agent_dir().join("trust.json")).unwrap();
    let saved: Value = serde_json::from_str(&store).unwrap();
    let key = std::fs::canonicalize(&env.work).unwrap().to_string_lossy().into_owned();
    assert_eq!(saved[&key], true, "remember: true saves the decision: {store}");
}

#[test]
fn extensions_see_and_change_the_active_tools() {
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::new("loadout", json!({"add": "ls"})),
            ToolCallSpec::new("bash", json!({"command": "echo hi"})),
        ]),
        Turn::text("ok"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let api = fixture("tools-api.ts");
    let out = env.run(&["--no-session", "-e", &api, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = server.requests();
    assert_eq!(declared(&reqs[0].body), ["read", "bash", "edit", "write", "loadout"]);
    let msgs = tool_messages(&reqs[1].body);
    assert_eq!(msgs[0].1, "read,bash,edit,write,loadout,ls");
    // getAllTools() gives the annotations a policy needs: bash is not read-only, no UI → blocked.
    assert_eq!(msgs[1].1, "bash was not approved");
    assert_eq!(declared(&reqs[1].body), ["read", "bash", "edit", "write", "loadout", "ls"]);
}

#[test]
fn session_shutdown_runs_at_exit_and_its_failures_are_reported() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let lifecycle = fixture("lifecycle.ts");
    let out = env.run(&["--no-session", "-e", &lifecycle, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "ok\n");
    assert!(stderr(&out).contains("cleanup failed"), "{}", stderr(&out));
}

#[test]
fn loadouts_namespaces_and_lazily_registered_tools() {
    let env = Env::new();
    let calls = json!({"calls": [
        {"name": "weather", "args": {"city": "Oslo"}},
        {"name": "echo", "args": {"text": "hi"}},
        {"name": "late_sum", "args": {"a": 2, "b": 3}},
        {"name": "run_tools", "args": {"calls": []}},
    ]});
    let server = MockServer::start(vec![
        Turn::tools(vec![ToolCallSpec::new("run_tools", calls).with_id("call_1")]),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let (orchestrator, lazy) = (fixture("orchestrator.ts"), fixture("lazy-tools.ts"));
    let out = env.run(&["--mode", "json", "--no-session", "-e", &orchestrator, "-e", &lazy, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = server.requests();
    // prepareLoadout hid echo's declaration and rewrote run_tools' description.
    let names = declared(&reqs[0].body);
    assert!(names.contains(&"run_tools".to_string()) && !names.contains(&"echo".to_string()), "{names:?}");
    assert!(!names.contains(&"weather".to_string()), "codemode tools are not declared: {names:?}");
    let description = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "run_tools")
        .map(|t| t["function"]["description"].as_str().unwrap().to_string())
        .unwrap();
    assert_eq!(
        description,
        "Runs tools. Callable: read, bash, edit, write, echo, weather. \
         Declared: read, bash, edit, write, echo, run_tools. \
         mcp__meteo (codemode): Weather service. Echo: Echo only short texts."
    );
    // The system prompt leaves the hidden tool and its rules out.
    let system = reqs[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("- run_tools: Run other tools"), "{system}");
    assert!(!system.contains("- echo:") && !system.contains("Echo only short texts."), "{system}");
    // The hidden declaration stays callable from other tools; late_sum was
    // registered by the other extension's tool_call handler before the call ran;
    // model-only tools are never callable, not even by themselves.
    assert_eq!(
        tool_messages(&reqs[1].body)[0].1,
        "call_1/1 weather: sunny in Oslo\ncall_1/2 echo: hi\ncall_1/3 late_sum: 5\n\
         call_1/4 run_tools: error: Tool run_tools not found"
    );
    assert!(!declared(&reqs[1].body).contains(&"late_sum".to_string()), "late codemode tools are not declared");
    let events = json_events(&out);
    let result = first_tool_result(&events);
    // Usage: run_tools' own 100 plus weather's 10 and echo's 1.
    assert_eq!(result["usage"]["input"], 111, "{result}");
    assert_eq!(result["usage"]["totalTokens"], 222);
    assert_eq!(result["nestedCalls"]["calls"].as_array().unwrap().len(), 4);
    assert_eq!(result["nestedCalls"]["calls"][3]["status"], "error");
}

#[test]
fn a_failing_prepare_loadout_is_reported_and_ignored() {
    let env = Env::new();
    std::fs::write(
        env.work.join("bad-loadout.ts"),
        r#"export default function (pi: any) {
  pi.registerTool({
    name: "orchestrate", label: "O", description: "Orchestrates",
    parameters: { type: "object", properties: {} },
    prepareLoadout() { throw new Error("loadout boom"); },
    async execute() { return { content: [{ type: "text", text: "ok" }] }; },
  });
}
"#,
    )
    .unwrap();
    let server = MockServer::start(vec![Turn::text("done")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["--no-session", "-e", "bad-loadout.ts", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = std::fs::canonicalize(env.work.join("bad-loadout.ts")).unwrap();
    assert!(stderr(&out).contains(&format!("Extension error ({}): loadout boom", shown.display())), "{}", stderr(&out));
    assert_eq!(stderr(&out).matches("loadout boom").count(), 1, "reported once: {}", stderr(&out));
    let reqs = server.requests();
    let names = declared(&reqs[0].body);
    assert!(names.contains(&"orchestrate".to_string()), "the tool stays declared as it is: {names:?}");
}

#[test]
fn extensions_listed_in_settings_load_from_both_settings_files() {
    let env = Env::new();
    let tools = fixture("typebox-tool.ts");
    env.settings(json!({"extensions": [tools]}));
    std::fs::create_dir_all(env.work.join(".pi")).unwrap();
    std::fs::copy(fixture("permission-gate.ts"), env.work.join("gate.ts")).unwrap();
    // A project's settings name paths relative to its .pi folder; they count only when trusted.
    std::fs::write(env.work.join(".pi/settings.json"), json!({"extensions": ["../gate.ts"]}).to_string()).unwrap();
    for (flag, gated) in [("--no-approve", false), ("--approve", true)] {
        let server = MockServer::start(vec![
            Turn::tools(vec![
                ToolCallSpec::new("greet", json!({"name": "Ada"})),
                ToolCallSpec::new("bash", json!({"command": "rm -rf nothing-here"})),
            ]),
            Turn::text("ok"),
        ]);
        server.write_models_json(&env.agent_dir(), "openai-completions");
        let out = env.run(&["--no-session", flag, "go"]);
        assert!(out.status.success(), "{flag}: {}", stderr(&out));
        let reqs = server.requests();
        assert!(declared(&reqs[0].body).contains(&"greet".to_string()), "{flag}");
        let msgs = tool_messages(&reqs[1].body);
        assert_eq!(msgs[0].1, "Hello, Ada.", "{flag}");
        assert_eq!(msgs[1].1 == "Dangerous command blocked (no UI for confirmation)", gated, "{flag}: {}", msgs[1].1);
    }
}

#[test]
fn the_nested_calls_record_keeps_to_its_limits() {
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tools(vec![ToolCallSpec::new("flood", json!({})).with_id("c")]),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let flood = fixture("nested-limits.ts");
    let out = env.run(&["--mode", "json", "--no-session", "-e", &flood, "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(tool_messages(&server.requests()[1].body)[0].1, "made 300 calls");
    let events = json_events(&out);
    let nested_starts = events.iter().filter(|e| e["type"] == "tool_execution_start" && e["parentToolCallId"] == "c");
    assert_eq!(nested_starts.count(), 300, "every nested call emits its events");
    let record = first_tool_result(&events)["nestedCalls"].clone();
    let calls = record["calls"].as_array().unwrap();
    assert_eq!(record["complete"], false);
    assert_eq!(calls.len(), 256, "at most 256 calls are kept");
    assert_eq!(calls[0]["id"], "c/1");
    assert_eq!(calls[255]["id"], "c/256");
    // Over 8 KiB: only the size is kept.
    assert!(calls[0].get("arguments").is_none());
    assert_eq!(calls[0]["argumentsBytes"], 9010);
    // Four 7 KiB arguments fit in 32 KiB, the fifth does not.
    for c in &calls[1..5] {
        assert_eq!(c["arguments"]["pad"].as_str().unwrap().len(), 7000);
    }
    assert!(calls[5].get("arguments").is_none() && calls[5]["argumentsBytes"] == 7010);
    // Errors are cut to 500 characters; results are never recorded.
    assert_eq!(calls[6]["status"], "error");
    assert_eq!(calls[6]["error"].as_str().unwrap(), "e".repeat(500));
    assert!(calls.iter().all(|c| c.get("result").is_none()));
    assert_eq!(calls[7]["status"], "ok");
    assert!(calls[7]["durationMs"].is_number());
}

#[test]
fn exposures_withdrawal_throwing_handlers_and_result_patches_through_pi() {
    let env = Env::new();
    let call = |name: &str, args: Value| ToolCallSpec::new(name, args);
    let server = MockServer::start(vec![
        Turn::tools(vec![
            call("x_direct", json!({})),
            call("x_model_only", json!({})),
            call("x_codemode", json!({})),
            call("x_hidden", json!({})),
            call("x_withdrawn", json!({})),
            call("x_call", json!({"name": "x_codemode"})),
            call("x_call", json!({"name": "x_deferred"})),
            call("x_call", json!({"name": "x_model_only"})),
            call("x_call", json!({"name": "x_direct"})),
            call("ls", json!({"path": "error"})),
            call("find", json!({"pattern": "*.zz"})),
        ]),
        Turn::tool("x_withdraw_late", json!({})),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let (exposure, throwing) = (fixture("exposure.ts"), fixture("throwing.ts"));
    let out = env.run(&["--no-session", "-e", &exposure, "-e", &throwing, "--tools", "+ls,+find", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = server.requests();
    let first = declared(&reqs[0].body);
    for name in ["x_direct", "x_model_only", "x_call", "x_withdraw_late", "x_late"] {
        assert!(first.contains(&name.to_string()), "{name} declared: {first:?}");
    }
    for name in ["x_codemode", "x_deferred", "x_hidden", "x_withdrawn"] {
        assert!(!first.contains(&name.to_string()), "{name} not declared: {first:?}");
    }
    let results: Vec<String> = tool_messages(&reqs[1].body).into_iter().map(|(_, t)| t).collect();
    assert_eq!(
        results,
        [
            "direct",
            "model-only",
            "Tool x_codemode not found",
            "Tool x_hidden not found",
            "Tool x_withdrawn not found",
            "codemode",
            "deferred",
            "Tool x_model_only not found",
            "direct",
            "boom error",
            "replaced",
        ]
    );
    // Re-registering x_late as hidden during the run withdraws it from the next request.
    assert!(declared(&reqs[1].body).contains(&"x_late".to_string()));
    assert!(!declared(&reqs[2].body).contains(&"x_late".to_string()), "{:?}", declared(&reqs[2].body));
}

#[test]
fn extension_flags_take_their_values_from_the_command_line() {
    let tool_text = |flags: &[&str]| {
        let env = Env::new();
        let server = MockServer::start(vec![Turn::tool("show_flags", json!({})), Turn::text("ok")]);
        server.write_models_json(&env.agent_dir(), "openai-completions");
        let ext = fixture("flags.ts");
        let mut args = vec!["--no-session", "-e", &ext];
        args.extend_from_slice(flags);
        args.push("go");
        let out = env.run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let reqs = server.requests();
        let tool = reqs[1].body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap().clone();
        tool["content"].as_str().unwrap().to_string()
    };
    assert_eq!(
        tool_text(&["--plan", "--who", "bob"]),
        r#"{"atLoad":[false,"anon"],"now":{"plan":true,"who":"bob","other":null}}"#
    );
    assert_eq!(tool_text(&[]), r#"{"atLoad":[false,"anon"],"now":{"plan":false,"who":"anon","other":null}}"#);

    // Flags no extension registered, and a value flag without its value, are errors.
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let ext = fixture("flags.ts");
    let out = env.run(&["--no-session", "-e", &ext, "--bogus", "--who"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("Error: Extension flag \"--who\" requires a value"), "{err}");
    assert!(err.contains("Error: Unknown option: --bogus"), "{err}");
}
