//! ACP mode (`pi --mode acp`, beyond B12) end to end: the real `pi` spoken
//! to as an editor speaks (JSON-RPC lines on its standard input and output)
//! against the mock model: initialize, a session, a prompt with a tool call
//! (its diff), a permission question answered each way and never answered,
//! cancel in the middle of a tool, a stored session loaded and replayed,
//! slash commands, modes and config options, and bad input (malformed JSON,
//! unknown methods, requests before `initialize`, a client that goes away).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

/// An extension asking before every `bash` call (as permission-gate does).
const ASKING_EXTENSION: &str = r#"export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return;
    const ok = await ctx.ui.confirm("Run a command?", event.input.command);
    if (!ok) return { block: true, reason: "The user said no" };
  });
}
"#;

/// `pi --mode acp` and the lines it wrote.
struct Editor {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    seen: Vec<Value>,
    next_id: u64,
}

impl Editor {
    fn start(scratch: &Scratch, flags: &[&str]) -> Editor {
        let mut child = scratch
            .pi(env!("CARGO_BIN_EXE_pi"))
            .args(["--mode", "acp", "--offline", "--model", "mock/mock-1"])
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Editor { child, stdin, lines, seen: Vec::new(), next_id: 100 }
    }

    fn line(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{text}").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.line(&v.to_string());
    }

    /// Send a request; its id.
    fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Wait for a message `want` accepts (every message read is kept in `seen`).
    fn wait(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) => {
                    self.seen.push(v.clone());
                    if want(&v) {
                        return v;
                    }
                }
                Err(_) => panic!("no {what} within 30 s; seen: {:#?}", self.seen),
            }
        }
    }

    /// The answer to request `id`.
    fn answer(&mut self, id: u64) -> Value {
        self.wait(&format!("answer {id}"), |v| v["id"] == id && v.get("method").is_none())
    }

    /// A request and its answer.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.answer(id)
    }

    fn initialize(&mut self) -> Value {
        let r = self.call("initialize", json!({"protocolVersion": 1, "clientCapabilities": {}}));
        r["result"].clone()
    }

    /// Send a text prompt to session `sid`; the request's id.
    fn prompt(&mut self, sid: &str, text: &str) -> u64 {
        self.request("session/prompt", json!({"sessionId": sid, "prompt": [{"type": "text", "text": text}]}))
    }

    /// Cancel session `sid`'s turn (a notification).
    fn cancel(&mut self, sid: &str) {
        self.send(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}}));
    }

    fn new_session(&mut self, cwd: &std::path::Path) -> String {
        let r = self.call("session/new", json!({"cwd": cwd, "mcpServers": []}));
        r["result"]["sessionId"].as_str().unwrap_or_else(|| panic!("{r}")).to_string()
    }

    /// The `session/update`s seen so far, of `kind`.
    fn updates(&self, kind: &str) -> Vec<Value> {
        self.seen
            .iter()
            .filter(|v| v["method"] == "session/update" && v["params"]["update"]["sessionUpdate"] == kind)
            .map(|v| v["params"]["update"].clone())
            .collect()
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_prompt_with_an_edit_streams_the_call_and_its_diff() {
    let server = MockServer::start(vec![
        Turn::tool("edit", json!({"path": "a.txt", "edits": [{"oldText": "hello", "newText": "bye"}]})),
        Turn::text("edited"),
    ]);
    let scratch = Scratch::new(&server);
    std::fs::write(scratch.work.join("a.txt"), "hello\n").unwrap();
    let mut ed = Editor::start(&scratch, &[]);
    let init = ed.initialize();
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(init["agentCapabilities"]["promptCapabilities"]["image"], true);
    let sid = ed.new_session(&scratch.work);
    let id = ed.prompt(&sid, "edit a.txt");
    let done = ed.answer(id);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert_eq!(std::fs::read_to_string(scratch.work.join("a.txt")).unwrap(), "bye\n");
    let calls = ed.updates("tool_call");
    assert_eq!((calls[0]["title"].as_str(), calls[0]["kind"].as_str()), (Some("edit"), Some("edit")), "{calls:?}");
    let last = ed.updates("tool_call_update").into_iter().last().unwrap();
    assert_eq!(last["status"], "completed");
    assert_eq!(last["content"], json!([{"type": "diff", "path": "a.txt", "oldText": "hello\n", "newText": "bye\n"}]));
    let text: String = ed.updates("agent_message_chunk").iter().filter_map(|u| u["content"]["text"].as_str()).collect();
    assert_eq!(text, "edited");
    // The updates came before the answer.
    let answered = ed.seen.iter().position(|v| v["id"] == id).unwrap();
    let last_chunk =
        ed.seen.iter().rposition(|v| v["params"]["update"]["sessionUpdate"] == "agent_message_chunk").unwrap();
    assert!(last_chunk < answered);
    assert!(!ed.updates("usage_update").is_empty());
}

/// A scratch folder with the asking extension, an editor on it, and a new session.
fn asking(server: &MockServer) -> (Scratch, Editor, String) {
    let scratch = Scratch::new(server);
    std::fs::write(scratch.work.join("ask.ts"), ASKING_EXTENSION).unwrap();
    let mut ed = Editor::start(&scratch, &["-e", "ask.ts"]);
    ed.initialize();
    let sid = ed.new_session(&scratch.work);
    (scratch, ed, sid)
}

#[test]
fn a_question_from_pi_becomes_a_permission_request_answered_each_way() {
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "echo first > one.txt"})),
        Turn::text("ran it"),
        Turn::tool("bash", json!({"command": "echo second > two.txt"})),
        Turn::text("was refused"),
    ]);
    let (scratch, mut ed, sid) = asking(&server);
    for (answer, file, made) in [("yes", "one.txt", true), ("no", "two.txt", false)] {
        let id = ed.prompt(&sid, "run");
        let asked = ed.wait("a permission request", |v| v["method"] == "session/request_permission");
        let kinds: Vec<&str> =
            asked["params"]["options"].as_array().unwrap().iter().map(|o| o["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
        assert_eq!(asked["params"]["toolCall"]["title"], "Run a command?");
        assert_eq!(asked["params"]["sessionId"], sid);
        ed.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "selected", "optionId": answer}}}));
        let done = ed.answer(id);
        assert_eq!(done["result"]["stopReason"], "end_turn");
        assert_eq!(scratch.work.join(file).exists(), made, "{answer}: {file}");
    }
}

