#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! MCP in a running session, through the real binary: `/mcp` and `/mcp
//! reconnect` in RPC mode (the reference's answers), and every server's
//! process group gone when pi exits (a wrapper's child too). The npm test
//! servers come from `$PI_MCP_SERVERS` (tests skip with a note without them).

use std::io::Write;
use std::path::PathBuf;

use crate::tui_support;

use pi_test_support::{MockServer, Scratch, Turn, read_until};
use serde_json::{Value, json};

const PI: &str = env!("CARGO_BIN_EXE_pi");

fn everything() -> Option<PathBuf> {
    let dir = std::env::var_os("PI_MCP_SERVERS").map(PathBuf::from).unwrap_or_else(|| "/tmp/mcp-servers".into());
    let path = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("note: MCP test servers not installed (set PI_MCP_SERVERS, see .ci/run); skipping");
        None
    }
}

/// Whether `pid` is a running process (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z"),
        Err(_) => false,
    }
}

fn send(stdin: &mut impl Write, v: Value) {
    writeln!(stdin, "{v}").unwrap();
    stdin.flush().unwrap();
}

fn notice(out: &mut impl std::io::BufRead) -> (String, String) {
    let v = read_until(out, |v| v["type"] == "extension_ui_request" && v["method"] == "notify");
    (v["notifyType"].as_str().unwrap_or("").to_string(), v["message"].as_str().unwrap_or("").to_string())
}

