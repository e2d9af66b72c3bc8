//! Everything a session keeps: its working folder's store first, then one
//! store per writable root of the sandbox outside the folder (`bash` under
//! `workspace-write` may change those too). Snapshots are taken in every
//! store at the same moments; a writable root's snapshot names the working
//! folder's one it was taken with (`primary`), so an undo finds the same
//! turn everywhere. A restore checks every store for files changed since
//! before it writes anything.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::store::{Record, Restored, Snapshot, Staged, Store};
use crate::summary::FileChange;
use crate::{CheckpointError, UndoPlan, plan_rewind, plan_turn, plan_undo};

/// The stores of one session: the working folder's, then its writable roots'.
#[derive(Debug, Clone)]
pub struct Kept {
    stores: Vec<Store>,
}

/// A restore planned in each store that has something to restore: (the
/// store's place in [`Kept`], its plan). The working folder's comes first
/// when it has one.
#[derive(Debug, Clone)]
pub struct KeptPlan {
    /// The plans.
    pub plans: Vec<(usize, UndoPlan)>,
}

impl KeptPlan {
    /// The checkpoint the restore goes back to (the first plan's `before`).
    pub fn checkpoint(&self) -> &str {
        self.plans.first().map(|(_, p)| p.turn.before.id.as_str()).unwrap_or_default()
    }
}

