//! Where pi keeps its user-level files.

use std::path::PathBuf;

/// The environment variable that overrides the agent dir.
pub const AGENT_DIR_ENV: &str = "PI_CODING_AGENT_DIR";

/// Expand a leading `~` or `~/` with `HOME`.
pub fn expand_tilde(p: &str) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (p, home) {
        ("~", Some(h)) => h,
        (s, Some(h)) if s.starts_with("~/") => h.join(&s[2..]),
        (s, _) => PathBuf::from(s),
    }
}

/// The agent dir: `PI_CODING_AGENT_DIR` (with `~` expanded), else `~/.pi/agent`.
pub fn agent_dir() -> PathBuf {
    match std::env::var(AGENT_DIR_ENV) {
        Ok(v) if !v.is_empty() => expand_tilde(&v),
        _ => expand_tilde("~/.pi/agent"),
    }
}
