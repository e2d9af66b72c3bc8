//! Helpers of pi-mcp's integration tests: a tool sink and fixture servers
//! (`pi-mcp-rmcp-fixture`, on rmcp's server side, and the hand-written
//! `pi-mcp-fixture` for what rmcp's server cannot be made to do).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_agent::{AgentTool, Invocation};
use pi_mcp::{Admit, LogFile, McpConfig, McpManager, Registrar, ServerConfig, ServerExposure, Transport};
use pi_tools::{ToolContext, ToolResult};
use serde_json::Value;

#[derive(Default)]
pub struct Sink(pub Mutex<Vec<Arc<dyn AgentTool>>>);

impl Registrar for Sink {
    fn register(&self, tools: Vec<Arc<dyn AgentTool>>) {
        let mut all = self.0.lock().unwrap();
        for t in tools {
            match all.iter().position(|k| k.def().name == t.def().name) {
                Some(i) => all[i] = t,
                None => all.push(t),
            }
        }
    }
    fn tool(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        self.0.lock().unwrap().iter().find(|t| t.def().name == name).cloned()
    }
}

/// A stdio server of the hand-written fixture in `mode`.
pub fn server(name: &str, mode: &str, timeout: f64) -> ServerConfig {
    server_of(env!("CARGO_BIN_EXE_pi-mcp-fixture"), name, mode, timeout)
}

/// A stdio server of the rmcp fixture in `mode`.
pub fn rmcp_server(name: &str, mode: &str, timeout: f64) -> ServerConfig {
    server_of(env!("CARGO_BIN_EXE_pi-mcp-rmcp-fixture"), name, mode, timeout)
}

fn server_of(binary: &str, name: &str, mode: &str, timeout: f64) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio { command: binary.into(), args: vec![mode.into()], env: vec![], cwd: None },
        enabled: true,
        timeout: Duration::from_secs_f64(timeout),
        exposure: ServerExposure::Codemode,
        tool_exposure: vec![("echo".into(), ServerExposure::Direct)],
        description: None,
        file: "mcp.json".into(),
    }
}

pub fn start(servers: Vec<ServerConfig>) -> (McpManager, Arc<Sink>) {
    let config = McpConfig { servers, auto_enable_codemode: true, problems: vec![], session_dir: None };
    let m = McpManager::new(config, LogFile::default(), Arc::new(|_: &str| Admit::Register { activate: true }));
    let sink = Arc::new(Sink::default());
    m.bind(sink.clone());
    m.start();
    (m, sink)
}

pub async fn call(sink: &Sink, name: &str, args: Value) -> ToolResult {
    let tool = sink.tool(name).unwrap_or_else(|| panic!("{name} not registered"));
    let ctx = ToolContext::new(std::env::temp_dir());
    tool.execute(Invocation { call_id: "c1", args, ctx: &ctx, nested: None, terminate: None }).await
}

pub async fn ready(m: &McpManager) {
    m.wait(|_| true, Duration::from_secs(20)).await;
}

/// A fixture child killed when dropped (also when an assertion fails).
pub struct Killed(pub std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `binary`'s HTTP `mode`; its port, and the child (killed on drop).
pub fn http_fixture(binary: &str, mode: &str) -> (u16, Killed) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(binary).arg(mode).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (line.trim().parse().unwrap(), Killed(child))
}

/// An HTTP server entry for 127.0.0.1:`port` (with a substituted header).
pub fn http_server(name: &str, port: u16) -> ServerConfig {
    ServerConfig {
        transport: Transport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: vec![("X-Test".into(), "${PATH}".into())],
        },
        ..server(name, "unused", 10.0)
    }
}
