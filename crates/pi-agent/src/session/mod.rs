//! Sessions: JSONL version 3 files (the reference's format): a header line,
//! then entries linked by `id`/`parentId` into a tree. The *leaf* is the
//! current position; the path from the root to it is the active branch, from
//! which the model's context is built (honouring the latest compaction).
//! Entries are kept as the lines of JSON they were read or written as
//! (parsed when asked for), so a file written by the reference round-trips
//! whatever fields it has and a long session costs about its file's size. Files are
//! created 0600 in 0700 folders because they hold everything that passed
//! through the conversation. A session without a file (`--no-session`)
//! keeps its tree in memory only.

mod context;
mod entry;
mod files;
mod index;
mod load;
mod message_line;
mod stored;
mod tree;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

pub use context::SessionContext;
pub(crate) use context::{message_of, message_of_value};
pub use entry::Entry;
pub use files::{
    HEADER_LINE_LIMIT, SessionInfo, encode_cwd, find_by_id, has_session_header, list_sessions, most_recent, session_dir,
};

/// The session format version written (older ones are read).
pub const SESSION_VERSION: u64 = 3;

/// Entries (and context messages) a loaded session has room for before its
/// lists grow: a turn's worth, so continuing a long session does not double
/// a list of thousands at its first prompt.
pub const SESSION_GROWTH_ROOM: usize = 64;

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
    /// The file was written by a newer version of the format.
    #[error("Session file {path} has version {version}; this pi reads versions up to {SESSION_VERSION}")]
    TooNew {
        /// The file.
        path: PathBuf,
        /// Its version.
        version: u64,
    },
    /// No session exists to continue.
    #[error("No session found in {0}")]
    NoneFound(PathBuf),
    /// No session matches an id or a prefix of one (the reference's words).
    #[error("No session found matching '{0}'")]
    NoMatch(String),
    /// An id prefix matches several sessions.
    #[error("\"{0}\" matches several sessions; give more of the id")]
    Ambiguous(String),
    /// An entry id that is not in the session.
    #[error("Entry {0} not found")]
    NoEntry(String),
}

/// The current time as the sessions write it (`2026-12-02T19:01:55.960Z`).
pub fn iso_now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// The error a line that is not UTF-8 reads as (`BufRead::lines`' own).
fn invalid_utf8() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, crate::text::SESSION_LINE_NOT_UTF8)
}

