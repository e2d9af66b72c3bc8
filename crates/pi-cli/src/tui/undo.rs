//! `/undo` in the terminal UI (B11, [`pi_runtime::undo`]): a file changed since
//! the turn is named and the user asked whether to restore anyway.

use pi_checkpoints::{CheckpointError, text as cp_text};
use pi_runtime::{Op, OpError, Outcome};
use pi_tui::host::{DialogAnswer, DialogRequest, UiHandle};
use pi_tui::transcript::Level;

use super::worker::Host;

impl Host {
    /// `/undo` (`/undo --force` restores files changed since the turn too).
    pub(super) async fn undo(&mut self, args: &str) {
        let mut force = args.trim() == "--force";
        // What would change is shown first (`--force`: restore at once).
        if !force {
            match pi_runtime::undo::preview_undo(self.rt.agent()).await {
                Ok(preview) => {
                    let request =
                        DialogRequest::Confirm { title: cp_text::UNDO_TITLE.to_string(), message: preview.text() };
                    if UiHandle::new(self.up.clone()).dialog(request).await != DialogAnswer::Confirmed(true) {
                        return self.notice(Level::Info, cp_text::UNDO_KEPT);
                    }
                }
                Err(e) => return self.notice(Level::Warning, e.to_string()),
            }
        }
        loop {
            let attempt = self.rt.apply(Op::Undo { force }).await;
            if !self.after_restore(attempt, force).await {
                return;
            }
            force = true;
        }
    }

    /// Say what a restore attempt did; true when files changed since the
    /// turn stopped it and the user said to restore them anyway.
    pub(super) async fn after_restore(&mut self, attempt: Result<Outcome, OpError>, forced: bool) -> bool {
        match attempt {
            Err(OpError::Checkpoint(CheckpointError::ChangedSince(paths))) if !forced => {
                let request = DialogRequest::Confirm {
                    title: cp_text::UNDO_CONFIRM_TITLE.to_string(),
                    message: cp_text::changed_since_question(&paths),
                };
                let again = UiHandle::new(self.up.clone()).dialog(request).await == DialogAnswer::Confirmed(true);
                if !again {
                    self.notice(Level::Info, cp_text::UNDO_KEPT);
                }
                again
            }
            Err(e) => {
                self.notice(Level::Warning, e.to_string());
                false
            }
            Ok(Outcome::Restored(Some(done))) => {
                self.restored_notice(&done);
                false
            }
            Ok(_) => false,
        }
    }

    /// What a restore did, as notices.
    pub(super) fn restored_notice(&mut self, done: &pi_runtime::undo::Undone) {
        let changed = done.restored.changed();
        let restored = cp_text::restored(changed.len(), done.short());
        self.notice(Level::Info, format!("{restored}\n  {}", changed.join("\n  ")));
        if !done.restored.not_restorable.is_empty() {
            self.notice(Level::Warning, cp_text::not_restorable(&done.restored.not_restorable));
        }
    }
}
