//! The session events the runtime tells the extensions, one definition each
//! with the reference's names and fields (`type` in snake case, fields in
//! camel case, in the reference's order; absent fields left out as the
//! reference leaves them out). The agent loop's own events (`agent_start`,
//! `turn_end`, `tool_call` …) are the agent's.

use serde::Serialize;
use serde_json::Value;

/// An event of the session's life, as an extension's handler receives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum SessionEvent {
    /// The thinking level changed.
    ThinkingLevelSelect {
        /// The level now.
        level: String,
        /// The level before.
        previous_level: String,
    },
    /// Another model was chosen (choosing the model in use is not told).
    ModelSelect {
        /// The model now, as extensions see models.
        model: Value,
        /// The model before.
        previous_model: Value,
        /// `set` or `cycle`.
        source: &'static str,
    },
    /// The session was named.
    SessionInfoChanged {
        /// The name.
        name: String,
    },
    /// A compaction an extension asked for failed.
    SessionCompactFailed {
        /// Why it ran (`manual`).
        reason: &'static str,
        /// Why it failed.
        error_message: String,
        /// It was aborted.
        aborted: bool,
        /// It will be tried again.
        will_retry: bool,
        /// An extension's handler made the compaction.
        from_extension: bool,
    },
    /// The session is about to be replaced by a new one or another file
    /// (a handler may cancel).
    SessionBeforeSwitch {
        /// `new` or `resume`.
        reason: &'static str,
        /// The file resumed.
        #[serde(skip_serializing_if = "Option::is_none")]
        target_session_file: Option<String>,
    },
    /// The session is about to be copied (a handler may cancel).
    SessionBeforeFork {
        /// The entry the copy stops before, or the leaf a clone copies through.
        entry_id: Option<String>,
        /// `before` (a fork) or `at` (a clone).
        position: &'static str,
    },
    /// The conversation is about to move in the session tree (a handler may
    /// cancel, or change the move and supply a summary).
    SessionBeforeTree {
        /// What the move would do.
        preparation: Value,
    },
    /// The conversation moved in the session tree.
    SessionTree {
        /// Where the leaf is now.
        new_leaf_id: Option<String>,
        /// Where it was.
        old_leaf_id: Value,
        /// The branch summary made, when one was.
        #[serde(skip_serializing_if = "Option::is_none")]
        summary_entry: Option<Value>,
        /// Whether an extension supplied that summary.
        #[serde(skip_serializing_if = "Option::is_none")]
        from_extension: Option<bool>,
    },
    /// Files are about to be brought back from a checkpoint (a handler may cancel).
    SessionBeforeRestore {
        /// `undo` or `rewind`.
        reason: &'static str,
        /// The checkpoint.
        checkpoint: String,
        /// The files it would write or remove.
        files: Value,
    },
    /// The extensions are about to be replaced (a `/reload` or a session
    /// replacement).
    SessionShutdown {
        /// `reload`, `new`, `resume` or `fork`.
        reason: &'static str,
        /// The session file that comes next, when there is one.
        #[serde(skip_serializing_if = "Option::is_none")]
        target_session_file: Option<String>,
    },
    /// Fresh extensions start (after a `/reload` or a session replacement).
    SessionStart {
        /// `reload`, `new`, `resume` or `fork`.
        reason: &'static str,
        /// The session file before, when there was one.
        #[serde(skip_serializing_if = "Option::is_none")]
        previous_session_file: Option<String>,
    },
    /// Files were brought back from a checkpoint.
    SessionRestore {
        /// What the restore did (the RPC answer's fields).
        #[serde(flatten)]
        restored: Value,
        /// `undo` or `rewind`.
        reason: &'static str,
    },
}

