//! The last answer of each server with `direct` tools, kept in the agent
//! dir ([`CACHE_FILE`]) so the next session declares those tools in its
//! first request without waiting: a slow server then delays only its own
//! tools (a call to one waits for the server to connect). When the server
//! answers, its list replaces the cached one (a difference is registered as
//! a tool-list change before the next request) and is kept for next time; a
//! server that cannot connect withdraws what came from the cache.
//!
//! A server is known by a digest of its whole entry (name, transport, file),
//! so an edited entry starts without a cached list. The file is written
//! whole to a temporary name and renamed (concurrent sessions each leave a
//! complete file); one that cannot be read or parsed is ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::ServerConfig;

/// The cache's file name in the agent dir.
pub const CACHE_FILE: &str = "mcp-tools-cache.json";

/// A cache file larger than this is not read (a server listing thousands of
/// tools stays well under it).
const MAX_CACHE_BYTES: u64 = 32 * 1024 * 1024;

/// What a server answered when it last connected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Answer {
    /// Its `tools/list`.
    pub tools: Vec<rmcp::model::Tool>,
    /// Whether it offered resources.
    pub resources: bool,
}

/// The file: each server's last answer by the digest of its entry.
#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    #[serde(default)]
    servers: BTreeMap<String, Answer>,
}

/// Where the answers are kept (`None`: nowhere, nothing is cached).
#[derive(Debug, Default)]
pub(super) struct ToolCache {
    file: Option<PathBuf>,
}

impl ToolCache {
    /// A cache in `file`.
    pub(super) fn new(file: PathBuf) -> Self {
        ToolCache { file: Some(file) }
    }

    /// The key of `config`: a digest of the whole entry.
    pub(super) fn key(config: &ServerConfig) -> String {
        let text = format!("{}\n{:?}\n{}", config.name, config.transport, config.file.display());
        Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Every kept answer, by key (read once at start for all the servers).
    pub(super) fn load_all(&self) -> BTreeMap<String, Answer> {
        self.file.as_deref().map(|f| read(f).servers).unwrap_or_default()
    }

    /// The last answer of the server `key` names, if one is kept.
    #[cfg(test)]
    fn load(&self, key: &str) -> Option<Answer> {
        self.load_all().remove(key)
    }

    /// Keep `answer` as the server's last (nothing when it is already kept).
    pub(super) fn save(&self, key: &str, answer: &Answer) {
        let Some(file) = self.file.as_deref() else { return };
        let mut all = read(file);
        if all.servers.get(key) == Some(answer) {
            return;
        }
        all.servers.insert(key.to_string(), answer.clone());
        let Ok(text) = serde_json::to_vec(&all) else { return };
        let tmp = file.with_extension(format!("tmp-{}", std::process::id()));
        // A cache that cannot be written costs the next session a wait, nothing more.
        if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, file).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// The file's contents (empty when it is missing, too large or unreadable).
fn read(file: &Path) -> CacheFile {
    let small = std::fs::metadata(file).is_ok_and(|m| m.len() <= MAX_CACHE_BYTES);
    if !small {
        return CacheFile::default();
    }
    std::fs::read(file).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(names: &[&str]) -> Answer {
        let tools = names
            .iter()
            .map(|n| serde_json::from_value(serde_json::json!({"name": n, "inputSchema": {"type": "object"}})).unwrap())
            .collect();
        Answer { tools, resources: true }
    }

    #[test]
    fn an_answer_is_kept_by_key_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ToolCache::new(dir.path().join(CACHE_FILE));
        assert_eq!(cache.load("a"), None);
        cache.save("a", &answer(&["x", "y"]));
        cache.save("b", &answer(&["z"]));
        assert_eq!(cache.load("a"), Some(answer(&["x", "y"])));
        assert_eq!(cache.load("b"), Some(answer(&["z"])));
        cache.save("a", &answer(&["x"]));
        assert_eq!(cache.load("a"), Some(answer(&["x"])));
    }

    #[test]
    fn a_broken_or_missing_file_is_no_cache() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(CACHE_FILE);
        std::fs::write(&file, "{not json").unwrap();
        let cache = ToolCache::new(file.clone());
        assert_eq!(cache.load("a"), None);
        // Saving over a broken file replaces it.
        cache.save("a", &answer(&["x"]));
        assert_eq!(cache.load("a"), Some(answer(&["x"])));
        assert_eq!(ToolCache::default().load("a"), None);
        ToolCache::default().save("a", &answer(&["x"]));
    }
}
