//! The `write` tool.

use serde_json::Value;

use crate::{ToolContext, ToolError, ToolResult};

/// Run `write` (not implemented yet).
pub async fn run(_args: Value, _ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    Err(ToolError::msg("write: not implemented yet"))
}
