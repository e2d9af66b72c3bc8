//! Commands the user runs (`!cmd`, `!!cmd`, RPC `bash`). They are the
//! user's, not the model's: no `tool_call` handlers, and they run with
//! `--no-tools` too. The `user_bash` handlers come first, in load order: one
//! may answer with a result (the command is not run here) or run it
//! elsewhere; otherwise the session's shell runs it, streaming its output,
//! until it ends or the abort signal fires.

use std::sync::Arc;

use pi_tools::{OutputFn, ToolContext, UserCommandResult};

use crate::hooks::Interceptor;
use crate::messages::{AgentMessage, AgentOnly, BashExecutionMessage};

/// What `user_bash` handlers see and say (defined with the hooks, which answer them).
pub use crate::hooks::{UserBashAnswer, UserBashEvent};

/// Run a user command: the handlers first, then the local shell. `ctx.abort`
/// stops it; `on_output` gets the output as it comes; failing handlers are
/// handed to `on_error` with their source. `Err` when the shell cannot start.
pub async fn run_user_bash(
    interceptors: &[Arc<dyn Interceptor>],
    ev: &UserBashEvent,
    ctx: &ToolContext,
    on_output: Option<OutputFn>,
    on_error: &(dyn Fn(&str, &str) + Send + Sync),
) -> Result<UserCommandResult, pi_tools::ToolError> {
    let mut handler_ctx = ctx.clone();
    if let Some(f) = on_output.clone() {
        handler_ctx.on_update = Some(Arc::new(move |partial: &pi_tools::ToolResult| f(&partial.text_content())));
    }
    for source in interceptors {
        let answer = source.on_user_bash(ev, &handler_ctx).await;
        for e in &answer.errors {
            on_error(source.source(), e);
        }
        if let Some(result) = answer.result {
            return Ok(result);
        }
    }
    pi_tools::run_user_command(&ev.command, ctx, on_output).await
}

impl BashExecutionMessage {
    /// The record of `ev` that ended with `result`, stamped now.
    pub fn new(ev: &UserBashEvent, result: &UserCommandResult) -> Self {
        BashExecutionMessage {
            command: ev.command.clone(),
            output: result.output.clone(),
            exit_code: result.exit_code,
            cancelled: result.cancelled,
            truncated: result.truncated,
            full_output_path: result.full_output_path.clone(),
            exclude_from_context: ev.exclude_from_context,
            timestamp: pi_ai::now_ms(),
        }
    }
}

impl From<BashExecutionMessage> for AgentMessage {
    fn from(m: BashExecutionMessage) -> Self {
        AgentMessage::Agent(AgentOnly::BashExecution(m))
    }
}
