//! The eight built-in tools of `pi`, the agent's hands and eyes.
//!
//! Each tool is data plus a function: a [`ToolSpec`] (name, description, JSON
//! schema, prompt snippet and guidelines, annotations) that can be sent to a model
//! as is, and a handler that runs a validated call against a [`ToolContext`].
//! Around them sit the shared pieces every tool uses: [`truncate`] (the output
//! limits), [`paths`] (how a model's path becomes a file), [`args`] (argument
//! preparation, coercion and validation with the reference's messages) and the
//! in-process search used by `grep` and `find` (no `rg` or `fd` binary needed).
//!
//! ```no_run
//! # async fn demo() -> Result<(), pi_tools::ToolError> {
//! use pi_tools::{ToolContext, ToolName, ToolSpec, args, execute_validated, prepare_arguments};
//! let ctx = ToolContext::new(std::path::PathBuf::from("."));
//! let name = ToolName::Ls;
//! let prepared = prepare_arguments(name, serde_json::json!({}));
//! let valid = args::validate(name.as_str(), &ToolSpec::of(name).parameters, &prepared)
//!     .map_err(|e| pi_tools::ToolError::msg(e.to_string()))?;
//! let result = execute_validated(name, valid, &ctx).await?;
//! println!("{}", result.text_content());
//! # Ok(()) }
//! ```
//!
//! An agent does not call these directly: `pi-agent`'s dispatcher runs every
//! call (with the `tool_call`/`tool_result` handlers) through them.
#![deny(missing_docs)]

pub mod args;
pub mod attachment;
mod context;
mod error;
mod jsnum;
pub mod limits;
mod name;
mod os_error;
pub mod output_file;
pub mod paths;
pub mod queue;
pub mod replace;
mod result;
mod schema;
mod search;
mod spec;
pub mod text;
mod tools;
pub mod truncate;

pub use context::{ChangeGuard, GuardFuture, OutputFn, SessionEnv, ToolContext, UpdateFn};
pub use error::{ImageOmitted, InvalidArguments, NulInPath, ToolError};
pub use name::{CODING_TOOLS, READ_ONLY_TOOLS, ToolName, UnknownToolName};
pub use queue::{FileMutationGuard, FileMutationQueue};
pub use result::{Content, ToolResult};
pub use schema::{Issue as SchemaIssue, check as check_schema, coerce as coerce_to_schema};
pub use spec::{Annotations, ToolSpec};
pub use tools::{
    SUPERVISE_ARG, SupervisedCommand, UserCommandResult, end_sandbox_sessions, execute_validated,
    kill_running_commands, prepare_arguments, run_user_command, set_supervisor, supervise_main, supervised_command,
};
