//! A misbehaving MCP server for pi-mcp's tests, written on rmcp's server
//! side (built only with the `fixture-server` feature, which the tests turn
//! on). Its first argument picks the behaviour:
//!
//! - `ok`: tools `echo`, `big` (a 5 MB text), `fail` (an `isError` result),
//!   `crash` (the process exits mid-call), `slow` (progress every 50 ms for
//!   0.6 s, then a result), `grow` (adds the tool `extra` and sends
//!   `notifications/tools/list_changed`);
//! - `hang`: never answers `initialize`;
//! - `many`: 1,000 tools;
//! - `http`: the `ok` tools over streamable HTTP on 127.0.0.1 (the port is
//!   printed first on standard output);
//! - `http401`: the same address, but every request is answered 401.
//!
//! What rmcp's server cannot be made to do stays in the hand-written
//! `pi-mcp-fixture`: garbage on standard output, resource answers whose keys
//! are in an order of the server's own, and HTTP failures before the protocol.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeRequestParams, InitializeResult,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

mod http;

/// The fixture's state: its mode and whether `grow` was called.
#[derive(Clone)]
struct Fixture {
    mode: Arc<str>,
    grown: Arc<AtomicBool>,
}

/// The names of the `ok` mode's tools.
const TOOLS: [&str; 6] = ["echo", "big", "fail", "crash", "slow", "grow"];

/// Bytes `big` returns.
const BIG: usize = 5 * 1024 * 1024;

/// Progress notifications `slow` sends, and the pause before each.
const SLOW_STEPS: u32 = 12;
const SLOW_STEP: Duration = Duration::from_millis(50);

fn tool(name: String) -> Tool {
    let schema: JsonObject = serde_json::from_value(serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string"}}
    }))
    .unwrap_or_default();
    let description = format!("fixture tool {name}");
    Tool::new(name, description, schema)
}

fn text(s: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(s)]).into()
}

impl Fixture {
    fn tools(&self) -> Vec<Tool> {
        if &*self.mode == "many" {
            return (0..1000).map(|i| tool(format!("t{i}"))).collect();
        }
        let mut tools: Vec<Tool> = TOOLS.iter().map(|n| tool((*n).to_string())).collect();
        if self.grown.load(Ordering::SeqCst) {
            tools.push(tool("extra".into()));
        }
        tools
    }

    async fn slow(&self, context: &RequestContext<RoleServer>) -> CallToolResponse {
        let token = context.meta.get_progress_token();
        for step in 0..SLOW_STEPS {
            tokio::time::sleep(SLOW_STEP).await;
            if let Some(token) = token.clone() {
                let _ = context.peer.notify_progress(ProgressNotificationParam::new(token, f64::from(step))).await;
            }
        }
        text("slow done")
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
        ServerConfig::new(capabilities).with_instructions("Fixture server.\nSecond line.")
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        if &*self.mode == "hang" {
            std::future::pending::<()>().await;
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arg = request.arguments.as_ref().and_then(|a| a.get("text")).and_then(|t| t.as_str()).unwrap_or("");
        Ok(match &*request.name {
            "echo" => text(format!("echo: {arg}")),
            "extra" => text("extra"),
            "big" => text("x".repeat(BIG)),
            "fail" => CallToolResult::error(vec![ContentBlock::text("it failed")]).into(),
            "crash" => std::process::exit(3),
            "slow" => self.slow(&context).await,
            "grow" => {
                self.grown.store(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                text("grown")
            }
            other => return Err(ErrorData::invalid_params(format!("unknown tool {other}"), None)),
        })
    }
}

fn main() {
    let mode: Arc<str> = std::env::args().nth(1).unwrap_or_else(|| "ok".into()).into();
    let fixture = Fixture { mode: mode.clone(), grown: Arc::default() };
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() else {
        std::process::exit(2);
    };
    runtime.block_on(async move {
        if mode.starts_with("http") {
            http::serve(fixture, &*mode == "http401").await;
            return;
        }
        let Ok(running) = fixture.serve(rmcp::transport::stdio()).await else { return };
        let _ = running.waiting().await;
    });
}
