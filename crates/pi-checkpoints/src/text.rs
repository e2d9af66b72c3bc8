//! Every message and limit of checkpoints, in one place.

/// The `git` program checkpoints run (found on `PATH`).
pub const GIT: &str = "git";

/// Files larger than this are not copied into a checkpoint (recorded as not
/// restorable), unless `checkpoints.maxSizeMb` says otherwise.
pub const DEFAULT_MAX_FILE_MB: u64 = 10;

/// Checkpoints older than this many days are pruned, unless
/// `checkpoints.keepDays` says otherwise.
pub const DEFAULT_KEEP_DAYS: u64 = 14;

/// A store larger than this many MB drops its oldest sessions' checkpoints
/// when it is pruned, unless `checkpoints.maxStoreMb` says otherwise.
pub const DEFAULT_MAX_STORE_MB: u64 = 2048;

/// How often a store is pruned on its own (when a session first keeps a
/// checkpoint in it).
pub const AUTO_PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(86_400);

/// The file of a store whose modification time says when it was last pruned.
pub const PRUNE_STAMP: &str = "pi-pruned";

/// How long objects no checkpoint holds are kept when pruning by size (a
/// running session may have staged a tree it has not made a checkpoint of).
pub const PRUNE_GRACE: std::time::Duration = std::time::Duration::from_secs(3_600);

/// The folder of the agent dir holding every project's checkpoint store.
pub const STORE_FOLDER: &str = "checkpoints";

/// How long a snapshot waits for another git holding the session's index.
pub const INDEX_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The first line of every checkpoint's commit message.
pub const COMMIT_TITLE: &str = "pi checkpoint";

/// Why a file is not in a checkpoint: larger than the cap.
pub fn too_large(max_mb: u64) -> String {
    format!("larger than {max_mb} MB (checkpoints.maxSizeMb)")
}

/// Why a file is not in a checkpoint: it could not be read.
pub const UNREADABLE: &str = "not readable";

/// Why a folder is not in a checkpoint: a git repository of its own.
pub const NESTED_REPOSITORY: &str = "a git repository of its own";

/// Checkpoints are off because git cannot be run.
pub fn no_git(why: &str) -> String {
    format!("Checkpoints are off: git could not be run ({why}). Install git to be able to undo the agent's changes.")
}

/// A checkpoint could not be taken; the call runs anyway.
pub fn checkpoint_failed(why: &str) -> String {
    format!("Checkpoint failed ({why}); this turn's changes cannot be undone.")
}

/// `/undo` with nothing to undo.
pub const NOTHING_TO_UNDO: &str = "Nothing to undo: the agent has changed no files in this session.";

/// A restore refused because files changed after the agent's turn.
pub fn changed_since(paths: &[String]) -> String {
    format!(
        "Not restored: {} changed after the agent's turn: {}. Save or restore your own changes first, or restore anyway with `pi checkpoints restore <id> --force` (what is there now is kept as a checkpoint).",
        if paths.len() == 1 { "this file" } else { "these files" },
        paths.join(", ")
    )
}

/// A restore that wrote and deleted files.
pub fn restored(changed: usize, checkpoint: &str) -> String {
    let files = if changed == 1 { "1 file" } else { "changed files" };
    let count = if changed == 1 { String::new() } else { format!(" ({changed})") };
    format!(
        "Restored {files}{count} as they were at checkpoint {checkpoint}; what was there is kept as a checkpoint too."
    )
}

/// Files a restore could not bring back.
pub fn not_restorable(paths: &[String]) -> String {
    format!("Not restorable (not in the checkpoint): {}", paths.join(", "))
}

/// No checkpoint with this id.
pub fn no_checkpoint(id: &str) -> String {
    format!("No checkpoint {id} in this project (see `pi checkpoints list`).")
}

/// The note the conversation gets after `/undo`.
pub fn conversation_note(checkpoint: &str, paths: &[String]) -> String {
    format!(
        "The user restored the files as they were before the agent's last changing turn (checkpoint {checkpoint}): {}. The files no longer hold those changes.",
        paths.join(", ")
    )
}

/// The title of `/undo`'s question when files changed since the turn.
pub const UNDO_CONFIRM_TITLE: &str = "Restore files changed since the agent's turn?";

/// `/undo`'s question when files changed since the turn.
pub fn changed_since_question(paths: &[String]) -> String {
    format!(
        "{} changed after the agent's turn: {}. Restoring overwrites that change (it is kept as a checkpoint).",
        if paths.len() == 1 { "This file" } else { "These files" },
        paths.join(", ")
    )
}

/// `/undo` answered no.
pub const UNDO_KEPT: &str = "Nothing restored.";

/// Checkpoints are not kept for the home or the root folder.
pub fn too_broad(folder: &str) -> String {
    format!(
        "Checkpoints are off in {folder}: it is the home or the root folder (start pi in a project folder to undo its changes)."
    )
}

/// A restore an extension cancelled (`session_before_restore`).
pub const RESTORE_CANCELLED: &str = "Restore cancelled by an extension.";

/// Store work stopped because pi is ending (never shown as a failure).
pub const STORE_WORK_ENDED: &str = "Checkpoint work stopped: pi is ending.";

/// `pi checkpoints prune`'s answer.
pub fn pruned(sessions: usize, days: u64) -> String {
    let what =
        if sessions == 1 { "1 session's checkpoints".to_string() } else { format!("{sessions} sessions' checkpoints") };
    format!("Dropped {what} older than {days} days.")
}

/// `pi checkpoints prune`: the oldest sessions dropped to fit the size cap.
pub fn pruned_to_size(sessions: usize, max_mb: u64) -> String {
    let what = if sessions == 1 {
        "1 more session's checkpoints".to_string()
    } else {
        format!("{sessions} more sessions' checkpoints")
    };
    format!("Dropped {what}: the store was larger than {max_mb} MB (checkpoints.maxStoreMb).")
}

/// `/tree`'s question when the part of the conversation left behind changed files.
pub const REWIND_FILES_TITLE: &str = "Restore the files too?";

/// The explanation under [`REWIND_FILES_TITLE`].
pub const REWIND_FILES_MESSAGE: &str = "The agent changed files after this point. Yes: the files go back to how they were here (a checkpoint keeps what is there now).";

/// `/tree` kept the files as they are.
pub const FILES_KEPT: &str = "Files left as they are.";

/// Most files a restore's summary names one by one.
pub const SUMMARY_MAX_FILES: usize = 20;

/// What a restore does to a file's lines: `+1 -2` (`None`: a binary file).
pub fn summary_lines(added: Option<u64>, removed: Option<u64>) -> String {
    match (added, removed) {
        (Some(a), Some(r)) => format!("+{a} -{r}"),
        _ => "binary".to_string(),
    }
}

/// A file a restore removes, with [`summary_lines`].
pub fn summary_removed(lines: &str) -> String {
    format!("removed ({lines})")
}

/// A file a restore brings back, with [`summary_lines`].
pub fn summary_back(lines: &str) -> String {
    format!("back ({lines})")
}

/// The files of a restore's summary not named.
pub fn summary_more(n: usize) -> String {
    format!("  … and {n} more")
}

/// `/undo`'s question, above what the restore would change.
pub const UNDO_TITLE: &str = "Undo the agent's last turn?";

/// Above a restore's summary.
pub const SUMMARY_HEADING: &str = "These files would change:";
