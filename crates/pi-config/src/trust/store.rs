//! The trust store `<agent-dir>/trust.json` (requirement P3, reference §8.1).
//!
//! A JSON object from canonical absolute folder to `true` or `false`. The
//! nearest decided folder at or above a working folder wins, so a child's
//! `false` beats a parent's `true`. Corruption is fatal ("fail closed"):
//! a store that cannot be read, is not an object, or holds anything but
//! `true`/`false`/`null` is an error, never "no decision".

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use super::fsio::{self, LockError};
use crate::text;

/// The store's file name inside the agent dir.
pub const TRUST_FILE_NAME: &str = "trust.json";

/// The trust store could not be used. `Display` is the exact message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustError {
    /// Unreadable file or invalid JSON.
    Read {
        /// The store.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The top level is not an object.
    NotObject {
        /// The store.
        path: PathBuf,
    },
    /// A value is not `true`, `false` or `null`.
    BadValue {
        /// The store.
        path: PathBuf,
        /// The offending key.
        key: String,
    },
    /// The lock stayed busy.
    Locked {
        /// The lock file.
        lock_path: PathBuf,
    },
    /// The store could not be written.
    Write {
        /// The store.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl std::fmt::Display for TrustError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            TrustError::Read { path, message } => text::trust_read_failed(path, message),
            TrustError::NotObject { path } => text::trust_not_object(path),
            TrustError::BadValue { path, key } => text::trust_bad_value(path, key),
            TrustError::Locked { lock_path } => text::trust_lock_failed(lock_path),
            TrustError::Write { path, message } => text::trust_write_failed(path, message),
        };
        f.write_str(&s)
    }
}

impl std::error::Error for TrustError {}

/// A saved decision and the folder it was saved for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustEntry {
    /// The folder whose key holds the decision (the asked folder or an ancestor).
    pub path: PathBuf,
    /// `true` trusted, `false` untrusted.
    pub decision: bool,
}

/// Handle on `<agent-dir>/trust.json`. Cheap; every call reads the file
/// afresh under the lock, so several handles (and processes) can share it.
#[derive(Debug, Clone)]
pub struct TrustStore {
    agent_dir: PathBuf,
    path: PathBuf,
}

