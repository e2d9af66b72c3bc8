//! The streaming events of one model response.

use serde::{Deserialize, Serialize};

use crate::types::{AssistantMessage, StopReason, ToolCall};

/// One event of a streamed response, tagged by `type` (`text_delta`, ...).
///
/// Every non-terminal event carries the `partial` message as it stands after
/// the event; `content_index` is the block the event is about. The first event
/// is [`Start`](Self::Start) once the server has accepted the request (a
/// request refused outright, e.g. with an HTTP error, has no `start`); the
/// last event of a stream is always [`Done`](Self::Done) or [`Error`](Self::Error).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum AssistantMessageEvent {
    /// The server accepted the request (Anthropic: after its `message_start`,
    /// so `partial` has the input usage); no content yet.
    Start {
        /// The message so far.
        partial: AssistantMessage,
    },
    /// A text block opened.
    TextStart {
        /// Index into `partial.content`.
        content_index: usize,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// Text arrived.
    TextDelta {
        /// Index into `partial.content`.
        content_index: usize,
        /// The new text.
        delta: String,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// A text block closed.
    TextEnd {
        /// Index into `partial.content`.
        content_index: usize,
        /// The whole text of the block.
        content: String,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// A thinking block opened.
    ThinkingStart {
        /// Index into `partial.content`.
        content_index: usize,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// Reasoning arrived.
    ThinkingDelta {
        /// Index into `partial.content`.
        content_index: usize,
        /// The new text.
        delta: String,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// A thinking block closed.
    ThinkingEnd {
        /// Index into `partial.content`.
        content_index: usize,
        /// The whole text of the block.
        content: String,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// A tool call opened (its id and name are in `partial`).
    ToolcallStart {
        /// Index into `partial.content`.
        content_index: usize,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// Raw argument text arrived.
    ToolcallDelta {
        /// Index into `partial.content`.
        content_index: usize,
        /// The new raw JSON text.
        delta: String,
        /// The message so far (arguments parsed as far as they go).
        partial: AssistantMessage,
    },
    /// A tool call is complete.
    ToolcallEnd {
        /// Index into `partial.content`.
        content_index: usize,
        /// The call with its parsed arguments (or `arguments_error`).
        tool_call: ToolCall,
        /// The message so far.
        partial: AssistantMessage,
    },
    /// The response finished.
    Done {
        /// `stop`, `length` or `toolUse`.
        reason: StopReason,
        /// The final message.
        message: AssistantMessage,
    },
    /// The response failed or was aborted.
    Error {
        /// `error` or `aborted`.
        reason: StopReason,
        /// The message as far as it got, with `error_message` set.
        error: AssistantMessage,
    },
}

impl AssistantMessageEvent {
    /// The final message of a terminal event.
    pub fn final_message(&self) -> Option<&AssistantMessage> {
        match self {
            AssistantMessageEvent::Done { message, .. } => Some(message),
            AssistantMessageEvent::Error { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The message as it stands after this event.
    pub fn message(&self) -> &AssistantMessage {
        use AssistantMessageEvent::*;
        match self {
            Start { partial }
            | TextStart { partial, .. }
            | TextDelta { partial, .. }
            | TextEnd { partial, .. }
            | ThinkingStart { partial, .. }
            | ThinkingDelta { partial, .. }
            | ThinkingEnd { partial, .. }
            | ToolcallStart { partial, .. }
            | ToolcallDelta { partial, .. }
            | ToolcallEnd { partial, .. } => partial,
            Done { message, .. } => message,
            Error { error, .. } => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_field_names_match_the_reference() {
        let e = AssistantMessageEvent::ToolcallDelta {
            content_index: 1,
            delta: "{".into(),
            partial: AssistantMessage::default(),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "toolcall_delta");
        assert_eq!(v["contentIndex"], 1);
        let e = AssistantMessageEvent::ToolcallEnd {
            content_index: 0,
            tool_call: ToolCall {
                id: "i".into(),
                name: "n".into(),
                arguments: serde_json::json!({}),
                arguments_error: None,
            },
            partial: AssistantMessage::default(),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "toolcall_end");
        assert_eq!(v["toolCall"]["type"], "toolCall");
        let e = AssistantMessageEvent::Error { reason: StopReason::Aborted, error: AssistantMessage::default() };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "error");
        assert_eq!(v["reason"], "aborted");
        let back: AssistantMessageEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }
}
