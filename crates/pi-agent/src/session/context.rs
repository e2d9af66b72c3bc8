//! The model's context from the active branch, as the reference builds it:
//! the latest compaction on the branch stands for everything before its
//! first kept entry (its system checkpoint, then its summary), the latest
//! `context_edit` of an entry omits or replaces it, and the model and
//! thinking level are the latest ones chosen on the branch.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::Session;
use crate::messages::{AgentMessage, AgentOnly, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage};

/// What the active branch says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionContext {
    /// The context messages, system messages included (they do not go to
    /// the model as messages).
    pub messages: Vec<AgentMessage>,
    /// The entry each message came from.
    pub entry_ids: Vec<String>,
    /// The latest `model_change` on the branch: (provider, model id).
    pub model: Option<(String, String)>,
    /// The latest `thinking_level_change` on the branch.
    pub thinking_level: Option<String>,
}

/// Milliseconds of an ISO entry timestamp (0 when it does not parse).
fn millis(iso: &Value) -> i64 {
    iso.as_str()
        .and_then(|s| humantime::parse_rfc3339_weak(s.trim_end_matches('Z')).ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The context message an entry stands for, if any.
fn message_of(e: &Value) -> Option<AgentMessage> {
    match e["type"].as_str()? {
        // (`compaction_summary` is the compaction's own message, made above.)
        "message" | "compaction_summary" => AgentMessage::deserialize(&e["message"]).ok(),
        "custom_message" => Some(AgentMessage::Agent(AgentOnly::Custom(CustomMessage {
            custom_type: e["customType"].as_str().unwrap_or_default().to_string(),
            content: e["content"].clone(),
            display: e["display"].as_bool().unwrap_or(false),
            details: e.get("details").cloned(),
            timestamp: millis(&e["timestamp"]),
        }))),
        "branch_summary" => Some(AgentMessage::Agent(AgentOnly::BranchSummary(BranchSummaryMessage {
            summary: e["summary"].as_str().unwrap_or_default().to_string(),
            from_id: e["fromId"].as_str().map(String::from),
            timestamp: millis(&e["timestamp"]),
        }))),
        _ => None,
    }
}

fn is_system(e: &Value) -> bool {
    e["type"] == "message" && e["message"]["role"] == "system"
}

/// Replace a message's content (a string becomes one text block where the
/// role needs blocks).
fn replaced(mut m: Value, replacement: &Value) -> Value {
    let blocks = matches!(m["role"].as_str(), Some("assistant" | "toolResult"));
    m["content"] = match replacement {
        Value::String(s) if blocks => serde_json::json!([{"type": "text", "text": s}]),
        other => other.clone(),
    };
    m
}

impl Session {
    /// The context of the active branch.
    pub fn context(&self) -> SessionContext {
        let path = self.branch();
        let mut out = SessionContext::default();
        for e in &path {
            match e["type"].as_str() {
                Some("model_change") => {
                    if let (Some(p), Some(m)) = (e["provider"].as_str(), e["modelId"].as_str()) {
                        out.model = Some((p.to_string(), m.to_string()));
                    }
                }
                Some("thinking_level_change") => out.thinking_level = e["thinkingLevel"].as_str().map(String::from),
                _ => {}
            }
        }
        let mut edits: HashMap<&str, &Value> = HashMap::new();
        for e in path.iter().filter(|e| e["type"] == "context_edit") {
            if let Some(t) = e["targetId"].as_str() {
                edits.insert(t, &e["replacement"]);
            }
        }
        let mut push = |e: &Value| {
            let id = e["id"].as_str().unwrap_or_default();
            let edited;
            let source = match edits.get(id) {
                Some(Value::Null) => return,
                Some(r) if e["type"] == "message" => {
                    let mut copy = e.clone();
                    copy["message"] = replaced(e["message"].clone(), r);
                    edited = copy;
                    &edited
                }
                Some(r) => {
                    let mut copy = e.clone();
                    copy["content"] = (*r).clone();
                    edited = copy;
                    &edited
                }
                None => e,
            };
            if let Some(m) = message_of(source) {
                out.messages.push(m);
                out.entry_ids.push(id.to_string());
            }
        };
        match path.iter().rposition(|e| e["type"] == "compaction") {
            None => path.iter().for_each(|e| push(e)),
            Some(at) => {
                let c = path[at];
                if let Some(sys) = c.get("systemMessage").filter(|s| s.is_object()) {
                    push(&serde_json::json!({"type": "message", "id": c["id"], "message": sys}));
                }
                let summary =
                    serde_json::to_value(AgentMessage::Agent(AgentOnly::CompactionSummary(CompactionSummaryMessage {
                        summary: c["summary"].as_str().unwrap_or_default().to_string(),
                        tokens_before: c["tokensBefore"].as_u64().unwrap_or(0),
                        timestamp: millis(&c["timestamp"]),
                    })))
                    .unwrap_or_default();
                push(&serde_json::json!({"type": "compaction_summary", "id": c["id"], "message": summary}));
                let first_kept = c["firstKeptEntryId"].as_str().unwrap_or_default();
                let kept_from = path[..at].iter().position(|e| e["id"] == first_kept);
                if let Some(from) = kept_from {
                    path[from..at].iter().filter(|e| !is_system(e)).for_each(|e| push(e));
                }
                path[at + 1..].iter().for_each(|e| push(e));
            }
        }
        out
    }
}
