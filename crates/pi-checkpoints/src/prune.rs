//! Pruning a store: sessions whose last checkpoint is older than a number
//! of days go, and when the store is still larger than its cap, the oldest
//! sessions go until it fits. Run by hand (`pi checkpoints prune`) or at
//! most once a day when a session first keeps a checkpoint; the session
//! running is never dropped.

use std::path::Path;
use std::time::Duration;

use crate::store::{Store, now_ms, safe_name};
use crate::{CheckpointError, text};

impl Store {
    /// Drop the checkpoints of sessions whose last one is older than
    /// `keep_days` (their refs and indexes), then let git remove what no
    /// checkpoint holds any more. The sessions dropped.
    pub fn prune(&self, keep_days: u64) -> Result<Vec<String>, CheckpointError> {
        self.prune_older_than(Duration::from_secs(keep_days.saturating_mul(86_400)))
    }

    /// [`Store::prune`] with the age in any unit (whole seconds count).
    /// Objects younger than [`text::PRUNE_GRACE`] stay whatever the age: a
    /// running session may have written them for a checkpoint it is making.
    pub fn prune_older_than(&self, age: Duration) -> Result<Vec<String>, CheckpointError> {
        self.prune_except(age, None, age.max(text::PRUNE_GRACE))
    }

    /// [`Store::prune_older_than`] keeping only objects younger than
    /// `grace` (no session may be using the store).
    pub fn prune_older_than_with_grace(&self, age: Duration, grace: Duration) -> Result<Vec<String>, CheckpointError> {
        self.prune_except(age, None, grace)
    }

    /// [`Store::prune_older_than`], never dropping the session `keep`.
    fn prune_except(&self, age: Duration, keep: Option<&str>, grace: Duration) -> Result<Vec<String>, CheckpointError> {
        let keep = keep.map(safe_name);
        let secs = age.as_secs();
        let cutoff = now_ms() / 1000 - i64::try_from(secs).unwrap_or(i64::MAX);
        let mut dropped = Vec::new();
        for (session, time) in self.session_times()? {
            if time < cutoff && Some(&session) != keep.as_ref() {
                self.drop_session(&session)?;
                dropped.push(session);
            }
        }
        if !dropped.is_empty() {
            self.gc(grace.as_secs())?;
        }
        Ok(dropped)
    }

    /// Drop the oldest sessions (never `keep`, none whose last checkpoint is
    /// younger than `grace`) while the store is larger than `max_bytes`.
    /// The sessions dropped. Objects younger than `grace` stay (a running
    /// session's staged tree may need them), so a younger session would
    /// free nothing.
    pub fn prune_to_size(&self, max_bytes: u64, keep: &str, grace: Duration) -> Result<Vec<String>, CheckpointError> {
        let mut dropped = Vec::new();
        if folder_bytes(self.dir()) <= max_bytes {
            return Ok(dropped);
        }
        let keep = safe_name(keep);
        let cutoff = now_ms() / 1000 - i64::try_from(grace.as_secs()).unwrap_or(i64::MAX);
        let mut sessions = self.session_times()?;
        sessions.retain(|(s, time)| *s != keep && *time < cutoff);
        sessions.sort_by_key(|(_, time)| *time);
        for (session, _) in sessions {
            self.drop_session(&session)?;
            dropped.push(session);
            self.gc(grace.as_secs())?;
            if folder_bytes(self.dir()) <= max_bytes {
                break;
            }
        }
        Ok(dropped)
    }

    /// At most once per [`text::AUTO_PRUNE_EVERY`] per store: prune by age,
    /// then by size, never dropping the session `keep`. The sessions
    /// dropped (none when it was not time yet).
    pub fn auto_prune(&self, keep_days: u64, max_store_mb: u64, keep: &str) -> Result<Vec<String>, CheckpointError> {
        let stamp = self.dir().join(text::PRUNE_STAMP);
        let recent = std::fs::metadata(&stamp)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age < text::AUTO_PRUNE_EVERY);
        if recent {
            return Ok(Vec::new());
        }
        std::fs::write(&stamp, b"").map_err(|e| CheckpointError::Io(stamp.display().to_string(), e))?;
        let age = Duration::from_secs(keep_days.saturating_mul(86_400));
        let mut dropped = self.prune_except(age, Some(keep), age.max(text::PRUNE_GRACE))?;
        dropped.extend(self.prune_to_size(max_store_mb.saturating_mul(1024 * 1024), keep, text::PRUNE_GRACE)?);
        Ok(dropped)
    }

    /// Every session with checkpoints here and the time of its last one
    /// (seconds since the epoch).
    fn session_times(&self) -> Result<Vec<(String, i64)>, CheckpointError> {
        let git = self.git("prune");
        let out = git.run(&["for-each-ref", "--format=%(refname:strip=2) %(committerdate:unix)", "refs/pi/"], None)?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|line| {
                let (session, time) = line.rsplit_once(' ')?;
                Some((session.to_string(), time.parse().ok()?))
            })
            .collect())
    }

    /// Forget `session`'s checkpoints: its ref and its index.
    fn drop_session(&self, session: &str) -> Result<(), CheckpointError> {
        let git = self.git(session);
        git.run(&["update-ref", "-d", &format!("refs/pi/{session}")], None)?;
        let _ = std::fs::remove_file(&git.index);
        Ok(())
    }

    /// Let git remove what no checkpoint holds, keeping objects younger
    /// than `grace_secs`.
    fn gc(&self, grace_secs: u64) -> Result<(), CheckpointError> {
        self.git("prune").run(&["gc", &format!("--prune={grace_secs}.seconds.ago"), "--quiet"], None)?;
        Ok(())
    }
}

/// Bytes of the files under `dir` (not following links).
fn folder_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => folder_bytes(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}
