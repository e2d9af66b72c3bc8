//! JSON mode: the session header, then one JSON object per agent event on
//! standard output. `message_update` events carry only the delta (the
//! `partial` message is left out), as the reference prints them.

use std::io::Write;
use std::sync::Arc;

use pi_agent::AgentEvent;
use serde_json::Value;

/// Print one JSON value as a line and flush.
pub fn print_line(v: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", serde_json::to_string(v).unwrap_or_default());
    let _ = out.flush();
}

/// An event as its JSON line value: `message_update` without the partial
/// message, a `toolcall_start` naming the call's `id` and `toolName` (taken
/// from the partial message), as the reference prints them.
pub fn event_value(ev: &AgentEvent) -> Value {
    let mut v = serde_json::to_value(ev).unwrap_or(Value::Null);
    if let Some(inner) = v.get_mut("assistantMessageEvent").and_then(Value::as_object_mut) {
        let partial = inner.remove("partial");
        if inner.get("type").and_then(Value::as_str) == Some("toolcall_start")
            && let Some(block) = partial.as_ref().and_then(|p| {
                let i = inner.get("contentIndex").and_then(Value::as_u64)? as usize;
                p.get("content")?.get(i).cloned()
            })
        {
            inner.insert("id".into(), block.get("id").cloned().unwrap_or(Value::Null));
            inner.insert("toolName".into(), block.get("name").cloned().unwrap_or(Value::Null));
        }
    }
    v
}

/// A sink printing every event.
pub fn sink() -> Arc<dyn Fn(&AgentEvent) + Send + Sync> {
    Arc::new(|ev: &AgentEvent| print_line(&event_value(ev)))
}
