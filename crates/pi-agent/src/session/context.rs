//! The model's context from the active branch, as the reference builds it:
//! the latest compaction on the branch stands for everything before its
//! first kept entry (its system checkpoint, then its summary), the latest
//! `context_edit` of an entry omits or replaces it, and the model and
//! thinking level are the latest ones chosen on the branch.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use compact_str::CompactString as ShortText;

use super::message_line::message_in_line;
use super::stored::LineReader;
use super::{Entry, Session};
use crate::messages::{AgentMessage, AgentOnly, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage};

/// What the active branch says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionContext {
    /// The context messages, system messages included (they do not go to
    /// the model as messages).
    pub messages: Vec<AgentMessage>,
    /// The entry each message came from.
    pub entry_ids: Vec<ShortText>,
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

/// The context message an entry (as a value) stands for, if any.
pub(crate) fn message_of_value(e: &Value) -> Option<AgentMessage> {
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

/// The context message an entry stands for, if any (messages are read from
/// their line without an intermediate value).
pub(crate) fn message_of(e: &Entry) -> Option<AgentMessage> {
    message_in(e, &e.line())
}

/// [`message_of`] for an entry whose line is `line`.
fn message_in(e: &Entry, line: &str) -> Option<AgentMessage> {
    match e.kind() {
        "message" => message_in_line(line),
        "custom_message" | "branch_summary" => message_of_value(&serde_json::from_str(line).unwrap_or(Value::Null)),
        _ => None,
    }
}

fn is_system(m: &AgentMessage) -> bool {
    matches!(m, AgentMessage::Agent(AgentOnly::System(_)))
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

/// The messages being gathered, and the edits that apply to them.
struct Gather {
    out: SessionContext,
    edits: HashMap<String, Value>,
}

/// The message of `e` as the context holds it (as edited), unless it is a
/// system message and `no_system` is set; lines left in the file are read
/// through `lines`.
fn message_for(
    e: &Entry,
    no_system: bool,
    edits: &HashMap<String, Value>,
    lines: &mut LineReader,
) -> Option<AgentMessage> {
    let message = match edits.get(e.id()) {
        Some(Value::Null) => return None,
        Some(r) => {
            let mut v = e.value();
            if e.kind() == "message" {
                v["message"] = replaced(v["message"].take(), r);
            } else {
                v["content"] = r.clone();
            }
            message_of_value(&v)
        }
        None => message_in(e, &e.line_with(lines)),
    };
    message.filter(|m| !(no_system && is_system(m)))
}

/// A message and the slot it is read into take the same room, so the slots
/// become the list of messages without a second allocation.
const _: () = assert!(size_of::<Option<AgentMessage>>() == size_of::<AgentMessage>());

impl Gather {
    /// The messages of `entries` (each with whether system messages are
    /// left out), read side by side when there are many, each into the slot
    /// of its entry (the slots become the list of messages in place).
    fn entries(&mut self, entries: &[(&Entry, bool)]) {
        let edits = &self.edits;
        let mut slots: Vec<Option<AgentMessage>> = Vec::new();
        // Room for a turn's messages after them (see SESSION_GROWTH_ROOM).
        slots.reserve_exact(entries.len() + super::SESSION_GROWTH_ROOM);
        slots.resize_with(entries.len(), || None);
        super::load::side_by_side(entries, &mut slots, super::load::PARALLEL_CONTEXT_MIN_ENTRIES, |share, out| {
            let mut lines = LineReader::default();
            for (&(e, no_system), slot) in share.iter().zip(out) {
                *slot = message_for(e, no_system, edits, &mut lines);
            }
        });
        let ids = slots.iter().zip(entries).filter(|(m, _)| m.is_some()).map(|(_, (e, _))| ShortText::from(e.id()));
        self.out.entry_ids.extend(ids);
        // Collected in place (a message and its slot take the same room;
        // `flatten` is not collected in place, `filter_map` is); the
        // compaction's own messages, gathered before, go first.
        #[allow(clippy::filter_map_identity)]
        let mut messages: Vec<AgentMessage> = slots.into_iter().filter_map(std::convert::identity).collect();
        let before = std::mem::take(&mut self.out.messages);
        messages.splice(0..0, before);
        self.out.messages = messages;
    }

    /// A message the compaction `id` stands for.
    fn synthetic(&mut self, id: &str, message: Option<AgentMessage>) {
        if matches!(self.edits.get(id), Some(Value::Null)) {
            return;
        }
        if let Some(m) = message {
            self.out.messages.push(m);
            self.out.entry_ids.push(ShortText::from(id));
        }
    }
}

impl Session {
    /// The context of the active branch.
    pub fn context(&self) -> SessionContext {
        let path = self.branch();
        let compaction = path.iter().rposition(|e| e.kind() == "compaction");
        // Sized once (the messages are: see `Gather::entries`).
        let room = match compaction {
            None => path.len(),
            Some(at) => path.len() - at + 2 + kept_from(&path, at).map_or(0, |from| at - from),
        };
        let mut g = Gather { out: SessionContext::default(), edits: HashMap::new() };
        g.out.entry_ids.reserve_exact(room);
        for e in &path {
            match e.kind() {
                "model_change" => {
                    let v = e.value();
                    if let (Some(p), Some(m)) = (v["provider"].as_str(), v["modelId"].as_str()) {
                        g.out.model = Some((p.to_string(), m.to_string()));
                    }
                }
                "thinking_level_change" => {
                    g.out.thinking_level = e.field("thinkingLevel").as_str().map(String::from);
                }
                "context_edit" => {
                    let mut v = e.value();
                    if let Some(t) = v["targetId"].as_str().map(String::from) {
                        g.edits.insert(t, v["replacement"].take());
                    }
                }
                _ => {}
            }
        }
        match compaction {
            None => g.entries(&path.iter().map(|&e| (e, false)).collect::<Vec<_>>()),
            Some(at) => {
                let c = path[at].value();
                let id = path[at].id();
                if let Some(sys) = c.get("systemMessage").filter(|s| s.is_object()) {
                    g.synthetic(id, AgentMessage::deserialize(sys).ok());
                }
                let summary = AgentMessage::Agent(AgentOnly::CompactionSummary(CompactionSummaryMessage {
                    summary: c["summary"].as_str().unwrap_or_default().to_string(),
                    tokens_before: c["tokensBefore"].as_u64().unwrap_or(0),
                    timestamp: millis(&c["timestamp"]),
                }));
                g.synthetic(id, Some(summary));
                let kept = kept_from(&path, at).map_or(&[][..], |from| &path[from..at]);
                let work: Vec<(&Entry, bool)> =
                    kept.iter().map(|&e| (e, true)).chain(path[at + 1..].iter().map(|&e| (e, false))).collect();
                g.entries(&work);
            }
        }
        g.out
    }
}

/// Where the entries the compaction at `at` keeps start, if it names one
/// on the branch.
fn kept_from(path: &[&Entry], at: usize) -> Option<usize> {
    let first_kept = path[at].field("firstKeptEntryId");
    let first_kept = first_kept.as_str()?;
    path[..at].iter().position(|e| e.id() == first_kept)
}
