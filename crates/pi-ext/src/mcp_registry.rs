//! MCP servers extensions register (`pi.registerMcpServer(name, config)`):
//! checked as an `mcpServers` entry of `mcp.json` when registered (the
//! front end installs the check: MCP is its business, not the engine's),
//! kept per extension, and read by the front end when the session starts.

use std::sync::{Arc, RwLock};

use serde_json::Value;

/// Checks one registration: `Err` with what is wrong.
// String error: the front end's words, which `pi.registerMcpServer` hands
// to the extension's JavaScript as they are.
pub type McpCheck = dyn Fn(&str, &Value) -> Result<(), String> + Send + Sync;

static CHECK: RwLock<Option<Arc<McpCheck>>> = RwLock::new(None);

/// Check registrations with `check` from now on.
pub fn set_mcp_check(check: Arc<McpCheck>) {
    if let Ok(mut g) = CHECK.write() {
        *g = Some(check);
    }
}

/// What is wrong with registering `config` as `name` (`None`: nothing, or
/// no check installed).
pub(crate) fn problem(name: &str, config: &Value) -> Option<String> {
    let check = CHECK.read().ok().and_then(|g| g.clone())?;
    check(name, config).err()
}
