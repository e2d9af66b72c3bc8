//! What a restore would change, before it happens: per file, whether its
//! contents come back, it goes (the turn made it) or it comes back (the
//! turn removed it), with the lines the restore adds and removes.

use serde::Serialize;

use crate::git::nul_items;
use crate::store::Store;
use crate::{CheckpointError, text};

/// How a restore changes one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    /// Its contents (or mode) come back.
    Written,
    /// It goes: it did not exist at the checkpoint.
    Removed,
    /// It comes back: the turn removed it.
    Recreated,
}

/// One file a restore would change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// Its path in the working folder.
    pub path: String,
    /// How.
    pub change: Change,
    /// Lines the restore adds (`None`: a binary file).
    pub added: Option<u64>,
    /// Lines the restore removes (`None`: a binary file).
    pub removed: Option<u64>,
}

impl Store {
    /// What bringing the files from snapshot `now` back to snapshot `target`
    /// changes, file by file, in path order.
    pub fn summary(&self, now: &str, target: &str) -> Result<Vec<FileChange>, CheckpointError> {
        let git = self.git("diff");
        let status = git.run(&["diff-tree", "-r", "-z", "--no-renames", "--name-status", now, target], None)?;
        let numstat = git.run(&["diff-tree", "-r", "-z", "--no-renames", "--numstat", now, target], None)?;
        // `<added>\t<removed>\t<path>` per item (`-` for a binary file).
        let lines: std::collections::HashMap<String, (Option<u64>, Option<u64>)> = nul_items(&numstat)
            .into_iter()
            .filter_map(|item| {
                let mut parts = item.splitn(3, '\t');
                let (added, removed, path) = (parts.next()?, parts.next()?, parts.next()?);
                Some((path.to_string(), (added.parse().ok(), removed.parse().ok())))
            })
            .collect();
        // `<status>\0<path>\0` per item.
        let items = nul_items(&status);
        let mut out: Vec<FileChange> = items
            .chunks(2)
            .filter_map(|pair| {
                let (code, path) = (pair.first()?, pair.get(1)?);
                if crate::meta::is_meta(path) {
                    return None;
                }
                let change = match code.as_str() {
                    "A" => Change::Recreated,
                    "D" => Change::Removed,
                    _ => Change::Written,
                };
                let (added, removed) = lines.get(path).copied().unwrap_or((None, None));
                Some(FileChange { path: path.clone(), change, added, removed })
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// The summary as lines for people (`  a.txt  +1 -2`), at most
/// [`text::SUMMARY_MAX_FILES`] of them and a count of the rest.
pub fn summary_text(files: &[FileChange]) -> String {
    let mut lines: Vec<String> = files.iter().take(text::SUMMARY_MAX_FILES).map(summary_line).collect();
    if files.len() > text::SUMMARY_MAX_FILES {
        lines.push(text::summary_more(files.len() - text::SUMMARY_MAX_FILES));
    }
    lines.join("\n")
}

/// One file of a restore's summary: `  a.txt  +1 -2`.
pub fn summary_line(f: &FileChange) -> String {
    format!("  {}  {}", f.path, summary_effect(f))
}

/// What a restore does to one file: `+1 -2`, `removed (+0 -3)`, `back (+3 -0)`.
pub fn summary_effect(f: &FileChange) -> String {
    let lines = text::summary_lines(f.added, f.removed);
    match f.change {
        Change::Written => lines,
        Change::Removed => text::summary_removed(&lines),
        Change::Recreated => text::summary_back(&lines),
    }
}
