//! Mistral's stream (`mistral-conversations`) for the mock server. Mistral
//! posts to `{baseUrl}/v1/chat/completions`, the path Chat Completions
//! uses, so its requests are told apart by a base URL under
//! [`BASE_PATH`] (what [`MockServer::write_models_json`](crate::MockServer::write_models_json)
//! writes for this API).

use serde_json::{Value, json};

use crate::{Turn, USAGE_INPUT, USAGE_OUTPUT, data};

/// The path under the server's root that Mistral models are given as their
/// base URL: requests below it get Mistral's stream.
pub const BASE_PATH: &str = "/mistral";

/// Whether a request path (without its query) is a Mistral request.
pub(crate) fn is_mistral(route: &str) -> bool {
    route.starts_with(BASE_PATH) && route.ends_with("/chat/completions")
}

/// The tool-call id of call `k` of turn `index`: nine letters and digits, as
/// Mistral's are.
pub fn call_id(index: usize, k: usize) -> String {
    format!("m{:04}{:04}", index % 10_000, k % 10_000)
}

/// The events of one turn: thinking chunks, text, tool calls (their
/// arguments in pieces keyed by `index`), a finish chunk with usage, `[DONE]`.
pub(crate) fn events(turn: &Turn, index: usize) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": format!("cmpl-{index}"), "object": "chat.completion.chunk", "created": 0,
            "model": "mock-1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut out = Vec::new();
    if let Some(t) = &turn.thinking {
        for p in turn.pieces(t) {
            let content = json!([{"type": "thinking", "thinking": [{"type": "text", "text": p}]}]);
            out.push(data(&chunk(json!({"role": "assistant", "content": content}), Value::Null)));
        }
    }
    if let Some(t) = &turn.text {
        for p in turn.pieces(t) {
            out.push(data(&chunk(json!({"role": "assistant", "content": p}), Value::Null)));
        }
    }
    for (k, c) in turn.tool_calls.iter().enumerate() {
        let id = c.id.clone().unwrap_or_else(|| call_id(index, k));
        let mut parts = turn.pieces(&c.args.text()).into_iter();
        let first = parts.next().unwrap_or_default();
        let call = json!({"id": id, "type": "function", "function": {"name": c.name, "arguments": first}, "index": k});
        out.push(data(&chunk(json!({"tool_calls": [call]}), Value::Null)));
        for p in parts {
            let more = json!({"id": "null", "function": {"name": "", "arguments": p}, "index": k});
            out.push(data(&chunk(json!({"tool_calls": [more]}), Value::Null)));
        }
    }
    let finish = if turn.tool_calls.is_empty() { "stop" } else { "tool_calls" };
    let mut last = chunk(json!({"content": ""}), json!(finish));
    last["usage"] = json!({"prompt_tokens": USAGE_INPUT, "completion_tokens": USAGE_OUTPUT,
        "total_tokens": USAGE_INPUT + USAGE_OUTPUT});
    out.push(data(&last));
    out.push("data: [DONE]\n\n".to_string());
    out
}
