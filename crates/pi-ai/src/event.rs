//! The streaming events of one model response.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use crate::types::{AssistantMessage, StopReason, ToolCall, Usage};

/// The message of a response being streamed, shared by the provider and
/// every event it sends: reading it gives the message after the latest
/// change, which may be later than the event that carries it (in the
/// reference too, every event holds the same object). Events carry it
/// instead of a copy of the message so that streaming costs time in
/// proportion to the response, not to its square; cloning it is cheap.
#[derive(Clone, Default)]
pub struct PartialMessage(Arc<Mutex<AssistantMessage>>);

impl PartialMessage {
    /// A partial message starting as `m`.
    pub fn new(m: AssistantMessage) -> Self {
        PartialMessage(Arc::new(Mutex::new(m)))
    }

    fn lock(&self) -> MutexGuard<'_, AssistantMessage> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Read the message where it lies (the provider waits meanwhile, so do
    /// not wait inside `f`).
    pub fn read<R>(&self, f: impl FnOnce(&AssistantMessage) -> R) -> R {
        f(&self.lock())
    }

    /// A copy of the message as it stands (costs as much as the message).
    pub fn snapshot(&self) -> AssistantMessage {
        self.lock().clone()
    }

    /// The usage so far.
    pub fn usage(&self) -> Usage {
        (*self.lock().usage).clone()
    }

    pub(crate) fn write<R>(&self, f: impl FnOnce(&mut AssistantMessage) -> R) -> R {
        f(&mut self.lock())
    }
}

impl From<AssistantMessage> for PartialMessage {
    fn from(m: AssistantMessage) -> Self {
        PartialMessage::new(m)
    }
}

impl std::fmt::Debug for PartialMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.read(|m| f.debug_tuple("PartialMessage").field(m).finish())
    }
}

/// Equal when they are the same message, or hold equal messages now.
impl PartialEq for PartialMessage {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.snapshot() == other.snapshot()
    }
}

/// One event of a streamed response, tagged by `type` (`text_delta`, ...).
///
/// Every non-terminal event carries the shared `partial` message
/// ([`PartialMessage`], left out when the event is serialized, as on the
/// reference's wire: events are deltas); `content_index` is the block the
/// event is about. The first event is [`Start`](Self::Start) once the server
/// has accepted the request (a request refused outright, e.g. with an HTTP
/// error, has no `start`); the last event of a stream is always
/// [`Done`](Self::Done) or [`Error`](Self::Error), with a copy of the final
/// message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum AssistantMessageEvent {
    /// The server accepted the request (Anthropic: after its `message_start`,
    /// so `partial` has the input usage); no content yet.
    Start {
        /// The message as it began (a copy of its own, not the shared one).
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// A text block opened.
    TextStart {
        /// Index into `partial.content`.
        content_index: usize,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// Text arrived.
    TextDelta {
        /// Index into `partial.content`.
        content_index: usize,
        /// The new text.
        delta: String,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// A text block closed.
    TextEnd {
        /// Index into `partial.content`.
        content_index: usize,
        /// The whole text of the block.
        content: String,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// A thinking block opened.
    ThinkingStart {
        /// Index into `partial.content`.
        content_index: usize,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// Reasoning arrived.
    ThinkingDelta {
        /// Index into `partial.content`.
        content_index: usize,
        /// The new text.
        delta: String,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// A thinking block closed.
    ThinkingEnd {
        /// Index into `partial.content`.
        content_index: usize,
        /// The whole text of the block.
        content: String,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// A tool call opened (its id and name are in `partial`).
    ToolcallStart {
        /// Index into `partial.content`.
        content_index: usize,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// Raw argument text arrived.
    ToolcallDelta {
        /// Index into `partial.content`.
        content_index: usize,
        /// The new raw JSON text.
        delta: String,
        /// The message being streamed (arguments parsed as far as they go).
        #[serde(skip)]
        partial: PartialMessage,
    },
    /// A tool call is complete.
    ToolcallEnd {
        /// Index into `partial.content`.
        content_index: usize,
        /// The call with its parsed arguments (or `arguments_error`).
        tool_call: ToolCall,
        /// The message being streamed.
        #[serde(skip)]
        partial: PartialMessage,
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

    /// The shared message of a non-terminal event.
    pub fn partial(&self) -> Option<&PartialMessage> {
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
            | ToolcallEnd { partial, .. } => Some(partial),
            Done { .. } | Error { .. } => None,
        }
    }

    /// A copy of the message: the final one of a terminal event, else the
    /// message being streamed as it stands (a copy of all of it: not a thing
    /// to do for every delta).
    pub fn message(&self) -> AssistantMessage {
        match (self.final_message(), self.partial()) {
            (Some(m), _) => m.clone(),
            (None, Some(p)) => p.snapshot(),
            (None, None) => AssistantMessage::default(),
        }
    }

    /// The usage so far (of the final message for a terminal event).
    pub fn usage(&self) -> Usage {
        match (self.final_message(), self.partial()) {
            (Some(m), _) => (*m.usage).clone(),
            (None, Some(p)) => p.usage(),
            (None, None) => Usage::default(),
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
            partial: AssistantMessage::default().into(),
        };
        let v = serde_json::to_value(&e).unwrap();
        // Deltas only: the shared message is not written out.
        assert_eq!(v, serde_json::json!({"type": "toolcall_delta", "contentIndex": 1, "delta": "{"}));
        let e = AssistantMessageEvent::ToolcallEnd {
            content_index: 0,
            tool_call: ToolCall {
                id: "i".into(),
                name: "n".into(),
                arguments: serde_json::json!({}),
                arguments_error: None,
            },
            partial: AssistantMessage::default().into(),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "toolcall_end");
        assert!(v.get("partial").is_none());
        assert_eq!(v["toolCall"]["type"], "toolCall");
        let e = AssistantMessageEvent::Error { reason: StopReason::Aborted, error: AssistantMessage::default() };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "error");
        assert_eq!(v["reason"], "aborted");
        let back: AssistantMessageEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }
}
