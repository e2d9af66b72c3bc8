//! The shadow store of one working folder: snapshots of the folder as git
//! trees, each a commit on its session's own ref (`refs/pi/<session>`, with
//! the session's own index, so concurrent sessions never mix), and restores
//! that bring back what a turn changed.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::git::{Git, init_store, nul_items};
use crate::{CheckpointError, text};

/// What a checkpoint records besides the files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// What the snapshot is.
    pub kind: Kind,
    /// The session it belongs to.
    pub session: String,
    /// The session entry it concerns (a turn's answer), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// The checkpoint a `before` snapshot's turn ended with (`after`), or the
    /// checkpoint a restore went back to (`restore`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
    /// For a writable root's snapshot: the working folder's snapshot taken
    /// with it (the same turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<String>,
    /// Milliseconds since the epoch.
    pub time: i64,
    /// Files left out, and why (not restorable).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
}

/// The kinds of snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Before a turn that may change files.
    Before,
    /// After that turn (`of`: its `before`).
    After,
    /// The files as they were just before a restore (undo of the undo), or
    /// when a restore was refused.
    Restore,
    /// The files just after a restore (`of`: the checkpoint restored).
    Restored,
}

/// A file a snapshot left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// Its path in the working folder.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// One snapshot: its id (a commit of the store) and its record.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The commit.
    pub id: String,
    /// What it records.
    pub record: Record,
}

/// The working folder staged as a tree, before it becomes a checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Staged {
    /// The tree.
    pub tree: String,
    /// Files left out, and why.
    pub skipped: Vec<Skipped>,
}

/// A turn that changed files: the snapshots before and after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// Before the turn: the checkpoint restores go back to.
    pub before: Snapshot,
    /// After it (`None` while it runs, or when pi stopped during it).
    pub after: Option<Snapshot>,
    /// Whether a later restore went back to `before` already.
    pub undone: bool,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Restored {
    /// Files written back.
    pub written: Vec<String>,
    /// Files removed (they did not exist at the checkpoint).
    pub removed: Vec<String>,
    /// Files the checkpoint could not hold (too large, unreadable).
    pub not_restorable: Vec<String>,
    /// The snapshot of what was there before the restore.
    pub previous: Option<String>,
}

impl Restored {
    /// Every path the restore changed.
    pub fn changed(&self) -> Vec<String> {
        let mut all: Vec<String> = self.written.iter().chain(&self.removed).cloned().collect();
        all.sort();
        all
    }
}

/// The shadow store of one working folder.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    work: PathBuf,
    max_file_bytes: u64,
    max_file_mb: u64,
}

