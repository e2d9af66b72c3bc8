//! Branch summaries (the reference's docs/compaction.md, "Branch
//! Summarization"): when the conversation moves to another point of the
//! session tree, the part left behind can be summarized by the session's
//! model, newest messages first within the model's window, the files it
//! read and changed listed after the summary (cumulatively: earlier branch
//! summaries' lists count too).

use serde_json::Value;

use super::prepare::{file_ops, push_unique};
use super::{SummaryError, estimate, serialize};
use crate::agent::Agent;
use crate::messages::{AgentMessage, AgentOnly, CompactionSummaryMessage};

/// A summary of the part of the conversation left behind.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSummary {
    /// The summary, its heading and the file lists included.
    pub summary: String,
    /// What the request cost (`None` when no request was made).
    pub usage: Option<pi_ai::Usage>,
    /// Files the branch read (and did not change).
    pub read_files: Vec<String>,
    /// Files the branch wrote or edited.
    pub modified_files: Vec<String>,
}

/// How a branch summary is asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BranchSummaryRequest {
    /// The user's or an extension's instructions.
    pub custom_instructions: Option<String>,
    /// The instructions replace the default request rather than add to it.
    pub replace_instructions: bool,
    /// Tokens of the window kept free (`branchSummary.reserveTokens`).
    pub reserve_tokens: u64,
}

/// The context message a session entry (as a value) stands for in a branch
/// summary: tool results are left out, compactions count as their summary.
fn message_of_entry(e: &Value) -> Option<AgentMessage> {
    match e["type"].as_str()? {
        "message" if e["message"]["role"] == "toolResult" => None,
        "compaction" => Some(AgentMessage::Agent(AgentOnly::CompactionSummary(CompactionSummaryMessage {
            summary: e["summary"].as_str().unwrap_or_default().to_string(),
            tokens_before: e["tokensBefore"].as_u64().unwrap_or(0),
            timestamp: 0,
        }))),
        _ => crate::session::message_of_value(e),
    }
}

/// The messages of `entries` (oldest first) that fit `budget` tokens, the
/// newest kept first (0: no limit); a summary that does not fit still goes
/// in while less than 90% of the budget is used.
fn within_budget(entries: &[Value], budget: u64) -> Vec<AgentMessage> {
    let mut kept = Vec::new();
    let mut total = 0;
    for e in entries.iter().rev() {
        let Some(m) = message_of_entry(e) else { continue };
        let tokens = estimate(&m);
        if budget > 0 && total + tokens > budget {
            let summary = matches!(e["type"].as_str(), Some("compaction" | "branch_summary"));
            if summary && total * 10 < budget * 9 {
                kept.push(m);
            }
            break;
        }
        total += tokens;
        kept.push(m);
    }
    kept.reverse();
    kept
}

impl Agent {
    /// Summarize `entries` (the part of the branch left behind, oldest
    /// first) with the session's model.
    pub async fn summarize_branch(
        &self,
        entries: &[Value],
        request: &BranchSummaryRequest,
    ) -> Result<BranchSummary, SummaryError> {
        let (mut read, mut modified) = (Vec::new(), Vec::new());
        // Earlier branch summaries' lists (not an extension's own format).
        for e in entries.iter().filter(|e| e["type"] == "branch_summary" && e["fromHook"] != true) {
            for (key, list) in [("readFiles", &mut read), ("modifiedFiles", &mut modified)] {
                for f in e["details"][key].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    push_unique(list, f);
                }
            }
        }
        let budget = self.model.context_window.saturating_sub(request.reserve_tokens);
        let messages = within_budget(entries, budget);
        if messages.is_empty() {
            return Ok(BranchSummary {
                summary: crate::text::NOTHING_IN_BRANCH.to_string(),
                usage: None,
                read_files: Vec::new(),
                modified_files: Vec::new(),
            });
        }
        file_ops(&messages, &mut read, &mut modified);
        read.retain(|f| !modified.contains(f));
        let conversation = serialize(&crate::messages::to_llm(&messages));
        let custom = request.custom_instructions.as_deref().filter(|c| !c.trim().is_empty());
        let asked = crate::text::branch_summary_request(&conversation, custom, request.replace_instructions);
        let (text, usage) = self.ask_for_summary(asked).await?;
        let summary =
            format!("{}{}", crate::text::BRANCH_SUMMARY_HEADING, super::run::file_lists(&text, &read, &modified));
        Ok(BranchSummary { summary, usage: Some(usage), read_files: read, modified_files: modified })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn said(role: &str, text: &str) -> Value {
        json!({"type": "message", "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 0}})
    }

    #[test]
    fn the_newest_messages_fit_the_budget_and_tool_results_are_left_out() {
        let long = "word ".repeat(400); // about 500 tokens
        let entries = vec![
            said("user", &long),
            said("user", "old question"),
            json!({"type": "message", "message": {"role": "toolResult", "toolCallId": "c", "toolName": "read",
                "content": [{"type": "text", "text": "x"}], "isError": false, "timestamp": 0}}),
            said("user", "newest question"),
        ];
        assert_eq!(within_budget(&entries, 0).len(), 3, "no limit: every message but the tool result");
        let kept = within_budget(&entries, 100);
        assert_eq!(kept.len(), 2, "the long first message does not fit: {kept:?}");
        assert!(within_budget(&[], 100).is_empty());
    }

    #[test]
    fn a_summary_that_does_not_fit_still_goes_in_while_room_is_left() {
        let big = "word ".repeat(400);
        let entries = vec![json!({"type": "compaction", "summary": big, "tokensBefore": 10}), said("user", "hi")];
        assert_eq!(within_budget(&entries, 100).len(), 2);
        let nearly_full = vec![json!({"type": "compaction", "summary": big}), said("user", &"w ".repeat(190))];
        assert_eq!(within_budget(&nearly_full, 100).len(), 1, "over 90% used: the summary stays out");
    }
}
