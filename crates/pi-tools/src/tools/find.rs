//! The `find` tool.

use serde_json::Value;

use crate::{ToolContext, ToolError, ToolResult};

/// Run `find` (not implemented yet).
pub async fn run(_args: Value, _ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    Err(ToolError::msg("find: not implemented yet"))
}