impl Store {
    /// The store of `work` under `<agent_dir>/checkpoints`, created when
    /// missing; files larger than `max_file_mb` are left out of snapshots.
    pub fn open(agent_dir: &Path, work: &Path, max_file_mb: u64) -> Result<Store, CheckpointError> {
        let work = work.canonicalize().map_err(|e| CheckpointError::Io(work.display().to_string(), e))?;
        let home = std::env::var_os("HOME").map(PathBuf::from).and_then(|h| h.canonicalize().ok());
        if work.parent().is_none() || home.as_deref() == Some(work.as_path()) {
            return Err(CheckpointError::TooBroad(work.display().to_string()));
        }
        let root = agent_dir.join(text::STORE_FOLDER);
        let dir = root.join(pi_config::files::encode_cwd(&work));
        init_store(&dir)?;
        // A store inside the folder it keeps is never kept in itself.
        let root = root.canonicalize().unwrap_or(root);
        if let Ok(inside) = root.strip_prefix(&work) {
            let line = format!("/{}/\n", inside.display());
            let exclude = dir.join("info").join("exclude");
            if std::fs::read_to_string(&exclude).ok().as_deref() != Some(line.as_str()) {
                let _ = std::fs::create_dir_all(dir.join("info"));
                std::fs::write(&exclude, line).map_err(|e| CheckpointError::Io(exclude.display().to_string(), e))?;
            }
        }
        Ok(Store { dir, work, max_file_bytes: max_file_mb.saturating_mul(1024 * 1024), max_file_mb })
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The working folder.
    pub fn work(&self) -> &Path {
        &self.work
    }

    pub(crate) fn git(&self, session: &str) -> Git {
        Git {
            dir: self.dir.clone(),
            work: self.work.clone(),
            index: self.dir.join("pi-index").join(safe_name(session)),
        }
    }

    fn reference(session: &str) -> String {
        format!("refs/pi/{}", safe_name(session))
    }

    /// Take a snapshot of the working folder for `record.session`.
    pub fn snapshot(&self, record: Record) -> Result<Snapshot, CheckpointError> {
        self.snapshot_staged(record).map(|(snap, _)| snap)
    }

    /// [`Store::snapshot`], and the folder as it staged it (for a next
    /// turn's `before`, a moment later).
    pub fn snapshot_staged(&self, record: Record) -> Result<(Snapshot, Staged), CheckpointError> {
        let scan = matches!(record.kind, Kind::Before | Kind::Restore);
        let staged = self.stage_tree_scanning(&record.session, scan)?;
        let snap = self.commit(record, staged.clone())?;
        Ok((snap, staged))
    }

    /// The working folder as a tree in the store, not yet a checkpoint
    /// (the costly half of a snapshot: one walk of the folder).
    pub fn stage_tree(&self, session: &str) -> Result<Staged, CheckpointError> {
        self.stage_tree_scanning(session, true)
    }

    /// [`Store::stage_tree`]; `scan_dirs`: look for empty folders too (a
    /// walk of its own, beside staging's). A turn's `before` looks (it is
    /// staged while the model answers, and it is what a restore brings
    /// back); its `after` keeps what the `before` found, so an empty folder
    /// the turn made is not known and stays after an undo, and nothing the
    /// user made is ever taken for the turn's.
    fn stage_tree_scanning(&self, session: &str, scan_dirs: bool) -> Result<Staged, CheckpointError> {
        let git = self.git(session);
        if let Some(parent) = git.index.parent() {
            pi_config::files::create_private_dir(parent)
                .map_err(|e| CheckpointError::Io(parent.display().to_string(), e))?;
            if !git.index.exists() {
                seed_index(parent, &git.index);
            }
        }
        wait_for_lock(&git.index);
        let skipped = self.stage(&git, scan_dirs)?;
        match git.text(&["write-tree"]) {
            Ok(tree) => Ok(Staged { tree, skipped }),
            Err(_) => {
                // An object the index names is gone (pruned while no
                // checkpoint held it): the index starts again.
                let _ = std::fs::remove_file(&git.index);
                let skipped = self.stage(&git, true)?;
                Ok(Staged { tree: git.text(&["write-tree"])?, skipped })
            }
        }
    }

    /// Make `staged` a checkpoint of `record.session` (the cheap half).
    pub fn commit(&self, mut record: Record, staged: Staged) -> Result<Snapshot, CheckpointError> {
        let git = self.git(&record.session);
        record.skipped = staged.skipped;
        let message = format!("{}\n\n{}\n", text::COMMIT_TITLE, serde_json::to_string(&record).unwrap_or_default());
        let reference = Self::reference(&record.session);
        let parent = git.text(&["rev-parse", "--verify", "--quiet", &reference]).ok().filter(|p| !p.is_empty());
        let mut args = vec!["commit-tree", staged.tree.as_str(), "-F", "-"];
        if let Some(p) = &parent {
            args.extend(["-p", p.as_str()]);
        }
        let id = String::from_utf8_lossy(&git.run(&args, Some(message.as_bytes()))?).trim().to_string();
        git.run(&["update-ref", &reference, &id], None)?;
        Ok(Snapshot { id, record })
    }

    /// Bring the session's index up to the working folder: new, changed and
    /// removed files, leaving out what cannot or should not be copied.
    fn stage(&self, git: &Git, scan_dirs: bool) -> Result<Vec<Skipped>, CheckpointError> {
        let before = crate::meta::Meta::of(git, ":");
        // Empty folders are looked for beside staging's own walk (always the first time).
        let looking = (scan_dirs || before.is_none()).then(|| crate::meta::Meta::look_for_empty_dirs(git));
        // What changed against the index (git compares each file's stat
        // data, so a `chmod` that leaves the contents alone is seen too) and
        // what is new (git's untracked cache), looked at side by side.
        let (changed, untracked) = std::thread::scope(|s| {
            let changed = s.spawn(|| git.run(&["diff-files", "-z", "--name-only", "--ignore-submodules=all"], None));
            let untracked = git.run(&["ls-files", "-z", "--others", "--exclude-standard"], None);
            let changed =
                changed.join().unwrap_or_else(|_| Err(CheckpointError::Git("diff-files".into(), "panicked".into())));
            (changed, untracked)
        });
        let listed = |out: Vec<u8>| -> Vec<String> {
            nul_items(&out).into_iter().filter(|p| !crate::meta::is_meta(p)).collect()
        };
        let (changed, untracked) = (listed(changed?), listed(untracked?));
        let mut update = Vec::new();
        let mut drop = Vec::new();
        let mut skipped = Vec::new();
        let mut meta = before.clone().unwrap_or_default();
        // Within the second a file was staged git cannot tell a `chmod`
        // from no change: the files kept with an unusual mode are looked at
        // again.
        meta.recheck_modes(&self.work);
        let tracked: HashSet<&String> = changed.iter().collect();
        for path in untracked.iter().chain(changed.iter()) {
            if path.ends_with('/') {
                skipped.push(Skipped {
                    path: path.trim_end_matches('/').to_string(),
                    reason: text::NESTED_REPOSITORY.into(),
                });
                continue;
            }
            let full = self.work.join(path);
            let seen = std::fs::symlink_metadata(&full).ok();
            let reason = match &seen {
                None => None, // removed: `--remove` drops it
                Some(m) if m.is_file() && m.len() > self.max_file_bytes => Some(text::too_large(self.max_file_mb)),
                Some(m) if m.is_file() && std::fs::File::open(&full).is_err() => Some(text::UNREADABLE.to_string()),
                Some(_) => None,
            };
            meta.note(path, seen.as_ref().filter(|_| reason.is_none()));
            match reason {
                Some(reason) => {
                    if tracked.contains(path) {
                        drop.push(path.as_str());
                    }
                    skipped.push(Skipped { path: path.clone(), reason });
                }
                None => update.push(path.as_str()),
            }
        }
        if !update.is_empty() {
            git.run(&["update-index", "-z", "--add", "--remove", "--stdin"], Some(&nul_joined(&update)))?;
        }
        if !drop.is_empty() {
            git.run(&["update-index", "-z", "--force-remove", "--stdin"], Some(&nul_joined(&drop)))?;
        }
        if let Some(looking) = looking {
            meta.take_empty_dirs(git, looking)?;
        }
        if before.as_ref() != Some(&meta) {
            meta.stage(git)?;
        }
        // Files left out earlier and unchanged since are still left out.
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        skipped.dedup_by(|a, b| a.path == b.path);
        Ok(skipped)
    }

    /// The sessions with snapshots here, most recent first.
    pub fn sessions(&self) -> Result<Vec<String>, CheckpointError> {
        let git = self.git("sessions");
        let out =
            git.run(&["for-each-ref", "--sort=-committerdate", "--format=%(refname:strip=2)", "refs/pi/"], None)?;
        Ok(String::from_utf8_lossy(&out).lines().filter(|l| !l.is_empty()).map(str::to_string).collect())
    }

    /// The session's snapshots, oldest first.
    pub fn history(&self, session: &str) -> Result<Vec<Snapshot>, CheckpointError> {
        let git = self.git(session);
        let reference = Self::reference(session);
        if git.text(&["rev-parse", "--verify", "--quiet", &reference]).is_err() {
            return Ok(Vec::new());
        }
        let out = git.run(&["log", "--first-parent", "--reverse", "--format=%H%x1f%B%x1e", &reference], None)?;
        Ok(String::from_utf8_lossy(&out)
            .split('\u{1e}')
            .filter_map(|item| {
                let (id, body) = item.trim().split_once('\u{1f}')?;
                let json = body.lines().find(|l| l.starts_with('{'))?;
                Some(Snapshot { id: id.to_string(), record: serde_json::from_str(json).ok()? })
            })
            .collect())
    }

    /// The session's turns that changed files (or may have), oldest first.
    pub fn turns(&self, session: &str) -> Result<Vec<Turn>, CheckpointError> {
        let history = self.history(session)?;
        let restored_to: HashSet<&str> =
            history.iter().filter(|s| s.record.kind == Kind::Restored).filter_map(|s| s.record.of.as_deref()).collect();
        let afters: HashMap<&str, &Snapshot> = history
            .iter()
            .filter(|s| s.record.kind == Kind::After)
            .filter_map(|s| Some((s.record.of.as_deref()?, s)))
            .collect();
        Ok(history
            .iter()
            .filter(|s| s.record.kind == Kind::Before)
            .map(|b| Turn {
                before: b.clone(),
                after: afters.get(b.id.as_str()).map(|a| (*a).clone()),
                undone: restored_to.contains(b.id.as_str()),
            })
            .collect())
    }

    /// Every session's snapshot with this id (or unique id prefix).
    pub fn find(&self, id: &str) -> Result<Snapshot, CheckpointError> {
        if id.len() < 4 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CheckpointError::NotFound(id.to_string()));
        }
        let git = self.git("find");
        let full = git
            .text(&["rev-parse", "--verify", "--quiet", &format!("{id}^{{commit}}")])
            .map_err(|_| CheckpointError::NotFound(id.to_string()))?;
        let body = git.text(&["log", "-1", "--format=%B", &full])?;
        let json =
            body.lines().find(|l| l.starts_with('{')).ok_or_else(|| CheckpointError::NotFound(id.to_string()))?;
        let record = serde_json::from_str(json).map_err(|_| CheckpointError::NotFound(id.to_string()))?;
        Ok(Snapshot { id: full, record })
    }

    /// The files `after` changed since `before` that changed again since
    /// (what a restore would overwrite), looked at now.
    pub fn conflicts(&self, session: &str, before: &str, after: &str) -> Result<Vec<String>, CheckpointError> {
        let now = self.stage_tree(session)?;
        self.changed_again(&self.changes(before, after)?, after, &now.tree)
    }

    /// Those of `paths` (what a turn changed up to `after`) that differ
    /// again at `now` (a snapshot or a staged tree).
    pub(crate) fn changed_again(
        &self,
        paths: &[String],
        after: &str,
        now: &str,
    ) -> Result<Vec<String>, CheckpointError> {
        let touched: HashSet<String> = self.changes(after, now)?.into_iter().collect();
        Ok(paths.iter().filter(|p| touched.contains(*p)).cloned().collect())
    }

    /// Paths that differ between two snapshots.
    pub fn changes(&self, from: &str, to: &str) -> Result<Vec<String>, CheckpointError> {
        let git = self.git("diff");
        let mut paths = nul_items(&git.run(&["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to], None)?);
        paths.retain(|p| !crate::meta::is_meta(p));
        Ok(paths)
    }
}

/// Wait (a little) while another git of this session holds its index: a
/// folder staged for a turn that changed nothing may still be finishing
/// when pi has ended (`pi -p`, then `pi checkpoints undo`).
fn wait_for_lock(index: &Path) {
    let lock = index.with_extension("lock");
    let deadline = std::time::Instant::now() + text::INDEX_LOCK_WAIT;
    while lock.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A new session's index starts as a copy of the most recent one, so its
/// first snapshot hashes only what changed since (git checks every entry
/// against the files; a stale copy costs time, never correctness).
fn seed_index(folder: &Path, index: &Path) {
    let newest = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".lock"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max_by_key(|(t, _)| *t);
    if let Some((_, from)) = newest {
        let _ = std::fs::copy(from, index);
    }
}

/// Items joined with NUL bytes, as `--stdin -z` reads them.
fn nul_joined(items: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        out.extend_from_slice(item.as_bytes());
        out.push(0);
    }
    out
}

/// A session id as a file and ref name (anything but `[A-Za-z0-9._-]` becomes `_`).
pub(crate) fn safe_name(session: &str) -> String {
    let s: String =
        session.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') { c } else { '_' }).collect();
    if s.is_empty() { "_".into() } else { s }
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}
