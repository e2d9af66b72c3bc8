//! Checkpoints of the working folder (beyond B11): before each turn that
//! may change files (a call whose tool is not read-only: `write`, `edit`,
//! `bash`, extension and MCP tools, codemode's nested calls), the folder is
//! kept as a snapshot in a shadow git store under the agent dir
//! (`checkpoints/<folder>`), and again when the turn ends. `/undo` and
//! `pi checkpoints restore` bring back what a turn changed, refusing when a
//! file changed since the turn (the user's edit is never overwritten
//! silently); every restore first keeps what is there as a snapshot.
//!
//! The store never touches the project's own `.git`: git runs with the
//! store as `GIT_DIR`, each session with its own index and ref, no user or
//! system configuration, no hooks. `.gitignore` files (and the project's
//! `.git/info/exclude`) are respected; files over the size cap and files
//! that cannot be read are left out and named as not restorable.
//!
//! ```no_run
//! use pi_checkpoints::{Kind, Record, Store};
//! let store = Store::open("/home/me/.pi/agent".as_ref(), "/home/me/project".as_ref(), 10)?;
//! let before = store.snapshot(Record::new(Kind::Before, "session-id"))?;
//! // … the agent's turn changes files …
//! let after = store.snapshot(Record::new(Kind::After, "session-id"))?;
//! store.restore("session-id", &before, &after.id, false)?;
//! # Ok::<(), pi_checkpoints::CheckpointError>(())
//! ```
#![deny(missing_docs)]

mod git;
mod guard;
mod kept;
mod meta;
mod prune;
mod restore;
mod store;
mod summary;
pub mod text;

pub use guard::{Checkpoints, Notify};
pub use kept::{Kept, KeptPlan, roots_outside};
pub use store::{Kind, Record, Restored, Skipped, Snapshot, Staged, Store, Turn};
pub use summary::{Change, FileChange, summary_effect, summary_line, summary_text};

/// Why a checkpoint or a restore failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// `git` could not be run.
    #[error("git could not be run: {0}")]
    NoGit(String),
    /// A git command failed.
    #[error("git {0} failed: {1}")]
    Git(String, String),
    /// A file or folder could not be used.
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// No checkpoint with this id.
    #[error("{}", text::no_checkpoint(.0))]
    NotFound(String),
    /// Files changed since the turn; nothing was written.
    #[error("{}", text::changed_since(.0))]
    ChangedSince(Vec<String>),
    /// The folder is the home or the root folder: too broad to keep.
    #[error("{}", text::too_broad(.0))]
    TooBroad(String),
    /// Nothing to undo.
    #[error("{}", text::NOTHING_TO_UNDO)]
    NothingToUndo,
    /// An extension cancelled the restore (`session_before_restore`).
    #[error("{}", text::RESTORE_CANCELLED)]
    Cancelled,
    /// The work was stopped before it ran because pi is ending (a folder
    /// staged for a turn that made no change is not waited for).
    #[error("{}", text::STORE_WORK_ENDED)]
    Ending,
}

impl Record {
    /// A record of `kind` for `session`, stamped now.
    pub fn new(kind: Kind, session: &str) -> Record {
        Record {
            kind,
            session: session.to_string(),
            entry: None,
            of: None,
            primary: None,
            time: store::now_ms(),
            skipped: Vec::new(),
        }
    }
}

/// What an undo would restore: the session's last turn that changed files
/// and is not undone yet, and the files it changed.
#[derive(Debug, Clone)]
pub struct UndoPlan {
    /// The turn.
    pub turn: Turn,
    /// The snapshot its changes are read against (its `after`).
    pub after: String,
    /// The files it changed.
    pub files: Vec<String>,
}

impl UndoPlan {
    /// What carrying out the plan would change, file by file (the turns'
    /// changes, taken back).
    pub fn summary(&self, store: &Store) -> Result<Vec<FileChange>, CheckpointError> {
        store.summary(&self.after, &self.turn.before.id)
    }
}

/// [`UndoPlan`] for `session` (nothing is written).
pub fn plan_undo(store: &Store, session: &str) -> Result<UndoPlan, CheckpointError> {
    let turns = store.turns(session)?;
    let turn = turns.into_iter().rev().find(|t| !t.undone).ok_or(CheckpointError::NothingToUndo)?;
    plan_turn(store, session, turn)
}

/// The [`UndoPlan`] of `turn` of `session` in `store`.
pub(crate) fn plan_turn(store: &Store, session: &str, turn: Turn) -> Result<UndoPlan, CheckpointError> {
    let after = match &turn.after {
        Some(a) => a.id.clone(),
        // pi stopped during the turn: what is there now is its end.
        None => store.snapshot(Record { of: Some(turn.before.id.clone()), ..Record::new(Kind::After, session) })?.id,
    };
    let files = store.changes(&turn.before.id, &after)?;
    Ok(UndoPlan { turn, after, files })
}

/// What a rewind of the conversation to before `entries` would restore: the
/// session's earliest turn whose answer is one of `entries` (the part of the
/// conversation being left), read against the session's latest snapshot, so
/// every change made since that turn goes (`None`: no such turn changed
/// files).
pub fn plan_rewind(
    store: &Store,
    session: &str,
    entries: &std::collections::HashSet<String>,
) -> Result<Option<UndoPlan>, CheckpointError> {
    let turns = store.turns(session)?;
    let first = turns
        .iter()
        .position(|t| t.after.as_ref().and_then(|a| a.record.entry.as_ref()).is_some_and(|e| entries.contains(e)));
    let Some(first) = first else { return Ok(None) };
    let turn = turns[first].clone();
    let latest = store.history(session)?.into_iter().rev().find(|s| s.record.kind != Kind::Before);
    let after = match latest {
        Some(s) => s.id,
        None => store.snapshot(Record { of: Some(turn.before.id.clone()), ..Record::new(Kind::After, session) })?.id,
    };
    let files = store.changes(&turn.before.id, &after)?;
    Ok(Some(UndoPlan { turn, after, files }))
}

/// Undo the session's last turn that changed files and is not undone yet:
/// its files as they were before it (see [`Store::restore`]).
pub fn undo(store: &Store, session: &str, force: bool) -> Result<(Turn, Restored), CheckpointError> {
    let plan = plan_undo(store, session)?;
    let restored = store.restore(session, &plan.turn.before, &plan.after, force)?;
    Ok((plan.turn, restored))
}
