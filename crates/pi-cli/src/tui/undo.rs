//! `/undo` (B11): the files as they were before the agent's last turn that
//! changed them. A file changed since that turn is named and the user asked
//! whether to restore anyway; the conversation gets a note of what was
//! restored, so the model does not assume its changes are still there.

use pi_agent::{AgentMessage, AgentOnly, CustomMessage};
use pi_checkpoints::{CheckpointError, Store, text as cp_text};
use pi_tui::host::{DialogAnswer, DialogRequest, UiHandle};
use pi_tui::transcript::Level;

use super::worker::Host;

/// The custom message type of the conversation's note.
pub(crate) const RESTORE_NOTE_TYPE: &str = "checkpoint-restore";

impl Host {
    /// `/undo` (`/undo --force` restores files changed since the turn too).
    pub(super) async fn undo(&mut self, args: &str) {
        let mut force = args.trim() == "--force";
        loop {
            match self.undo_once(force).await {
                Err(CheckpointError::ChangedSince(paths)) if !force => {
                    let request = DialogRequest::Confirm {
                        title: cp_text::UNDO_CONFIRM_TITLE.to_string(),
                        message: cp_text::changed_since_question(&paths),
                    };
                    match UiHandle::new(self.up.clone()).dialog(request).await {
                        DialogAnswer::Confirmed(true) => force = true,
                        _ => return self.notice(Level::Info, cp_text::UNDO_KEPT.to_string()),
                    }
                }
                Err(e) => return self.notice(Level::Warning, e.to_string()),
                Ok(()) => return,
            }
        }
    }

    async fn undo_once(&mut self, force: bool) -> Result<(), CheckpointError> {
        let ctx = self.agent.tool_ctx();
        let (cwd, session) = (ctx.cwd.clone(), ctx.session.session_id.clone().unwrap_or_default());
        let agent_dir = self.ui.agent_dir.clone();
        let (turn, restored) = tokio::task::spawn_blocking(move || {
            let store = Store::open(&agent_dir, &cwd, cp_text::DEFAULT_MAX_FILE_MB)?;
            pi_checkpoints::undo(&store, &session, force)
        })
        .await
        .map_err(|e| CheckpointError::Git("undo".into(), e.to_string()))??;
        let short = &turn.before.id[..turn.before.id.len().min(12)];
        let changed = restored.changed();
        self.notice(Level::Info, format!("{}\n  {}", cp_text::restored(changed.len(), short), changed.join("\n  ")));
        if !restored.not_restorable.is_empty() {
            self.notice(Level::Warning, cp_text::not_restorable(&restored.not_restorable));
        }
        let note = CustomMessage {
            custom_type: RESTORE_NOTE_TYPE.to_string(),
            content: serde_json::json!(cp_text::conversation_note(short, &changed)),
            display: true,
            details: Some(serde_json::json!({"checkpoint": turn.before.id, "files": changed})),
            timestamp: pi_ai::now_ms(),
        };
        self.agent.record(AgentMessage::Agent(AgentOnly::Custom(note)));
        Ok(())
    }
}
