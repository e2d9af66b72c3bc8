//! The messages of a session: what the model sees ([`Message`]) and what the
//! agent keeps beside it (a command the user ran, `bashExecution`). Before a
//! request, [`to_llm`] turns the conversation into what a model takes.

use pi_ai::{Message, UserMessage};
use serde::{Deserialize, Serialize};

/// One message of a session, in its JSON form (tagged by `role`).
// Most messages are model messages; boxing them would cost an allocation
// each for the sake of the rare agent-only record.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentMessage {
    /// A message a model takes as it is.
    Llm(Message),
    /// A message only the agent knows; converted (or left out) for requests.
    Agent(AgentOnly),
}

/// The agent's own message kinds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum AgentOnly {
    /// A command the user ran (`!cmd`, `!!cmd`, RPC `bash`).
    BashExecution(BashExecutionMessage),
    /// The prompt and tool loadout (sections and declarations), as the
    /// reference records them; never sent as a conversation message.
    System(SystemMessage),
    /// A message an extension put in the context.
    Custom(CustomMessage),
    /// The summary a compaction left in place of the messages before it.
    CompactionSummary(CompactionSummaryMessage),
    /// The summary of a branch left when navigating the session tree.
    BranchSummary(BranchSummaryMessage),
}

/// The system prompt as named sections and the tools it declares (a later
/// one patches sections by name: `null` removes one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemMessage {
    /// Plain content (empty when the prompt is in `sections`).
    #[serde(default)]
    pub content: serde_json::Value,
    /// Prompt sections by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sections: Option<Box<serde_json::Map<String, serde_json::Value>>>,
    /// Tools declared from here on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_added: Option<Vec<serde_json::Value>>,
    /// Tools no longer declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_removed: Option<Vec<serde_json::Value>>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
}

/// An extension's message in the context (`custom_message` entries).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    /// The extension's type name.
    pub custom_type: String,
    /// A string or text/image blocks.
    pub content: serde_json::Value,
    /// Shown in the terminal UI.
    #[serde(default)]
    pub display: bool,
    /// Data not sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<serde_json::Value>>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
}

impl CustomMessage {
    /// The fields of its `custom_message` session entry, in the reference's order.
    pub fn entry_fields(&self) -> serde_json::Value {
        let mut fields = serde_json::json!({
            "customType": self.custom_type,
            "content": self.content,
            "display": self.display,
        });
        if let (Some(d), Some(f)) = (&self.details, fields.as_object_mut()) {
            f.insert("details".into(), serde_json::Value::clone(d));
        }
        fields
    }
}

/// A compaction's summary as a context message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    /// The summary.
    pub summary: String,
    /// Context tokens before the compaction.
    #[serde(default)]
    pub tokens_before: u64,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
}

/// A branch summary as a context message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    /// The summary.
    pub summary: String,
    /// The entry the branch was left from.
    #[serde(default)]
    pub from_id: Option<String>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: i64,
}

/// The active tool names of a resumed session: `initial` (what the command
/// line and the settings select) without the tools the conversation's system
/// messages declared and then withdrew, followed by the tools they declare
/// at its end that `initial` lacks (loaded by `tool_search`, activated by an
/// extension), in the order they were declared.
pub fn replay_tool_changes(messages: &[AgentMessage], initial: &[String]) -> Vec<String> {
    let name_of = |t: &serde_json::Value| t["name"].as_str().map(String::from);
    let mut declared: Vec<String> = Vec::new();
    let mut ever: Vec<String> = Vec::new();
    for m in messages {
        let AgentMessage::Agent(AgentOnly::System(s)) = m else { continue };
        for removed in s.tools_removed.iter().flatten().filter_map(name_of) {
            declared.retain(|n| *n != removed);
        }
        for added in s.tools_added.iter().flatten().filter_map(name_of) {
            if !declared.contains(&added) {
                declared.push(added.clone());
            }
            if !ever.contains(&added) {
                ever.push(added);
            }
        }
    }
    let mut active: Vec<String> =
        initial.iter().filter(|n| !ever.contains(n) || declared.contains(n)).cloned().collect();
    for n in declared {
        if !active.contains(&n) {
            active.push(n);
        }
    }
    active
}

/// A command the user ran and its outcome. Unless `exclude_from_context`,
/// the model sees it as a user message on the next request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashExecutionMessage {
    /// The command.
    pub command: String,
    /// Its output (stdout and stderr as they came), tail-cut like bash's.
    pub output: String,
    /// The exit code; absent when cancelled or unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Stopped by the user.
    pub cancelled: bool,
    /// The output was cut.
    pub truncated: bool,
    /// Where the whole output is, when cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// `!!cmd`: kept in the session, never sent to the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exclude_from_context: bool,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
}

impl From<Message> for AgentMessage {
    fn from(m: Message) -> Self {
        AgentMessage::Llm(m)
    }
}

