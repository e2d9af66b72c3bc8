//! JSON mode: the session header, then one JSON object per agent event on
//! standard output. `message_update` events carry only the delta (the
//! `partial` message is left out), as the reference prints them.

use std::io::Write;
use std::sync::Arc;

use pi_agent::AgentEvent;
use pi_ai::{AssistantMessageEvent, ContentBlock};
use serde_json::Value;

/// Print one JSON value as a line and flush.
pub fn print_line(v: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", serde_json::to_string(v).unwrap_or_default());
    let _ = out.flush();
}

/// Print one line of JSON text already written (output too deep to hold as
/// a [`Value`]: a long session's tree).
pub fn print_raw_line(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// An event as its JSON line value: `message_update` without the partial
/// message, a `toolcall_start` naming the call's `id` and `toolName` (taken
/// from the partial message), as the reference prints them.
pub fn event_value(ev: &AgentEvent) -> Value {
    let mut v = serde_json::to_value(ev).unwrap_or(Value::Null);
    // `partial` is not serialized; the call's identity is read from it here.
    if let AgentEvent::MessageUpdate {
        assistant_message_event: AssistantMessageEvent::ToolcallStart { content_index, partial },
        ..
    } = ev
        && let Some((id, name)) = partial.read(|m| match m.content.get(*content_index) {
            Some(ContentBlock::ToolCall { id, name, .. }) => Some((id.clone(), name.clone())),
            _ => None,
        })
        && let Some(inner) = v.get_mut("assistantMessageEvent").and_then(Value::as_object_mut)
    {
        inner.insert("id".into(), Value::String(id));
        inner.insert("toolName".into(), Value::String(name));
    }
    v
}

/// A sink printing every event.
pub fn sink() -> Arc<dyn Fn(&AgentEvent) + Send + Sync> {
    Arc::new(|ev: &AgentEvent| print_line(&event_value(ev)))
}
