//! The diff of an edit, in the two forms `details` carries: a display diff with
//! line numbers (`-12 old`, `+12 new`, ` 13 context`, `...` for skipped runs)
//! and a standard unified patch (`---`/`+++`/`@@` headers) that applies to the
//! original. Both show 4 unchanged lines around each change.
//!
//! Only the regions around the replacements are diffed (plus some context), so
//! the time spent follows the size of the change, not of the file; the rest of
//! the file is known to be equal.

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline, group_diff_ops};

use super::apply::{Rep, line_starts};
use super::myers;
use crate::limits::{EDIT_DIFF_CONTEXT_LINES as CONTEXT, EDIT_DIFF_DEADLINE_SECS, EDIT_DIFF_MAX_EDITS};
use crate::text::edit as msg;

/// What `details` reports about an edit.
#[derive(Debug, PartialEq)]
pub(super) struct EditDiff {
    pub diff: String,
    pub patch: String,
    pub first_changed_line: Option<usize>,
}

/// The lines of `s`, each with its `\n` (the last may lack one).
fn lines(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

/// Line index of a byte offset that is a line start (or the end).
fn line_index(starts: &[usize], pos: usize) -> usize {
    starts.partition_point(|&s| s < pos)
}

/// The new side of a diff, built only inside the diffed windows (the rest
/// of the new file is the old one's lines, so it is never held whole).
struct NewSide {
    /// Each window: the new index of its first line, and its new lines.
    windows: Vec<(usize, Vec<String>)>,
}

impl NewSide {
    /// New line `n`, which lies inside a window (only changed lines and
    /// their neighbours are looked up as new lines).
    fn line(&self, n: usize) -> &str {
        let i = self.windows.partition_point(|(first, _)| *first <= n).saturating_sub(1);
        self.windows.get(i).and_then(|(first, ls)| ls.get(n.wrapping_sub(*first))).map_or("", String::as_str)
    }
}

/// How many `\n` `s` holds.
fn newlines(s: &str) -> usize {
    s.bytes().filter(|b| *b == b'\n').count()
}

/// The line-level operations turning `old` into the edited text, given the
/// replacements (sorted, on `old`) that make it, and that text's lines
/// inside the diffed windows.
fn diff_ops(old: &str, reps: &[Rep], old_lines: &[&str]) -> (Vec<DiffOp>, NewSide) {
    let old_starts = line_starts(old);
    // Byte windows on `old`: whole lines around each replacement, plus context.
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for r in reps {
        let first = old_starts.partition_point(|&s| s <= r.start).saturating_sub(1);
        let after = old_starts.partition_point(|&s| s <= r.end);
        let a = first.saturating_sub(CONTEXT);
        let b = (after + CONTEXT).min(old_starts.len());
        let start = old_starts.get(a).copied().unwrap_or(old.len());
        let end = old_starts.get(b).copied().unwrap_or(old.len());
        match windows.last_mut() {
            Some(w) if start <= w.1 => w.1 = w.1.max(end),
            _ => windows.push((start, end)),
        }
    }
    let deadline = Instant::now().checked_add(Duration::from_secs(EDIT_DIFF_DEADLINE_SECS));
    let mut ops = Vec::new();
    let mut new_side = NewSide { windows: Vec::with_capacity(windows.len()) };
    let (mut old_at, mut new_at) = (0usize, 0usize);
    let mut rep_iter = reps.iter().peekable();
    for (ws, we) in windows {
        let mut inner = Vec::new();
        while let Some(r) = rep_iter.next_if(|r| r.start < we) {
            inner.push(Rep { start: r.start - ws, end: r.end.min(we) - ws, text: r.text.clone() });
        }
        let new_text = super::apply::splice(&old[ws..we], &inner);
        let (oa, ob) = (line_index(&old_starts, ws), line_index_end(&old_starts, old.len(), we));
        // Lines before the window are the same on both sides, shifted.
        let na = new_at + (oa - old_at);
        let new_lines: Vec<String> = lines(&new_text).into_iter().map(String::from).collect();
        let nb = na + new_lines.len();
        if oa > old_at {
            push_op(&mut ops, DiffOp::Equal { old_index: old_at, new_index: new_at, len: oa - old_at });
        }
        {
            let wn: Vec<&str> = new_lines.iter().map(String::as_str).collect();
            let wo = &old_lines[oa..ob];
            let window_ops = myers::diff(wo, &wn, EDIT_DIFF_MAX_EDITS)
                .unwrap_or_else(|| capture_diff_slices_deadline(Algorithm::Myers, wo, &wn, deadline));
            for op in window_ops {
                push_op(&mut ops, shift_op(op, oa, na));
            }
        }
        new_side.windows.push((na, new_lines));
        (old_at, new_at) = (ob, nb);
    }
    if old_at < old_lines.len() {
        push_op(&mut ops, DiffOp::Equal { old_index: old_at, new_index: new_at, len: old_lines.len() - old_at });
    }
    (ops, new_side)
}

/// Append an op, joining it to a preceding equal run.
fn push_op(ops: &mut Vec<DiffOp>, op: DiffOp) {
    if let (Some(DiffOp::Equal { len, .. }), DiffOp::Equal { len: more, .. }) = (ops.last_mut(), &op) {
        *len += more;
        return;
    }
    ops.push(op);
}

fn line_index_end(starts: &[usize], len: usize, pos: usize) -> usize {
    if pos >= len { starts.len() } else { line_index(starts, pos) }
}

fn shift_op(op: DiffOp, o: usize, n: usize) -> DiffOp {
    match op {
        DiffOp::Equal { old_index, new_index, len } => {
            DiffOp::Equal { old_index: old_index + o, new_index: new_index + n, len }
        }
        DiffOp::Delete { old_index, old_len, new_index } => {
            DiffOp::Delete { old_index: old_index + o, old_len, new_index: new_index + n }
        }
        DiffOp::Insert { old_index, new_index, new_len } => {
            DiffOp::Insert { old_index: old_index + o, new_index: new_index + n, new_len }
        }
        DiffOp::Replace { old_index, old_len, new_index, new_len } => {
            DiffOp::Replace { old_index: old_index + o, old_len, new_index: new_index + n, new_len }
        }
    }
}

/// One line of either side, as the renderers walk them.
enum Line {
    /// Unchanged: old index.
    Same(usize),
    /// Deleted: old index.
    Del(usize),
    /// Inserted: new index.
    Ins(usize),
}

/// Expand ops into lines (a replacement's deletions before its insertions).
fn op_lines(op: &DiffOp) -> Vec<Line> {
    match *op {
        DiffOp::Equal { old_index, len, .. } => (0..len).map(|k| Line::Same(old_index + k)).collect(),
        DiffOp::Delete { old_index, old_len, .. } => (0..old_len).map(|k| Line::Del(old_index + k)).collect(),
        DiffOp::Insert { new_index, new_len, .. } => (0..new_len).map(|k| Line::Ins(new_index + k)).collect(),
        DiffOp::Replace { old_index, old_len, new_index, new_len } => (0..old_len)
            .map(|k| Line::Del(old_index + k))
            .chain((0..new_len).map(|k| Line::Ins(new_index + k)))
            .collect(),
    }
}

fn display(ops: &[DiffOp], old_lines: &[&str], new_side: &NewSide, width: usize) -> String {
    let text = |l: &str| l.strip_suffix('\n').unwrap_or(l).to_string();
    let skipped = format!(" {:width$} {}", "", msg::DIFF_SKIPPED);
    let mut out: Vec<String> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let DiffOp::Equal { old_index, len, .. } = *op else {
            for line in op_lines(op) {
                match line {
                    Line::Del(o) => out.push(format!("-{:>width$} {}", o + 1, text(old_lines[o]))),
                    Line::Ins(n) => out.push(format!("+{:>width$} {}", n + 1, text(new_side.line(n)))),
                    Line::Same(_) => {}
                }
            }
            continue;
        };
        let same = |k: usize| format!(" {:>width$} {}", old_index + k + 1, text(old_lines[old_index + k]));
        let (before, after) = (i > 0, i + 1 < ops.len());
        match (before, after) {
            (true, true) if len <= 2 * CONTEXT => out.extend((0..len).map(same)),
            (true, true) => {
                out.extend((0..CONTEXT).map(same));
                out.push(skipped.clone());
                out.extend((len - CONTEXT..len).map(same));
            }
            (true, false) => {
                out.extend((0..len.min(CONTEXT)).map(same));
                if len > CONTEXT {
                    out.push(skipped.clone());
                }
            }
            (false, true) => {
                if len > CONTEXT {
                    out.push(skipped.clone());
                }
                out.extend((len.saturating_sub(CONTEXT)..len).map(same));
            }
            (false, false) => {}
        }
    }
    out.join("\n")
}

