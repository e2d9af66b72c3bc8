//! What RPC reports about the session: the model object (exactly the
//! documented keys), `get_state`, `get_session_stats`, the last answer.

use pi_agent::AgentMessage;
use pi_agent::session::Entry;
use pi_ai::Message;
use serde_json::{Value, json};

use pi_runtime::model_json::num;

/// The text of the last assistant answer that has text.
pub(crate) fn last_assistant_text(messages: &[AgentMessage]) -> Option<String> {
    messages.iter().rev().find_map(|m| match m.as_llm()? {
        Message::Assistant(a) => {
            let t = crate::print_mode::texts(a);
            (!t.is_empty()).then(|| t.join(""))
        }
        _ => None,
    })
}

/// `get_session_stats`: counts over the session's messages, tokens and cost over
/// every assistant message and tool usage of the session, the context use.
pub(crate) fn stats(messages: &[AgentMessage], entries: &[Entry], session: (&str, Option<&str>), window: u64) -> Value {
    // Counted over every message the session recorded (compacted ones too), as the reference does.
    let (mut users, mut assistants, mut calls, mut results, mut total) = (0, 0, 0, 0, 0);
    let (mut input, mut output, mut cache_read, mut cache_write, mut cost) = (0u64, 0u64, 0u64, 0u64, 0f64);
    // Only the entries that count are read, one at a time.
    for e in entries.iter().filter(|e| matches!(e.kind(), "message" | "compaction" | "branch_summary" | "usage")) {
        let e = e.value();
        let usage = if e["type"] == "message" {
            let m = &e["message"];
            total += 1;
            match m["role"].as_str() {
                Some("user") => users += 1,
                Some("assistant") => {
                    assistants += 1;
                    let blocks = m["content"].as_array().map(Vec::as_slice).unwrap_or_default();
                    calls += blocks.iter().filter(|b| b["type"] == "toolCall").count();
                }
                Some("toolResult") => results += 1,
                _ => {}
            }
            if !matches!(m["role"].as_str(), Some("assistant" | "toolResult")) {
                continue;
            }
            &m["usage"]
        } else {
            &e["usage"]
        };
        let n = |k: &str| usage[k].as_u64().unwrap_or(0);
        input += n("input");
        output += n("output");
        cache_read += n("cacheRead");
        cache_write += n("cacheWrite");
        cost += usage["cost"]["total"].as_f64().unwrap_or(0.0);
    }
    let mut data = json!({});
    if let Some(f) = session.1 {
        data["sessionFile"] = json!(f);
    }
    data["sessionId"] = json!(session.0);
    data["userMessages"] = json!(users);
    data["assistantMessages"] = json!(assistants);
    data["toolCalls"] = json!(calls);
    data["toolResults"] = json!(results);
    data["totalMessages"] = json!(total);
    data["tokens"] = json!({"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
        "total": input + output + cache_read + cache_write});
    data["cost"] = num(cost);
    if window > 0 {
        let tokens = context_tokens(messages);
        data["contextUsage"] = match tokens {
            Some(t) => json!({"tokens": t, "contextWindow": window, "percent": t as f64 / window as f64 * 100.0}),
            None => json!({"tokens": Value::Null, "contextWindow": window, "percent": Value::Null}),
        };
    }
    data
}

/// The context's size as the last answer reported it (`None` right after a
/// compaction, until an answer reports again).
pub(crate) fn context_tokens(messages: &[AgentMessage]) -> Option<u64> {
    for m in messages.iter().rev() {
        match m {
            AgentMessage::Llm(Message::Assistant(a)) if a.usage.total_tokens > 0 => return Some(a.usage.total_tokens),
            AgentMessage::Agent(pi_agent::AgentOnly::CompactionSummary(_)) => return None,
            _ => {}
        }
    }
    Some(0)
}
