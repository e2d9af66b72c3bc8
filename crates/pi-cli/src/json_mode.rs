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
            Some(ContentBlock::ToolCall(call)) => Some((call.id.clone(), call.name.clone())),
            _ => None,
        })
        && let Some(inner) = v.get_mut("assistantMessageEvent").and_then(Value::as_object_mut)
    {
        inner.insert("id".into(), Value::String(id));
        inner.insert("toolName".into(), Value::String(name.to_string()));
    }
    v
}

/// An event's JSON line, as [`event_value`] prints it. Written straight from
/// the event where nothing is added to it: a run's `agent_end` carries the
/// whole conversation, which as a [`Value`] tree would take several times
/// the line's size.
pub fn event_line(ev: &AgentEvent) -> String {
    if adds_call_identity(ev) {
        return serde_json::to_string(&event_value(ev)).unwrap_or_default();
    }
    serde_json::to_string(ev).unwrap_or_default()
}

/// Whether an event's line has fields its value alone does not give.
fn adds_call_identity(ev: &AgentEvent) -> bool {
    matches!(ev, AgentEvent::MessageUpdate { assistant_message_event: AssistantMessageEvent::ToolcallStart { .. }, .. })
}

/// Print one event as its JSON line: written to stdout as it is
/// serialised, through a buffer, so a run's `agent_end` (the whole
/// conversation) is never held as one string.
pub fn print_event(ev: &AgentEvent) {
    if adds_call_identity(ev) {
        return print_raw_line(&event_line(ev));
    }
    let mut out = std::io::BufWriter::with_capacity(crate::text::EVENT_WRITE_BUFFER, std::io::stdout().lock());
    let _ = serde_json::to_writer(&mut out, ev);
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// A sink printing every event.
pub fn sink() -> Arc<dyn Fn(&AgentEvent) + Send + Sync> {
    Arc::new(print_event)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_agent::AgentMessage;

    /// The line written straight from an event is the line its value gives.
    #[test]
    fn event_lines_are_the_lines_of_their_values() {
        let user: AgentMessage = pi_ai::Message::User(pi_ai::UserMessage::text("hé \u{2028} \"q\"")).into();
        let mut answer = pi_ai::faux::assistant_message(vec![
            ContentBlock::text("ok"),
            ContentBlock::tool_call("c1", "ls", serde_json::json!({"path": ".", "n": 1.5, "z": null})),
        ]);
        answer.usage.total_tokens = 12;
        let answer: AgentMessage = pi_ai::Message::Assistant(answer).into();
        let events = [
            AgentEvent::AgentStart,
            AgentEvent::TurnStart,
            AgentEvent::AgentEnd { messages: vec![user, answer], will_retry: false },
            AgentEvent::QueueUpdate { steering: vec!["a".into()], follow_up: vec![] },
            AgentEvent::ThinkingLevelChanged { level: "high".into() },
        ];
        for ev in &events {
            assert_eq!(event_line(ev), serde_json::to_string(&event_value(ev)).unwrap(), "{ev:?}");
        }
    }
}
