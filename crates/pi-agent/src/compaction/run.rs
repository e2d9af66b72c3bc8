//! A compaction run by the agent: the `session_before_compact` hooks, the
//! summary requests, the `compaction` entry and the `session_compact` hooks.

use crate::hook_event::HookEvent;
use serde_json::{Value, json};

use super::{
    CompactionError, CompactionHook, CompactionOutcome, CompactionReason, Preparation, SummaryError, context_tokens,
    estimate, held_context_tokens, prepare, serialize,
};
use crate::agent::Agent;
use crate::events::AgentEvent;
use crate::messages::AgentOnly;

impl Agent {
    /// Whether the context is past the threshold of automatic compaction.
    pub(crate) fn needs_compaction(&self) -> bool {
        let window = self.model.context_window;
        if !self.compaction.enabled || !self.live.auto_compaction() || window == 0 {
            return false;
        }
        let tokens = match self.session.lock() {
            Ok(s) => held_context_tokens(&self.messages, &s),
            Err(_) => context_tokens(&self.messages),
        };
        tokens > window.saturating_sub(self.compaction.reserve_tokens)
    }

    /// Whether the active branch has anything to compact.
    pub(crate) fn can_compact(&self) -> bool {
        self.session.lock().is_ok_and(|s| prepare(&s, self.compaction.keep_recent_tokens).is_some())
    }

    /// Compact the active branch. The outcome's JSON is `compact`'s answer;
    /// the error is the message after `Compaction failed: `.
    pub async fn compact(
        &mut self,
        reason: CompactionReason,
        instructions: Option<&str>,
        will_retry: bool,
    ) -> Result<CompactionOutcome, CompactionError> {
        if reason == CompactionReason::Manual {
            // A compaction of its own, not part of a run: an earlier run's
            // abort must not cancel it (`abort` still can, while it runs).
            self.fresh_abort();
        }
        self.emit(AgentEvent::CompactionStart { reason: reason.as_str().into() });
        let outcome = self.run_compaction(reason, instructions, will_retry).await;
        let end = match &outcome {
            Ok(result) => AgentEvent::CompactionEnd {
                reason: reason.as_str().into(),
                result: Some(result.0.clone()),
                aborted: false,
                will_retry,
                error_message: None,
            },
            Err(e) => AgentEvent::CompactionEnd {
                reason: reason.as_str().into(),
                result: None,
                aborted: e.is_cancelled(),
                will_retry,
                error_message: (!e.is_cancelled())
                    .then(|| crate::text::compaction_failed(reason == CompactionReason::Manual, &e.to_string())),
            },
        };
        self.emit(end);
        outcome
    }

    async fn run_compaction(
        &mut self,
        reason: CompactionReason,
        instructions: Option<&str>,
        will_retry: bool,
    ) -> Result<CompactionOutcome, CompactionError> {
        let keep = self.compaction.keep_recent_tokens;
        let (prep, branch) = {
            let s = self.session.lock().map_err(|_| CompactionError::SessionPoisoned)?;
            let prep = match prepare(&s, keep) {
                Some(p) => p,
                None if s.branch().last().is_some_and(|e| e.kind() == "compaction") => {
                    return Err(CompactionError::AlreadyCompacted);
                }
                None => return Err(CompactionError::NothingToCompact),
            };
            // Built only when a source listens (a long session's branch is big).
            let listening = self.dispatcher.interceptors.iter().any(|h| h.listens("session_before_compact"));
            let branch: Vec<Value> =
                if listening { s.branch().into_iter().map(|e| e.value()).collect() } else { Vec::new() };
            (prep, branch)
        };
        // The reference's event, its keys in its order (`signal` is the glue's).
        let preparation = json!({
            "messagesToSummarize": prep.to_summarize,
            "turnPrefixMessages": prep.turn_prefix,
            "isSplitTurn": prep.is_split_turn,
            "previousSummary": prep.previous_summary,
            "tokensBefore": prep.tokens_before,
            "firstKeptEntryId": prep.first_kept_entry_id,
            "fileOps": {"read": prep.read_files, "modified": prep.modified_files},
            "settings": {"enabled": self.compaction.enabled, "reserveTokens": self.compaction.reserve_tokens,
                "keepRecentTokens": keep},
        });
        let event = HookEvent::SessionBeforeCompact {
            preparation,
            branch_entries: branch,
            custom_instructions: instructions,
            reason: reason.as_str(),
            will_retry,
        }
        .to_value();
        let mut supplied: Option<Value> = None;
        for h in self.dispatcher.interceptors.clone() {
            match h.on_before_compact(&event).await {
                Ok(Some(CompactionHook::Cancel)) => return Err(CompactionError::Cancelled),
                Ok(Some(CompactionHook::Supply(c))) => {
                    supplied = Some(c);
                    break;
                }
                Ok(None) => {}
                Err(error) => self.emit(AgentEvent::ExtensionError {
                    extension_path: h.source().to_string(),
                    event: "session_before_compact".into(),
                    error: error.message,
                }),
            }
        }
        let (summary, usage, details, from_hook) = match supplied {
            Some(c) => (
                c["summary"].as_str().unwrap_or_default().to_string(),
                c.get("usage").cloned().filter(|u| u.is_object()),
                c.get("details").cloned().unwrap_or(json!({})),
                true,
            ),
            None => {
                let (text, usage) = self.summarize(&prep, instructions).await?;
                let details = json!({"readFiles": prep.read_files, "modifiedFiles": prep.modified_files});
                (with_file_lists(&text, &prep), serde_json::to_value(usage).ok(), details, false)
            }
        };
        let checkpoint = crate::system_message::checkpoint(&self.messages);
        // The reference's fields in its order.
        let mut entry = json!({"summary": summary, "firstKeptEntryId": prep.first_kept_entry_id,
            "tokensBefore": prep.tokens_before, "details": details.clone()});
        if let Some(u) = &usage {
            entry["usage"] = u.clone();
        }
        // Written either way, as the reference does.
        entry["fromHook"] = json!(from_hook);
        if let Some(sys) = checkpoint {
            entry["systemMessage"] = serde_json::to_value(AgentOnly::System(sys)).unwrap_or_default();
        }
        let saved = {
            let mut s = self.session.lock().map_err(|_| CompactionError::SessionPoisoned)?;
            let saved = match s.append("compaction", entry) {
                Ok(id) => s.get(&id).map(|e| e.value()),
                Err(e) => {
                    s.detach_file();
                    if let Some(f) = &self.on_session_error {
                        f(&e);
                    }
                    None
                }
            };
            self.messages = s.context().messages;
            saved
        };
        let mut result = json!({"summary": summary, "firstKeptEntryId": prep.first_kept_entry_id,
            "tokensBefore": prep.tokens_before, "estimatedTokensAfter": self.messages.iter().map(estimate).sum::<u64>()});
        if let Some(u) = usage {
            result["usage"] = u;
        }
        result["details"] = details;
        // As the reference's event: the saved entry, and where its summary came from.
        let event = HookEvent::SessionCompact {
            compaction_entry: saved,
            from_extension: from_hook,
            reason: reason.as_str(),
            will_retry,
        }
        .to_value();
        for h in self.dispatcher.interceptors.clone() {
            h.on_compact(&event).await;
        }
        Ok(CompactionOutcome(result))
    }

