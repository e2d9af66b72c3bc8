//! What git does not keep, kept beside each snapshot's files: the permission
//! bits of files whose mode is not git's `644`/`755` (a private `600` file
//! removed by a turn comes back private), and the empty folders. Stored as a
//! JSON file at a reserved path of the snapshot's tree ([`META_PATH`]), never
//! in the working folder; maintained from what each staging looked at.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::CheckpointError;
use crate::git::{Git, nul_items};

/// Where a snapshot's tree holds its [`Meta`] (a name no project uses; a
/// file of this name in the folder itself is not kept).
pub(crate) const META_PATH: &str = ".pi-checkpoint-meta";

/// Whether `path` is the reserved [`META_PATH`].
pub(crate) fn is_meta(path: &str) -> bool {
    path == META_PATH
}

/// What a snapshot knows beyond the files' contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Meta {
    /// Permission bits (`0o7777`) of regular files whose mode is not 644 or 755.
    #[serde(default)]
    pub modes: BTreeMap<String, u32>,
    /// Folders with nothing in them.
    #[serde(default)]
    pub dirs: BTreeSet<String>,
}

impl Meta {
    /// The meta of `tree_ish` (`:` for the session's index, or a snapshot's
    /// id); `None` when it has none (snapshots made before this was kept).
    pub(crate) fn of(git: &Git, tree_ish: &str) -> Option<Meta> {
        let spec = if tree_ish == ":" { format!(":{META_PATH}") } else { format!("{tree_ish}:{META_PATH}") };
        git.run(&["cat-file", "blob", &spec], None).ok().and_then(|out| serde_json::from_slice(&out).ok())
    }

    /// Note what staging saw of `path`: its metadata, or `None` when it is
    /// gone or left out.
    pub(crate) fn note(&mut self, path: &str, seen: Option<&std::fs::Metadata>) {
        match seen.filter(|m| m.is_file()).map(|m| m.permissions().mode() & 0o7777) {
            Some(mode) if mode != 0o644 && mode != 0o755 => {
                self.modes.insert(path.to_string(), mode);
            }
            _ => {
                self.modes.remove(path);
            }
        }
    }

    /// Look again at the files kept with an unusual mode (git sees a
    /// `chmod` by the file's change time, in whole seconds: not within the
    /// second the file was staged): at most [`MAX_RECHECKED`] of them.
    pub(crate) fn recheck_modes(&mut self, work: &Path) {
        let paths: Vec<String> = self.modes.keys().take(MAX_RECHECKED).cloned().collect();
        for p in paths {
            let seen = std::fs::symlink_metadata(work.join(&p)).ok();
            self.note(&p, seen.as_ref());
        }
    }

    /// Start looking for the folder's empty folders (a walk of the folder,
    /// run beside staging's own); [`Meta::take_empty_dirs`] takes the answer.
    pub(crate) fn look_for_empty_dirs(git: &Git) -> std::thread::JoinHandle<Result<Vec<u8>, CheckpointError>> {
        let git = git.clone();
        std::thread::spawn(move || git.run(&["ls-files", "--others", "--directory", "--exclude-standard", "-z"], None))
    }

    /// The empty folders found: among the folders the index held no file
    /// under (`git ls-files --others --directory`), those with nothing in
    /// them, looked into.
    pub(crate) fn take_empty_dirs(
        &mut self,
        git: &Git,
        looking: std::thread::JoinHandle<Result<Vec<u8>, CheckpointError>>,
    ) -> Result<(), CheckpointError> {
        let out = looking.join().unwrap_or_else(|_| Err(CheckpointError::Git("ls-files".into(), "panicked".into())))?;
        self.dirs.clear();
        for item in nul_items(&out) {
            if let Some(dir) = item.strip_suffix('/') {
                collect_empty(&git.work, dir, &mut self.dirs, 0);
            }
        }
        Ok(())
    }

    /// Put this meta into the session's index (for the next tree written).
    pub(crate) fn stage(&self, git: &Git) -> Result<(), CheckpointError> {
        let text = serde_json::to_vec(self).unwrap_or_default();
        let blob =
            String::from_utf8_lossy(&git.run(&["hash-object", "-w", "--stdin"], Some(&text))?).trim().to_string();
        let info = format!("100644,{blob},{META_PATH}");
        git.run(&["update-index", "--add", "--cacheinfo", &info], None)?;
        Ok(())
    }
}

/// Most files with an unusual mode looked at again per staging.
const MAX_RECHECKED: usize = 10_000;

/// Deepest folder nesting looked into for empty folders.
const MAX_DEPTH: usize = 64;

/// Add `dir` (relative to `work`) if it is empty, else its empty sub-folders.
fn collect_empty(work: &Path, dir: &str, out: &mut BTreeSet<String>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(work.join(dir)) else { return };
    let mut any = false;
    for e in entries.flatten() {
        any = true;
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && depth < MAX_DEPTH {
            let name = e.file_name();
            collect_empty(work, &format!("{dir}/{}", name.to_string_lossy()), out, depth + 1);
        }
    }
    if !any {
        out.insert(dir.to_string());
    }
}
