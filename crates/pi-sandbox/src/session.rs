//! A session sandbox: one sandbox (namespaces, mounts, rules) made once and
//! kept, whose server forks each command inside it, instead of a new
//! sandbox per command. [`crate::Sandbox::plan`] says which a command gets;
//! the caller keeps the servers, one per [`SessionKey`].

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::command::MountPoints;
use crate::{Command, Guard, Prepared};

/// How a sandboxed command is to run.
#[derive(Debug)]
pub enum Plan {
    /// Started as a process of its own (mode `off`, the Landlock-only
    /// sandbox, or a wrapped command with a sandbox of its own).
    Direct(Prepared),
    /// Run by the session sandbox with this key (started when there is none).
    Session(SessionPlan),
}

/// What identifies a session sandbox: bubblewrap's arguments and helper's
/// rules, and the identity (device, inode) of every path they name, so a
/// folder replaced, a hidden store created or a protected name removed since
/// the sandbox was made gives another key (and a new sandbox).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionKey {
    args: Vec<OsString>,
    stamps: Vec<Option<(u64, u64)>>,
}

/// A command for a session sandbox.
#[derive(Debug, Clone)]
pub struct SessionPlan {
    /// The sandbox it runs in.
    pub key: SessionKey,
    /// The command (its environment already without secrets).
    pub command: Command,
    /// The server that makes the sandbox, to start when there is none: its
    /// stdin must be the server's end of [`crate::channel`]'s pair.
    pub server: Command,
    mount_points: Vec<PathBuf>,
    /// Where the sandbox that planned it counts its mount points.
    counts: MountPoints,
}

fn stamp(p: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

impl SessionPlan {
    pub(crate) fn new(command: Command, server: Command, mount_points: Vec<PathBuf>, counts: MountPoints) -> Self {
        let stamps = server
            .args
            .iter()
            .map(Path::new)
            .filter(|p| p.is_absolute() && !mount_points.iter().any(|m| m == p))
            .map(stamp)
            .collect();
        let key = SessionKey { args: server.args.clone(), stamps };
        SessionPlan { key, command, server, mount_points, counts }
    }

    /// Cleans up after the sandbox (its mount points); keep it for as long
    /// as the server lives.
    pub fn guard(&self) -> Guard {
        Guard::for_mount_points(&self.counts, self.mount_points.clone())
    }

    /// The mount points bubblewrap made, as they are now (take it once the
    /// server is ready).
    pub fn watch(&self) -> MountWatch {
        MountWatch(self.mount_points.iter().map(|p| (p.clone(), stamp(p))).collect())
    }
}

/// The mount points a session sandbox made for missing protected names. If
/// one is removed (say by another pi whose command used it), the sandbox's
/// mount over it goes too, so the sandbox must not take more commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountWatch(Vec<(PathBuf, Option<(u64, u64)>)>);

impl MountWatch {
    /// Whether every mount point is still the folder it was.
    pub fn intact(&self) -> bool {
        self.0.iter().all(|(p, s)| s.is_some() && stamp(p) == *s)
    }
}