/// Lexically normalise an absolute path (`.` dropped, `..` pops), as Node's
/// `path.resolve` does.
fn normalize_lexically(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                // `..` at the root stays at the root.
                if out.parent().is_some() {
                    out.pop();
                } else if !out.has_root() {
                    out.push(c);
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The store's key for a folder: `~` expanded, made absolute against the
/// process's working folder, then resolved through symbolic links
/// (`realpath`); when that fails (e.g. the folder does not exist) the
/// lexically normalised absolute path.
pub fn canonical_dir(dir: &Path) -> PathBuf {
    let s = dir.to_string_lossy();
    let expanded = if s == "~" || s.starts_with("~/") { crate::expand_tilde(&s) } else { dir.to_path_buf() };
    let absolute = if expanded.is_absolute() {
        expanded
    } else {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")).join(expanded)
    };
    let absolute = normalize_lexically(&absolute);
    std::fs::canonicalize(&absolute).unwrap_or(absolute)
}

fn key_of(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// JavaScript's default sort order (UTF-16 code units), which the reference
/// uses for the keys.
fn js_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

impl TrustStore {
    /// The store of `agent_dir`.
    pub fn new(agent_dir: &Path) -> TrustStore {
        let agent_dir = normalize_lexically(&if agent_dir.is_absolute() {
            agent_dir.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")).join(agent_dir)
        });
        let path = agent_dir.join(TRUST_FILE_NAME);
        TrustStore { agent_dir, path }
    }

    /// `<agent-dir>/trust.json`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `<agent-dir>/trust.json.lock`.
    pub fn lock_path(&self) -> PathBuf {
        fsio::lock_path_for(&self.path)
    }

    /// Run `f` under the store's lock. For a read (`write == false`) in an
    /// agent dir where the lock file cannot be created (read-only mount,
    /// permissions), read without it: writes replace the file atomically, so
    /// an unlocked read still sees a whole file.
    fn with_lock<T>(&self, write: bool, f: impl FnOnce() -> Result<T, TrustError>) -> Result<T, TrustError> {
        let fail = |e: std::io::Error| {
            let message = e.to_string();
            if write {
                TrustError::Write { path: self.path.clone(), message }
            } else {
                TrustError::Read { path: self.path.clone(), message }
            }
        };
        crate::files::create_private_dir(&self.agent_dir).map_err(fail)?;
        let lock_path = self.lock_path();
        let _guard = match fsio::lock(&lock_path) {
            Ok(g) => Some(g),
            Err(LockError::Busy) => return Err(TrustError::Locked { lock_path }),
            Err(LockError::Io(e))
                if !write
                    && matches!(
                        e.kind(),
                        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                    ) =>
            {
                None
            }
            Err(LockError::Io(e)) => return Err(fail(e)),
        };
        f()
    }

    /// Read and check the file (caller holds the lock).
    fn read_unlocked(&self) -> Result<Map<String, Value>, TrustError> {
        let text = match fsio::read_text(&self.path) {
            Ok(None) => return Ok(Map::new()),
            Ok(Some(t)) => t,
            Err(e) => return Err(TrustError::Read { path: self.path.clone(), message: e.to_string() }),
        };
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| TrustError::Read { path: self.path.clone(), message: e.to_string() })?;
        let Value::Object(map) = value else {
            return Err(TrustError::NotObject { path: self.path.clone() });
        };
        if let Some((key, _)) = map.iter().find(|(_, v)| !(v.is_boolean() || v.is_null())) {
            return Err(TrustError::BadValue { path: self.path.clone(), key: key.clone() });
        }
        Ok(map)
    }

    /// Every saved decision (`null` entries left out), sorted by key.
    pub fn entries(&self) -> Result<Vec<(PathBuf, bool)>, TrustError> {
        if !self.agent_dir.is_dir() {
            return Ok(Vec::new());
        }
        let map = self.with_lock(false, || self.read_unlocked())?;
        let mut out: Vec<(String, bool)> = map.into_iter().filter_map(|(k, v)| v.as_bool().map(|b| (k, b))).collect();
        out.sort_by(|a, b| js_order(&a.0, &b.0));
        Ok(out.into_iter().map(|(k, b)| (PathBuf::from(k), b)).collect())
    }

    /// The nearest saved decision at or above `cwd` (canonicalised first).
    /// A missing store (or agent dir) is "no decision".
    pub fn get_entry(&self, cwd: &Path) -> Result<Option<TrustEntry>, TrustError> {
        if !self.agent_dir.is_dir() {
            // Nothing can be saved yet; do not create the agent dir just to read.
            return Ok(None);
        }
        let dir = canonical_dir(cwd);
        let map = self.with_lock(false, || self.read_unlocked())?;
        Ok(dir.ancestors().find_map(|a| {
            map.get(&key_of(a)).and_then(Value::as_bool).map(|d| TrustEntry { path: a.to_path_buf(), decision: d })
        }))
    }

    /// The nearest saved decision at or above `cwd`, without its folder.
    pub fn get(&self, cwd: &Path) -> Result<Option<bool>, TrustError> {
        Ok(self.get_entry(cwd)?.map(|e| e.decision))
    }

    /// Save (`Some`) or delete (`None`) the decision for one folder.
    pub fn set(&self, dir: &Path, decision: Option<bool>) -> Result<(), TrustError> {
        self.set_many(&[(dir.to_path_buf(), decision)])
    }

    /// Apply several updates at once, under one lock: each folder is
    /// canonicalised; `None` deletes its key. The file is rewritten with
    /// sorted keys, 2-space indentation and a trailing newline; anything that
    /// is not a boolean is dropped. A corrupt store is an error and is left as
    /// it is.
    pub fn set_many(&self, updates: &[(PathBuf, Option<bool>)]) -> Result<(), TrustError> {
        self.with_lock(true, || {
            let mut map = self.read_unlocked()?;
            for (dir, decision) in updates {
                let key = key_of(&canonical_dir(dir));
                match decision {
                    Some(d) => {
                        map.insert(key, Value::Bool(*d));
                    }
                    None => {
                        map.remove(&key);
                    }
                }
            }
            let mut kept: Vec<(String, bool)> =
                map.into_iter().filter_map(|(k, v)| v.as_bool().map(|b| (k, b))).collect();
            kept.sort_by(|a, b| js_order(&a.0, &b.0));
            let sorted: Map<String, Value> = kept.into_iter().map(|(k, b)| (k, Value::Bool(b))).collect();
            let mut out = serde_json::to_string_pretty(&Value::Object(sorted))
                .map_err(|e| TrustError::Write { path: self.path.clone(), message: e.to_string() })?;
            out.push('\n');
            fsio::write_atomic(&self.path, out.as_bytes())
                .map_err(|e| TrustError::Write { path: self.path.clone(), message: e.to_string() })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalisation() {
        assert_eq!(normalize_lexically(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize_lexically(Path::new("/../a")), PathBuf::from("/a"));
    }

    #[test]
    fn js_sort_order_is_utf16() {
        // U+FF5E (BMP, above the surrogates) sorts after U+1F600 in UTF-16.
        let mut v = vec!["/\u{ff5e}", "/\u{1f600}", "/a"];
        v.sort_by(|a, b| js_order(a, b));
        assert_eq!(v, vec!["/a", "/\u{1f600}", "/\u{ff5e}"]);
    }

    #[test]
    fn canonical_dir_resolves_relative_and_missing() {
        let missing = Path::new("/definitely/not/here/../there");
        assert_eq!(canonical_dir(missing), PathBuf::from("/definitely/not/there"));
        let d = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(canonical_dir(&d.path().join("x/..")), real);
    }
}
