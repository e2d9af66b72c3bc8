//! A continued session whose stored working folder no longer exists (the
//! project was moved or renamed), as the reference handles it: on a
//! terminal, a question (continue here, fork into a new session here, or
//! cancel); in the other modes, an error naming both folders.

use std::path::Path;

use pi_agent::session::Session;
use pi_tui::dialog::{Answer, SelectDialog};

use super::report::{Report, Stop};
use crate::text;

/// `session` itself, a fork of it into `dir`, or a stop.
pub(crate) fn check(
    session: Session,
    dir: &Path,
    cwd: &Path,
    (interactive, front): (bool, &super::Front),
    _report: &mut Report,
) -> Result<Session, Stop> {
    let stored = session.header()["cwd"].as_str().unwrap_or_default().to_string();
    let Some(file) = session.path().map(Path::to_path_buf) else { return Ok(session) };
    if stored.is_empty() || Path::new(&stored).exists() {
        return Ok(session);
    }
    let here = cwd.display().to_string();
    if !interactive {
        eprintln!("{}", text::missing_session_cwd(&stored, &file.display().to_string(), &here));
        return Err(Stop::Exit(1));
    }
    let options = [text::missing_cwd_continue(&here), text::missing_cwd_fork(&here), text::CANCEL.to_string()];
    let (theme, keys) = front.early_look();
    let mut dialog = SelectDialog::simple(&text::missing_session_cwd_prompt(&stored), &options);
    match pi_tui::standalone::run_dialog(&mut dialog, &theme, &keys) {
        Answer::Index(0) => Ok(session),
        Answer::Index(1) => {
            let parent = file.to_string_lossy().into_owned();
            let fail = |e: pi_agent::session::SessionError| Stop::Error(e.to_string());
            let mut fork = Session::create(Some(dir), cwd, None, Some(&parent)).map_err(fail)?;
            fork.copy_branch_of(&session).map_err(fail)?;
            Ok(fork)
        }
        _ => Err(Stop::Exit(0)),
    }
}
