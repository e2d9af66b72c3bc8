//! What a compaction summarizes and keeps. Tokens are estimated from text
//! (4 characters a token). Walking back from the end of the branch, entries
//! are kept until `keepRecentTokens` is reached; the cut lands on an entry a
//! conversation can resume from (a user, assistant, user-command or custom
//! message, or a branch summary: never a tool result, which belongs to its
//! call). What lies between the previous compaction's kept boundary (or the
//! start) and the cut is summarized.

use serde_json::Value;

use super::estimate::{estimate, session_context_tokens};
use crate::messages::{AgentMessage, AgentOnly};
use crate::session::Session;

/// What to summarize and where the kept part starts.
#[derive(Debug, Clone)]
pub struct Preparation {
    /// The messages the summary stands for (whole user-message spans).
    pub to_summarize: Vec<AgentMessage>,
    /// When the cut falls inside a user-message span: the span's part
    /// before the cut, summarized separately.
    pub turn_prefix: Vec<AgentMessage>,
    /// Whether the cut falls inside a user-message span.
    pub is_split_turn: bool,
    /// The first entry kept as it is.
    pub first_kept_entry_id: String,
    /// The summary of the previous compaction, when there is one.
    pub previous_summary: Option<String>,
    /// Context tokens before the compaction.
    pub tokens_before: u64,
    /// Files read and changed by the summarized tool calls (and the
    /// previous compaction's lists).
    pub read_files: Vec<String>,
    /// Files written or edited.
    pub modified_files: Vec<String>,
}

/// A conversation may resume from this message (a tool result belongs to its call).
fn cut_point(m: &AgentMessage) -> bool {
    !matches!(m, AgentMessage::Llm(pi_ai::Message::ToolResult(_)) | AgentMessage::Agent(AgentOnly::System(_)))
}

/// This message opens a user-message span.
fn turn_start(m: &AgentMessage) -> bool {
    !matches!(
        m,
        AgentMessage::Llm(pi_ai::Message::ToolResult(_) | pi_ai::Message::Assistant(_))
            | AgentMessage::Agent(AgentOnly::System(_))
    )
}

pub(super) fn push_unique(list: &mut Vec<String>, v: &str) {
    if !v.is_empty() && !list.iter().any(|x| x == v) {
        list.push(v.to_string());
    }
}

/// File operations of the tool calls among `messages`.
pub(super) fn file_ops(messages: &[AgentMessage], read: &mut Vec<String>, modified: &mut Vec<String>) {
    for m in messages {
        let AgentMessage::Llm(pi_ai::Message::Assistant(a)) = m else { continue };
        for b in &a.content {
            let pi_ai::ContentBlock::ToolCall(call) = b else { continue };
            let pi_ai::ToolCallBlock { name, arguments, .. } = &**call;
            let path = arguments["path"].as_str().unwrap_or("");
            match name.as_str() {
                "read" => push_unique(read, path),
                "write" | "edit" => push_unique(modified, path),
                _ => {}
            }
        }
    }
}

