//! Where sessions live and how they are found: one folder per working folder
//! under `<agent-dir>/sessions`, files named `<timestamp>_<id>.jsonl`.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::SessionError;

pub use pi_config::files::encode_cwd;

/// The folder holding `cwd`'s sessions under `sessions_root`.
pub fn session_dir(sessions_root: &Path, cwd: &Path) -> PathBuf {
    sessions_root.join(encode_cwd(cwd))
}

/// Create `path` exclusively with mode 0600, for appending and reading.
pub(super) fn open_private(path: &Path) -> Result<File, SessionError> {
    let mut o = std::fs::OpenOptions::new();
    o.create_new(true).append(true).read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(pi_config::files::PRIVATE_FILE_MODE);
    }
    o.open(path).map_err(|source| SessionError::Io { path: path.to_path_buf(), source })
}

/// Open an existing session file for appending. A file whose last line was
/// torn (no final newline) gets one first, so the next entry starts on its
/// own line instead of being glued to the broken one.
pub(super) fn open_for_append(path: &Path) -> Result<File, SessionError> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let io = |source| SessionError::Io { path: path.to_path_buf(), source };
    let mut file = std::fs::OpenOptions::new().read(true).append(true).open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1)).map_err(io)?;
        file.read_exact(&mut last).map_err(io)?;
        if last[0] != b'\n' {
            file.write_all(b"\n").map_err(io)?;
        }
    }
    Ok(file)
}

fn session_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> =
        rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    out.sort();
    out
}

/// The longest first line read when a file's header is checked.
pub const HEADER_LINE_LIMIT: u64 = 1024 * 1024;

/// The most recent session in `dir` (names start with their creation time),
/// and the newer `.jsonl` files passed over because they have no valid
/// session header (garbage, a FIFO, a folder): one bad file does not block
/// continuing, as in the reference.
pub fn most_recent(dir: &Path) -> Result<(PathBuf, Vec<PathBuf>), SessionError> {
    let mut skipped = Vec::new();
    for path in session_files(dir).into_iter().rev() {
        if has_session_header(&path) {
            return Ok((path, skipped));
        }
        skipped.push(path);
    }
    Err(SessionError::NoneFound(dir.to_path_buf()))
}

/// Whether `path` is a regular file whose first line is a session header
/// (read lightly: that line only, at most [`HEADER_LINE_LIMIT`] bytes).
pub fn has_session_header(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(Some(file)) = pi_config::files::open_regular(path, u64::MAX) else { return false };
    let mut line = Vec::new();
    if std::io::BufReader::new(file.take(HEADER_LINE_LIMIT)).read_until(b'\n', &mut line).is_err() {
        return false;
    }
    serde_json::from_slice::<Value>(line.trim_ascii_end()).is_ok_and(|h| h["type"] == "session")
}

/// What a session listing shows of one session (the `--resume` picker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// The file.
    pub path: PathBuf,
    /// The session id.
    pub id: String,
    /// The folder the session ran in (the header's `cwd`).
    pub cwd: String,
    /// Its display name, if set (the latest `session_info`; a blank one clears it).
    pub name: Option<String>,
    /// The first user message's text.
    pub first_message: Option<String>,
    /// The text of every user and assistant message, joined by spaces (searched).
    pub all_text: String,
    /// `message` entries in the file.
    pub message_count: usize,
    /// The header's time.
    pub created: String,
    /// Last activity in ms since the epoch: the latest user or assistant
    /// message's time, else the header's, else the file's modification time.
    pub modified_ms: i64,
    /// The session it was forked from (the header's `parentSession`).
    pub parent_session: Option<String>,
}

/// The sessions in `dir`, most recently active first, read lightly (header,
/// names, message texts, a count of messages). Files that are not sessions
/// are left out.
pub fn list_sessions(dir: &Path) -> Vec<SessionInfo> {
    let mut out: Vec<SessionInfo> = session_files(dir).into_iter().filter_map(|p| info(&p)).collect();
    out.reverse();
    out.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
    out
}

/// Milliseconds since the epoch of an ISO time.
fn iso_ms(iso: &str) -> Option<i64> {
    let t = humantime::parse_rfc3339_weak(iso.trim_end_matches('Z')).ok()?;
    t.duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_millis() as i64)
}

fn info(path: &Path) -> Option<SessionInfo> {
    let s = super::Session::open_read_only(path).ok()?;
    let mut first_message = None;
    let mut message_count = 0;
    let mut texts: Vec<String> = Vec::new();
    let mut last_activity: Option<i64> = None;
    let mut name = None;
    for entry in s.entries() {
        if entry.kind() == "session_info" {
            name = entry.field("name").as_str().map(str::trim).filter(|n| !n.is_empty()).map(String::from);
        }
        if entry.kind() != "message" {
            continue;
        }
        message_count += 1;
        let e = entry.value();
        let m = &e["message"];
        if !matches!(m["role"].as_str(), Some("user" | "assistant")) || m.get("content").is_none() {
            continue;
        }
        let at = m["timestamp"].as_i64().or_else(|| e["timestamp"].as_str().and_then(iso_ms));
        if let Some(at) = at {
            last_activity = Some(last_activity.unwrap_or(0).max(at));
        }
        let text = text_of(&m["content"]);
        if text.is_empty() {
            continue;
        }
        if first_message.is_none() && m["role"] == "user" {
            first_message = Some(text.clone());
        }
        texts.push(text);
    }
    let header = s.header();
    let created = header["timestamp"].as_str().unwrap_or_default().to_string();
    let file_time = || {
        let m = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
        m.duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_millis() as i64)
    };
    let modified_ms =
        last_activity.filter(|t| *t > 0).or_else(|| iso_ms(&created)).or_else(file_time).unwrap_or_default();
    Some(SessionInfo {
        path: path.to_path_buf(),
        id: s.id().to_string(),
        cwd: header["cwd"].as_str().unwrap_or_default().to_string(),
        name,
        first_message,
        all_text: texts.join(" "),
        message_count,
        created,
        modified_ms,
        parent_session: header["parentSession"].as_str().map(String::from),
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