impl AgentMessage {
    /// The model-level message, if this is one.
    pub fn as_llm(&self) -> Option<&Message> {
        match self {
            AgentMessage::Llm(m) => Some(m),
            AgentMessage::Agent(_) => None,
        }
    }
}

impl BashExecutionMessage {
    /// How the model reads it: the command, its output in a fence (or `(no
    /// output)`), then how it ended and where a cut output is.
    pub fn to_text(&self) -> String {
        let mut text = format!("Ran `{}`\n", self.command);
        if self.output.is_empty() {
            text.push_str(crate::text::BASH_NO_OUTPUT);
        } else {
            text.push_str(&format!("```\n{}\n```", self.output));
        }
        if self.cancelled {
            text.push_str(crate::text::BASH_CANCELLED);
        } else if let Some(code) = self.exit_code.filter(|c| *c != 0) {
            text.push_str(&crate::text::bash_exited_with(code));
        }
        if self.truncated
            && let Some(path) = &self.full_output_path
        {
            text.push_str(&crate::text::bash_output_truncated(path));
        }
        text
    }
}

/// A user message with one text block stamped `timestamp`.
fn user_text(text: String, timestamp: i64) -> Message {
    let mut user = UserMessage::text(text);
    user.timestamp = timestamp;
    Message::User(user)
}

/// The conversation as a model takes it: agent-only messages become user
/// messages or are left out (system messages travel as the system prompt).
pub fn to_llm(messages: &[AgentMessage]) -> Vec<Message> {
    let converted = converted_for_llm(messages);
    llm_refs(messages, &converted).into_iter().cloned().collect()
}

/// The agent-only messages of `messages` that go to a model, converted,
/// with where each is in `messages` (see [`llm_refs`]).
pub fn converted_for_llm(messages: &[AgentMessage]) -> Vec<(usize, Message)> {
    messages
        .iter()
        .enumerate()
        .filter_map(|(at, m)| match m {
            AgentMessage::Agent(a) => agent_only_for_llm(a).map(|m| (at, m)),
            AgentMessage::Llm(_) => None,
        })
        .collect()
}

