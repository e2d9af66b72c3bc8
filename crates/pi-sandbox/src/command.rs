//! A command as data, before and after the sandbox wraps it, and what has
//! to be cleaned up once it ended.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// A command ready to start: everything that decides what runs, where, with
/// which environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The program (absolute, or a bare name looked up on `PATH`).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The complete environment (nothing else is inherited).
    pub env: Vec<(OsString, OsString)>,
}

impl Command {
    /// The value of `key` in the environment.
    pub fn env_var(&self, key: &str) -> Option<&OsString> {
        self.env.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Set `key` (replacing earlier values).
    pub fn set_env(&mut self, key: &str, value: impl Into<OsString>) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }
}

/// A wrapped command and what must live until it has ended. Drop it (after
/// the command ended) to clean up.
#[derive(Debug)]
pub struct Prepared {
    /// The command to start instead of the original.
    pub command: Command,
    /// Cleans up when dropped.
    pub guard: Guard,
}

impl Prepared {
    /// The command as it is, nothing to clean up (mode `off`).
    pub fn unchanged(command: Command) -> Self {
        Prepared { command, guard: Guard::default() }
    }
}

/// Mount points the sandbox had to create inside a writable root (for a
/// protected name that did not exist), with the number of running commands
/// (and session sandboxes) that use each: the last one to end removes it, if
/// it is still an empty folder. One per [`crate::Sandbox`], shared by its
/// clones and the guards of the commands it prepared.
#[derive(Debug, Clone, Default)]
pub(crate) struct MountPoints(Arc<Mutex<HashMap<PathBuf, usize>>>);

impl MountPoints {
    fn counts(&self) -> MutexGuard<'_, HashMap<PathBuf, usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `path` is a mount point a running sandbox made and nothing
    /// has been put in.
    pub(crate) fn is_own(&self, path: &Path) -> bool {
        let ours = self.counts().get(path).is_some_and(|n| *n > 0);
        ours && std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
    }
}

/// Cleans up after a sandboxed command: empty mount points it made, a
/// private temp folder.
#[derive(Debug, Default)]
pub struct Guard {
    mount_points: Vec<PathBuf>,
    /// Where `mount_points` are counted (set with the first of them).
    counts: Option<MountPoints>,
    private_temp: Option<PathBuf>,
}

impl Guard {
    /// A guard for `paths`, mount points the sandbox will create, counted in
    /// `counts` until it is dropped.
    pub(crate) fn for_mount_points(counts: &MountPoints, paths: Vec<PathBuf>) -> Guard {
        let mut map = counts.counts();
        for p in &paths {
            *map.entry(p.clone()).or_insert(0) += 1;
        }
        drop(map);
        Guard { mount_points: paths, counts: Some(counts.clone()), private_temp: None }
    }

    /// Remove `path` (a private temp folder) and everything in it afterwards.
    pub(crate) fn set_private_temp(&mut self, path: PathBuf) {
        self.private_temp = Some(path);
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(counts) = self.counts.take() {
            let mut map = counts.counts();
            for p in self.mount_points.drain(..) {
                let Some(n) = map.get_mut(&p) else { continue };
                *n -= 1;
                if *n == 0 {
                    map.remove(&p);
                    // Only an empty folder goes (anything else is left alone).
                    let _ = std::fs::remove_dir(&p);
                }
            }
        }
        if let Some(t) = self.private_temp.take() {
            let _ = std::fs::remove_dir_all(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_user_of_a_mount_point_removes_it_when_empty() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join(".pi");
        let counts = MountPoints::default();
        let a = Guard::for_mount_points(&counts, vec![p.clone()]);
        let b = Guard::for_mount_points(&counts, vec![p.clone()]);
        std::fs::create_dir(&p).unwrap();
        assert!(counts.is_own(&p));
        drop(a);
        assert!(p.is_dir(), "still used by b");
        drop(b);
        assert!(!p.exists());
        let c = Guard::for_mount_points(&counts, vec![p.clone()]);
        std::fs::create_dir_all(p.join("kept")).unwrap();
        assert!(!counts.is_own(&p), "no longer empty");
        drop(c);
        assert!(p.join("kept").is_dir(), "a folder with something in it stays");
    }

    #[test]
    fn env_helpers() {
        let mut c = Command { program: "/bin/sh".into(), args: vec![], cwd: "/".into(), env: vec![] };
        c.set_env("A", "1");
        c.set_env("A", "2");
        assert_eq!(c.env.len(), 1);
        assert_eq!(c.env_var("A").map(|v| v.to_string_lossy().into_owned()), Some("2".into()));
    }
}
