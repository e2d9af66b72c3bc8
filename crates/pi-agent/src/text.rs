//! Every model- or user-visible message of the agent, in one place.

/// Result of a call a handler blocked without a reason.
pub const BLOCKED: &str = "Tool execution was blocked";

/// `Tool <name> not found`.
pub fn tool_not_found(name: &str) -> String {
    pi_tools::text::common::tool_not_found(name)
}

/// The error of a model stream that closed without a final event.
pub const STREAM_ENDED_EARLY: &str = "The model stream ended without a final message";

/// A call whose arguments are not a JSON object.
pub fn invalid_arguments(tool: &str, detail: &str) -> String {
    format!("Invalid arguments for tool \"{tool}\": {detail}")
}

/// The thinking level recorded on messages of a model run without thinking.
pub const THINKING_OFF: &str = "off";

/// A user command's record with no output, as the model reads it.
pub const BASH_NO_OUTPUT: &str = "(no output)";

/// A user command the user stopped, as the model reads it.
pub const BASH_CANCELLED: &str = "\n\n(command cancelled)";

/// A user command that failed, as the model reads it.
pub fn bash_exited_with(code: i64) -> String {
    format!("\n\nCommand exited with code {code}")
}

/// A user command whose output was cut, as the model reads it.
pub fn bash_output_truncated(path: &str) -> String {
    format!("\n\n[Output truncated. Full output: {path}]")
}

/// A tool panicked while it ran (a bug in the tool): the call's result.
pub fn tool_panicked(name: &str) -> String {
    pi_tools::text::common::internal_error(name, "it failed unexpectedly (a bug); nothing more is known")
}

/// A tool call of an answer cut by the output token limit (as the reference).
pub fn truncated_call(name: &str) -> String {
    format!(
        "Tool call \"{name}\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments."
    )
}

/// Before a compaction summary in the context (as the reference).
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// After a compaction summary in the context.
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// Before a branch summary in the context (as the reference).
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// After a branch summary in the context.
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// A session line that is JSON but not an object.
pub const SESSION_LINE_NOT_OBJECT: &str = "not a JSON object";