#[test]
fn cancel_ends_a_turn_waiting_on_an_unanswered_question_and_in_the_middle_of_a_tool() {
    let server = MockServer::start(vec![
        // The first turn is cancelled before its call runs: no request follows it.
        Turn::tool("bash", json!({"command": "echo never > never.txt"})),
        Turn::tool("bash", json!({"command": "sleep 20"})),
        Turn::text("unreachable"),
    ]);
    let (scratch, mut ed, sid) = asking(&server);
    // The editor never answers the question: the turn waits; cancel still ends it, refused.
    let id = ed.prompt(&sid, "run");
    ed.wait("a permission request", |v| v["method"] == "session/request_permission");
    std::thread::sleep(Duration::from_millis(300));
    ed.cancel(&sid);
    let done = ed.answer(id);
    assert_eq!(done["result"]["stopReason"], "cancelled", "{done}");
    assert!(!scratch.work.join("never.txt").exists(), "nothing runs without an answer");
    // A second session without the question: cancel in the middle of `sleep 20`.
    let mut ed2 = Editor::start(&scratch, &[]);
    ed2.initialize();
    let sid2 = ed2.new_session(&scratch.work);
    let started = Instant::now();
    let id = ed2.prompt(&sid2, "sleep");
    ed2.wait("the command running", |v| v["params"]["update"]["status"] == "in_progress");
    ed2.cancel(&sid2);
    let done = ed2.answer(id);
    assert_eq!(done["result"]["stopReason"], "cancelled", "{done}");
    assert!(started.elapsed() < Duration::from_secs(15), "cancelled in {:?}", started.elapsed());
}

