//! The `bash` and `powershell` tools.

use serde_json::Value;

use crate::{ToolContext, ToolError, ToolResult};

/// Run `bash` (not implemented yet).
pub async fn run(_args: Value, _ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    Err(ToolError::msg("bash: not implemented yet"))
}

/// Run `powershell` (not implemented yet).
pub async fn run_powershell(_args: Value, _ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    Err(ToolError::msg("powershell: not implemented yet"))
}
