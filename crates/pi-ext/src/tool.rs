//! A tool an extension registered (`pi.registerTool`) as an [`AgentTool`],
//! made by the extension's handle ([`ExtHandle`]).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::future::BoxFuture;
use pi_agent::{AgentTool, Invocation, Loadout, LoadoutChanges, Reach, ToolDef};
use pi_tools::ToolResult;
use serde_json::{Value, json};

use crate::convert;
use crate::engine::protocol::{Entry, ExtHandle, Hook};
use crate::engine::{CallEnv, Engine};
use crate::tool_meta::ToolMeta;

/// An extension's tool: its definition, run by the extension's engine.
pub(crate) struct ExtTool {
    engine: Arc<Engine>,
    meta: ToolMeta,
}

impl ExtTool {
    pub(crate) fn new(engine: Arc<Engine>, meta: ToolMeta) -> Self {
        ExtTool { engine, meta }
    }
}

impl ExtHandle for Engine {
    fn thread(&self) -> usize {
        self.thread
    }

    fn tool(self: Arc<Self>, meta: ToolMeta) -> Arc<dyn AgentTool> {
        Arc::new(ExtTool::new(self, meta))
    }
}

impl AgentTool for ExtTool {
    fn def(&self) -> &ToolDef {
        &self.meta.def
    }

    fn source_path(&self) -> Option<&str> {
        Some(&self.engine.path)
    }

    fn prepare_arguments<'a>(&'a self, args: Value) -> BoxFuture<'a, Value> {
        Box::pin(async move {
            if !self.meta.has_prepare {
                return args;
            }
            match self.engine.hook(Hook::PrepareArguments, &self.meta.def.name, args.clone()).await {
                Ok(v) => v,
                Err(e) => {
                    crate::report::stderr_line(&crate::text::extension_error(&self.engine.path, &e.to_string()));
                    args
                }
            }
        })
    }

    fn has_reaches_tools(&self) -> bool {
        self.meta.has_reaches
    }

    /// The definition's `outputSchema` (codemode scripts then get the
    /// result's `structuredContent`).
    fn output_schema(&self) -> Option<&Value> {
        self.meta.raw.get("outputSchema").filter(|s| s.is_object() || s.is_boolean())
    }

    fn reaches_tools(&self, input: &Value) -> Option<Reach> {
        if !self.meta.has_reaches {
            return None;
        }
        match self.engine.hook_blocking(Hook::ReachesTools, &self.meta.def.name, input.clone()) {
            Ok(v) => convert::reach(&v),
            Err(e) => {
                crate::report::stderr_line(&crate::text::extension_error(&self.engine.path, &e.to_string()));
                None
            }
        }
    }

    fn has_prepare_loadout(&self) -> bool {
        self.meta.has_loadout
    }

    fn prepare_loadout<'a>(
        &'a self,
        loadout: &'a Loadout,
    ) -> BoxFuture<'a, Result<LoadoutChanges, pi_agent::HandlerError>> {
        Box::pin(async move {
            let v = self
                .engine
                .hook(Hook::PrepareLoadout, &self.meta.def.name, convert::loadout_json(loadout))
                .await
                .map_err(|e| e.to_string())?;
            Ok(convert::loadout_changes(&v))
        })
    }

    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let tools: Vec<Value> = inv
                .nested
                .as_ref()
                .map(|n| n.callable().iter().map(|t| convert::callable_info(t.as_ref())).collect())
                .unwrap_or_default();
            let payload = json!({
                "name": self.meta.def.name,
                "toolCallId": inv.call_id,
                "params": inv.args,
                "tools": tools,
            });
            let env = CallEnv { nested: inv.nested.as_ref(), tool_ctx: Some(inv.ctx) };
            match self.engine.invoke(Entry::Execute, payload, &env).await {
                Ok(v) => {
                    if v.get("terminate").and_then(Value::as_bool) == Some(true)
                        && let Some(flag) = inv.terminate
                    {
                        flag.store(true, Ordering::Relaxed);
                    }
                    convert::tool_result(&v)
                }
                Err(error) => ToolResult::thrown(error.to_string()),
            }
        })
    }
}
