//! An MCP server's tool as an [`AgentTool`]: data (name, label-like
//! description, schema forced to an object) plus a call through the server's
//! connection. It is dispatched like every other tool, so `tool_call`
//! handlers see and may block it, directly and inside scripts.

use std::sync::Arc;

use futures::future::BoxFuture;
use pi_agent::{AgentTool, ExecutionMode, Exposure, Invocation, Namespace, ToolDef};
use pi_tools::{Annotations, ToolResult};
use serde_json::{Value, json};

use crate::manager::Server;
use crate::naming;
use crate::result::{self, Origin};
use crate::text;

/// The value scripts receive: the server's `CallToolResult`, whose
/// `structuredContent` follows the tool's own `outputSchema` when it has one.
fn output_schema(structured: Option<&serde_json::Map<String, Value>>) -> Value {
    json!({
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": {"type": "object"}},
            "structuredContent": structured.map(|s| Value::Object(s.clone())).unwrap_or_else(|| json!({})),
            "isError": {"type": "boolean"}
        },
        "required": ["content"]
    })
}

/// The input schema with `type: object` (and `properties` when missing).
pub fn object_schema(schema: &serde_json::Map<String, Value>) -> Value {
    let mut s = schema.clone();
    s.insert("type".into(), json!("object"));
    s.entry("properties").or_insert_with(|| json!({}));
    Value::Object(s)
}

/// One tool of one server.
pub struct McpTool {
    def: ToolDef,
    server: Arc<Server>,
    remote: String,
    output_schema: Value,
}

impl McpTool {
    /// The tool `remote` of `server`, registered as `name` with `exposure`.
    pub(crate) fn new(
        server: Arc<Server>,
        tool: &rmcp::model::Tool,
        name: String,
        exposure: Exposure,
        active: bool,
    ) -> Self {
        let remote = tool.name.to_string();
        let description = tool
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .or_else(|| tool.title.clone())
            .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()))
            .unwrap_or_else(|| text::default_description(&remote, server.name()));
        let hints = tool.annotations.as_ref();
        let annotations = Annotations {
            read_only_hint: hints.and_then(|a| a.read_only_hint),
            destructive_hint: hints.and_then(|a| a.destructive_hint),
            idempotent_hint: hints.and_then(|a| a.idempotent_hint),
            open_world_hint: hints.and_then(|a| a.open_world_hint),
        };
        let def = ToolDef {
            constrained_sampling: None,
            name,
            description,
            parameters: object_schema(&tool.input_schema),
            prompt_snippet: None,
            prompt_guidelines: vec![],
            annotations,
            exposure,
            default_active: active,
            execution_mode: ExecutionMode::Parallel,
            // As the reference's: the configured description (trimmed), and the
            // server's `initialize` instructions (tool search reads both).
            namespace: Some(Namespace {
                name: naming::namespace(server.name()),
                aliases: vec![server.name().to_string()],
                description: server
                    .config()
                    .description
                    .as_deref()
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .map(String::from),
                instructions: server.instructions(),
            }),
        };
        let output_schema = output_schema(tool.output_schema.as_deref());
        McpTool { def, server, remote, output_schema }
    }

    /// This tool withdrawn (`hidden`), after its server stopped listing it.
    pub(crate) fn withdrawn(&self) -> Self {
        let mut def = self.def.clone();
        def.exposure = Exposure::Hidden;
        def.default_active = false;
        McpTool {
            def,
            server: self.server.clone(),
            remote: self.remote.clone(),
            output_schema: self.output_schema.clone(),
        }
    }

    /// The tool's name on its server.
    pub fn remote_name(&self) -> &str {
        &self.remote
    }
}

impl AgentTool for McpTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn source_info_path(&self) -> String {
        "builtin:mcp".into()
    }

    fn output_schema(&self) -> Option<&Value> {
        Some(&self.output_schema)
    }

    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let origin =
                Origin { server: self.server.name(), tool: &self.remote, resources: self.server.offers_read() };
            match self.server.call(&self.remote, inv.args, &inv.ctx.abort).await {
                Ok(raw) => result::convert(&raw, origin, &inv.ctx.output_files),
                // The reference shows an HTTP failure as it is.
                Err(crate::ClientError::Http(why)) => ToolResult::error(why),
                Err(e) => ToolResult::error(text::call_failed(origin.server, origin.tool, &e.to_string())),
            }
        })
    }
}
