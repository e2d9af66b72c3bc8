//! MCP servers extensions register (`pi.registerMcpServer(name, config)`):
//! checked as an `mcpServers` entry of `mcp.json` when registered (the
//! front end hands the check in [`crate::HostOptions::mcp_check`]: MCP is
//! its business, not the engine's), kept per extension, and read by the
//! front end when the session starts.

use serde_json::Value;

/// Checks one registration: `Err` with what is wrong, in the front end's
/// own error type (its `Display` is what the extension's JavaScript is
/// thrown, after pi's prefix).
pub type McpCheck = dyn Fn(&str, &Value) -> Result<(), Box<dyn std::error::Error + Send + Sync>> + Send + Sync;

/// What `check` finds wrong with registering `config` as `name` (`None`:
/// nothing, or no check).
pub(crate) fn problem(check: Option<&McpCheck>, name: &str, config: &Value) -> Option<String> {
    check?(name, config).err().map(|e| e.to_string())
}
