//! A continued session's messages as transcript entries (prompts, answers,
//! tool calls with their results, user commands), all finished.

use pi_agent::{AgentMessage, AgentOnly};
use pi_ai::{ContentBlock, Message};

use super::{BashState, Kind, ToolOutcome, Transcript};

/// A message block as a tool result block (thinking and calls have none).
fn content(b: &ContentBlock) -> Option<pi_tools::Content> {
    match b {
        ContentBlock::Text { text } => Some(pi_tools::Content::Text { text: text.clone() }),
        ContentBlock::Image { data, mime_type } => {
            Some(pi_tools::Content::Image { data: data.clone(), mime_type: mime_type.clone() })
        }
        _ => None,
    }
}

impl Transcript {
    /// Show `messages` (a continued session) as finished entries.
    pub fn load_history(&mut self, messages: &[AgentMessage]) {
        for m in messages {
            match m {
                AgentMessage::Llm(Message::User(u)) => self.push(Kind::User(super::user_text(&u.content))),
                AgentMessage::Llm(Message::Assistant(a)) => {
                    self.streaming = None;
                    self.assistant(a, true);
                }
                AgentMessage::Llm(Message::ToolResult(r)) => {
                    let outcome = ToolOutcome {
                        content: r.content.iter().filter_map(content).collect(),
                        details: r.details.as_deref().cloned(),
                        is_error: r.is_error,
                    };
                    let i = self.tool_entry(&r.tool_call_id, &r.tool_name, &serde_json::Value::Null);
                    self.with_tool(&r.tool_call_id, |t| {
                        t.result = Some(outcome);
                        t.duration_ms = r.duration_ms;
                    });
                    if let Some(e) = self.entries.get_mut(i) {
                        e.done = true;
                    }
                }
                AgentMessage::Agent(AgentOnly::BashExecution(b)) => {
                    let state = BashState {
                        command: b.command.clone(),
                        output: crate::sanitize::clean(&b.output),
                        exit_code: b.exit_code.map(|c| i32::try_from(c).unwrap_or(i32::MAX)),
                        cancelled: b.cancelled,
                        done: true,
                        excluded: b.exclude_from_context,
                        full_output_path: b.full_output_path.clone(),
                    };
                    self.push(Kind::Bash(Box::new(state)));
                }
                AgentMessage::Agent(AgentOnly::CompactionSummary(c)) => {
                    self.push(Kind::Compaction { summary: c.summary.clone(), tokens_before: c.tokens_before });
                }
                AgentMessage::Agent(AgentOnly::BranchSummary(b)) => self.push(Kind::Markdown(b.summary.clone())),
                AgentMessage::Agent(AgentOnly::Custom(c)) if c.display => {
                    let value = serde_json::to_value(m).unwrap_or_default();
                    if let Some(kind) = self.custom_entry(&value) {
                        self.push(kind);
                    }
                }
                AgentMessage::Agent(AgentOnly::Custom(_) | AgentOnly::System(_)) => {}
            }
        }
        for e in &mut self.entries {
            e.done = true;
        }
        self.streaming = None;
    }
}
