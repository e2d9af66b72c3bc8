#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! `@modelcontextprotocol/server-everything` in its streamable HTTP mode,
//! through the real binary against the mock model: the same tools are
//! declared and the same results come back as over stdio, resources included
//! (listings in the server's key order). The server binds 127.0.0.1 on a
//! free port (a `--require`d preload, `fixtures/mcp/localhost.cjs`, since
//! the server's own `listen` binds every interface). Skips with a note when
//! node or the npm package (`$PI_MCP_SERVERS`, see `.ci/run`) is missing.

use crate::codemode_support;

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use codemode_support::{Env, declared, tool_texts};
use pi_test_support::{MockServer, ToolCallSpec, Turn};
use serde_json::{Value, json};

/// `server-everything`'s entry point, when node and the package are there.
fn everything() -> Option<PathBuf> {
    let dir = std::env::var_os("PI_MCP_SERVERS").map(PathBuf::from).unwrap_or_else(|| "/tmp/mcp-servers".into());
    let path = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if path.is_file() && node {
        Some(path)
    } else {
        eprintln!("note: node or the MCP test servers are missing (set PI_MCP_SERVERS, see .ci/run); skipping");
        None
    }
}

/// The HTTP server, killed when dropped (also when an assertion fails).
struct HttpServer {
    child: Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `server-everything streamableHttp` on 127.0.0.1 and wait for its port.
fn start_http(entry: &Path) -> HttpServer {
    let preload = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/localhost.cjs");
    let mut child = Command::new("node")
        .arg("--require")
        .arg(preload)
        .arg(entry)
        .arg("streamableHttp")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut server = HttpServer { child, url: String::new() };
    let port = lines.by_ref().map_while(Result::ok).find_map(|l| l.strip_prefix("PI_TEST_PORT ").map(str::to_string));
    server.url = format!("http://127.0.0.1:{}/mcp", port.expect("the server printed its port"));
    // The server logs on standard output: keep reading it, or its next line kills it (EPIPE).
    std::thread::spawn(move || lines.for_each(drop));
    server
}

fn mcp_json(env: &Env, entry: Value) {
    let mut entry = entry;
    entry["exposure"] = json!("direct");
    let servers = json!({"mcpServers": {"everything": entry}});
    std::fs::write(env.agent_dir().join("mcp.json"), servers.to_string()).unwrap();
}

/// The model's view of one run against `entry`: the tools declared and every tool result.
fn run(entry: Value) -> (Vec<String>, Vec<String>) {
    let env = Env::new();
    mcp_json(&env, entry);
    let calls = vec![
        ToolCallSpec::new("mcp__everything__echo", json!({"message": "hi"})),
        ToolCallSpec::new("mcp__everything__get_sum", json!({"a": 2, "b": 3})),
        ToolCallSpec::new("mcp__everything__get_sum", json!({"a": "x"})),
        ToolCallSpec::new("mcp__everything__get_resource_links", json!({"count": 2})),
        ToolCallSpec::new("list_mcp_resources", json!({"server": "everything"})),
        ToolCallSpec::new(
            "read_mcp_resource",
            json!({"server": "everything", "uri": "demo://resource/static/document/architecture.md"}),
        ),
        ToolCallSpec::new("read_mcp_resource", json!({"server": "everything", "uri": "demo://nope"})),
    ];
    let server = MockServer::start(vec![Turn::tools(calls), Turn::text("done")]);
    let out = env.run(&server, &["--no-session"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (declared(&server, 0), tool_texts(&server))
}

#[test]
fn tools_and_resources_over_http_are_those_over_stdio() {
    let Some(entry) = everything() else { return };
    let http = start_http(&entry);
    let (http_tools, http_results) = run(json!({"url": http.url}));
    let (stdio_tools, stdio_results) = run(json!({"command": "node", "args": [entry]}));
    assert_eq!(http_tools, stdio_tools, "the same tools are declared: {http_results:?}");
    for name in ["mcp__everything__echo", "mcp__everything__get_sum", "list_mcp_resources", "read_mcp_resource"] {
        assert!(http_tools.iter().any(|t| t == name), "{name} declared: {http_tools:?}");
    }
    assert_eq!(http_results.len(), 7);
    assert_eq!(http_results[0], "Echo: hi");
    assert_eq!(http_results[1], "The sum of 2 and 3 is 5.");
    assert_eq!(http_results, stdio_results, "the same results, errors and resource listings in the same key order");
    let listed: Value = serde_json::from_str(&http_results[4]).unwrap();
    let first: Vec<&String> = listed["resources"][0].as_object().unwrap().keys().collect();
    // rmcp's typed order would put `description` before `mimeType`.
    assert_eq!(first, ["server", "uri", "name", "mimeType", "description"], "the server's own order, `server` first");
}
