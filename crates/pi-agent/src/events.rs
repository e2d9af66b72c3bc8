//! The agent's event stream, serialised as the JSON mode prints it (one object
//! per line, `type` first). Order of one run:
//!
//! `agent_start` → (`turn_start` → `message_start`/`message_update`…/`message_end`
//! for the assistant → per tool call `tool_execution_start` (+ updates) →
//! `tool_execution_end` → per result `message_start`/`message_end` →
//! `turn_end`)… → `agent_end` → `agent_settled`.

use pi_ai::{AssistantMessageEvent, Message, ToolResultMessage, Usage};
use serde::Serialize;
use serde_json::Value;

/// A tool result as events carry it.
#[derive(Debug, Clone, Serialize)]
pub struct EventToolResult {
    /// Content blocks.
    pub content: Vec<pi_tools::Content>,
    /// Details, when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Structured output, when any.
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
}

impl From<&pi_tools::ToolResult> for EventToolResult {
    fn from(r: &pi_tools::ToolResult) -> Self {
        EventToolResult {
            content: r.content.clone(),
            details: r.details.clone(),
            structured_content: r.structured.clone(),
        }
    }
}

/// One event of a run.
// Events are built once, handed to the sink by reference and serialised;
// boxing the message-carrying variants would buy nothing and complicate serde.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A run starts.
    AgentStart,
    /// A turn (one model request and its tool calls) starts.
    TurnStart,
    /// A message enters the conversation (for the assistant: streaming starts).
    MessageStart {
        /// The message (partial for the assistant).
        message: Message,
    },
    /// A system message (the prompt's sections and the declared tools)
    /// enters the conversation: printed as `message_start`.
    #[serde(rename = "message_start")]
    SystemMessageStart {
        /// The system message.
        message: Value,
    },
    /// The system message is complete: printed as `message_end`.
    #[serde(rename = "message_end")]
    SystemMessageEnd {
        /// The system message.
        message: Value,
    },
    /// A message only the agent knows (an extension's custom message)
    /// enters the conversation: printed as `message_start`.
    #[serde(rename = "message_start")]
    AgentMessageStart {
        /// The message.
        message: Value,
    },
    /// The agent-only message is complete: printed as `message_end`.
    #[serde(rename = "message_end")]
    AgentMessageEnd {
        /// The message.
        message: Value,
    },
    /// A streaming delta of the assistant message.
    MessageUpdate {
        /// Usage so far.
        usage: Usage,
        /// The delta event (without its `partial` message).
        #[serde(rename = "assistantMessageEvent")]
        assistant_message_event: AssistantMessageEvent,
    },
    /// A message is complete.
    MessageEnd {
        /// The final message.
        message: Message,
    },
    /// A tool call starts.
    ToolExecutionStart {
        /// Call id.
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        /// Tool name.
        #[serde(rename = "toolName")]
        tool_name: String,
        /// Arguments.
        args: Value,
        /// Parent call id for nested calls.
        #[serde(rename = "parentToolCallId", skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// A partial tool result.
    ToolExecutionUpdate {
        /// Call id.
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        /// Tool name.
        #[serde(rename = "toolName")]
        tool_name: String,
        /// Arguments.
        args: Value,
        /// The partial result.
        #[serde(rename = "partialResult")]
        partial_result: EventToolResult,
        /// Parent call id.
        #[serde(rename = "parentToolCallId", skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// A tool call finished.
    ToolExecutionEnd {
        /// Call id.
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        /// Tool name.
        #[serde(rename = "toolName")]
        tool_name: String,
        /// The result.
        result: EventToolResult,
        /// Whether it is an error.
        #[serde(rename = "isError")]
        is_error: bool,
        /// Milliseconds it took (absent when the call failed before its tool ran).
        #[serde(rename = "durationMs", skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
        /// Parent call id.
        #[serde(rename = "parentToolCallId", skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// A turn ended.
    TurnEnd {
        /// The assistant message of the turn (`Message::Assistant`, so its
        /// JSON has `role`).
        message: Message,
        /// Its tool results, in call order (each with its `role`).
        #[serde(rename = "toolResults", serialize_with = "tool_results_with_role")]
        tool_results: Vec<ToolResultMessage>,
    },
    /// A retryable failure; the request is tried again after a delay.
    AutoRetryStart {
        /// 1-based attempt number.
        attempt: u32,
        /// Most attempts.
        #[serde(rename = "maxAttempts")]
        max_attempts: u32,
        /// Delay before the retry.
        #[serde(rename = "delayMs")]
        delay_ms: u64,
        /// The failure.
        #[serde(rename = "errorMessage")]
        error_message: String,
    },
    /// A retry sequence ended.
    AutoRetryEnd {
        /// Whether the request finally succeeded.
        success: bool,
        /// Attempts made.
        attempt: u32,
        /// The last failure, when it did not succeed.
        #[serde(rename = "finalError", skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
    /// An extension handler failed (its result was kept).
    ExtensionError {
        /// Where the handler came from.
        #[serde(rename = "extensionPath")]
        extension_path: String,
        /// The event it handled.
        event: String,
        /// The failure.
        error: String,
    },
    /// The run ended.
    AgentEnd {
        /// The messages of the run.
        messages: Vec<crate::messages::AgentMessage>,
        /// Whether the run will be tried again (never here: no automatic
        /// retry of a whole run).
        #[serde(rename = "willRetry")]
        will_retry: bool,
    },
    /// The steering or follow-up queue changed (both complete).
    QueueUpdate {
        /// Queued steering messages.
        steering: Vec<String>,
        /// Queued follow-up messages.
        #[serde(rename = "followUp")]
        follow_up: Vec<String>,
    },
    /// The session's display name changed (absent: cleared).
    SessionInfoChanged {
        /// The new name.
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The thinking level changed.
    ThinkingLevelChanged {
        /// The new level.
        level: String,
    },
    /// A compaction starts.
    CompactionStart {
        /// `manual`, `threshold` or `overflow`.
        reason: String,
    },
    /// A compaction ended: its result, or why not.
    CompactionEnd {
        /// `manual`, `threshold` or `overflow`.
        reason: String,
        /// The compaction (absent when it failed or was cancelled).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// Cancelled (by an extension or an abort).
        aborted: bool,
        /// The request that overflowed is tried again.
        #[serde(rename = "willRetry")]
        will_retry: bool,
        /// Why it failed.
        #[serde(rename = "errorMessage", skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
    },
    /// An entry that is not a message was added to the session (a recovery's
    /// `context_edit`, an extension's entry).
    EntryAppended {
        /// The entry as written.
        entry: Value,
    },
    /// Nothing more will happen for this prompt.
    AgentSettled {
        /// Whether the run was aborted.
        aborted: bool,
    },
}

/// Tool results as messages (`role: "toolResult"` first), as the reference prints them.
fn tool_results_with_role<S: serde::Serializer>(results: &[ToolResultMessage], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(results.len()))?;
    for r in results {
        seq.serialize_element(&Message::ToolResult(r.clone()))?;
    }
    seq.end()
}

/// The text blocks of an answer, joined.
pub(crate) fn text_of(m: &pi_ai::AssistantMessage) -> String {
    m.content
        .iter()
        .filter_map(|b| match b {
            pi_ai::ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("")
}
