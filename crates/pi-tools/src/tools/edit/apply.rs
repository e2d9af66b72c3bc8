//! Matching the edits against the file and turning them into replacements.
//!
//! Everything here works on the file's text with `\n` line breaks and without
//! its BOM. Every edit is matched against the original text, never against the
//! result of another edit. When some `oldText` is found only in fuzzy space,
//! all edits are matched there, and each replacement then covers the whole
//! lines it touches, so every other line keeps its bytes.

use super::error::EditError;
use super::fuzzy;

/// One edit as the model sent it.
#[derive(Debug, Clone)]
pub(super) struct EditText {
    /// Text to find.
    pub old: String,
    /// Text to put in its place.
    pub new: String,
}

/// Replace `start..end` (byte offsets) with `text`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Rep {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The replacements that turn the original into the edited text (which is
/// never held whole beside the original: see `splice_eq`).
#[derive(Debug)]
pub(super) struct Applied {
    /// Sorted, disjoint replacements on the original text.
    pub reps: Vec<Rep>,
}

/// `\r\n` and lone `\r` become `\n`.
pub(super) fn to_lf(s: &str) -> String {
    if !s.contains('\r') {
        return s.to_string();
    }
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// Apply sorted, disjoint replacements.
pub(super) fn splice(base: &str, reps: &[Rep]) -> String {
    let mut out = String::with_capacity(base.len());
    let mut at = 0;
    for r in reps {
        out.push_str(&base[at..r.start]);
        out.push_str(&r.text);
        at = r.end;
    }
    out.push_str(&base[at..]);
    out
}

/// Whether applying `reps` to `base` gives `base` again, compared piece by
/// piece without building the result.
fn splice_eq(base: &str, reps: &[Rep]) -> bool {
    let b = base.as_bytes();
    let mut pos = 0;
    let mut eat = |piece: &[u8]| {
        let same = b.get(pos..pos + piece.len()).is_some_and(|s| s == piece);
        pos += piece.len();
        same
    };
    let mut at = 0;
    for r in reps {
        if !eat(&b[at..r.start]) || !eat(r.text.as_bytes()) {
            return false;
        }
        at = r.end;
    }
    eat(&b[at..]) && pos == b.len()
}

/// Start offsets of the lines of `s`, a line being a run ending in `\n` or
/// the unterminated rest (so `""` has no line and `"a\n"` has one).
pub(super) fn line_starts(s: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    if !s.is_empty() {
        starts.push(0);
    }
    starts.extend(s.match_indices('\n').map(|(i, _)| i + 1).filter(|&i| i < s.len()));
    starts
}

struct Match {
    edit: usize,
    start: usize,
    len: usize,
}

/// Match every edit and compute the replacements; `Err` is the model-visible message.
pub(super) fn apply_edits(content: &str, edits: &[EditText], path: &str) -> Result<Applied, EditError> {
    let multi = edits.len() > 1;
    let label = |i: usize| multi.then_some(i);
    let path = || path.to_string();
    if let Some(i) = edits.iter().position(|e| e.old.is_empty()) {
        return Err(EditError::EmptyOldText { path: path(), index: label(i) });
    }
    let edits: Vec<EditText> = edits.iter().map(|e| EditText { old: to_lf(&e.old), new: to_lf(&e.new) }).collect();
    let fuzzy_content = fuzzy::normalize(content);
    let fuzzy_old: Vec<String> = edits.iter().map(|e| fuzzy::normalize(&e.old)).collect();

    let mut matches = Vec::with_capacity(edits.len());
    let mut any_fuzzy = false;
    for (i, e) in edits.iter().enumerate() {
        let found = match content.find(&e.old) {
            Some(at) => Some((at, e.old.len())),
            None => {
                any_fuzzy = true;
                fuzzy_content.find(&fuzzy_old[i]).map(|at| (at, fuzzy_old[i].len()))
            }
        };
        let Some((start, len)) = found else { return Err(EditError::NotFound { path: path(), index: label(i) }) };
        let count = fuzzy::count(&fuzzy_content, &fuzzy_old[i]);
        if count > 1 {
            return Err(EditError::NotUnique { path: path(), index: label(i), count });
        }
        matches.push(Match { edit: i, start, len });
    }
    if any_fuzzy {
        // Every edit is matched again in the fuzzy text, so all offsets share
        // one base: as is first (so a trailing space the model typed is
        // consumed, as in the reference), then in its fuzzy form.
        for m in &mut matches {
            let (raw, needle) = (&edits[m.edit].old, &fuzzy_old[m.edit]);
            let found = match fuzzy_content.find(raw.as_str()) {
                Some(at) => Some((at, raw.len())),
                None => fuzzy_content.find(needle.as_str()).map(|at| (at, needle.len())),
            };
            let Some((start, len)) = found else {
                return Err(EditError::NotFound { path: path(), index: label(m.edit) });
            };
            m.start = start;
            m.len = len;
        }
    }
    matches.sort_by_key(|m| m.start);
    for pair in matches.windows(2) {
        if pair[0].start + pair[0].len > pair[1].start {
            return Err(EditError::Overlap { path: path(), first: pair[0].edit, second: pair[1].edit });
        }
    }
    let char_reps: Vec<Rep> =
        matches.iter().map(|m| Rep { start: m.start, end: m.start + m.len, text: edits[m.edit].new.clone() }).collect();
    let reps = if any_fuzzy { whole_line_reps(content, &fuzzy_content, &char_reps)? } else { char_reps };
    if splice_eq(content, &reps) {
        return Err(EditError::NoChanges { path: path(), multi });
    }
    Ok(Applied { reps })
}

/// Turn replacements in fuzzy space into replacements of whole lines of the
/// original: the lines each one touches (merged when two share a line) are
/// taken from the edited fuzzy text, all other lines stay as they are.
fn whole_line_reps(content: &str, fuzzy_content: &str, reps: &[Rep]) -> Result<Vec<Rep>, EditError> {
    let f_starts = line_starts(fuzzy_content);
    let o_starts = line_starts(content);
    if f_starts.len() != o_starts.len() {
        return Err(EditError::LineCountMismatch);
    }
    let lines = f_starts.len();
    let line_of = |pos: usize| f_starts.partition_point(|&s| s <= pos).saturating_sub(1);
    let end_of = |starts: &[usize], len: usize, line: usize| starts.get(line + 1).copied().unwrap_or(len);

    // Touched line spans [first, last] and the replacements inside each.
    let mut spans: Vec<(usize, usize, Vec<&Rep>)> = Vec::new();
    for r in reps {
        if lines == 0 || r.start >= fuzzy_content.len() {
            return Err(EditError::RangeOutside);
        }
        let first = line_of(r.start);
        let last = if r.end > r.start { line_of(r.end - 1) } else { first };
        match spans.last_mut() {
            Some((_, prev_last, inner)) if first <= *prev_last => {
                *prev_last = (*prev_last).max(last);
                inner.push(r);
            }
            _ => spans.push((first, last, vec![r])),
        }
    }
    let mut out = Vec::with_capacity(spans.len());
    for (first, last, inner) in spans {
        let f_start = f_starts[first];
        let f_end = end_of(&f_starts, fuzzy_content.len(), last);
        let shifted: Vec<Rep> = inner
            .iter()
            .map(|r| Rep { start: r.start - f_start, end: r.end - f_start, text: r.text.clone() })
            .collect();
        let text = splice(&fuzzy_content[f_start..f_end], &shifted);
        out.push(Rep { start: o_starts[first], end: end_of(&o_starts, content.len(), last), text });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::edit as msg;

    fn run(content: &str, edits: &[(&str, &str)]) -> Result<String, String> {
        let edits: Vec<EditText> =
            edits.iter().map(|(o, n)| EditText { old: o.to_string(), new: n.to_string() }).collect();
        apply_edits(content, &edits, "f.txt").map(|a| splice(content, &a.reps)).map_err(|e| e.to_string())
    }

    #[test]
    fn matches_against_the_original_not_incrementally() {
        assert_eq!(
            run("foo\nbar\nbaz\n", &[("foo\n", "foo bar\n"), ("bar\n", "BAR\n")]).unwrap(),
            "foo bar\nBAR\nbaz\n"
        );
    }

    #[test]
    fn fuzzy_rewrites_only_touched_lines() {
        assert_eq!(
            run("k\na  \nb \u{201C}q\u{201D}\nc  \n", &[("a\nb", "a\nB"), ("k", "K")]).unwrap(),
            "K\na\nB \"q\"\nc  \n"
        );
        assert_eq!(run("a  \nb \u{201C}q\u{201D}\nc\n", &[("a\nb \"q\"", "a\nB")]).unwrap(), "a\nB\nc\n");
    }

    #[test]
    fn fuzzy_base_is_searched_as_is_first() {
        // "   x " is in the fuzzy text as typed: its trailing space is replaced too.
        assert_eq!(run("   x\u{a0}y  \n", &[("   x ", "Q")]).unwrap(), "Qy\n");
        assert_eq!(run("x\u{201C} y\n", &[("x\" ", "Q")]).unwrap(), "Qy\n");
        // Not there as typed: the fuzzy form (trailing space dropped) is used.
        assert_eq!(run("x\u{a0}y\n", &[("x\u{a0} ", "Q")]).unwrap(), "Q y\n");
        assert_eq!(run("x\u{201C}\u{a0}y\n", &[("x\u{201C} ", "Q")]).unwrap(), "Q y\n");
    }

    #[test]
    fn errors() {
        assert_eq!(run("ab\n", &[("", "x")]).unwrap_err(), "oldText must not be empty in f.txt.");
        assert_eq!(
            run("a\na\nb\n", &[("a", "X"), ("zz", "X")]).unwrap_err(),
            "Found 2 occurrences of edits[0] in f.txt. Each oldText must be unique. Please provide more context to make it unique."
        );
        assert_eq!(
            run("a\nb\n", &[("b", "X"), ("a\nb", "X")]).unwrap_err(),
            "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target disjoint regions."
        );
        assert_eq!(run("   ", &[("\u{a0}", "X")]).unwrap_err(), msg::LINE_COUNT_MISMATCH);
        assert_eq!(run("", &[("  ", "X")]).unwrap_err(), msg::RANGE_OUTSIDE);
        assert_eq!(run("ab", &[("  ", "X")]).unwrap(), "Xab");
        assert_eq!(
            run("a \u{201C}q\u{201D}\na \"q\"\n", &[("a \"q\"", "X")]).unwrap_err(),
            "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
        );
    }

    #[test]
    fn lines() {
        assert_eq!(line_starts(""), Vec::<usize>::new());
        assert_eq!(line_starts("a\n"), vec![0]);
        assert_eq!(line_starts("a\nb"), vec![0, 2]);
        assert_eq!(to_lf("a\r\nb\rc\n"), "a\nb\nc\n");
    }
}
