//! A `message` entry's message read straight from its line. The derived
//! reading of [`AgentMessage`] (untagged, then tagged by `role`) copies the
//! whole message into an intermediate tree twice before it is built; here
//! the `role`, which both pi and the reference write first, picks the kind
//! of message and the rest of the object is read into it directly. A
//! message whose `role` is not first is read the derived way.

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, de::Error as _};
use serde_json::Value;

use crate::messages::{
    AgentMessage, AgentOnly, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage,
    SystemMessage,
};
use compact_str::CompactString as ShortText;
use pi_ai::{AssistantMessage, ContentBlock, Message, ToolResultMessage, UserContent, UserMessage};

/// A `message` entry: only its message is read.
#[derive(Deserialize)]
struct MessageLine {
    #[serde(deserialize_with = "by_role")]
    message: AgentMessage,
}

/// A `message` entry's line read at once: what the tree needs and the message.
#[derive(Deserialize)]
struct WholeMessageLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    id: std::borrow::Cow<'a, str>,
    #[serde(rename = "parentId", default, borrow)]
    parent: Option<std::borrow::Cow<'a, str>>,
    #[serde(deserialize_with = "by_role")]
    message: AgentMessage,
}

/// A `message` entry read whole from its line (see [`message_entry`]).
pub(crate) struct MessageEntry {
    /// Its id.
    pub id: ShortText,
    /// Its parent's id.
    pub parent: Option<ShortText>,
    /// Its message.
    pub message: AgentMessage,
}

/// A line of a `message` entry as pi and the reference write it (`type`
/// first, a string `id`, a readable message, no key twice), read in one
/// pass; any other line gives `None` and is read the usual way.
pub(crate) fn message_entry(line: &str) -> Option<MessageEntry> {
    if !line.starts_with(r#"{"type":"message","#) {
        return None;
    }
    let whole = serde_json::from_str::<WholeMessageLine<'_>>(line).ok().filter(|w| w.kind == "message")?;
    let mut message = whole.message;
    compact(&mut message);
    Some(MessageEntry {
        id: ShortText::from(whole.id.as_ref()),
        parent: whole.parent.as_deref().map(ShortText::from),
        message,
    })
}

/// The message of a `message` entry's line, if it reads as one.
pub(crate) fn message_in_line(line: &str) -> Option<AgentMessage> {
    let mut m = serde_json::from_str::<MessageLine>(line).ok()?.message;
    compact(&mut m);
    Some(m)
}

fn by_role<'de, D: Deserializer<'de>>(d: D) -> Result<AgentMessage, D::Error> {
    d.deserialize_map(ByRole)
}

/// Reads a message object by its leading `role`.
struct ByRole;

/// The message of `role`, read from the rest of its object.
fn of_role<'de, A: MapAccess<'de>>(role: &str, rest: A) -> Result<AgentMessage, A::Error> {
    let rest = MapAccessDeserializer::new(rest);
    let llm = |m| Ok(AgentMessage::Llm(m));
    let agent = |m| Ok(AgentMessage::Agent(m));
    match role {
        "user" => llm(Message::User(UserMessage::deserialize(rest)?)),
        "assistant" => llm(Message::Assistant(AssistantMessage::deserialize(rest)?)),
        "toolResult" => llm(Message::ToolResult(ToolResultMessage::deserialize(rest)?)),
        "bashExecution" => agent(AgentOnly::BashExecution(BashExecutionMessage::deserialize(rest)?)),
        "system" => agent(AgentOnly::System(SystemMessage::deserialize(rest)?)),
        "custom" => agent(AgentOnly::Custom(CustomMessage::deserialize(rest)?)),
        "compactionSummary" => agent(AgentOnly::CompactionSummary(CompactionSummaryMessage::deserialize(rest)?)),
        "branchSummary" => agent(AgentOnly::BranchSummary(BranchSummaryMessage::deserialize(rest)?)),
        other => Err(A::Error::unknown_variant(other, &[])),
    }
}

impl<'de> Visitor<'de> for ByRole {
    type Value = AgentMessage;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentMessage, A::Error> {
        let first: Option<String> = map.next_key()?;
        if first.as_deref() == Some("role") {
            let role: String = map.next_value()?;
            return of_role(&role, map);
        }
        let mut whole = serde_json::Map::new();
        if let Some(key) = first {
            whole.insert(key, map.next_value()?);
            while let Some((key, value)) = map.next_entry::<String, Value>()? {
                whole.insert(key, value);
            }
        }
        AgentMessage::deserialize(Value::Object(whole)).map_err(de::Error::custom)
    }
}

