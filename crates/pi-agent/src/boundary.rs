//! The actionable turn boundaries, `turn_end` and `agent_before_settle`:
//! handlers see the proposal so far (`entries`, `continue`) and may replace
//! either. After every handler ran, the proposed entries (`custom`,
//! `custom_message`, `context_edit`, `compaction`) are checked as a whole
//! and appended in order, and `continue: true` asks for one more model
//! request when nothing else makes one, as the reference does.

use serde_json::{Value, json};

use crate::agent::Agent;
use crate::events::AgentEvent;
use crate::hooks::Proposal;
use crate::messages::{AgentMessage, AgentOnly, CustomMessage};

/// Why a draft entry cannot be appended, if it cannot.
fn invalid(entry: &Value) -> Option<String> {
    let text = |k: &str| entry.get(k).is_some_and(Value::is_string);
    match entry.get("type").and_then(Value::as_str) {
        Some("custom") if !text("customType") => Some("a custom entry needs a customType".into()),
        Some("custom") => None,
        Some("custom_message") if !text("customType") => Some("a custom_message needs a customType".into()),
        Some("custom_message") if !matches!(entry.get("content"), Some(Value::String(_) | Value::Array(_))) => {
            Some("a custom_message needs content (a string or blocks)".into())
        }
        Some("custom_message") => None,
        Some("context_edit") if !text("targetId") => Some("a context_edit needs a targetId".into()),
        Some("context_edit") => None,
        Some("compaction") if !text("summary") || !text("firstKeptEntryId") => {
            Some("a compaction needs a summary and a firstKeptEntryId".into())
        }
        Some("compaction") => None,
        Some(other) => Some(format!("type \"{other}\" is not one of custom, custom_message, context_edit, compaction")),
        None => Some("it has no type".into()),
    }
}

impl Agent {
    /// Run the handlers of boundary `kind` (`payload`: the event, with
    /// `entries: []` and `continue: false`), each source seeing the
    /// proposal so far.
    pub(crate) async fn propose(&self, kind: &str, mut payload: Value) -> Proposal {
        for h in self.dispatcher.interceptors.iter().filter(|h| h.listens(kind)) {
            let out = h.observe(kind, payload.clone()).await;
            for error in out.errors {
                self.dispatcher.report(h.source(), kind, error);
            }
            if let Some(v) = out.value {
                payload["entries"] = v.get("entries").cloned().unwrap_or_else(|| json!([]));
                payload["continue"] = v.get("continue").cloned().unwrap_or(Value::Bool(false));
            }
        }
        let entries = match payload.get_mut("entries").map(Value::take) {
            Some(Value::Array(a)) => a,
            _ => Vec::new(),
        };
        Proposal { entries, cont: payload["continue"] == Value::Bool(true) }
    }

    /// Append what `kind`'s handlers proposed; whether the conversation can
    /// go on with one more request when it asked to (reported when not).
    pub(crate) fn settle_proposal(&mut self, kind: &str, proposal: Proposal) -> bool {
        if let Some((i, why)) = proposal.entries.iter().enumerate().find_map(|(i, e)| invalid(e).map(|w| (i, w))) {
            self.boundary_error(kind, crate::text::boundary_bad_entry(kind, i, &why));
        } else if !proposal.entries.is_empty() {
            self.append_drafts(proposal.entries);
        }
        if !proposal.cont {
            return false;
        }
        let runnable = self
            .messages
            .iter()
            .rev()
            .find(|m| !matches!(m, AgentMessage::Agent(AgentOnly::System(_))))
            .is_some_and(|m| !matches!(m, AgentMessage::Llm(pi_ai::Message::Assistant(_))));
        if !runnable {
            self.boundary_error(kind, crate::text::boundary_cannot_continue(kind));
        }
        runnable
    }

    fn boundary_error(&self, kind: &str, error: String) {
        self.emit(AgentEvent::ExtensionError {
            extension_path: crate::text::BOUNDARY_SOURCE.to_string(),
            event: kind.to_string(),
            error,
        });
    }

    /// Append checked drafts in order; the conversation is taken from the
    /// session again when one changed what the model sees.
    fn append_drafts(&mut self, entries: Vec<Value>) {
        let mut rebuild = false;
        for mut entry in entries {
            let kind = entry["type"].as_str().unwrap_or_default().to_string();
            if kind == "custom_message" {
                let message = CustomMessage {
                    custom_type: entry["customType"].as_str().unwrap_or_default().to_string(),
                    content: entry["content"].take(),
                    display: entry["display"].as_bool().unwrap_or(false),
                    details: entry.get("details").cloned().filter(|d| !d.is_null()).map(Box::new),
                    timestamp: pi_ai::now_ms(),
                };
                let message = AgentMessage::Agent(AgentOnly::Custom(message));
                let value = serde_json::to_value(&message).unwrap_or_default();
                self.emit(AgentEvent::AgentMessageStart { message: value.clone() });
                self.emit(AgentEvent::AgentMessageEnd { message: value });
                self.add(message);
                continue;
            }
            rebuild |= kind != "custom";
            if let Some(fields) = entry.as_object_mut() {
                fields.remove("type");
            }
            let saved = match self.session.lock() {
                Ok(mut s) => match s.append(&kind, entry) {
                    Ok(id) => s.get(&id).map(crate::session::Entry::value),
                    Err(e) => {
                        if let Some(f) = &self.on_session_error {
                            f(&e);
                        }
                        None
                    }
                },
                Err(_) => None,
            };
            if let Some(entry) = saved {
                self.emit(AgentEvent::EntryAppended { entry });
            }
        }
        if rebuild && let Ok(mut s) = self.session.lock() {
            self.messages = s.take_context().messages;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::invalid;

    #[test]
    fn drafts_are_checked_by_type() {
        assert_eq!(invalid(&json!({"type": "custom", "customType": "a", "data": 1})), None);
        assert_eq!(invalid(&json!({"type": "custom_message", "customType": "a", "content": "x"})), None);
        assert_eq!(
            invalid(&json!({"type": "custom_message", "customType": "a", "content": [{"type": "text", "text": "x"}]})),
            None
        );
        assert_eq!(invalid(&json!({"type": "context_edit", "targetId": "e1", "replacement": null})), None);
        assert_eq!(
            invalid(&json!({"type": "compaction", "summary": "s", "firstKeptEntryId": "e1", "tokensBefore": 5})),
            None
        );
        assert!(invalid(&json!({"type": "custom"})).is_some());
        assert!(invalid(&json!({"type": "custom_message", "customType": "a", "content": 5})).is_some());
        assert!(invalid(&json!({"type": "context_edit"})).is_some());
        assert!(invalid(&json!({"type": "compaction", "summary": "s"})).is_some());
        assert!(invalid(&json!({"type": "message"})).unwrap().contains("\"message\""));
        assert!(invalid(&json!({})).is_some());
        assert!(invalid(&json!("text")).is_some());
    }
}