/// Plan a compaction of `session`'s active branch keeping about
/// `keep_recent` tokens; `None` when there is nothing to summarize.
///
/// Entries the context does not show (omitted by a `context_edit`,
/// metadata) take no part in choosing the cut, except that a trailing run of
/// them holding an omitted answer (a failed attempt being recovered) is where
/// the kept part starts, so the input that failed is summarized too.
pub fn prepare(session: &Session, keep_recent: u64) -> Option<Preparation> {
    let branch = session.branch();
    let ctx = session.context();
    let last_compaction = branch.iter().rposition(|e| e.kind() == "compaction");
    let compaction = last_compaction.map(|at| branch[at].value()).unwrap_or_default();
    // Entries that may still be summarized: from the previous kept boundary.
    let start = match last_compaction {
        Some(at) => {
            let kept = compaction["firstKeptEntryId"].as_str().unwrap_or_default();
            branch[..at].iter().position(|e| e.id() == kept).unwrap_or(at + 1)
        }
        None => 0,
    };
    let at_of: std::collections::HashMap<&str, usize> =
        ctx.entry_ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).rev().collect();
    let shown: Vec<Option<&AgentMessage>> =
        branch.iter().map(|e| at_of.get(e.id()).map(|&i| &ctx.messages[i])).collect();
    let mut kept_tokens = 0u64;
    let mut cut: Option<usize> = None;
    for i in (start..branch.len()).rev() {
        let Some(m) = shown[i] else { continue };
        kept_tokens += estimate(m);
        if cut_point(m) {
            cut = Some(i);
            if kept_tokens >= keep_recent {
                break;
            }
        }
    }
    let mut cut = cut?;
    let hidden_from = (cut + 1..branch.len()).rev().take_while(|&i| shown[i].is_none()).last();
    if let Some(h) = hidden_from {
        let omitted_answer = (h..branch.len())
            .any(|i| branch[i].kind() == "message" && branch[i].field("message")["role"] == "assistant");
        if omitted_answer {
            cut = h;
        }
    }
    // A cut inside a user-message span splits it: the span's start up to
    // the cut is summarized on its own.
    let span_start = match shown[cut] {
        Some(m) if turn_start(m) => None,
        _ => (start..cut).rev().find(|&i| shown[i].is_some_and(turn_start)),
    };
    let history_end = span_start.unwrap_or(cut);
    let messages = |range: std::ops::Range<usize>| -> Vec<AgentMessage> {
        range
            .filter_map(|i| shown[i])
            .filter(|m| !matches!(m, AgentMessage::Agent(AgentOnly::System(_))))
            .cloned()
            .collect()
    };
    let to_summarize = messages(start..history_end);
    let turn_prefix = span_start.map(|s| messages(s..cut)).unwrap_or_default();
    if to_summarize.is_empty() && turn_prefix.is_empty() {
        return None;
    }
    let (mut read_files, mut modified_files) = (Vec::new(), Vec::new());
    if last_compaction.is_some() && compaction["fromHook"] != true {
        for f in compaction["details"]["readFiles"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            push_unique(&mut read_files, f);
        }
        for f in compaction["details"]["modifiedFiles"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            push_unique(&mut modified_files, f);
        }
    }
    file_ops(&to_summarize, &mut read_files, &mut modified_files);
    file_ops(&turn_prefix, &mut read_files, &mut modified_files);
    Some(Preparation {
        to_summarize,
        is_split_turn: span_start.is_some(),
        turn_prefix,
        first_kept_entry_id: branch[cut].id().to_string(),
        previous_summary: compaction["summary"].as_str().map(String::from),
        tokens_before: session_context_tokens(session),
        read_files,
        modified_files,
    })
}

/// Characters of a tool result kept in the serialized conversation.
const TOOL_RESULT_CHARS: usize = 2000;

/// The conversation as text for the summarizer (thinking left out, tool
/// results cut), so it reads as a record rather than a chat to continue.
pub fn serialize(messages: &[pi_ai::Message]) -> String {
    let mut out = Vec::new();
    for m in messages {
        match m {
            pi_ai::Message::User(u) => {
                let text: String = u
                    .content
                    .blocks()
                    .iter()
                    .filter_map(|b| match b {
                        pi_ai::ContentBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                out.push(format!("[User]: {text}"));
            }
            pi_ai::Message::Assistant(a) => {
                let text: Vec<&str> = a
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        pi_ai::ContentBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                if !text.is_empty() {
                    out.push(format!("[Assistant]: {}", text.join("\n")));
                }
                let calls: Vec<String> = a
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        pi_ai::ContentBlock::ToolCall(call) => {
                            let pi_ai::ToolCallBlock { name, arguments, .. } = &**call;
                            let args: Vec<String> = arguments
                                .as_object()
                                .map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect())
                                .unwrap_or_default();
                            Some(format!("{name}({})", args.join(", ")))
                        }
                        _ => None,
                    })
                    .collect();
                if !calls.is_empty() {
                    out.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            pi_ai::Message::ToolResult(r) => {
                let text: String = r
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        pi_ai::ContentBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let count = text.chars().count();
                let shown = if count > TOOL_RESULT_CHARS {
                    let head: String = text.chars().take(TOOL_RESULT_CHARS).collect();
                    crate::text::tool_result_cut(&head, count - TOOL_RESULT_CHARS)
                } else {
                    text
                };
                out.push(format!("[Tool result]: {shown}"));
            }
        }
    }
    out.join("\n\n")
}