/// A new entry id: 8 hex digits, as the reference's.
fn short_id() -> String {
    let mut b = [0u8; 4];
    if getrandom::fill(&mut b).is_err() {
        let n =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        b = n.to_le_bytes();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A session: its header, its entries in append order, the leaf, and the
/// file entries are appended to (when persisted).
#[derive(Debug)]
pub struct Session {
    header: Value,
    entries: Vec<Entry>,
    index: index::IdIndex,
    leaf: Option<String>,
    path: Option<PathBuf>,
    /// The file, open for appending and reading (long lines written to it
    /// are read back from it: see [`stored`]).
    file: Option<Arc<File>>,
    /// Lines of a loaded file that could not be read: (line number, why).
    pub bad_lines: Vec<(usize, String)>,
    /// Messages read with the entries, for the first context (see
    /// [`Session::open_to_continue`]).
    preparsed: load::Preparsed,
}

impl Session {
    /// A new session for `cwd`: in `dir` (created 0700 if needed, the file
    /// 0600) or, without a folder, in memory only.
    pub fn create(
        dir: Option<&Path>,
        cwd: &Path,
        id: Option<String>,
        parent_session: Option<&str>,
    ) -> Result<Session, SessionError> {
        let id = id.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
        let ts = iso_now();
        let mut header = json!({"type": "session", "version": SESSION_VERSION, "id": id, "timestamp": ts, "cwd": cwd.to_string_lossy()});
        if let Some(p) = parent_session {
            header["parentSession"] = json!(p);
        }
        let mut s = Session {
            header,
            entries: Vec::new(),
            index: index::IdIndex::default(),
            leaf: None,
            path: None,
            file: None,
            bad_lines: Vec::new(),
            preparsed: load::Preparsed::default(),
        };
        if let Some(dir) = dir {
            let io = |source| SessionError::Io { path: dir.to_path_buf(), source };
            pi_config::files::create_private_dir(dir).map_err(io)?;
            let path = dir.join(format!("{}_{}.jsonl", ts.replace([':', '.'], "-"), id));
            let file = files::open_private(&path)?;
            let line = format!("{}\n", s.header);
            (&file).write_all(line.as_bytes()).map_err(|source| SessionError::Io { path: path.clone(), source })?;
            s.path = Some(path);
            s.file = Some(Arc::new(file));
        }
        Ok(s)
    }

    /// A new, empty session written to exactly `path` (RPC `switch_session`
    /// to a file that does not exist yet).
    pub fn create_at(path: &Path, cwd: &Path) -> Result<Session, SessionError> {
        let mut s = Session::in_memory();
        s.header["cwd"] = json!(cwd.to_string_lossy());
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            pi_config::files::create_private_dir(dir)
                .map_err(|source| SessionError::Io { path: dir.to_path_buf(), source })?;
        }
        let file = files::open_private(path)?;
        (&file)
            .write_all(format!("{}\n", s.header).as_bytes())
            .map_err(|source| SessionError::Io { path: path.to_path_buf(), source })?;
        s.path = Some(path.to_path_buf());
        s.file = Some(Arc::new(file));
        Ok(s)
    }

    /// A session kept in memory only (`--no-session`, tests).
    pub fn in_memory() -> Session {
        Session {
            header: json!({"type": "session", "version": SESSION_VERSION, "id": uuid::Uuid::now_v7().to_string(), "timestamp": iso_now(), "cwd": ""}),
            entries: Vec::new(),
            index: index::IdIndex::default(),
            leaf: None,
            path: None,
            file: None,
            bad_lines: Vec::new(),
            preparsed: load::Preparsed::default(),
        }
    }

    /// Open a session file to continue it: every readable entry is loaded
    /// (a torn or bad line is recorded in `bad_lines` and skipped), the leaf
    /// is the last entry, and new entries are appended to the file.
    pub fn open(path: &Path) -> Result<Session, SessionError> {
        let mut s = Session::open_read_only(path)?;
        s.file = Some(Arc::new(files::open_for_append(path)?));
        Ok(s)
    }

    /// [`Session::open`] for continuing the session at once: the messages of
    /// its `message` entries are read with them, in the same pass, for the
    /// first [`Session::take_context`] (which uses them, or drops them when
    /// it is asked for another branch than the file's own order).
    pub fn open_to_continue(path: &Path) -> Result<Session, SessionError> {
        let mut s = Session::read(path, true)?;
        s.file = Some(Arc::new(files::open_for_append(path)?));
        Ok(s)
    }

    /// Load a session file without opening it for appending.
    pub fn open_read_only(path: &Path) -> Result<Session, SessionError> {
        Session::read(path, false)
    }

    /// Load a session file (with `messages`, see [`Session::open_to_continue`]).
    fn read(path: &Path, messages: bool) -> Result<Session, SessionError> {
        let io = |source| SessionError::Io { path: path.to_path_buf(), source };
        let f = pi_config::files::open_regular(path, u64::MAX)
            .map_err(io)?
            .ok_or_else(|| io(std::io::Error::from(std::io::ErrorKind::NotFound)))?;
        let file = std::sync::Arc::new(f);
        let mut lines = load::Lines::new(&file, 0, u64::MAX);
        let header: Value = lines
            .next_line()
            .and_then(|(_, l)| l.ok())
            .and_then(|l| serde_json::from_str(&l).ok())
            .filter(|h: &Value| h["type"] == "session")
            .ok_or_else(|| SessionError::NoHeader(path.to_path_buf()))?;
        let version = header["version"].as_u64().unwrap_or(1);
        if version > SESSION_VERSION {
            return Err(SessionError::TooNew { path: path.to_path_buf(), version });
        }
        let mut s = Session {
            header,
            entries: Vec::new(),
            index: index::IdIndex::default(),
            leaf: None,
            path: Some(path.to_path_buf()),
            file: None,
            bad_lines: Vec::new(),
            preparsed: load::Preparsed::default(),
        };
        // Older versions are rewritten on load: their lines are held.
        let in_file = version == SESSION_VERSION;
        let mut line = 1;
        let (parts, preparsed) = load::load(&file, lines.position(), in_file, messages && in_file);
        s.preparsed = preparsed;
        for part in parts {
            s.bad_lines.extend(part.bad.into_iter().map(|(n, why)| (line + n, why)));
            line += part.lines;
            if s.entries.is_empty() {
                s.entries = part.entries;
            } else {
                s.entries.extend(part.entries);
            }
        }
        s.give_ids();
        s.index = index::IdIndex::of(&s.entries);
        s.leaf = s.entries.last().map(|e| e.id().to_string());
        // (Doubling growth leaves up to half of a long session's list unused.)
        s.entries.shrink_to(s.entries.len() + SESSION_GROWTH_ROOM);
        if version < SESSION_VERSION {
            s.migrate();
        }
        Ok(s)
    }

    /// Give loaded entries without an id (version 1 files) one, their
    /// parent being the entry before them.
    fn give_ids(&mut self) {
        for at in 0..self.entries.len() {
            if self.entries[at].has_id() {
                continue;
            }
            let mut v = self.entries[at].value();
            v["id"] = json!(short_id());
            v["parentId"] = json!(at.checked_sub(1).map(|p| self.entries[p].id()));
            if let Some(e) = Entry::from_value(&v) {
                self.entries[at] = e;
            }
        }
    }

    /// Add an entry in memory; it becomes the leaf.
    fn push_entry(&mut self, e: Entry) {
        let id = e.id().to_string();
        self.entries.push(e);
        self.index.insert(&self.entries, self.entries.len() - 1);
        self.leaf = Some(id);
    }

    /// Older versions: v1 was a linear list (ids given on load), v2 called
    /// the extensions' messages `hookMessage`.
    fn migrate(&mut self) {
        for e in &mut self.entries {
            if e.kind() != "message" || !e.line().contains("hookMessage") {
                continue;
            }
            let mut v = e.value();
            if v["message"]["role"] == "hookMessage" {
                v["message"]["role"] = json!("custom");
                *e = Entry::from_value(&v).unwrap_or_else(|| e.clone());
            }
        }
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        self.header["id"].as_str().unwrap_or_default()
    }

    /// The header line.
    pub fn header(&self) -> &Value {
        &self.header
    }

    /// The file, when persisted.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Every entry in append order (the header excluded).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// An entry by id.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.index.get(id, &self.entries).and_then(|i| self.entries.get(i))
    }

    /// The current position.
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf.as_deref()
    }

    /// Move the current position to `id` (`None`: before the first entry);
    /// the next entry becomes its child.
    pub fn set_leaf(&mut self, id: Option<&str>) -> Result<(), SessionError> {
        if let Some(id) = id
            && !self.index.contains(id, &self.entries)
        {
            return Err(SessionError::NoEntry(id.to_string()));
        }
        self.leaf = id.map(str::to_string);
        Ok(())
    }

    /// Append an entry of `kind` with `fields` after the leaf; it becomes the
    /// leaf. Returns its id. A failed write is returned (the entry stays in
    /// memory); the caller decides whether to go on without the file.
    pub fn append(&mut self, kind: &str, fields: Value) -> Result<String, SessionError> {
        let id = loop {
            let id = short_id();
            if !self.index.contains(&id, &self.entries) {
                break id;
            }
        };
        let mut entry = Map::new();
        entry.insert("type".into(), json!(kind));
        // An extension's entries keep their fields first, as the reference writes them.
        let fields_first = matches!(kind, "custom" | "custom_message");
        let mut extra = match fields {
            Value::Object(extra) => extra,
            _ => Map::new(),
        };
        if fields_first {
            entry.append(&mut extra);
        }
        entry.insert("id".into(), json!(id));
        entry.insert("parentId".into(), json!(self.leaf));
        entry.insert("timestamp".into(), json!(iso_now()));
        entry.append(&mut extra);
        let Some(mut entry) = Entry::from_value(&Value::Object(entry)) else { return Ok(id) };
        let written = self.write_line(&entry);
        if let Ok(Some(place)) = &written {
            entry.leave_in_file(place.clone());
        }
        self.push_entry(entry);
        written.map(|_| id)
    }

    /// Append a `message` entry.
    pub fn append_message(&mut self, message: &impl serde::Serialize) -> Result<String, SessionError> {
        self.append("message", json!({"message": message}))
    }

    /// Append `e`'s line to the file (nothing without one). Where the line
    /// landed, when nothing else wrote to the file meanwhile: a session
    /// holds one copy of a long conversation (the agent's), not two.
    fn write_line(&mut self, e: &Entry) -> Result<Option<stored::FilePlace>, SessionError> {
        let (Some(file), Some(path)) = (self.file.as_ref(), self.path.as_ref()) else { return Ok(None) };
        let text = e.line();
        let mut line = String::with_capacity(text.len() + 1);
        line.push_str(&text);
        line.push('\n');
        let before = file.metadata().map(|m| m.len()).ok();
        (&**file).write_all(line.as_bytes()).map_err(|source| SessionError::Io { path: path.clone(), source })?;
        let after = file.metadata().map(|m| m.len()).ok();
        Ok(match (before, after) {
            (Some(at), Some(after)) if after == at + line.len() as u64 => {
                Some(stored::FilePlace { file: file.clone(), at })
            }
            _ => None,
        })
    }

    /// Stop writing to the file (after a failed write); the session goes on in memory.
    pub fn detach_file(&mut self) {
        self.file = None;
    }

    /// The entries from the root to the leaf.
    pub fn branch(&self) -> Vec<&Entry> {
        self.branch_to(self.leaf.as_deref())
    }

    /// The entries from the leaf back towards the root, lazily: what is
    /// read costs only as far as the caller walks.
    pub fn walk_back(&self) -> impl Iterator<Item = &Entry> + '_ {
        let mut cursor = self.leaf.as_deref().and_then(|id| self.get(id));
        let mut steps = 0;
        std::iter::from_fn(move || {
            let e = cursor.take()?;
            steps += 1;
            // A parent loop in a damaged file ends the walk.
            if steps <= self.entries.len() {
                cursor = e.parent_id().and_then(|p| self.get(p));
            }
            Some(e)
        })
    }

    /// The entries from the root to `id`.
    pub fn branch_to(&self, id: Option<&str>) -> Vec<&Entry> {
        self.branch_positions(id).into_iter().filter_map(|at| self.entries.get(at)).collect()
    }

    /// Where the entries from the root to `id` are in the list of entries.
    pub(crate) fn branch_positions(&self, id: Option<&str>) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cursor = id.and_then(|id| self.index.get(id, &self.entries));
        while let Some(at) = cursor {
            out.push(at);
            // A parent loop in a damaged file ends the walk.
            if out.len() > self.entries.len() {
                break;
            }
            cursor = self.entries[at].parent_id().and_then(|p| self.index.get(p, &self.entries));
        }
        out.reverse();
        out
    }

    /// Copy `source`'s active branch into this (new) session, entries as they
    /// are (ids kept); the leaf becomes the copy's last entry.
    pub fn copy_branch_of(&mut self, source: &Session) -> Result<(), SessionError> {
        self.copy_entries(source.branch())
    }

    /// Copy `source`'s active branch up to, not including, entry `stop`.
    pub fn copy_branch_before(&mut self, source: &Session, stop: &str) -> Result<(), SessionError> {
        let branch = source.branch();
        let Some(at) = branch.iter().position(|e| e.id() == stop) else {
            return Err(SessionError::NoEntry(stop.to_string()));
        };
        self.copy_entries(branch[..at].to_vec())
    }

    /// Copy the path of `source` from its root through entry `last`.
    pub fn copy_branch_through(&mut self, source: &Session, last: &str) -> Result<(), SessionError> {
        if source.get(last).is_none() {
            return Err(SessionError::NoEntry(last.to_string()));
        }
        self.copy_entries(source.branch_to(Some(last)))
    }

    fn copy_entries(&mut self, entries: Vec<&Entry>) -> Result<(), SessionError> {
        let mut result = Ok(());
        for e in entries {
            let mut e = e.clone();
            if result.is_ok() {
                match self.write_line(&e) {
                    Ok(Some(place)) => e.leave_in_file(place),
                    Ok(None) => {}
                    Err(err) => result = Err(err),
                }
            }
            self.push_entry(e);
        }
        result
    }

    /// The session's display name: the latest `session_info` entry's.
    pub fn name(&self) -> Option<String> {
        let e = self.entries.iter().rev().find(|e| e.kind() == "session_info")?;
        e.field("name").as_str().filter(|n| !n.is_empty()).map(String::from)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tree_tests;