/// As [`to_llm`], borrowing: the model messages of `messages` and, in their
/// places, the `converted` agent-only ones (from [`converted_for_llm`]), so
/// a request costs one reference a message and does not copy the
/// conversation.
pub fn llm_refs<'a>(messages: &'a [AgentMessage], converted: &'a [(usize, Message)]) -> Vec<&'a Message> {
    let mut converted = converted.iter().peekable();
    let mut out = Vec::with_capacity(messages.len());
    for (at, m) in messages.iter().enumerate() {
        match m {
            AgentMessage::Llm(m) => out.push(m),
            AgentMessage::Agent(_) => {
                if let Some((_, c)) = converted.next_if(|(from, _)| *from == at) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// An agent-only message as a model takes it (`None`: left out).
fn agent_only_for_llm(a: &AgentOnly) -> Option<Message> {
    use crate::text::{
        BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX,
    };
    match a {
        AgentOnly::BashExecution(b) if !b.exclude_from_context => Some(user_text(b.to_text(), b.timestamp)),
        AgentOnly::BashExecution(_) | AgentOnly::System(_) => None,
        AgentOnly::Custom(c) => {
            let content = match &c.content {
                serde_json::Value::String(s) => pi_ai::UserContent::Blocks(vec![pi_ai::ContentBlock::text(s)]),
                other => serde_json::from_value(serde_json::json!(other))
                    .map(pi_ai::UserContent::Blocks)
                    .unwrap_or_else(|_| pi_ai::UserContent::Blocks(vec![])),
            };
            Some(Message::User(UserMessage { content, timestamp: c.timestamp }))
        }
        AgentOnly::CompactionSummary(s) => {
            Some(user_text(format!("{COMPACTION_SUMMARY_PREFIX}{}{COMPACTION_SUMMARY_SUFFIX}", s.summary), s.timestamp))
        }
        AgentOnly::BranchSummary(s) => {
            Some(user_text(format!("{BRANCH_SUMMARY_PREFIX}{}{BRANCH_SUMMARY_SUFFIX}", s.summary), s.timestamp))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(output: &str, exit_code: Option<i64>, cancelled: bool) -> BashExecutionMessage {
        BashExecutionMessage {
            command: "make".into(),
            output: output.into(),
            exit_code,
            cancelled,
            truncated: false,
            full_output_path: None,
            exclude_from_context: false,
            timestamp: 5,
        }
    }

    #[test]
    fn the_text_a_model_reads() {
        assert_eq!(run("hi\n", Some(0), false).to_text(), "Ran `make`\n```\nhi\n\n```");
        assert_eq!(run("", Some(2), false).to_text(), "Ran `make`\n(no output)\n\nCommand exited with code 2");
        assert_eq!(run("x", Some(2), true).to_text(), "Ran `make`\n```\nx\n```\n\n(command cancelled)");
        let cut = BashExecutionMessage {
            truncated: true,
            full_output_path: Some("/t/f.log".into()),
            ..run("y", None, false)
        };
        assert_eq!(cut.to_text(), "Ran `make`\n```\ny\n```\n\n[Output truncated. Full output: /t/f.log]");
    }

    #[test]
    fn json_round_trip_and_conversion() {
        let excluded = BashExecutionMessage { exclude_from_context: true, ..run("a", Some(0), false) };
        let list = vec![
            AgentMessage::Llm(Message::User(UserMessage::text("go"))),
            AgentMessage::Agent(AgentOnly::BashExecution(run("a", Some(0), false))),
            AgentMessage::Agent(AgentOnly::BashExecution(excluded)),
        ];
        let v = serde_json::to_value(&list).unwrap();
        assert_eq!(v[1]["role"], "bashExecution");
        assert_eq!(v[1]["exitCode"], 0);
        assert!(v[1].get("excludeFromContext").is_none());
        assert_eq!(v[2]["excludeFromContext"], json!(true));
        let back: Vec<AgentMessage> = serde_json::from_value(v).unwrap();
        assert_eq!(back, list);
        let llm = to_llm(&list);
        assert_eq!(llm.len(), 2);
        match &llm[1] {
            Message::User(u) => assert_eq!(u.timestamp, 5),
            other => panic!("{other:?}"),
        }
    }

    /// A request borrows the model messages and takes the converted ones in
    /// their places, one reference each, in order; left-out ones are absent.
    #[test]
    fn a_request_borrows_the_conversation_in_order() {
        let excluded = BashExecutionMessage { exclude_from_context: true, ..run("x", Some(0), false) };
        let list = vec![
            AgentMessage::Agent(AgentOnly::BashExecution(run("a", Some(0), false))),
            AgentMessage::Llm(Message::User(UserMessage::text("one"))),
            AgentMessage::Agent(AgentOnly::BashExecution(excluded)),
            AgentMessage::Agent(AgentOnly::BashExecution(run("b", Some(1), false))),
            AgentMessage::Llm(Message::User(UserMessage::text("two"))),
            AgentMessage::Agent(AgentOnly::BashExecution(run("c", Some(2), false))),
        ];
        let converted = converted_for_llm(&list);
        assert_eq!(converted.iter().map(|(at, _)| *at).collect::<Vec<_>>(), [0, 3, 5]);
        let refs = llm_refs(&list, &converted);
        let texts: Vec<String> = refs
            .iter()
            .map(|m| match m {
                Message::User(u) => match &u.content {
                    pi_ai::UserContent::Blocks(b) => format!("{b:?}"),
                    pi_ai::UserContent::Text(t) => t.clone(),
                },
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(texts.len(), 5);
        for (i, want) in ["\\na\\n", "one", "\\nb\\n", "two", "\\nc\\n"].iter().enumerate() {
            assert!(texts[i].contains(want), "{i}: {}", texts[i]);
        }
        assert!(
            std::ptr::eq(
                refs[1],
                match &list[1] {
                    AgentMessage::Llm(m) => m,
                    _ => unreachable!(),
                }
            ),
            "borrowed, not copied"
        );
        assert_eq!(to_llm(&list), refs.into_iter().cloned().collect::<Vec<_>>());
        assert!(llm_refs(&[], &[]).is_empty());
    }

    #[test]
    fn a_resumed_session_keeps_the_tools_its_system_messages_left_declared() {
        let system = |added: &[&str], removed: &[&str]| {
            let tools = |names: &[&str]| Some(names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>());
            AgentMessage::Agent(AgentOnly::System(SystemMessage {
                content: json!(""),
                sections: None,
                tools_added: tools(added),
                tools_removed: tools(removed),
                timestamp: 0,
            }))
        };
        let initial: Vec<String> = ["read", "bash", "codemode"].iter().map(|s| s.to_string()).collect();
        let history =
            vec![system(&["read", "bash"], &[]), system(&["weather", "grep"], &["bash"]), system(&[], &["grep"])];
        // codemode (hidden from requests, never declared) stays; bash was withdrawn; weather was loaded.
        assert_eq!(replay_tool_changes(&history, &initial), ["read", "codemode", "weather"]);
        assert_eq!(replay_tool_changes(&[], &initial), initial);
    }

    /// A conversation is held as a vector of these: each message costs the
    /// largest one's size (a 100,000-entry session holds as many). Rare or
    /// large parts (usage, a failure, nested calls) are boxed, names shared
    /// and rare texts held as boxed strings to keep it small.
    #[test]
    fn a_message_slot_stays_small() {
        assert!(
            std::mem::size_of::<AgentMessage>() <= MAX_MESSAGE_SLOT_BYTES,
            "{}",
            std::mem::size_of::<AgentMessage>()
        );
    }

    /// The slot size [`a_message_slot_stays_small`] holds to (was 392, then
    /// 208 before names and rare texts became thin pointers and optional
    /// details and sections were boxed).
    const MAX_MESSAGE_SLOT_BYTES: usize = 144;
}
