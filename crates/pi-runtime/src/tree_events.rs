//! Moving in the session tree (`ctx.navigateTree(targetId)`), as the
//! reference does: the extensions are asked first (`session_before_tree`,
//! with the move's preparation; one may cancel), the leaf moves (to the
//! parent of a user message, whose text can then be typed again; else to
//! the target), and `session_tree` tells them where it went.

use serde_json::{Value, json};

use crate::ext_session::ExtSession;
use crate::session_error::SessionCallError;
use crate::session_event::SessionEvent;

/// How a move in the tree is made (`ctx.navigateTree`'s options, `/tree`'s
/// summary choice).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeMove {
    /// Summarize the part of the conversation left behind.
    pub summarize: bool,
    /// Instructions for the summary.
    pub custom_instructions: Option<String>,
    /// The instructions replace the default request.
    pub replace_instructions: Option<bool>,
    /// A label for the summary entry (or the target, without a summary).
    pub label: Option<String>,
    /// Tokens of the model's window kept free (`branchSummary.reserveTokens`;
    /// `None`: the default).
    pub reserve_tokens: Option<u64>,
}

/// A move in the tree, prepared: what the extensions are shown, the leaf it
/// goes to, and the text that comes back into the editor.
pub struct Prepared {
    /// `session_before_tree`'s `preparation`.
    pub preparation: Value,
    /// The new leaf (a user message's or a custom message's parent, else the target).
    pub new_leaf: Option<String>,
    /// That message's text, when the target is one.
    pub editor: Option<String>,
}

/// Prepare a move to `target` made as `how` says; `Err`: no such entry.
pub fn prepare(ext: &ExtSession, target: &str, how: &TreeMove) -> Result<Prepared, SessionCallError> {
    let s = ext.session.lock()?;
    let Some(entry) = s.get(target) else { return Err(SessionCallError::EntryNotFound(target.to_string())) };
    let value = entry.value();
    let editor = match value["type"].as_str() {
        Some("message") if value["message"]["role"] == "user" => Some(message_text(&value["message"]["content"])),
        Some("custom_message") => Some(message_text(&value["content"])),
        _ => None,
    };
    let new_leaf = if editor.is_some() { entry.parent_id().map(str::to_string) } else { Some(target.to_string()) };
    let old_leaf = s.leaf_id().map(str::to_string);
    let old_branch = s.branch_to(old_leaf.as_deref());
    let target_branch: Vec<&str> = s.branch_to(Some(target)).iter().map(|e| e.id()).collect();
    let common = old_branch.iter().rposition(|e| target_branch.contains(&e.id()));
    let common_id = common.map(|i| old_branch[i].id().to_string());
    let abandoned: Vec<Value> = old_branch[common.map_or(0, |i| i + 1)..].iter().map(|e| e.value()).collect();
    let preparation = json!({
        "targetId": target,
        "oldLeafId": old_leaf,
        "commonAncestorId": common_id,
        "entriesToSummarize": abandoned,
        "userWantsSummary": how.summarize,
        "customInstructions": how.custom_instructions,
        "replaceInstructions": how.replace_instructions,
        "label": how.label,
    });
    Ok(Prepared { preparation, new_leaf, editor })
}

/// Tell the extensions where the leaf went (and the summary entry made,
/// unless `summary_entry` is null).
pub async fn moved(ext: &ExtSession, old_leaf: &Value, new_leaf: Option<&str>, summary_entry: &Value) {
    let summary = (!summary_entry.is_null()).then(|| summary_entry.clone());
    let told = SessionEvent::SessionTree {
        new_leaf_id: new_leaf.map(str::to_string),
        old_leaf_id: old_leaf.clone(),
        from_extension: summary.as_ref().map(|s| s["fromHook"] == true),
        summary_entry: summary,
    };
    ext.notify(&told).await;
}

/// What moving an agent's conversation did.
#[derive(Debug)]
pub struct Moved {
    /// The chosen prompt's text when the target was a user message (it goes
    /// back into the editor).
    pub editor: Option<String>,
    /// The entries of the part of the conversation left behind.
    pub left: std::collections::HashSet<String>,
}

