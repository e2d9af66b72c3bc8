//! Every user- and model-visible text of this crate, in one place. The wording
//! is the reference's (Pi 1.6.0), measured by running it against a mock server.

/// [`crate::stream`] called outside a tokio runtime.
pub const NEEDS_RUNTIME: &str = "pi_ai::stream needs a tokio runtime";
/// [`crate::complete`]: the events ended without a final message.
pub const NO_RESULT: &str = "The response stream ended without a result";
/// The error message of an aborted request.
pub const REQUEST_ABORTED: &str = "Request was aborted";
/// A request body that could not be written as JSON (a value with
/// non-string map keys; nothing pi builds has one).
pub const BODY_NOT_WRITTEN: &str = "The request body could not be written as JSON";
/// The faux provider's error when its queue is empty.
pub const NO_FAUX_RESPONSES: &str = "No more faux responses queued";
/// A tool call whose arguments parsed to something other than an object.
pub const ARGUMENTS_NOT_OBJECT: &str = "Tool arguments must be a JSON object";
/// Sent instead of an empty or whitespace-only tool result (OpenAI APIs).
pub const NO_TOOL_OUTPUT: &str = "(no tool output)";
/// Sent instead of a user image (an `@file` image) to a model without image input.
pub const USER_IMAGE_OMITTED: &str = "(image omitted: model does not support images)";
/// Sent instead of a tool result's image to a model without image input.
pub const TOOL_IMAGE_OMITTED: &str = "(tool image omitted: model does not support images)";
/// Chat Completions: the user message that carries tool-result images.
pub const TOOL_IMAGES_ATTACHED: &str = "Attached image(s) from tool result:";
/// Chat Completions with `requiresAssistantAfterToolResult`: the assistant
/// message put between tool results and the user message after them.
pub const AFTER_TOOL_RESULTS: &str = "I have processed the tool results.";
/// Chat Completions: the stream ended before a `finish_reason`.
pub const COMPLETIONS_NO_FINISH: &str = "Stream ended without finish_reason";
/// Anthropic: the stream ended before `message_delta` carried a stop reason.
pub const ANTHROPIC_NO_STOP: &str = "Anthropic stream ended without a stop reason";
/// Responses: the stream ended before `response.completed` (or failed/incomplete).
pub const RESPONSES_NO_TERMINAL: &str = "OpenAI Responses stream ended before a terminal response event";
/// The connection dropped in the middle of the response body. (The reference
/// prints Node's socket error text; we keep its words so retry rules that
/// look for "terminated" / "other side closed" treat both alike.)
pub const STREAM_CUT: &str = "terminated: other side closed";
/// A server-sent event whose data is not JSON (OpenAI APIs).
pub const MALFORMED_EVENT: &str =
    "Could not parse message into JSON:\nFrom chunk:\nError reading response: malformed server-sent event JSON.";
/// A server-sent event past the size limit (given in bytes, shown in MiB).
pub fn sse_event_too_large(limit: usize) -> String {
    format!("Error reading response: a server-sent event is larger than {} MiB", limit / (1024 * 1024))
}

/// Anthropic with a Claude subscription (OAuth) token: the first system
/// block, as Claude Code sends it.
pub const CLAUDE_CODE_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";

/// Anthropic: the description of the placeholder tool declared last when
/// tools may change mid-conversation.
pub const DEFERRED_PLACEHOLDER_DESCRIPTION: &str = "Reserved placeholder. Never available. Never call this.";

/// The request timed out (no bytes for the read timeout).
pub const TIMED_OUT: &str = "Request timed out.";
/// An HTTP error without a body.
pub const NO_BODY: &str = "status code (no body)";

/// Tool-call arguments nested deeper than the limit (the parser adds the
/// position, in `JSON.parse`'s words: `… in JSON at position 64 (line 1 column 65)`).
pub fn arguments_too_deep(limit: usize) -> String {
    format!("Nesting deeper than {limit} levels")
}

/// `<message>\n\nReceived arguments:\n<raw>`: why tool-call arguments were rejected.
pub fn arguments_error(message: &str, raw: &str) -> String {
    format!("{message}\n\nReceived arguments:\n{raw}")
}

/// A connection failure: `Connection error.: <detail>` (for a refused
/// connection the detail is `connect ECONNREFUSED <host>:<port>`, as in the reference).
pub fn connection_error(detail: &str) -> String {
    if detail.is_empty() { "Connection error.".to_string() } else { format!("Connection error.: {detail}") }
}

/// Responses API HTTP errors: `<provider> API error (<status>): <detail>`.
pub fn responses_http_error(provider: &str, status: u16, detail: &str) -> String {
    format!("{provider} API error ({status}): {detail}")
}

/// Responses `response.failed`: `<code>: <message>` (or just the message).
pub fn responses_failed(code: Option<&str>, message: &str) -> String {
    match code {
        Some(c) if !c.is_empty() => format!("{c}: {message}"),
        _ => message.to_string(),
    }
}

/// Why a tool's schema cannot be sent in a provider's strict mode (each
/// completes [`strict_required`]'s sentence).
pub mod strict {
    /// A schema (or `anyOf` variant, or `items`) with no `type`, `anyOf` or `enum`.
    pub const UNTYPED: &str = "schemas without a type are unsupported";
    /// An object whose `additionalProperties` is not `false`.
    pub const OPEN_OBJECT: &str = "schema-valued or true additionalProperties is unsupported";
    /// `true`/`false` in place of a schema.
    pub const BOOLEAN: &str = "boolean schemas are unsupported";
    /// `items` as an array.
    pub const TUPLE: &str = "tuple schemas are unsupported";
    /// `required` names a property `properties` lacks.
    pub const UNKNOWN_REQUIRED: &str = "required contains an unknown property";
    /// The parameters are not an object schema.
    pub const ROOT_NOT_OBJECT: &str = "root schema must have type object";
    /// `properties` beside a `type` other than `"object"`.
    pub const PROPERTIES_NOT_OBJECT: &str = "properties require type object";
    /// An `anyOf` with an object or array variant.
    pub const COMPOSITE_UNION: &str = "object and array unions are unsupported";
    /// The provider has no strict mode (`compat.supportsStrictMode`/`supportsStrictTools`).
    pub const NO_STRICT_TOOLS: &str = "strict tools are unsupported";

    /// A keyword strict mode never accepts.
    pub fn keyword(key: &str) -> String {
        format!("{key} schemas are unsupported")
    }

    /// A keyword and value the provider's strict mode refuses.
    pub fn value(key: &str, value: &serde_json::Value) -> String {
        format!("{key}: {value} is unsupported")
    }
}

/// The request error for a tool that requires strict sampling and cannot have it.
pub fn strict_required(tool: &str, why: &str) -> String {
    format!("Tool \"{tool}\" requires JSON-schema constrained sampling, but {why}.")
}
