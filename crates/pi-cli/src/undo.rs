//! Undoing the agent's last changing turn (B11), for every front end: the
//! files come back from the session's checkpoints (`pi-checkpoints`) and the
//! conversation gets a note of what was restored, so the model does not
//! build on changes that are gone.

use pi_agent::{Agent, AgentMessage, AgentOnly, CustomMessage};
use pi_checkpoints::{CheckpointError, Restored, Store, text as cp_text};

use crate::ext_session::ExtSession;

/// The custom message type of the conversation's note.
pub(crate) const RESTORE_NOTE_TYPE: &str = "checkpoint-restore";

/// What an undo did.
pub(crate) struct Undone {
    /// The checkpoint the files came back from (its full id).
    pub checkpoint: String,
    /// What was written, removed, or could not be restored.
    pub restored: Restored,
}

impl Undone {
    /// The checkpoint's short id, as messages show it.
    pub fn short(&self) -> &str {
        &self.checkpoint[..self.checkpoint.len().min(12)]
    }

    /// The answer as RPC gives it.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "checkpoint": self.checkpoint,
            "restored": self.restored.changed(),
            "notRestorable": self.restored.not_restorable,
        })
    }
}

/// Undo the last changing turn of `agent`'s session (`force`: files changed
/// since the turn too), and note it in the conversation. The extensions are
/// asked first (`session_before_restore`, which may cancel) and told after
/// (`session_restore`).
pub(crate) async fn undo(agent: &mut Agent, ext: &ExtSession, force: bool) -> Result<Undone, CheckpointError> {
    let ctx = agent.tool_ctx();
    let cwd = ctx.cwd.clone();
    let session = ctx.session.session_id.clone().unwrap_or_default();
    let agent_dir = ctx.session.agent_dir.clone().unwrap_or_else(pi_config::agent_dir);
    let (store, plan) = {
        let session = session.clone();
        blocking(move || {
            let store = Store::open(&agent_dir, &cwd, cp_text::DEFAULT_MAX_FILE_MB)?;
            let plan = pi_checkpoints::plan_undo(&store, &session)?;
            Ok((store, plan))
        })
        .await?
    };
    let asked = serde_json::json!({"reason": "undo", "checkpoint": plan.turn.before.id, "files": plan.files});
    for l in ext.scripts() {
        let (cancel, errors) = l.gate("session_before_restore", asked.clone()).await;
        ext.report(errors);
        if cancel {
            return Err(CheckpointError::Cancelled);
        }
    }
    let (before, after) = (plan.turn.before.clone(), plan.after.clone());
    let restored = blocking(move || store.restore(&session, &before, &after, force)).await?;
    let done = Undone { checkpoint: plan.turn.before.id, restored };
    let changed = done.restored.changed();
    let note = CustomMessage {
        custom_type: RESTORE_NOTE_TYPE.to_string(),
        content: serde_json::json!(cp_text::conversation_note(done.short(), &changed)),
        display: true,
        details: Some(serde_json::json!({"checkpoint": done.checkpoint, "files": changed})),
        timestamp: pi_ai::now_ms(),
    };
    agent.record(AgentMessage::Agent(AgentOnly::Custom(note)));
    let mut told = done.json();
    told["reason"] = serde_json::json!("undo");
    ext.notify("session_restore", told).await;
    Ok(done)
}

/// Run blocking store work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CheckpointError> + Send + 'static,
) -> Result<T, CheckpointError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(CheckpointError::Git("undo".into(), e.to_string())))
}
