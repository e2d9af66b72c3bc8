//! The session stage: where the conversation is written (`--no-session`: nowhere)
//! and what it continues (`--continue`, `--session FILE`). The folder is
//! `--session-dir`, `PI_CODING_AGENT_SESSION_DIR` or the `sessionDir` setting
//! used as is, else `<agent-dir>/sessions/<folder for the cwd>`.

use std::path::{Path, PathBuf};

use pi_agent::AgentMessage;
use pi_agent::session::{self, Session};
use pi_config::Settings;

use super::report::{Report, Stop};
use crate::cli_args::CliArgs;
use crate::text;

/// The session of the run.
pub(crate) struct Opened {
    /// The session (in memory only with `--no-session`).
    pub session: Session,
    /// The conversation so far (continued sessions).
    pub history: Vec<AgentMessage>,
    /// The model and thinking level the session last used.
    pub context: pi_agent::session::SessionContext,
}

/// The folder new sessions go to.
pub(crate) fn folder(args: &CliArgs, settings: &Settings, agent_dir: &Path, cwd: &Path) -> PathBuf {
    explicit_folder(args.session_dir.as_deref(), settings)
        .unwrap_or_else(|| session::session_dir(&agent_dir.join("sessions"), cwd))
}

/// The session folder named by `--session-dir` (`flag`),
/// `PI_CODING_AGENT_SESSION_DIR` or the `sessionDir` setting, in that order;
/// `None`: the per-folder one under the agent dir.
pub(crate) fn explicit_folder(flag: Option<&str>, settings: &Settings) -> Option<PathBuf> {
    flag.map(pi_config::expand_tilde)
        .or_else(|| {
            std::env::var("PI_CODING_AGENT_SESSION_DIR")
                .ok()
                .filter(|s| !s.is_empty())
                .map(|s| pi_config::expand_tilde(&s))
        })
        .or_else(|| settings.session_dir())
}

/// Which file `--session`/`--fork` name: a path, or an id (or the start of
/// one) of a session in `dir`.
fn named_file(dir: &Path, value: &str) -> Result<PathBuf, session::SessionError> {
    let p = PathBuf::from(value);
    if p.is_file() || value.contains('/') || value.ends_with(".jsonl") {
        return Ok(p);
    }
    session::find_by_id(dir, value)
}

/// A line on standard error (the reference's bare messages).
fn report_line(line: &str) {
    eprintln!("{line}");
}

/// For a session resumed by `--session` or `--resume` (not `--continue`,
/// which runs in the current folder, nor `--fork`): its file and the folder
/// it was made in, when that folder exists and is not `cwd`.
pub(crate) fn runs_elsewhere(args: &CliArgs, session: &Session, cwd: &Path) -> Option<(String, PathBuf)> {
    if args.fork.is_some() || args.no_session || (args.session.is_none() && !args.resume) {
        return None;
    }
    let stored = PathBuf::from(session.header()["cwd"].as_str().filter(|c| !c.is_empty())?);
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    };
    if !stored.is_dir() || same(&stored, cwd) {
        return None;
    }
    let file = std::path::absolute(session.path()?).ok()?;
    Some((file.to_string_lossy().into_owned(), stored))
}

/// How `--resume` may choose.
#[derive(Debug, Clone, Default)]
pub(crate) struct Chooser {
    /// A terminal: the picker.
    pub interactive: bool,
    /// Text mode: the plain listing goes to standard output.
    pub to_stdout: bool,
    /// Where the picker's look comes from.
    pub front: super::Front,
}

/// Open (or continue) the session in `dir`.
pub(crate) fn open(
    args: &CliArgs,
    dir: &Path,
    cwd: &Path,
    chooser: Chooser,
    report: &mut Report,
) -> Result<Opened, Stop> {
    let fail = |e: session::SessionError| match e {
        // The reference prints these alone, without `Error: `.
        session::SessionError::NoMatch(_) => {
            report_line(&e.to_string());
            Stop::Exit(1)
        }
        e => Stop::Error(e.to_string()),
    };
    let create = |parent: Option<&str>| {
        let folder = (!args.no_session).then_some(dir);
        Session::create(folder, cwd, args.session_id.clone(), parent).map_err(fail)
    };
    let mut resumed = true;
    let session = if let Some(from) = &args.fork {
        // A new session that starts as a copy of another's active branch.
        let source = Session::open_read_only(&named_file(dir, from).map_err(fail)?).map_err(fail)?;
        let mut s = create(source.path().map(|p| p.to_string_lossy().into_owned()).as_deref())?;
        s.copy_branch_of(&source).map_err(fail)?;
        resumed = false;
        s
    } else if args.resume && args.session.is_none() && !args.no_session {
        let path = super::resume::choose(dir, chooser.interactive, chooser.to_stdout, &chooser.front)?;
        Session::open_to_continue(&path).map_err(fail)?
    } else if args.no_session {
        resumed = false;
        create(None)?
    } else if args.continue_session || args.session.is_some() {
        let path = match &args.session {
            Some(p) => named_file(dir, p),
            None => session::most_recent(dir).map(|(path, skipped)| {
                for bad in skipped {
                    report.warn(text::session_skipped_no_header(&bad));
                }
                path
            }),
        };
        match path {
            // A path that does not exist yet: a new session there (as the reference).
            Ok(p) if args.session.is_some() && !p.exists() && p.symlink_metadata().is_err() => {
                resumed = false;
                Session::create_at(&p, cwd).map_err(fail)?
            }
            Ok(p) => Session::open_to_continue(&p).map_err(fail)?,
            Err(session::SessionError::NoneFound(_)) if args.session.is_none() => {
                resumed = false;
                create(None)?
            }
            Err(e) => return Err(fail(e)),
        }
    } else {
        resumed = false;
        create(None)?
    };
    let mut session = if resumed {
        super::session_cwd::check(session, dir, cwd, (chooser.interactive, &chooser.front), report)?
    } else {
        session
    };
    if let Some(path) = session.path() {
        for (line, err) in &session.bad_lines {
            report.warn(text::session_bad_line(path, *line, err));
        }
    }
    let mut context = session.take_context();
    // The messages move to the agent (a 10,000-entry session is not copied twice).
    let history = std::mem::take(&mut context.messages);
    Ok(Opened { session, history, context })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_session_file_is_created_and_continue_without_one_starts_fresh() {
        let tmp = tempfile::tempdir().unwrap();
        let mut report = Report::collecting();
        let nope = tmp.path().join("nope.jsonl");
        let args = CliArgs { session: Some(nope.display().to_string()), ..Default::default() };
        let opened = open(&args, tmp.path(), tmp.path(), Chooser::default(), &mut report).unwrap();
        assert_eq!(opened.session.path(), Some(nope.as_path()), "a new session at that path, as the reference");
        let args = CliArgs { session: Some("no-such-id".into()), ..Default::default() };
        assert!(matches!(open(&args, tmp.path(), tmp.path(), Chooser::default(), &mut report), Err(Stop::Exit(1))));
        let args = CliArgs { continue_session: true, ..Default::default() };
        let opened = open(&args, &tmp.path().join("s"), tmp.path(), Chooser::default(), &mut report).unwrap();
        assert!(opened.session.path().is_some() && opened.history.is_empty());
        let none = open(
            &CliArgs { no_session: true, ..Default::default() },
            tmp.path(),
            tmp.path(),
            Chooser::default(),
            &mut report,
        );
        let none = none.unwrap();
        assert!(none.session.path().is_none() && !none.session.id().is_empty());
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