/// What the extensions answered to `session_before_tree`: `None` when one
/// cancelled; else `how` with their overrides, and a summary of their own
/// when the user wants one.
pub async fn ask_before(ext: &ExtSession, preparation: &Value, how: &TreeMove) -> Option<(TreeMove, Option<Value>)> {
    let mut how = how.clone();
    let mut supplied = None;
    for l in ext.scripts() {
        let asked = SessionEvent::SessionBeforeTree { preparation: preparation.clone() };
        let (answer, errors) = l.gate_answer(asked.kind(), asked.to_value()).await;
        ext.report(errors);
        let Some(answer) = answer else { continue };
        if answer["cancel"] == true {
            return None;
        }
        if how.summarize && answer["summary"].is_object() {
            supplied = Some(answer["summary"].clone());
        }
        if let Some(c) = answer.get("customInstructions").filter(|v| !v.is_null()) {
            how.custom_instructions = c.as_str().map(str::to_string);
        }
        if let Some(r) = answer.get("replaceInstructions").and_then(Value::as_bool) {
            how.replace_instructions = Some(r);
        }
        if let Some(l) = answer.get("label").filter(|v| !v.is_null()) {
            how.label = l.as_str().map(str::to_string);
        }
    }
    Some((how, supplied))
}

/// Move `agent`'s conversation to `target` (`/tree`, RPC `rewind`): the
/// extensions asked first (one may cancel, supply the summary or change how
/// it is asked for), the part left behind summarized when `how` says so
/// (the summary entry then continues from the new point), the leaf moved,
/// the agent's messages read again, the extensions told. `Ok(None)`: an
/// extension cancelled it.
pub async fn move_agent(
    agent: &mut pi_agent::Agent,
    ext: &ExtSession,
    target: &str,
    how: &TreeMove,
) -> Result<Option<Moved>, SessionCallError> {
    let Prepared { preparation, new_leaf, editor } = prepare(ext, target, how)?;
    let Some((how, supplied)) = ask_before(ext, &preparation, how).await else { return Ok(None) };
    let abandoned = preparation["entriesToSummarize"].as_array().cloned().unwrap_or_default();
    let summary = match supplied {
        Some(s) => Some((
            s["summary"].as_str().unwrap_or_default().to_string(),
            s["details"].clone(),
            s["usage"].clone(),
            true,
        )),
        None if how.summarize && !abandoned.is_empty() => {
            let request = pi_agent::compaction::BranchSummaryRequest {
                custom_instructions: how.custom_instructions.clone(),
                replace_instructions: how.replace_instructions.unwrap_or(false),
                reserve_tokens: how.reserve_tokens.unwrap_or(pi_agent::compaction::DEFAULT_BRANCH_RESERVE_TOKENS),
            };
            let made = agent.summarize_branch(&abandoned, &request).await.map_err(SessionCallError::BranchSummary)?;
            let details = json!({"readFiles": made.read_files, "modifiedFiles": made.modified_files});
            let usage = made.usage.map(|u| serde_json::to_value(u).unwrap_or_default()).unwrap_or(Value::Null);
            Some((made.summary, details, usage, false))
        }
        None => None,
    };
    let summary_entry = {
        let mut s = agent.session().lock()?;
        s.set_leaf(new_leaf.as_deref())?;
        let mut summary_entry = Value::Null;
        if let Some((text, details, usage, from_hook)) = summary {
            let mut fields = json!({"summary": text, "fromId": preparation["oldLeafId"].clone()});
            if !details.is_null() {
                fields["details"] = details;
            }
            if from_hook {
                fields["fromHook"] = json!(true);
            }
            if usage.is_object() {
                fields["usage"] = usage;
            }
            let id = s.append("branch_summary", fields)?;
            summary_entry = s.get(&id).map(|e| e.value()).unwrap_or_default();
            if let Some(label) = &how.label {
                s.append("label", json!({"targetId": id, "label": label}))?;
            }
        } else if let Some(label) = &how.label {
            s.append("label", json!({"targetId": target, "label": label}))?;
        }
        summary_entry
    };
    agent.resync_session();
    let new_leaf = agent.session().lock()?.leaf_id().map(str::to_string);
    moved(ext, &preparation["oldLeafId"], new_leaf.as_deref(), &summary_entry).await;
    let left = abandoned.iter().filter_map(|e| e["id"].as_str().map(str::to_string)).collect();
    Ok(Some(Moved { editor, left }))
}

/// The text of a message's content: a string, or its text blocks joined
/// with spaces.
pub fn message_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}
