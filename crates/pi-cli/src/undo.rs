//! Undoing the agent's last changing turn (B11), for every front end: the
//! files come back from the session's checkpoints (`pi-checkpoints`) and the
//! conversation gets a note of what was restored, so the model does not
//! build on changes that are gone.

use pi_agent::{Agent, AgentMessage, AgentOnly, CustomMessage};
use pi_checkpoints::{CheckpointError, Restored, Store, text as cp_text};

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
/// since the turn too), and note it in the conversation.
pub(crate) async fn undo(agent: &mut Agent, force: bool) -> Result<Undone, CheckpointError> {
    let ctx = agent.tool_ctx();
    let cwd = ctx.cwd.clone();
    let session = ctx.session.session_id.clone().unwrap_or_default();
    let agent_dir = ctx.session.agent_dir.clone().unwrap_or_else(pi_config::agent_dir);
    let (turn, restored) = tokio::task::spawn_blocking(move || {
        let store = Store::open(&agent_dir, &cwd, cp_text::DEFAULT_MAX_FILE_MB)?;
        pi_checkpoints::undo(&store, &session, force)
    })
    .await
    .map_err(|e| CheckpointError::Git("undo".into(), e.to_string()))??;
    let done = Undone { checkpoint: turn.before.id, restored };
    let changed = done.restored.changed();
    let note = CustomMessage {
        custom_type: RESTORE_NOTE_TYPE.to_string(),
        content: serde_json::json!(cp_text::conversation_note(done.short(), &changed)),
        display: true,
        details: Some(serde_json::json!({"checkpoint": done.checkpoint, "files": changed})),
        timestamp: pi_ai::now_ms(),
    };
    agent.record(AgentMessage::Agent(AgentOnly::Custom(note)));
    Ok(done)
}
