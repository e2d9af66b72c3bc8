//! What a request sends when handlers change it: `context` (the
//! conversation without its system messages) and `context_with_system`,
//! the last look at a request's whole transcript (the system messages that
//! carry the prompt and tool declarations included) before it goes. What a
//! `context_with_system` handler answers is sent as it is: its system
//! messages give the prompt and the tools, the rest the conversation.

use crate::hook_event::HookEvent;
use serde_json::{Value, json};

use crate::dispatch::Dispatcher;
use crate::hooks::event;
use crate::messages::{AgentMessage, AgentOnly};

/// What one request sends when a handler changed it: the conversation,
/// and the prompt and tools when a `context_with_system` handler chose them.
#[derive(Debug, Default)]
pub(crate) struct RequestView {
    /// The messages (system messages among them are not sent as such).
    pub messages: Vec<AgentMessage>,
    /// The system prompt, when not the agent's.
    pub system_prompt: Option<String>,
    /// The tool declarations, when not the registry's.
    pub tools: Option<Vec<pi_ai::Tool>>,
}

const EVENT: &str = "context_with_system";

fn is_system(m: &AgentMessage) -> bool {
    matches!(m, AgentMessage::Agent(AgentOnly::System(_)))
}

/// A declared tool as a system message records it.
fn tool_of(v: &Value) -> Option<pi_ai::Tool> {
    Some(pi_ai::Tool {
        name: v.get("name")?.as_str()?.to_string(),
        description: v.get("description").and_then(Value::as_str).unwrap_or_default().to_string(),
        parameters: v.get("parameters").cloned().unwrap_or_else(|| json!({"type": "object", "properties": {}})),
        constrained_sampling: v.get("constrainedSampling").and_then(pi_ai::ConstrainedSampling::from_json),
    })
}

/// The `context` handlers' conversation for the next request: `None`
/// when nobody listens or nothing changed (the held conversation goes
/// as it is); a replacement that does not read as messages is reported
/// and ignored.
pub(crate) async fn context_override(dispatcher: &Dispatcher, messages: &[AgentMessage]) -> Option<RequestView> {
    if !dispatcher.listening("context") {
        return None;
    }
    let asked = HookEvent::Context { messages: messages.iter().filter(|m| !is_system(m)).collect() };
    let changed = dispatcher.observe(asked.kind(), asked.to_value(), Some("messages"));
    let (changed, source) = changed.await?;
    let Value::Array(items) = changed else { return None };
    // The prompt and tools stay: the latest system messages go first; a
    // message pi cannot read is left out (and reported).
    let mut out: Vec<AgentMessage> = messages.iter().filter(|m| is_system(m)).cloned().collect();
    for item in items {
        match serde_json::from_value::<AgentMessage>(item) {
            Ok(m) => out.push(m),
            Err(e) => dispatcher.report(&source, "context", crate::text::bad_context_message(&e.to_string())),
        }
    }
    Some(RequestView { messages: out, ..Default::default() })
}

/// The request after the `context_with_system` handlers: `view` (the
/// `context` handlers' change, if any) as it was when nobody listens or
/// nothing changed.
pub(crate) async fn context_with_system(
    dispatcher: &Dispatcher,
    messages: &[AgentMessage],
    view: Option<RequestView>,
) -> Option<RequestView> {
    if !dispatcher.listening(EVENT) {
        return view;
    }
    // With a changed conversation, one system message with the whole
    // current state leads it; else the transcript as held.
    let transcript: Vec<Value> = match &view {
        Some(v) => crate::system_message::checkpoint(messages)
            .map(|c| AgentMessage::Agent(AgentOnly::System(c)))
            .iter()
            .chain(v.messages.iter().filter(|m| !is_system(m)))
            .filter_map(|m| serde_json::to_value(m).ok())
            .collect(),
        None => messages.iter().filter_map(|m| serde_json::to_value(m).ok()).collect(),
    };
    let changed = dispatcher.observe(EVENT, event(EVENT, json!({"messages": transcript})), Some("messages"));
    let Some((changed, source)) = changed.await else { return view };
    let Value::Array(items) = changed else {
        let kind = match changed {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            _ => "object",
        };
        dispatcher.report(&source, EVENT, crate::text::bad_context_with_system(kind));
        return view;
    };
    let mut sent = Vec::with_capacity(items.len());
    for item in items {
        match serde_json::from_value::<AgentMessage>(item) {
            Ok(m) => sent.push(m),
            Err(e) => dispatcher.report(&source, EVENT, crate::text::bad_context_message(&e.to_string())),
        }
    }
    if !sent.first().is_some_and(is_system) {
        dispatcher.report(&source, EVENT, crate::text::CONTEXT_SYSTEM_DROPPED.to_string());
    }
    let (prompt, tools) = crate::system_message::request_state(&sent).unwrap_or_default();
    let tools = tools.iter().filter_map(tool_of).collect();
    Some(RequestView { messages: sent, system_prompt: Some(prompt), tools: Some(tools) })
}