    /// Ask the session's model for the summary (two when the cut splits a
    /// user-message span, joined as the reference joins them); its text and usage.
    async fn summarize(
        &self,
        prep: &Preparation,
        instructions: Option<&str>,
    ) -> Result<(String, pi_ai::Usage), CompactionError> {
        let focus = instructions.filter(|i| !i.trim().is_empty()).map(crate::text::summary_focus).unwrap_or_default();
        let history = if prep.is_split_turn && prep.to_summarize.is_empty() {
            None
        } else {
            let conversation = serialize(&crate::messages::to_llm(&prep.to_summarize));
            let request = crate::text::summary_request(&conversation, prep.previous_summary.as_deref()) + &focus;
            Some(self.ask_for_summary(request).await.map_err(CompactionError::Summary)?)
        };
        if !prep.is_split_turn {
            return history.ok_or(CompactionError::NothingToCompact);
        }
        let conversation = serialize(&crate::messages::to_llm(&prep.turn_prefix));
        let (prefix, prefix_usage) = self
            .ask_for_summary(crate::text::turn_prefix_request(&conversation) + &focus)
            .await
            .map_err(CompactionError::TurnPrefixSummary)?;
        let (history_text, usage) = match history {
            Some((text, usage)) => (text, usage.combine(&prefix_usage)),
            None => {
                (prep.previous_summary.clone().unwrap_or_else(|| crate::text::NO_PRIOR_HISTORY.into()), prefix_usage)
            }
        };
        Ok((format!("{history_text}{}{prefix}", crate::text::SPLIT_TURN_SEPARATOR), usage))
    }

    /// One summary request to the session's model: its text and usage.
    pub(super) async fn ask_for_summary(&self, request: String) -> Result<(String, pi_ai::Usage), SummaryError> {
        let context = pi_ai::Context {
            system_prompt: Some(crate::text::SUMMARY_SYSTEM_PROMPT.to_string()),
            messages: vec![pi_ai::Message::User(pi_ai::UserMessage::text(request))],
            tools: vec![],
        };
        let auth = self.request_auth().await?;
        let options = pi_ai::StreamOptions {
            api_key: auth.api_key,
            signal: self.abort_token(),
            max_tokens: None,
            reasoning: None,
            headers: auth.headers,
            session_id: self.tool_ctx.session.session_id.clone(),
            hooks: None,
            ..pi_ai::StreamOptions::default()
        };
        let mut rx = pi_ai::stream(&self.model, &context, options);
        while let Some(ev) = rx.recv().await {
            match ev {
                pi_ai::AssistantMessageEvent::Done { message, .. } => {
                    let text = crate::events::text_of(&message);
                    return if text.trim().is_empty() { Err(SummaryError::Empty) } else { Ok((text, *message.usage)) };
                }
                pi_ai::AssistantMessageEvent::Error { error, .. } => {
                    return Err(error
                        .error_message
                        .map_or(SummaryError::StreamEnded, |m| SummaryError::Failed(m.into())));
                }
                _ => {}
            }
        }
        Err(SummaryError::StreamEnded)
    }
}

/// The summary with the files read and changed appended, as the reference lists them.
fn with_file_lists(summary: &str, prep: &Preparation) -> String {
    let read: Vec<String> = prep.read_files.iter().filter(|f| !prep.modified_files.contains(f)).cloned().collect();
    file_lists(summary, &read, &prep.modified_files)
}

/// `summary` with the lists of files `read` and `modified` after it.
pub(super) fn file_lists(summary: &str, read: &[String], modified: &[String]) -> String {
    let mut out = summary.trim_end().to_string();
    if !read.is_empty() {
        out.push_str(&format!("\n\n<read-files>\n{}\n</read-files>", read.join("\n")));
    }
    if !modified.is_empty() {
        out.push_str(&format!("\n\n<modified-files>\n{}\n</modified-files>", modified.join("\n")));
    }
    out
}
