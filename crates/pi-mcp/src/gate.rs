//! The `tool_call` handler of `builtin:mcp`: a call that reaches other tools
//! waits for the servers it may reach, so their tools are registered before
//! it runs. A codemode script waits for the servers its source names (every
//! server when it uses a discovery global or a resource tool); `tool_search`
//! and the resource tools wait for all.

use std::sync::Arc;

use futures::future::BoxFuture;
use pi_agent::{Interceptor, Reach, ToolCallDecision, ToolCallEvent};

use crate::manager::McpManager;
use crate::naming;
use crate::resources::spec::{LIST, NAMES, READ, TEMPLATES};
use crate::text;

/// The handler.
pub struct Gate(pub Arc<McpManager>);

/// Names of the tools that reach every server.
const SEARCHES: &[&str] = &["tool_search", LIST, TEMPLATES, READ];

impl Interceptor for Gate {
    fn source(&self) -> &str {
        "builtin:mcp"
    }

    fn on_tool_call<'a>(
        &'a self,
        ev: &'a mut ToolCallEvent,
    ) -> BoxFuture<'a, Result<Option<ToolCallDecision>, pi_agent::HandlerError>> {
        Box::pin(async move {
            let reach = if SEARCHES.contains(&ev.tool_name.as_str()) {
                Some(Reach::All)
            } else {
                self.0.tool(&ev.tool_name).and_then(|t| t.reaches_tools(&ev.input))
            };
            match reach {
                Some(Reach::All) => self.0.wait(|_| true, text::CONNECT_TIMEOUT).await,
                // A script using a resource tool reaches every server with resources.
                Some(Reach::Words(words)) if words.iter().any(|w| NAMES.iter().any(|n| w.contains(n))) => {
                    self.0.wait(|_| true, text::CONNECT_TIMEOUT).await
                }
                Some(Reach::Words(words)) => {
                    let named = |s: &crate::manager::Server| {
                        let ns = naming::namespace(s.name());
                        words.iter().any(|w| w.contains(&ns))
                    };
                    self.0.wait(named, text::CONNECT_TIMEOUT).await
                }
                None => {}
            }
            Ok(None)
        })
    }
}
