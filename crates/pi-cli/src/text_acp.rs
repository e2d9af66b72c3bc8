//! What ACP mode says: its errors (JSON-RPC error messages) and the notes it
//! writes into the editor's chat. The retry and compaction notes are the
//! words the adapter over the reference (`pi-acp`) writes.

/// The editor closed the connection before answering.
pub const ACP_CLIENT_GONE: &str = "The client closed the connection before answering";
/// A session's pi ended (or could not be reached).
pub const ACP_PI_ENDED: &str = "pi ended unexpectedly; start a new session";
/// A pi command failed without saying why.
pub const ACP_COMMAND_FAILED: &str = "pi could not do this";
/// A prompt arrived while the session's previous one still runs.
pub const ACP_PROMPT_RUNNING: &str =
    "A prompt is already running in this session; wait for its answer or send session/cancel";
/// A message that is neither a request, a notification nor an answer.
pub const ACP_NOT_A_REQUEST: &str = "Invalid Request: a message needs a \"method\" (or is an answer with an \"id\")";
/// A request before `initialize`.
pub const ACP_NOT_INITIALIZED: &str = "Not initialized: send \"initialize\" first";
/// The title of a question from pi without one.
pub const ACP_QUESTION_TITLE: &str = "pi asks";
/// An automatic retry started without its figures.
pub const ACP_RETRYING: &str = "Retrying...";
/// An automatic retry ended.
pub const ACP_RETRY_DONE: &str = "Retry finished, resuming.";
/// An automatic compaction started.
pub const ACP_COMPACTING: &str = "Context nearing limit, running automatic compaction...";
/// A compaction ended.
pub const ACP_COMPACTED: &str = "Automatic compaction finished; context was summarized to continue the session.";
/// `/name` done.
pub const ACP_NAMED: &str = "Session name set.";
/// `/compact`'s description.
pub const ACP_CMD_COMPACT: &str = "Manually compact the session context";
/// `/session`'s description.
pub const ACP_CMD_SESSION: &str = "Show session stats (messages, tokens, cost, session file)";
/// `/name`'s description.
pub const ACP_CMD_NAME: &str = "Set session display name";
/// `/export`'s description.
pub const ACP_CMD_EXPORT: &str = "Export session to an HTML file in the session cwd";

/// A required parameter is missing or of the wrong kind.
pub fn acp_missing(key: &str, what: &str) -> String {
    format!("Invalid params: \"{key}\" must be {what}")
}

/// pi could not be started for a session.
pub fn acp_cannot_start(why: &str) -> String {
    format!("Could not start pi for this session: {why}")
}

/// An automatic retry started.
pub fn acp_retrying(attempt: u64, max: u64, delay_ms: u64) -> String {
    format!("Retrying (attempt {attempt}/{max}, waiting {}s)...", delay_ms.div_ceil(1000))
}

/// A prompt block of a kind ACP does not define.
pub fn acp_unknown_block(kind: &str) -> String {
    format!(
        "Invalid params: unknown prompt block type \"{kind}\" (expected text, image, audio, resource_link or resource)"
    )
}

/// The model's request failed; said in the chat.
pub fn acp_error(message: &str) -> String {
    format!("Error: {message}")
}

/// A dialog pi cannot ask through ACP.
pub fn acp_dialog_unsupported(method: &str) -> String {
    format!("pi asked for {method} input, which ACP cannot ask for; it was cancelled.")
}

/// A line that is not JSON.
pub fn acp_parse_error(why: &str) -> String {
    format!("Parse error: {why}")
}

/// An unknown method.
pub fn acp_no_method(method: &str) -> String {
    format!("Method not found: {method}")
}

/// No session with this id.
pub fn acp_unknown_session(id: &str) -> String {
    format!("Unknown sessionId: {id}")
}

/// A folder that is not absolute or not there.
pub fn acp_bad_cwd(cwd: &str) -> String {
    format!("Invalid params: cwd must be an absolute path to a folder: {cwd}")
}

/// A model value without its provider.
pub fn acp_bad_model(value: &str) -> String {
    format!("Invalid params: model must be <provider>/<model id>: {value}")
}

/// An unknown config option.
pub fn acp_unknown_option(id: &str) -> String {
    format!("Invalid params: unknown config option: {id}")
}

/// An MCP server of the legacy SSE transport, which pi does not speak.
pub fn acp_sse_server(name: &str) -> String {
    format!(
        "Invalid params: MCP server \"{name}\" uses the legacy SSE transport; pi connects to stdio and HTTP servers"
    )
}