#[test]
fn a_stored_session_loads_with_its_conversation_replayed() {
    let server = MockServer::start(vec![Turn::tool("ls", json!({})), Turn::text("listed")]);
    let scratch = Scratch::new(&server);
    let mut ed = Editor::start(&scratch, &[]);
    ed.initialize();
    let sid = ed.new_session(&scratch.work);
    let id = ed.prompt(&sid, "list files");
    ed.answer(id);
    drop(ed);
    let mut ed = Editor::start(&scratch, &[]);
    ed.initialize();
    let r = ed.call("session/load", json!({"sessionId": sid, "cwd": scratch.work, "mcpServers": []}));
    assert!(r["result"]["modes"].is_object(), "{r}");
    let users: Vec<Value> = ed.updates("user_message_chunk");
    assert_eq!(users[0]["content"]["text"], "list files");
    assert_eq!(ed.updates("tool_call")[0]["title"], "ls");
    assert_eq!(ed.updates("agent_message_chunk").last().unwrap()["content"]["text"], "listed");
    let missing =
        ed.call("session/load", json!({"sessionId": "no-such-session", "cwd": scratch.work, "mcpServers": []}));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    // The editor's history: this folder's sessions with their first prompt as title.
    let listed = ed.call("session/list", json!({"cwd": scratch.work}));
    let sessions = listed["result"]["sessions"].as_array().unwrap_or_else(|| panic!("{listed}"));
    let ours = sessions.iter().find(|s| s["sessionId"] == sid.as_str()).unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(ours["title"], "list files");
    assert!(ours["updatedAt"].as_str().unwrap().ends_with('Z'), "{ours}");
    assert!(listed["result"].get("nextCursor").is_none());
    let bad = ed.call("session/list", json!({"cwd": scratch.work, "cursor": "x"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

#[test]
fn sessions_kept_in_a_folder_of_their_own_are_listed_and_loaded_from_it() {
    let server = MockServer::start(vec![Turn::text("stored elsewhere")]);
    let scratch = Scratch::new(&server);
    let dir = scratch.home.join("my-sessions");
    let dir_flag = dir.to_string_lossy().into_owned();
    let mut ed = Editor::start(&scratch, &["--session-dir", &dir_flag]);
    ed.initialize();
    let sid = ed.new_session(&scratch.work);
    let id = ed.prompt(&sid, "keep me");
    ed.answer(id);
    drop(ed);
    assert!(std::fs::read_dir(&dir).unwrap().next().is_some(), "the session went to --session-dir");
    let mut ed = Editor::start(&scratch, &["--session-dir", &dir_flag]);
    ed.initialize();
    let listed = ed.call("session/list", json!({"cwd": scratch.work}));
    let sessions = listed["result"]["sessions"].as_array().unwrap_or_else(|| panic!("{listed}"));
    assert!(sessions.iter().any(|s| s["sessionId"] == sid.as_str()), "{listed}");
    let r = ed.call("session/load", json!({"sessionId": sid, "cwd": scratch.work, "mcpServers": []}));
    assert!(r["result"]["modes"].is_object(), "{r}");
    assert_eq!(ed.updates("user_message_chunk")[0]["content"]["text"], "keep me");
}

#[test]
fn slash_commands_modes_and_config_options() {
    let server = MockServer::start(vec![Turn::text("hi")]);
    let scratch = Scratch::new(&server);
    let mut ed = Editor::start(&scratch, &[]);
    ed.initialize();
    let r = ed.call("session/new", json!({"cwd": scratch.work, "mcpServers": []}));
    let sid = r["result"]["sessionId"].as_str().unwrap().to_string();
    let options = r["result"]["configOptions"].as_array().unwrap();
    assert_eq!(options[0]["currentValue"], "mock/mock-1");
    assert_eq!(r["result"]["modes"]["currentModeId"], "off");
    let commands = ed.wait("the commands", |v| v["params"]["update"]["sessionUpdate"] == "available_commands_update");
    let names: Vec<&str> = commands["params"]["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for n in ["compact", "session", "name", "export"] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let id = ed.prompt(&sid, "/session");
    assert_eq!(ed.answer(id)["result"]["stopReason"], "end_turn");
    let said = ed.updates("agent_message_chunk").last().unwrap()["content"]["text"].as_str().unwrap().to_string();
    assert!(said.starts_with("Session: "), "{said}");
    let mode = ed.call("session/set_mode", json!({"sessionId": sid, "modeId": "off"}));
    assert_eq!(mode["result"], json!({}), "{mode}");
    assert_eq!(ed.updates("current_mode_update").last().unwrap()["currentModeId"], "off");
    let set =
        ed.call("session/set_config_option", json!({"sessionId": sid, "configId": "model", "value": "mock/mock-1"}));
    assert!(set["result"]["configOptions"].is_array(), "{set}");
    let bad = ed.call("session/set_config_option", json!({"sessionId": sid, "configId": "model", "value": "nothing"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

#[test]
fn bad_input_is_answered_and_a_client_that_goes_away_ends_everything() {
    let server = MockServer::start(vec![]);
    let scratch = Scratch::new(&server);
    let mut ed = Editor::start(&scratch, &[]);
    let early = ed.call("session/new", json!({"cwd": scratch.work, "mcpServers": []}));
    assert_eq!(early["error"]["code"], -32600, "{early}");
    assert!(early["error"]["message"].as_str().unwrap().contains("initialize"));
    ed.line("{not json");
    let parse = ed.wait("the parse error", |v| v["error"]["code"] == -32700);
    assert_eq!(parse["id"], Value::Null);
    ed.initialize();
    assert_eq!(ed.call("session/fly", json!({}))["error"]["code"], -32601);
    assert_eq!(ed.call("session/new", json!({"cwd": "relative", "mcpServers": []}))["error"]["code"], -32602);
    assert_eq!(ed.call("session/prompt", json!({"sessionId": "nope", "prompt": []}))["error"]["code"], -32002);
    let sid = ed.new_session(&scratch.work);
    let bad = ed.call("session/prompt", json!({"sessionId": sid, "prompt": [{"type": "video"}]}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // The editor goes: pi ends, and so does the session's pi.
    ed.stdin.take();
    let deadline = Instant::now() + Duration::from_secs(10);
    while ed.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "pi still running after its client went");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(ed.child.try_wait().unwrap().unwrap().success());
    std::thread::sleep(Duration::from_millis(300));
    let work = scratch.work.canonicalize().unwrap();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter(|e| std::fs::read_link(e.path().join("cwd")).is_ok_and(|c| c == work))
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains("--mode\0rpc"))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "a session's pi still runs: {left:?}");
}

/// The npm MCP test servers (`.ci/run` installs them into `PI_MCP_SERVERS`).
fn mcp_servers() -> Option<std::path::PathBuf> {
    let dir = std::path::PathBuf::from(std::env::var_os("PI_MCP_SERVERS")?);
    let ok = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js").is_file();
    if !ok {
        eprintln!("MCP test servers not installed; skipping");
    }
    ok.then_some(dir)
}

#[test]
fn mcp_servers_the_editor_passes_join_the_session() {
    let Some(dir) = mcp_servers() else { return };
    let code = "return await tools.mcp__everything__echo({message: 'from the editor'});";
    let server = MockServer::start(vec![Turn::tool("codemode", json!({"code": code})), Turn::text("echoed")]);
    let scratch = Scratch::new(&server);
    let mut ed = Editor::start(&scratch, &[]);
    let init = ed.initialize();
    assert_eq!(init["agentCapabilities"]["mcpCapabilities"], json!({"http": true, "sse": false}));
    let entry = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let servers = json!([{"name": "everything", "command": "node", "args": [entry], "env": []}]);
    let r = ed.call("session/new", json!({"cwd": scratch.work, "mcpServers": servers}));
    let sid = r["result"]["sessionId"].as_str().unwrap_or_else(|| panic!("{r}")).to_string();
    let id = ed.prompt(&sid, "echo");
    assert_eq!(ed.answer(id)["result"]["stopReason"], "end_turn");
    let prompt = server.requests()[0].body["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(prompt.contains("- mcp__everything (codemode)"), "{prompt}");
    let result = &server.requests()[1].body["messages"];
    assert!(result.to_string().contains("Echo: from the editor"), "{result}");
    let sse = ed.call("session/new", json!({"cwd": scratch.work, "mcpServers": [{"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []}]}));
    assert_eq!(sse["error"]["code"], -32602, "{sse}");
    // No servers file is left behind once pi ends (the editor closes its end).
    ed.stdin.take();
    let deadline = Instant::now() + Duration::from_secs(10);
    while ed.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "pi still running after its client went");
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<_> = std::fs::read_dir(&scratch.tmp)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("pi-acp-mcp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
