//! Moving in the session tree (`ctx.navigateTree(targetId)`), as the
//! reference does: the extensions are asked first (`session_before_tree`,
//! with the move's preparation; one may cancel), the leaf moves (to the
//! parent of a user message, whose text can then be typed again; else to
//! the target), and `session_tree` tells them where it went.

use serde_json::{Value, json};

use crate::ext_session::ExtSession;
use crate::session_error::SessionCallError;

/// The move's `preparation`, and the leaf it goes to; `Err`: no such entry.
pub(crate) fn prepare(ext: &ExtSession, target: &str) -> Result<(Value, Option<String>), SessionCallError> {
    let s = ext.session.lock()?;
    let Some(entry) = s.get(target) else { return Err(SessionCallError::EntryNotFound(target.to_string())) };
    let value = entry.value();
    let to_user = value["type"] == "message" && value["message"]["role"] == "user";
    let new_leaf = if to_user { entry.parent_id().map(str::to_string) } else { Some(target.to_string()) };
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
        "userWantsSummary": false,
    });
    Ok((preparation, new_leaf))
}

/// Ask the extensions before the move; true when one cancelled it.
pub(crate) async fn cancelled(ext: &ExtSession, preparation: &Value) -> bool {
    for l in ext.scripts() {
        let (cancel, errors) = l.gate("session_before_tree", json!({"preparation": preparation})).await;
        ext.report(errors);
        if cancel {
            return true;
        }
    }
    false
}

/// Tell the extensions where the leaf went.
pub(crate) async fn moved(ext: &ExtSession, old_leaf: &Value, new_leaf: Option<&str>) {
    ext.notify("session_tree", json!({"newLeafId": new_leaf, "oldLeafId": old_leaf})).await;
}

/// What moving an agent's conversation did.
pub(crate) struct Moved {
    /// The chosen prompt's text when the target was a user message (it goes
    /// back into the editor).
    pub editor: Option<String>,
    /// The entries of the part of the conversation left behind.
    pub left: std::collections::HashSet<String>,
}

/// Move `agent`'s conversation to `target` (`/tree`, RPC `rewind`): the
/// extensions asked first, the leaf moved, the agent's messages read again,
/// the extensions told. `Ok(None)`: an extension cancelled it.
pub(crate) async fn move_agent(
    agent: &mut pi_agent::Agent,
    ext: &ExtSession,
    target: &str,
) -> Result<Option<Moved>, SessionCallError> {
    let (preparation, new_leaf) = prepare(ext, target)?;
    if cancelled(ext, &preparation).await {
        return Ok(None);
    }
    let editor = {
        let mut s = agent.session().lock()?;
        let message = s.get(target).filter(|e| e.kind() == "message").map(|e| e.field("message"));
        let editor = message.filter(|m| m["role"] == "user").map(|m| message_text(&m["content"]));
        s.set_leaf(new_leaf.as_deref())?;
        editor
    };
    agent.resync_session();
    moved(ext, &preparation["oldLeafId"], new_leaf.as_deref()).await;
    let left = preparation["entriesToSummarize"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["id"].as_str().map(str::to_string))
        .collect();
    Ok(Some(Moved { editor, left }))
}

/// The text of a message's content: a string, or its text blocks joined
/// with spaces.
pub(crate) fn message_text(content: &Value) -> String {
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
