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

/// An event as its JSON line value.
pub fn event_value(ev: &AgentEvent) -> Value {
    let mut v = serde_json::to_value(ev).unwrap_or(Value::Null);
    if let Some(inner) = v.get_mut("assistantMessageEvent").and_then(Value::as_object_mut) {
        inner.remove("partial");
    }
    v
}

/// A sink printing every event.
pub fn sink() -> Arc<dyn Fn(&AgentEvent) + Send + Sync> {
    Arc::new(|ev: &AgentEvent| print_line(&event_value(ev)))
}
