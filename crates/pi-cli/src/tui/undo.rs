//! `/undo` in the terminal UI (B11, [`crate::undo`]): a file changed since
//! the turn is named and the user asked whether to restore anyway.

use pi_checkpoints::{CheckpointError, text as cp_text};
use pi_tui::host::{DialogAnswer, DialogRequest, UiHandle};
use pi_tui::transcript::Level;

use super::worker::Host;

impl Host {
    /// `/undo` (`/undo --force` restores files changed since the turn too).
    pub(super) async fn undo(&mut self, args: &str) {
        let mut force = args.trim() == "--force";
        loop {
            match crate::undo::undo(&mut self.agent, &self.ext, force).await {
                Err(CheckpointError::ChangedSince(paths)) if !force => {
                    let request = DialogRequest::Confirm {
                        title: cp_text::UNDO_CONFIRM_TITLE.to_string(),
                        message: cp_text::changed_since_question(&paths),
                    };
                    match UiHandle::new(self.up.clone()).dialog(request).await {
                        DialogAnswer::Confirmed(true) => force = true,
                        _ => return self.notice(Level::Info, cp_text::UNDO_KEPT),
                    }
                }
                Err(e) => return self.notice(Level::Warning, e.to_string()),
                Ok(done) => return self.restored_notice(&done),
            }
        }
    }

    /// What a restore did, as notices.
    pub(super) fn restored_notice(&mut self, done: &crate::undo::Undone) {
        let changed = done.restored.changed();
        let restored = cp_text::restored(changed.len(), done.short());
        self.notice(Level::Info, format!("{restored}\n  {}", changed.join("\n  ")));
        if !done.restored.not_restorable.is_empty() {
            self.notice(Level::Warning, cp_text::not_restorable(&done.restored.not_restorable));
        }
    }
}
