//! Every user- and model-visible text of this crate, in one place. The wording
//! is the reference's (Pi 1.6.0), measured by running it against a mock server.

pub mod bedrock;

/// [`crate::stream`] called outside a tokio runtime.
pub const NEEDS_RUNTIME: &str = "pi_ai::stream needs a tokio runtime";
/// [`crate::complete`]: the events ended without a final message.
pub const NO_RESULT: &str = "The response stream ended without a result";
/// The error message of an aborted request.
pub const REQUEST_ABORTED: &str = "Request was aborted";
/// A request body that could not be written as JSON (a value with
/// non-string map keys; nothing pi builds has one).
pub const BODY_NOT_WRITTEN: &str = "The request body could not be written as JSON";
/// A long request body, written while it was sent, ended before its length.
pub const REQUEST_BODY_CUT: &str = "The request body ended before its announced length";
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

/// The HTTP client could not be created.
pub fn client_failed(why: &dyn std::fmt::Display) -> String {
    format!("Could not create the HTTP client: {why}")
}

/// Anthropic with a Claude subscription (OAuth) token: the first system
/// block, as Claude Code sends it.
pub const CLAUDE_CODE_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";
/// OpenAI Codex Responses (a ChatGPT subscription).
pub mod codex {
    /// A request without a key.
    pub fn no_api_key(provider: &str) -> String {
        format!("No API key for provider: {provider}")
    }
    /// The key is not a JWT with a ChatGPT account id.
    pub const NO_ACCOUNT_ID: &str = "Failed to extract accountId from token";
    /// `response.failed` without a message.
    pub const RESPONSE_FAILED: &str = "Codex response failed";
    /// An HTTP error answer with neither a body nor a known status.
    pub const REQUEST_FAILED: &str = "Request failed";
    /// Error codes (or types) that mean the subscription's usage limit.
    pub const USAGE_LIMIT_CODES: [&str; 3] = ["usage_limit_reached", "usage_not_included", "rate_limit_exceeded"];

    /// An `error` event: `Codex error: <message or code>`.
    pub fn stream_error(what: &str) -> String {
        format!("Codex error: {what}")
    }

    /// `You have hit your ChatGPT usage limit (<plan> plan). Try again in ~<n> min.`
    pub fn usage_limit(plan: Option<&str>, minutes: Option<u64>) -> String {
        let plan = plan.map(|p| format!(" ({} plan)", p.to_lowercase())).unwrap_or_default();
        let when = minutes.map(|m| format!(" Try again in ~{m} min.")).unwrap_or_default();
        format!("You have hit your ChatGPT usage limit{plan}.{when}")
    }
}

/// GitHub Copilot's token exchange (the reference's words where it has them).
pub mod copilot {
    /// The exchange answered with an error status: `<status> <reason>: <body>`.
    pub fn exchange_status(status: u16, reason: &str, body: &str) -> String {
        format!("{status} {reason}: {body}")
    }
    /// The answer is not a JSON object.
    pub const INVALID_ANSWER: &str = "Invalid Copilot token response";
    /// The answer lacks a string `token` or a numeric `expires_at`.
    pub const INVALID_FIELDS: &str = "Invalid Copilot token response fields";
    /// A failed exchange as the user sees it: what failed and what to do.
    pub fn refresh_failed(detail: &str) -> String {
        format!("OAuth refresh failed for github-copilot: {detail}. Sign in again with /login github-copilot.")
    }
}

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

/// Mistral HTTP errors: `Mistral API error (<status>): <body as sent>`.
pub fn mistral_http_error(status: u16, body: &str) -> String {
    format!("Mistral API error ({status}): {body}")
}
/// Mistral: an event that is not a chunk with a `choices` array.
pub const MISTRAL_INVALID_EVENT: &str = "Invalid Mistral streaming event";
/// Mistral: the stream ended before a chunk carried a finish reason.
pub const MISTRAL_NO_FINISH: &str = "Mistral stream ended without a finish reason";
/// Mistral: the connection dropped in the middle of the stream (Node's word,
/// as the reference's Mistral client reports it).
pub const MISTRAL_STREAM_CUT: &str = "terminated";
/// Mistral: a finish reason that is not a normal end; `error` is the
/// server's own failure (`Provider stopped with: error (server error)`).
pub fn mistral_stopped(reason: &str) -> String {
    if reason == "error" {
        "Provider stopped with: error (server error)".to_string()
    } else {
        format!("Provider stopped with: {reason}")
    }
}
/// Mistral: a tool result that reports an error is sent with this prefix.
pub const MISTRAL_TOOL_ERROR_PREFIX: &str = "[tool error] ";
/// Azure OpenAI: the name in its HTTP errors (`Azure OpenAI API error (<status>): …`).
pub const AZURE_ERROR_NAME: &str = "Azure OpenAI";
/// Azure OpenAI: no base URL from the environment or the model.
pub const AZURE_NO_BASE_URL: &str = "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl.";

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

pub mod google;
