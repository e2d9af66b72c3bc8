//! The handlers: [`execute_validated`] runs a built-in call whose arguments
//! passed preparation ([`prepare_arguments`]) and validation; `pi-agent`'s
//! dispatcher is the one caller that does both.

use serde_json::Value;

use crate::args::prepare_edit_arguments;
use crate::{ToolContext, ToolError, ToolName, ToolResult};

mod bash;
mod edit;
mod find;
mod grep;
mod ls;
pub(crate) mod read;
mod write;

pub use bash::supervisor::{SUPERVISE_ARG, SupervisedCommand, set_supervisor, supervise_main, supervised_command};
pub use bash::{UserCommandResult, end_sandbox_sessions, kill_running_commands, run_user_command};

/// Run a call whose arguments already passed preparation and validation.
pub async fn execute_validated(name: ToolName, args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    if ctx.abort.is_cancelled() {
        return Err(ToolError::Aborted);
    }
    match name {
        ToolName::Read => read::run(args, ctx).await,
        ToolName::Bash => bash::run(args, ctx).await,
        ToolName::Powershell => bash::run_powershell(args, ctx).await,
        ToolName::Edit => edit::run(args, ctx).await,
        ToolName::Write => write::run(args, ctx).await,
        ToolName::Grep => grep::run(args, ctx).await,
        ToolName::Find => find::run(args, ctx).await,
        ToolName::Ls => ls::run(args, ctx).await,
    }
}

/// The tool's argument preparation (only `edit` has one: its compatibility shim).
pub fn prepare_arguments(name: ToolName, args: Value) -> Value {
    match name {
        ToolName::Edit => prepare_edit_arguments(args),
        _ => args,
    }
}

/// Prepare, validate and execute one call; every failure is an error result.
/// Tests of the tools only: everything else calls tools through
/// `pi-agent`'s dispatcher, the one path with the handlers.
#[cfg(test)]
pub(crate) async fn call_tool(name: ToolName, args: Value, ctx: &ToolContext) -> ToolResult {
    let prepared = prepare_arguments(name, args);
    let spec = crate::ToolSpec::of(name);
    match crate::args::validate(name.as_str(), &spec.parameters, &prepared) {
        Err(e) => ToolResult::error(e.to_string()),
        Ok(valid) => match execute_validated(name, valid, ctx).await {
            Ok(r) => r,
            Err(e) => ToolResult::error(e.to_string()),
        },
    }
}

/// A tool's blocking worker that did not come back: a panic (a bug) becomes a
/// short error, never the panic's text (which can be huge).
pub(crate) fn worker_failed(e: tokio::task::JoinError) -> ToolError {
    let what = if e.is_panic() { crate::text::common::WORKER_PANICKED } else { crate::text::common::WORKER_CANCELLED };
    ToolError::msg(what)
}

/// Deserialize validated arguments into a handler's own struct.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError::msg(e.to_string()))
}
