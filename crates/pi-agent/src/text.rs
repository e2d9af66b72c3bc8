//! Every model- or user-visible message of the agent, in one place.

/// Result of a call a handler blocked without a reason.
pub const BLOCKED: &str = "Tool execution was blocked";

/// `Tool <name> not found`.
pub fn tool_not_found(name: &str) -> String {
    pi_tools::text::common::tool_not_found(name)
}

/// The error of a model stream that closed without a final event.
pub const STREAM_ENDED_EARLY: &str = "The model stream ended without a final message";

/// A failure whose server asked to wait longer than
/// `retry.provider.maxRetryDelayMs` before a retry, given up at once:
/// `Server requested 3600s retry delay (max: 60s). <the server's message>`
/// (the reference's words; both rounded up to seconds).
pub fn retry_delay_too_long(requested: std::time::Duration, max_ms: u64, message: &str) -> String {
    let requested = requested.as_millis().div_ceil(1000);
    let max = max_ms.div_ceil(1000);
    format!("Server requested {requested}s retry delay (max: {max}s). {message}")
}

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
