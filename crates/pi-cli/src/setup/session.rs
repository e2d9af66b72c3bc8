//! The session stage: where the conversation is written (`--no-session`: nowhere)
//! and what it continues (`--continue`, `--session FILE`). The folder is
//! `--session-dir`, `PI_CODING_AGENT_SESSION_DIR` or the `sessionDir` setting
//! used as is, else `<agent-dir>/sessions/<folder for the cwd>`.

use std::path::{Path, PathBuf};

use pi_agent::AgentMessage;
use pi_agent::session::{self, SessionWriter};
use pi_config::Settings;

use super::report::{Report, Stop};
use crate::cli_args::CliArgs;
use crate::text;

/// The session of the run.
pub(crate) struct Opened {
    /// The writer (`None` with `--no-session`).
    pub writer: Option<SessionWriter>,
    /// The conversation so far (continued sessions).
    pub history: Vec<AgentMessage>,
    /// The session's id.
    pub id: String,
    /// The session file.
    pub file: Option<String>,
}

/// The folder new sessions go to.
pub(crate) fn folder(args: &CliArgs, settings: &Settings, agent_dir: &Path, cwd: &Path) -> PathBuf {
    let explicit = args
        .session_dir
        .as_deref()
        .map(pi_config::expand_tilde)
        .or_else(|| {
            std::env::var("PI_CODING_AGENT_SESSION_DIR")
                .ok()
                .filter(|s| !s.is_empty())
                .map(|s| pi_config::expand_tilde(&s))
        })
        .or_else(|| settings.session_dir());
    explicit.unwrap_or_else(|| session::session_dir(&agent_dir.join("sessions"), cwd))
}

/// Open (or continue) the session in `dir`.
pub(crate) fn open(args: &CliArgs, dir: &Path, cwd: &Path, report: &mut Report) -> Result<Opened, Stop> {
    let fail = |e: session::SessionError| Stop::Error(e.to_string());
    let mut history = Vec::new();
    let writer = if args.no_session {
        None
    } else if args.continue_session || args.session.is_some() {
        let path = match &args.session {
            Some(p) => Ok(PathBuf::from(p)),
            None => session::most_recent(dir),
        };
        match path.and_then(|p| session::load(&p)) {
            Ok(loaded) => {
                for (line, err) in &loaded.bad_lines {
                    report.warn(text::session_bad_line(&loaded.path, *line, err));
                }
                history = loaded.messages.clone();
                Some(SessionWriter::append_to(&loaded).map_err(fail)?)
            }
            Err(session::SessionError::NoneFound(_)) if args.session.is_none() => {
                Some(SessionWriter::create(dir, cwd, args.session_id.clone()).map_err(fail)?)
            }
            Err(e) => return Err(fail(e)),
        }
    } else {
        Some(SessionWriter::create(dir, cwd, args.session_id.clone()).map_err(fail)?)
    };
    let id = writer.as_ref().map(|w| w.id.clone()).unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let file = writer.as_ref().map(|w| w.path().to_string_lossy().into_owned());
    Ok(Opened { writer, history, id, file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_session_file_stops_and_continue_without_one_starts_fresh() {
        let tmp = tempfile::tempdir().unwrap();
        let mut report = Report::collecting();
        let args = CliArgs { session: Some(tmp.path().join("nope.jsonl").display().to_string()), ..Default::default() };
        assert!(matches!(open(&args, tmp.path(), tmp.path(), &mut report), Err(Stop::Error(_))));
        let args = CliArgs { continue_session: true, ..Default::default() };
        let opened = open(&args, &tmp.path().join("s"), tmp.path(), &mut report).unwrap();
        assert!(opened.writer.is_some() && opened.history.is_empty());
        let none = open(&CliArgs { no_session: true, ..Default::default() }, tmp.path(), tmp.path(), &mut report);
        let none = none.unwrap();
        assert!(none.writer.is_none() && none.file.is_none() && !none.id.is_empty());
    }

    #[test]
    fn the_setting_is_used_as_is_and_the_flag_wins() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("settings.json"), r#"{"sessionDir": "/tmp/from-settings"}"#).unwrap();
        let settings = Settings::load(tmp.path(), tmp.path(), false).0;
        let args = CliArgs::default();
        assert_eq!(folder(&args, &settings, tmp.path(), tmp.path()), PathBuf::from("/tmp/from-settings"));
        let args = CliArgs { session_dir: Some("/tmp/flag".into()), ..Default::default() };
        assert_eq!(folder(&args, &settings, tmp.path(), tmp.path()), PathBuf::from("/tmp/flag"));
    }
}