impl SessionEvent {
    /// The event's name (its `type`).
    pub fn kind(&self) -> &'static str {
        match self {
            SessionEvent::ThinkingLevelSelect { .. } => "thinking_level_select",
            SessionEvent::ModelSelect { .. } => "model_select",
            SessionEvent::SessionInfoChanged { .. } => "session_info_changed",
            SessionEvent::SessionCompactFailed { .. } => "session_compact_failed",
            SessionEvent::SessionBeforeSwitch { .. } => "session_before_switch",
            SessionEvent::SessionBeforeFork { .. } => "session_before_fork",
            SessionEvent::SessionBeforeTree { .. } => "session_before_tree",
            SessionEvent::SessionTree { .. } => "session_tree",
            SessionEvent::SessionBeforeRestore { .. } => "session_before_restore",
            SessionEvent::SessionRestore { .. } => "session_restore",
            SessionEvent::SessionShutdown { .. } => "session_shutdown",
            SessionEvent::SessionStart { .. } => "session_start",
        }
    }

    /// The event as handlers receive it (`type` first).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all() -> Vec<SessionEvent> {
        vec![
            SessionEvent::ThinkingLevelSelect { level: "high".into(), previous_level: "off".into() },
            SessionEvent::ModelSelect { model: json!({"id": "b"}), previous_model: json!({"id": "a"}), source: "set" },
            SessionEvent::SessionInfoChanged { name: "demo".into() },
            SessionEvent::SessionCompactFailed {
                reason: "manual",
                error_message: "no".into(),
                aborted: false,
                will_retry: false,
                from_extension: false,
            },
            SessionEvent::SessionBeforeSwitch { reason: "new", target_session_file: None },
            SessionEvent::SessionBeforeFork { entry_id: None, position: "at" },
            SessionEvent::SessionBeforeTree { preparation: json!({}) },
            SessionEvent::SessionTree {
                new_leaf_id: None,
                old_leaf_id: Value::Null,
                summary_entry: None,
                from_extension: None,
            },
            SessionEvent::SessionBeforeRestore { reason: "undo", checkpoint: "c".into(), files: json!([]) },
            SessionEvent::SessionRestore { restored: json!({"checkpoint": "c"}), reason: "undo" },
            SessionEvent::SessionShutdown { reason: "reload", target_session_file: None },
            SessionEvent::SessionStart { reason: "fork", previous_session_file: Some("/a.jsonl".into()) },
        ]
    }

    #[test]
    fn each_event_is_named_as_its_type() {
        for e in all() {
            assert_eq!(e.to_value()["type"], e.kind(), "{e:?}");
        }
    }

    #[test]
    fn fields_are_the_references_in_its_order() {
        let text = |e: SessionEvent| e.to_value().to_string();
        assert_eq!(
            text(SessionEvent::ThinkingLevelSelect { level: "high".into(), previous_level: "off".into() }),
            r#"{"type":"thinking_level_select","level":"high","previousLevel":"off"}"#
        );
        assert_eq!(
            text(SessionEvent::SessionCompactFailed {
                reason: "manual",
                error_message: "Nothing to compact".into(),
                aborted: false,
                will_retry: false,
                from_extension: false
            }),
            r#"{"type":"session_compact_failed","reason":"manual","errorMessage":"Nothing to compact","aborted":false,"willRetry":false,"fromExtension":false}"#
        );
        assert_eq!(
            text(SessionEvent::SessionBeforeSwitch { reason: "resume", target_session_file: Some("/s.jsonl".into()) }),
            r#"{"type":"session_before_switch","reason":"resume","targetSessionFile":"/s.jsonl"}"#
        );
        assert_eq!(
            text(SessionEvent::SessionBeforeSwitch { reason: "new", target_session_file: None }),
            r#"{"type":"session_before_switch","reason":"new"}"#
        );
        assert_eq!(
            text(SessionEvent::SessionShutdown { reason: "resume", target_session_file: Some("/b.jsonl".into()) }),
            r#"{"type":"session_shutdown","reason":"resume","targetSessionFile":"/b.jsonl"}"#
        );
        assert_eq!(
            text(SessionEvent::SessionStart { reason: "reload", previous_session_file: None }),
            r#"{"type":"session_start","reason":"reload"}"#
        );
        assert_eq!(
            text(SessionEvent::SessionBeforeFork { entry_id: None, position: "at" }),
            r#"{"type":"session_before_fork","entryId":null,"position":"at"}"#
        );
        assert_eq!(
            text(SessionEvent::SessionTree {
                new_leaf_id: Some("b".into()),
                old_leaf_id: json!("a"),
                summary_entry: None,
                from_extension: None
            }),
            r#"{"type":"session_tree","newLeafId":"b","oldLeafId":"a"}"#
        );
        assert_eq!(
            text(SessionEvent::SessionRestore {
                restored: json!({"checkpoint": "c", "restored": ["f"]}),
                reason: "rewind"
            }),
            r#"{"type":"session_restore","checkpoint":"c","restored":["f"],"reason":"rewind"}"#
        );
    }
}