/// The writable roots outside `cwd` worth keeping: existing folders, neither
/// inside the working folder (kept with it) nor holding it, each once.
pub fn roots_outside(cwd: &Path, roots: &[PathBuf]) -> Vec<PathBuf> {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let mut out: Vec<PathBuf> = Vec::new();
    for r in roots {
        let Ok(r) = r.canonicalize() else { continue };
        if r.is_dir() && !r.starts_with(&cwd) && !cwd.starts_with(&r) && !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// Store `i`'s record: `record`, with `of` the store's own (from `of`) and,
/// past the working folder's, the working folder's snapshot (`snaps[0]`).
fn record_for(i: usize, record: &Record, of: &[String], snaps: &[Snapshot]) -> Record {
    Record {
        of: of.get(i).cloned().or(record.of.clone()),
        primary: snaps.first().map(|s| s.id.clone()),
        ..record.clone()
    }
}

impl Kept {
    /// The stores of `cwd` and of `roots` (see [`roots_outside`]) under
    /// `agent_dir`. The working folder's store must open; a root whose
    /// store cannot (the home folder, git missing) is left out.
    pub fn open(agent_dir: &Path, cwd: &Path, roots: &[PathBuf], max_file_mb: u64) -> Result<Kept, CheckpointError> {
        let mut stores = vec![Store::open(agent_dir, cwd, max_file_mb)?];
        for root in roots_outside(cwd, roots) {
            if let Ok(s) = Store::open(agent_dir, &root, max_file_mb) {
                stores.push(s);
            }
        }
        Ok(Kept { stores })
    }

    /// The working folder's store.
    pub fn primary(&self) -> &Store {
        &self.stores[0]
    }

    /// Every store, the working folder's first.
    pub fn stores(&self) -> &[Store] {
        &self.stores
    }

    /// Stage every folder (see [`Store::stage_tree`]).
    pub fn stage(&self, session: &str) -> Result<Vec<Staged>, CheckpointError> {
        self.stores.iter().map(|s| s.stage_tree(session)).collect()
    }

    /// Make `staged` (one per store, as [`Kept::stage`] gives them)
    /// checkpoints: `record` in each, `of` taken from `of` by store.
    pub fn commit(&self, record: Record, staged: Vec<Staged>, of: &[String]) -> Result<Vec<Snapshot>, CheckpointError> {
        let mut snaps: Vec<Snapshot> = Vec::new();
        for (i, (store, staged)) in self.stores.iter().zip(staged).enumerate() {
            snaps.push(store.commit(record_for(i, &record, of, &snaps), staged)?);
        }
        Ok(snaps)
    }

    /// Snapshots of every folder now (see [`Store::snapshot_staged`]), and
    /// the folders as staged.
    pub fn snapshot(&self, record: Record, of: &[String]) -> Result<(Vec<Snapshot>, Vec<Staged>), CheckpointError> {
        let (mut snaps, mut staged) = (Vec::new(), Vec::new());
        for (i, store) in self.stores.iter().enumerate() {
            let (snap, folder) = store.snapshot_staged(record_for(i, &record, of, &snaps))?;
            snaps.push(snap);
            staged.push(folder);
        }
        Ok((snaps, staged))
    }

    /// What an undo of `session`'s last changing turn restores, in every
    /// store that kept that turn.
    pub fn plan_undo(&self, session: &str) -> Result<KeptPlan, CheckpointError> {
        let first = plan_undo(self.primary(), session)?;
        let mut plans = vec![(0, first.clone())];
        for (i, store) in self.stores.iter().enumerate().skip(1) {
            let turns = store.turns(session)?;
            let Some(turn) = turns
                .into_iter()
                .rev()
                .find(|t| !t.undone && t.before.record.primary.as_deref() == Some(first.turn.before.id.as_str()))
            else {
                continue;
            };
            plans.push((i, plan_turn(store, session, turn)?));
        }
        Ok(KeptPlan { plans })
    }

    /// What a rewind to before the turns answered by `entries` restores,
    /// in every store (`None`: no store kept such a turn).
    pub fn plan_rewind(&self, session: &str, entries: &HashSet<String>) -> Result<Option<KeptPlan>, CheckpointError> {
        let mut plans = Vec::new();
        for (i, store) in self.stores.iter().enumerate() {
            if let Some(p) = plan_rewind(store, session, entries)? {
                plans.push((i, p));
            }
        }
        Ok((!plans.is_empty()).then_some(KeptPlan { plans }))
    }

    /// Store `i`'s path `p` as the user reads it: relative in the working
    /// folder, absolute in a writable root.
    fn shown(&self, i: usize, p: &str) -> String {
        if i == 0 { p.to_string() } else { self.stores[i].work().join(p).display().to_string() }
    }

    /// The paths `plan` changes, as the user reads them.
    pub fn files(&self, plan: &KeptPlan) -> Vec<String> {
        plan.plans.iter().flat_map(|(i, p)| p.files.iter().map(move |f| self.shown(*i, f))).collect()
    }

    /// What carrying out `plan` would change, file by file.
    pub fn summary(&self, plan: &KeptPlan) -> Result<Vec<FileChange>, CheckpointError> {
        let mut out = Vec::new();
        for (i, p) in &plan.plans {
            for f in p.summary(&self.stores[*i])? {
                out.push(FileChange { path: self.shown(*i, &f.path), ..f });
            }
        }
        Ok(out)
    }

    /// Carry out `plan` for `session`: refused with every file changed since
    /// (in any store; nothing written) unless `force`, else each store
    /// restored (see [`Store::restore`]).
    pub fn restore(&self, session: &str, plan: &KeptPlan, force: bool) -> Result<Restored, CheckpointError> {
        if !force {
            let mut changed = Vec::new();
            for (i, p) in &plan.plans {
                let found = self.stores[*i].conflicts(session, &p.turn.before.id, &p.after)?;
                changed.extend(found.iter().map(|f| self.shown(*i, f)));
            }
            if !changed.is_empty() {
                return Err(CheckpointError::ChangedSince(changed));
            }
        }
        let mut all = Restored::default();
        for (i, p) in &plan.plans {
            let done = self.stores[*i].restore(session, &p.turn.before, &p.after, true)?;
            let shown = |v: Vec<String>| v.into_iter().map(|f| self.shown(*i, &f)).collect::<Vec<_>>();
            all.written.extend(shown(done.written));
            all.removed.extend(shown(done.removed));
            all.not_restorable.extend(shown(done.not_restorable));
            all.previous = all.previous.or(done.previous);
        }
        Ok(all)
    }
}
