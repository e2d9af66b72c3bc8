//! `--resume`: choose one of this folder's sessions. On a terminal, the
//! picker (a pi-tui dialog shown before the UI starts); escape ends the run
//! with `No session selected`, as the reference. Without a terminal there is
//! nothing to choose with: the sessions are listed (most recent first) and
//! the run ends the same way (the reference draws its picker to the pipe
//! and ends when input does).

use std::io::Write;
use std::path::{Path, PathBuf};

use pi_agent::session::{SessionInfo, list_sessions};
use pi_tui::dialog::{Answer, SessionPicker, sessions::age};

use super::report::Stop;
use crate::text;

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// One line of the plain listing.
fn plain_row(s: &SessionInfo, now: i64) -> String {
    let shown = s.name.clone().or_else(|| s.first_message.clone()).unwrap_or_else(|| text::NO_MESSAGES.into());
    let shown: String = shown.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let shown: String = shown.trim().chars().take(text::RESUME_LIST_WIDTH).collect();
    text::resume_list_row(&shown, s.message_count, &age(now, s.modified_ms), &s.path.display().to_string())
}

/// The chosen session file; `Stop::Exit(0)` when none was chosen.
pub(crate) fn choose(dir: &Path, interactive: bool, to_stdout: bool, front: &super::Front) -> Result<PathBuf, Stop> {
    let sessions = list_sessions(dir);
    let now = now_ms();
    if interactive {
        let (theme, keys) = front.early_look();
        let mut picker = SessionPicker::new(sessions.clone(), now);
        if let Answer::Index(i) = pi_tui::standalone::run_dialog(&mut picker, &theme, &keys)
            && let Some(s) = sessions.get(i)
        {
            return Ok(s.path.clone());
        }
        println!("{}", text::NO_SESSION_SELECTED);
        return Err(Stop::Exit(0));
    }
    let mut listing = String::new();
    for s in &sessions {
        listing.push_str(&plain_row(s, now));
        listing.push('\n');
    }
    if sessions.is_empty() {
        listing.push_str(&text::no_sessions_in(dir));
        listing.push('\n');
    }
    listing.push_str(text::NO_SESSION_SELECTED);
    listing.push('\n');
    let _ = if to_stdout {
        std::io::stdout().write_all(listing.as_bytes())
    } else {
        std::io::stderr().write_all(listing.as_bytes())
    };
    Err(Stop::Exit(0))
}