/// Give the lists and objects a message holds (its content, tool-call
/// arguments, details) just the room they fill: read from JSON, a list of
/// one block keeps room for four and a one-key object for several, which a
/// long session holds tens of thousands of times.
fn compact(m: &mut AgentMessage) {
    let blocks = |content: &mut Vec<ContentBlock>| {
        content.shrink_to_fit();
        for b in content {
            if let ContentBlock::ToolCall(call) = b {
                fit(&mut call.arguments);
            }
        }
    };
    match m {
        AgentMessage::Llm(Message::User(u)) => {
            if let UserContent::Blocks(b) = &mut u.content {
                blocks(b);
            }
        }
        AgentMessage::Llm(Message::Assistant(a)) => blocks(&mut a.content),
        AgentMessage::Llm(Message::ToolResult(t)) => {
            blocks(&mut t.content);
            if let Some(d) = t.details.as_mut() {
                fit(d);
            }
        }
        AgentMessage::Agent(_) => {}
    }
}

/// `v` with every object and array in it sized to what it holds.
fn fit(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let mut exact: serde_json::Map<String, Value> = std::mem::take(o).into_iter().collect();
            exact.values_mut().for_each(fit);
            *o = exact;
        }
        Value::Array(a) => {
            a.shrink_to_fit();
            a.iter_mut().for_each(fit);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both readings give the same message.
    fn same(message: &str) {
        let line = format!(r#"{{"type":"message","id":"a","parentId":null,"message":{message}}}"#);
        let derived: Option<AgentMessage> =
            serde_json::from_str::<Value>(&line).ok().and_then(|v| AgentMessage::deserialize(&v["message"]).ok());
        assert_eq!(message_in_line(&line), derived, "{message}");
    }

    #[test]
    fn a_message_line_read_at_once_gives_what_the_two_readings_give() {
        let line = r#"{"type":"message","id":"a1","parentId":"p0","timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}"#;
        let e = message_entry(line).unwrap();
        let head = super::super::Entry::from_line(line.to_string()).unwrap();
        assert_eq!((e.id.as_str(), e.parent.as_deref()), (head.id(), head.parent_id()));
        assert_eq!(Some(e.message), message_in_line(line));
        let root =
            r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hi","timestamp":1}}"#;
        assert_eq!(message_entry(root).unwrap().parent, None);
        // Anything unusual is left to the usual readings.
        for other in [
            r#"{"id":"a1","type":"message","message":{"role":"user","content":"hi","timestamp":1}}"#,
            r#"{"type":"message","id":7,"message":{"role":"user","content":"hi","timestamp":1}}"#,
            r#"{"type":"message","id":"a","id":"b","message":{"role":"user","content":"hi","timestamp":1}}"#,
            r#"{"type":"message","id":"a","message":{"role":"nobody"}}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":"hi","timestamp":1}"#,
            r#"{"type":"message","id":"a","type":"label","message":{"role":"user","content":"hi","timestamp":1}}"#,
            r#"{"type":"label","id":"a"}"#,
        ] {
            assert!(message_entry(other).is_none(), "{other}");
        }
    }

    #[test]
    fn every_role_reads_as_the_derived_reading_does() {
        same(r#"{"role":"user","content":"hi","timestamp":1}"#);
        same(r#"{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}"#);
        same(
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls","n":[1,{"a":2}]}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}"#,
        );
        same(
            r#"{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"ok"}],"details":{"x":1},"isError":false,"timestamp":3}"#,
        );
        same(
            r#"{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false,"timestamp":4}"#,
        );
        same(r#"{"role":"custom","customType":"note","content":"c","display":true,"timestamp":5}"#);
        same(r#"{"role":"compactionSummary","summary":"s","tokensBefore":9,"timestamp":6}"#);
        same(r#"{"role":"branchSummary","summary":"s","fromId":"f","timestamp":7}"#);
        same(r#"{"role":"system","content":"","sections":{"a":"b"},"timestamp":8}"#);
        // The role elsewhere than first, unknown roles, missing fields, not objects.
        same(r#"{"content":"hi","timestamp":1,"role":"user"}"#);
        same(r#"{"role":"nobody","content":"hi"}"#);
        same(r#"{"role":"user"}"#);
        same(r#"{"role":7,"content":"hi","timestamp":1}"#);
        same(r#""text""#);
        same(r#"{}"#);
    }
}
