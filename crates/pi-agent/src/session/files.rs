//! Where sessions live and how they are found: one folder per working folder
//! under `<agent-dir>/sessions`, files named `<timestamp>_<id>.jsonl`.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::SessionError;

/// `--<cwd without leading separator, with / \ : replaced by ->--`.
pub fn encode_cwd(cwd: &Path) -> String {
    let s = cwd.to_string_lossy();
    let s = s.trim_start_matches(['/', '\\']);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

/// The folder holding `cwd`'s sessions under `sessions_root`.
pub fn session_dir(sessions_root: &Path, cwd: &Path) -> PathBuf {
    sessions_root.join(encode_cwd(cwd))
}

/// Create `path` exclusively with mode 0600.
pub(super) fn open_private(path: &Path) -> Result<File, SessionError> {
    let mut o = std::fs::OpenOptions::new();
    o.create_new(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(pi_config::files::PRIVATE_FILE_MODE);
    }
    o.open(path).map_err(|source| SessionError::Io { path: path.to_path_buf(), source })
}

fn session_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> =
        rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    out.sort();
    out
}

/// The most recent session file in `dir` (names start with their creation time).
pub fn most_recent(dir: &Path) -> Result<PathBuf, SessionError> {
    session_files(dir).pop().ok_or_else(|| SessionError::NoneFound(dir.to_path_buf()))
}

/// What a session listing shows of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    /// The file.
    pub path: PathBuf,
    /// The session id.
    pub id: String,
    /// Its display name, if set.
    pub name: Option<String>,
    /// The first user message's text (shortened by the caller).
    pub first_message: Option<String>,
    /// Messages in the file.
    pub message_count: usize,
    /// The header's time.
    pub created: String,
}

/// The sessions in `dir`, newest first, read lightly (header, names, the
/// first user message, a count of messages).
pub fn list_sessions(dir: &Path) -> Vec<SessionInfo> {
    let mut out: Vec<SessionInfo> = session_files(dir).into_iter().filter_map(|p| info(&p)).collect();
    out.reverse();
    out
}

fn info(path: &Path) -> Option<SessionInfo> {
    let s = super::Session::open_read_only(path).ok()?;
    let mut first_message = None;
    let mut message_count = 0;
    for e in s.entries() {
        if e["type"] != "message" {
            continue;
        }
        message_count += 1;
        if first_message.is_none() && e["message"]["role"] == "user" {
            first_message = Some(text_of(&e["message"]["content"]));
        }
    }
    Some(SessionInfo {
        path: path.to_path_buf(),
        id: s.id().to_string(),
        name: s.name(),
        first_message,
        message_count,
        created: s.header()["timestamp"].as_str().unwrap_or_default().to_string(),
    })
}

/// The text of a user message's content (a string or text blocks).
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join(""),
        _ => String::new(),
    }
}

/// The session in `dir` whose id is `id` or starts with it.
pub fn find_by_id(dir: &Path, id: &str) -> Result<PathBuf, SessionError> {
    let hits: Vec<PathBuf> = session_files(dir)
        .into_iter()
        .filter(|p| {
            let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            name.split_once('_').is_some_and(|(_, sid)| sid.starts_with(id))
        })
        .collect();
    match hits.len() {
        0 => Err(SessionError::NoMatch(id.to_string())),
        1 => Ok(hits.into_iter().next().unwrap_or_default()),
        _ => Err(SessionError::Ambiguous(id.to_string())),
    }
}
