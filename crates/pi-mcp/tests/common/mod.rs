//! Helpers of pi-mcp's integration tests: a tool sink and fixture servers.
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

pub fn server(name: &str, mode: &str, timeout: f64) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio {
            command: env!("CARGO_BIN_EXE_pi-mcp-fixture").into(),
            args: vec![mode.into()],
            env: vec![],
            cwd: None,
        },
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