fn push_line(out: &mut String, prefix: char, line: &str) {
    out.push(prefix);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push('\n');
        out.push_str(msg::NO_NEWLINE_AT_EOF);
        out.push('\n');
    }
}

/// `start,len` of a hunk side; an empty side names the line before it.
fn hunk_range(r: std::ops::Range<usize>) -> String {
    let len = r.end - r.start;
    format!("{},{}", if len == 0 { r.start } else { r.start + 1 }, len)
}

fn patch(path: &str, ops: Vec<DiffOp>, old_lines: &[&str], new_side: &NewSide) -> String {
    let mut out = format!("--- {path}\n+++ {path}\n");
    for group in group_diff_ops(ops, CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        out.push_str(&format!("@@ -{} +{} @@\n", hunk_range(old_range), hunk_range(new_range)));
        for line in group.iter().flat_map(op_lines) {
            match line {
                Line::Same(o) => push_line(&mut out, ' ', old_lines[o]),
                Line::Del(o) => push_line(&mut out, '-', old_lines[o]),
                Line::Ins(n) => push_line(&mut out, '+', new_side.line(n)),
            }
        }
    }
    out
}

/// The display diff, the unified patch and the first changed line (1-based, in the new file).
pub(super) fn edit_diff(path: &str, old: &str, reps: &[Rep]) -> EditDiff {
    let old_lines = lines(old);
    let (ops, new_side) = diff_ops(old, reps, &old_lines);
    // Width of the line numbers: the larger line count, counted as `split("\n")` does.
    let old_count = newlines(old) + 1;
    let removed: usize = reps.iter().map(|r| newlines(&old[r.start..r.end])).sum();
    let added: usize = reps.iter().map(|r| newlines(&r.text)).sum();
    let new_count = old_count + added - removed.min(old_count + added);
    let width = old_count.max(new_count).to_string().len();
    let first_changed_line =
        ops.iter().find(|op| !matches!(op, DiffOp::Equal { .. })).map(|op| op.new_range().start + 1);
    let diff = display(&ops, &old_lines, &new_side, width);
    EditDiff { diff, patch: patch(path, ops, &old_lines, &new_side), first_changed_line }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(old: &str, find: &str, text: &str) -> Rep {
        let start = old.find(find).unwrap_or(0);
        Rep { start, end: start + find.len(), text: text.to_string() }
    }

    #[test]
    fn new_line_numbers_follow_earlier_changes_without_the_whole_new_text() {
        let old: String = (1..=30).map(|i| format!("line{i}\n")).collect();
        // Line 3 becomes three lines; line 20 goes.
        let reps = vec![rep(&old, "line3\n", "a\nb\nc\n"), rep(&old, "line20\n", "")];
        let d = edit_diff("f.txt", &old, &reps);
        let shown: Vec<&str> = d.diff.lines().collect();
        for want in ["- 3 line3", "+ 3 a", "+ 4 b", "+ 5 c", "  4 line4", "-20 line20", " 21 line21"] {
            assert!(shown.contains(&want), "{want:?} in\n{}", d.diff);
        }
        assert_eq!(d.first_changed_line, Some(3));
        assert!(d.patch.contains("@@ -1,7 +1,9 @@"), "{}", d.patch);
        assert!(d.patch.contains("@@ -16,9 +18,8 @@"), "{}", d.patch);
        // A last line without a newline is marked in the patch.
        let old = "x\ny";
        let d = edit_diff("f.txt", old, &[rep(old, "y", "z")]);
        assert!(d.patch.ends_with("+z\n\\ No newline at end of file\n"), "{}", d.patch);
    }
}
