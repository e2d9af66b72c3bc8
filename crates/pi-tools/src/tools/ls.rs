//! The `ls` tool.

use serde_json::Value;

use crate::{ToolContext, ToolError, ToolResult};

/// Run `ls` (not implemented yet).
pub async fn run(_args: Value, _ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    Err(ToolError::msg("ls: not implemented yet"))
}