#[test]
fn rpc_lists_mcp_and_answers_it_as_the_reference() {
    let Some(path) = everything() else { return };
    let server = MockServer::start(vec![Turn::text("unused")]);
    let s = Scratch::new(&server);
    let servers = json!({"mcpServers": {
        "everything": {"command": "node", "args": [path], "exposure": "direct"},
        "off": {"command": "x", "enabled": false}
    }});
    std::fs::write(s.agent_dir().join("mcp.json"), servers.to_string()).unwrap();
    let (mut child, mut stdin, mut out) = s.rpc(PI, &[]);
    send(&mut stdin, json!({"type": "get_commands", "id": "c"}));
    let commands = read_until(&mut out, |v| v["id"] == "c");
    // llama.cpp's command comes first, as the reference lists them.
    let mcp = &commands["data"]["commands"][1];
    assert_eq!(mcp["name"], "mcp");
    assert_eq!(mcp["sourceInfo"]["path"], "builtin:mcp");
    send(&mut stdin, json!({"type": "prompt", "id": "p1", "message": "/mcp"}));
    let (level, text) = notice(&mut out);
    assert_eq!(level, "info");
    assert_eq!(text, "everything: connected, 14 tools (direct)\noff: disabled (codemode)");
    assert_eq!(read_until(&mut out, |v| v["id"] == "p1")["data"]["disposition"], "handled");
    send(&mut stdin, json!({"type": "prompt", "id": "p2", "message": "/mcp reconnect everything"}));
    assert_eq!(
        notice(&mut out),
        ("info".into(), "Reconnected to MCP server \"everything\" (connected · 14 tools · resources).".into())
    );
    send(&mut stdin, json!({"type": "prompt", "id": "p3", "message": "/mcp reconnect nope"}));
    assert_eq!(notice(&mut out), ("error".into(), "No MCP server named \"nope\".".into()));
    send(&mut stdin, json!({"type": "prompt", "id": "p4", "message": "/mcp bogus"}));
    assert_eq!(
        notice(&mut out),
        ("warning".into(), "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]".into())
    );
    assert!(server.requests().is_empty(), "/mcp never reaches the model");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn with_no_server_mcp_is_listed_and_says_where_to_add_them() {
    let server = MockServer::start(vec![Turn::text("unused")]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &[]);
    send(&mut stdin, json!({"type": "get_commands", "id": "c"}));
    // llama.cpp's command comes first, then mcp's, as the reference lists them.
    let names = read_until(&mut out, |v| v["id"] == "c")["data"]["commands"].clone();
    assert_eq!((&names[0]["name"], &names[1]["name"]), (&json!("llama"), &json!("mcp")));
    send(&mut stdin, json!({"type": "prompt", "id": "p", "message": "/mcp"}));
    let file = s.agent_dir().join("mcp.json");
    let expected = format!("No MCP servers configured. Add them to {} or .pi/mcp.json.", file.display());
    assert_eq!(notice(&mut out), ("info".into(), expected));
    assert_eq!(read_until(&mut out, |v| v["id"] == "p")["data"]["disposition"], "handled");
    assert!(server.requests().is_empty(), "/mcp never reaches the model");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    // Without the built-in there is no such command.
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["--no-mcp"]);
    send(&mut stdin, json!({"type": "get_commands", "id": "c"}));
    let commands = read_until(&mut out, |v| v["id"] == "c");
    assert!(!commands["data"]["commands"].as_array().unwrap().iter().any(|c| c["name"] == "mcp"), "{commands}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_servers_children_end_with_pi() {
    let Some(path) = everything() else { return };
    let server = MockServer::start(vec![Turn::text("done")]);
    let s = Scratch::new(&server);
    let pids = s.tmp.join("grandchild.pid");
    // A wrapper (as npx is) that starts a child of its own, then runs the server.
    let wrapper = format!("sleep 1000 & echo $! > '{}'; exec node '{}'", pids.display(), path.display());
    let servers = json!({"mcpServers": {"wrapped": {"command": "sh", "args": ["-c", wrapper], "exposure": "direct"}}});
    std::fs::write(s.agent_dir().join("mcp.json"), servers.to_string()).unwrap();
    let out = s.pi(PI).args(["-p", "--no-session", "--offline", "--model", "mock/mock-1", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pid: u32 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
    // The killed child is reaped by whoever adopts it; give that a moment (not a timing assertion).
    for _ in 0..200 {
        if !alive(pid) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(!alive(pid), "the wrapper's child {pid} outlived pi");
}

/// Wait (bounded, not a timing assertion) for `pid` to be gone.
fn gone(pid: u32) -> bool {
    for _ in 0..400 {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    false
}

#[test]
fn a_sigkilled_pi_leaves_no_server_behind() {
    let Some(path) = everything() else { return };
    let server = MockServer::start(vec![Turn::text("unused")]);
    let s = Scratch::new(&server);
    let (wrapper_pid, server_pid) = (s.tmp.join("wrapper.pid"), s.tmp.join("server.pid"));
    // A wrapper (as `npx` is) between pi and the server, which would outlive
    // pi on its own: after the server leaves it sleeps on, reading nothing.
    let inner = format!(r"echo \$\$ > '{}'; exec node '{}'", server_pid.display(), path.display());
    let wrapper = format!("echo $$ > '{}'; sh -c \"{inner}\"; sleep 1000", wrapper_pid.display());
    let servers = json!({"mcpServers": {"wrapped": {"command": "sh", "args": ["-c", wrapper], "exposure": "direct"}}});
    std::fs::write(s.agent_dir().join("mcp.json"), servers.to_string()).unwrap();
    let (mut child, mut stdin, mut out) = s.rpc(PI, &[]);
    send(&mut stdin, json!({"type": "prompt", "id": "p", "message": "/mcp"}));
    assert_eq!(notice(&mut out).1, "wrapped: connected, 14 tools (direct)");
    let pid = |f: &PathBuf| -> u32 { std::fs::read_to_string(f).unwrap().trim().parse().unwrap() };
    let (wrapper, server) = (pid(&wrapper_pid), pid(&server_pid));
    assert!(alive(wrapper) && alive(server), "both run");
    child.kill().unwrap(); // SIGKILL: pi can stop nothing
    child.wait().unwrap();
    // The process pi started gets SIGKILL from the kernel (PR_SET_PDEATHSIG); the
    // server under it sees its standard input close and leaves, as MCP servers do.
    assert!(gone(wrapper), "the wrapper {wrapper} outlived a SIGKILLed pi");
    assert!(gone(server), "the server {server} outlived a SIGKILLed pi");
}

#[test]
fn the_terminal_ui_answers_mcp() {
    if !tui_support::have_tmux() {
        return;
    }
    // No server configured: the command still answers, saying where to add one.
    let s = tui_support::Scene::new(vec![]);
    let t = s.start(200, 30, "");
    t.type_text("/mcp");
    t.keys(&["Enter"]);
    let file = s.agent_dir().join("mcp.json");
    t.wait_for(&format!("No MCP servers configured. Add them to {} or .pi/mcp.json.", file.display()));
    assert!(s.server.requests().is_empty(), "/mcp never reaches the model");
    // A connected server: its state, as in RPC mode.
    let Some(path) = everything() else { return };
    let s = tui_support::Scene::new(vec![]);
    let servers = json!({"mcpServers": {"everything": {"command": "node", "args": [path], "exposure": "direct"}}});
    std::fs::write(s.agent_dir().join("mcp.json"), servers.to_string()).unwrap();
    let t = s.start(200, 30, "");
    t.type_text("/mcp");
    t.keys(&["Enter"]);
    t.wait_for("everything: connected, 14 tools (direct)");
    assert!(s.server.requests().is_empty(), "/mcp never reaches the model");
}
