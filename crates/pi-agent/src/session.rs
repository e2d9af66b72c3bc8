//! Sessions: JSONL version 3 files, one header line then one entry per line,
//! entries linked by `id`/`parentId`; created with mode 0600 because they hold
//! whatever passed through the conversation (prompts, file contents, secrets).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use crate::messages::AgentMessage;
use serde_json::{Value, json};

/// The session format version written.
pub const SESSION_VERSION: u64 = 3;

/// Session failures, with the file they concern.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The file or folder could not be used.
    #[error("Session file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file has no valid header.
    #[error("Session file {0} has no valid session header")]
    NoHeader(PathBuf),
    /// No session exists to continue.
    #[error("No session found in {0}")]
    NoneFound(PathBuf),
}

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

/// The current time as the sessions write it (`2026-12-02T19:01:55.960Z`).
pub fn iso_now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

fn short_id() -> String {
    let mut b = [0u8; 4];
    if getrandom::fill(&mut b).is_err() {
        let n =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        b = n.to_le_bytes();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// An open session file that entries are appended to.
#[derive(Debug)]
pub struct SessionWriter {
    path: PathBuf,
    file: File,
    /// The session's id.
    pub id: String,
    last_id: Option<String>,
}

impl SessionWriter {
    /// Create a new session file for `cwd` in `dir` (created if needed), mode 0600.
    pub fn create(dir: &Path, cwd: &Path, id: Option<String>) -> Result<Self, SessionError> {
        let io = |source| SessionError::Io { path: dir.to_path_buf(), source };
        pi_config::files::create_private_dir(dir).map_err(io)?;
        let id = id.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
        let ts = iso_now();
        let path = dir.join(format!("{}_{}.jsonl", ts.replace([':', '.'], "-"), id));
        let file = open_private(&path)?;
        let mut w = SessionWriter { path, file, id: id.clone(), last_id: None };
        w.write_line(&json!({"type": "session", "version": SESSION_VERSION, "id": id, "timestamp": ts, "cwd": cwd.to_string_lossy()}))?;
        Ok(w)
    }

    /// Reopen an existing file to append to it, continuing after its last entry.
    pub fn append_to(loaded: &LoadedSession) -> Result<Self, SessionError> {
        let file = OpenOptions::new()
            .append(true)
            .open(&loaded.path)
            .map_err(|source| SessionError::Io { path: loaded.path.clone(), source })?;
        Ok(SessionWriter { path: loaded.path.clone(), file, id: loaded.id.clone(), last_id: loaded.leaf_id.clone() })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_line(&mut self, v: &Value) -> Result<(), SessionError> {
        let mut line = serde_json::to_string(v).unwrap_or_default();
        line.push('\n');
        self.file.write_all(line.as_bytes()).map_err(|source| SessionError::Io { path: self.path.clone(), source })
    }

    /// Append an entry of `kind` with extra fields; returns its id.
    pub fn append(&mut self, kind: &str, fields: Value) -> Result<String, SessionError> {
        let id = short_id();
        let mut entry = json!({"type": kind, "id": id, "parentId": self.last_id, "timestamp": iso_now()});
        if let (Some(obj), Value::Object(extra)) = (entry.as_object_mut(), fields) {
            obj.extend(extra);
        }
        self.write_line(&entry)?;
        self.last_id = Some(id.clone());
        Ok(id)
    }

    /// Append a message entry.
    pub fn append_message(&mut self, message: &impl serde::Serialize) -> Result<String, SessionError> {
        self.append("message", json!({"message": message}))
    }
}

fn open_private(path: &Path) -> Result<File, SessionError> {
    let mut o = OpenOptions::new();
    o.create_new(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path).map_err(|source| SessionError::Io { path: path.to_path_buf(), source })
}

/// A session read back from its file.
#[derive(Debug, Clone)]
pub struct LoadedSession {
    /// The file.
    pub path: PathBuf,
    /// Session id from the header.
    pub id: String,
    /// The conversation on the current branch (leaf back to root).
    pub messages: Vec<AgentMessage>,
    /// The last entry's id.
    pub leaf_id: Option<String>,
    /// Lines that could not be read (1-based line number, reason).
    pub bad_lines: Vec<(usize, String)>,
}

/// Read a session file. Unreadable lines (a truncated last line, say) are
/// reported in `bad_lines`; everything else still loads.
pub fn load(path: &Path) -> Result<LoadedSession, SessionError> {
    // A regular file only: a FIFO or a device given as a session cannot hang
    // or flood pi.
    let io = |source| SessionError::Io { path: path.to_path_buf(), source };
    let f = pi_config::files::open_regular(path, u64::MAX)
        .map_err(io)?
        .ok_or_else(|| io(std::io::Error::from(std::io::ErrorKind::NotFound)))?;
    let mut lines = BufReader::new(f).lines();
    let header: Value = lines
        .next()
        .and_then(|l| l.ok())
        .and_then(|l| serde_json::from_str(&l).ok())
        .filter(|h: &Value| h["type"] == "session")
        .ok_or_else(|| SessionError::NoHeader(path.to_path_buf()))?;
    let id = header["id"].as_str().unwrap_or_default().to_string();
    let mut entries: Vec<Value> = Vec::new();
    let mut bad_lines = Vec::new();
    for (i, line) in lines.enumerate() {
        let n = i + 2;
        match line {
            Ok(l) if l.trim().is_empty() => {}
            Ok(l) => match serde_json::from_str::<Value>(&l) {
                Ok(v) => entries.push(v),
                Err(e) => bad_lines.push((n, e.to_string())),
            },
            Err(e) => bad_lines.push((n, e.to_string())),
        }
    }
    let leaf_id = entries.last().and_then(|e| e["id"].as_str()).map(String::from);
    let mut chain = Vec::new();
    let mut cursor = leaf_id.clone();
    while let Some(cur) = cursor {
        let Some(e) = entries.iter().find(|e| e["id"].as_str() == Some(&cur)) else { break };
        chain.push(e);
        cursor = e["parentId"].as_str().map(String::from);
        if chain.len() > entries.len() {
            break;
        }
    }
    chain.reverse();
    let messages = chain
        .iter()
        .filter(|e| e["type"] == "message")
        .filter_map(|e| serde_json::from_value::<AgentMessage>(e["message"].clone()).ok())
        .collect();
    Ok(LoadedSession { path: path.to_path_buf(), id, messages, leaf_id, bad_lines })
}

/// The most recently modified session file in `dir`.
pub fn most_recent(dir: &Path) -> Result<PathBuf, SessionError> {
    let rd = std::fs::read_dir(dir).map_err(|_| SessionError::NoneFound(dir.to_path_buf()))?;
    rd.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .max_by_key(|p| p.file_name().map(|n| n.to_os_string()))
        .ok_or_else(|| SessionError::NoneFound(dir.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_cwd_like_the_reference() {
        assert_eq!(encode_cwd(Path::new("/work/ref/w3")), "--work-ref-w3--");
    }
}
