//! The output limits: head, tail, line and middle truncation, and `formatSize`.
//!
//! Line counting ignores one trailing `\n` (`"a\nb\n"` is 2 lines, `""` is 0).
//! Bytes are UTF-8 bytes, newlines between kept lines included. Cuts happen only
//! on line boundaries, except the documented tail case (a last line longer than
//! the byte limit keeps its final bytes, cut on a character boundary).

use serde::Serialize;

use crate::limits::{MAX_BYTES, MAX_LINES};

/// Which limit stopped the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TruncatedBy {
    /// The line limit.
    Lines,
    /// The byte limit.
    Bytes,
}

/// Limits for one truncation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most lines kept.
    pub max_lines: usize,
    /// Most bytes kept.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_lines: MAX_LINES, max_bytes: MAX_BYTES }
    }
}

/// What a head or tail truncation kept, with the reference's result fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// The kept text.
    #[serde(skip)]
    pub content: String,
    /// True when anything was cut.
    pub truncated: bool,
    /// Which limit cut, when one did.
    pub truncated_by: Option<TruncatedBy>,
    /// Lines in the input.
    pub total_lines: usize,
    /// Bytes in the input.
    pub total_bytes: usize,
    /// Lines kept.
    pub output_lines: usize,
    /// Bytes kept.
    pub output_bytes: usize,
    /// The kept text starts inside a line (tail only).
    pub last_line_partial: bool,
    /// The first line alone is over the byte limit (head only).
    pub first_line_exceeds_limit: bool,
    /// The line limit applied.
    pub max_lines: usize,
    /// The byte limit applied.
    pub max_bytes: usize,
}

/// Lines in `s`, not counting one trailing newline.
pub fn count_lines(s: &str) -> usize {
    if s.is_empty() {
        return 0;
    }
    s.split('\n').count() - usize::from(s.ends_with('\n'))
}

fn lines_of(s: &str) -> Vec<&str> {
    let body = s.strip_suffix('\n').unwrap_or(s);
    body.split('\n').collect()
}

/// `formatSize`: `<1024` → `"<n>B"`, below 1 MiB one decimal `KB`, else one decimal `MB`.
pub fn format_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1}MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn untruncated(content: &str, limits: Limits) -> Truncation {
    let lines = count_lines(content);
    Truncation {
        content: content.to_string(),
        truncated: false,
        truncated_by: None,
        total_lines: lines,
        total_bytes: content.len(),
        output_lines: lines,
        output_bytes: content.len(),
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines: limits.max_lines,
        max_bytes: limits.max_bytes,
    }
}

/// Keep whole lines from the start while both limits hold. A first line over
/// the byte limit gives empty content and `first_line_exceeds_limit`.
pub fn truncate_head(content: &str, limits: Limits) -> Truncation {
    let total_lines = count_lines(content);
    if total_lines <= limits.max_lines && content.len() <= limits.max_bytes {
        return untruncated(content, limits);
    }
    let lines = lines_of(content);
    let mut out = untruncated("", limits);
    out.truncated = true;
    out.total_lines = total_lines;
    out.total_bytes = content.len();
    if lines.first().is_some_and(|l| l.len() > limits.max_bytes) {
        out.truncated_by = Some(TruncatedBy::Bytes);
        out.first_line_exceeds_limit = true;
        return out;
    }
    let mut bytes = 0usize;
    let mut kept = 0usize;
    let mut by = TruncatedBy::Lines;
    for (i, line) in lines.iter().enumerate() {
        if i >= limits.max_lines {
            by = TruncatedBy::Lines;
            break;
        }
        let add = line.len() + usize::from(i > 0);
        if bytes + add > limits.max_bytes {
            by = TruncatedBy::Bytes;
            break;
        }
        bytes += add;
        kept += 1;
    }
    out.content = lines[..kept].join("\n");
    out.truncated_by = Some(by);
    out.output_lines = kept;
    out.output_bytes = out.content.len();
    out
}

/// Keep whole lines from the end while both limits hold. A last line over the
/// byte limit keeps its final `max_bytes` bytes (on a character boundary) and
/// sets `last_line_partial`.
pub fn truncate_tail(content: &str, limits: Limits) -> Truncation {
    let total_lines = count_lines(content);
    if total_lines <= limits.max_lines && content.len() <= limits.max_bytes {
        return untruncated(content, limits);
    }
    let lines = lines_of(content);
    let mut out = untruncated("", limits);
    out.truncated = true;
    out.total_lines = total_lines;
    out.total_bytes = content.len();
    let mut bytes = 0usize;
    let mut kept = 0usize;
    let mut by = TruncatedBy::Lines;
    for (i, line) in lines.iter().rev().enumerate() {
        if i >= limits.max_lines {
            by = TruncatedBy::Lines;
            break;
        }
        let add = line.len() + usize::from(i > 0);
        if bytes + add > limits.max_bytes {
            by = TruncatedBy::Bytes;
            if i == 0 {
                let tail = tail_bytes(line, limits.max_bytes);
                out.content = tail.to_string();
                out.truncated_by = Some(by);
                out.output_lines = 1;
                out.output_bytes = tail.len();
                out.last_line_partial = true;
                return out;
            }
            break;
        }
        bytes += add;
        kept += 1;
    }
    out.content = lines[lines.len() - kept..].join("\n");
    out.truncated_by = Some(by);
    out.output_lines = kept;
    out.output_bytes = out.content.len();
    out
}

/// The last at most `max` bytes of `s`, starting on a character boundary.
pub fn tail_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// The first at most `max` bytes of `s`, ending on a character boundary.
pub fn head_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Cut a line to `max_chars` characters plus `... [truncated]`; returns the
/// line and whether it was cut. Characters are counted as JavaScript counts
/// string length (UTF-16 code units: a character outside the Basic
/// Multilingual Plane counts two), and a character the cut would split is left
/// out whole.
pub fn truncate_line(line: &str, max_chars: usize) -> (String, bool) {
    let mut units = 0;
    for (at, c) in line.char_indices() {
        units += c.len_utf16();
        if units > max_chars {
            return (format!("{}{}", &line[..at], crate::text::common::LINE_TRUNCATED_SUFFIX), true);
        }
    }
    (line.to_string(), false)
}

/// Keep the first `floor(max/2)` and last `max - floor(max/2)` bytes (on
/// character boundaries) joined by `…<N> chars truncated…`, N being the number
/// of removed characters.
pub fn truncate_middle(content: &str, max_bytes: usize) -> String {
    if content.len() <= max_bytes {
        return content.to_string();
    }
    let head = head_bytes(content, max_bytes / 2);
    let tail = tail_bytes(content, max_bytes - max_bytes / 2);
    let removed = content[head.len()..content.len() - tail.len()].chars().count();
    format!("{head}{}{tail}", crate::text::common::middle_truncated(removed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SMALL: Limits = Limits { max_lines: 3, max_bytes: 10 };

    #[test]
    fn counts_and_sizes() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\nb\n"), 2);
        assert_eq!(count_lines("\n"), 1);
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(51200), "50.0KB");
        assert_eq!(format_size(1536), "1.5KB");
        assert_eq!(format_size(3 * 1024 * 1024), "3.0MB");
    }

    #[test]
    fn head_by_lines_and_bytes() {
        let t = truncate_head("a\nb\nc\nd\n", SMALL);
        assert_eq!(
            (t.content.as_str(), t.truncated_by, t.total_lines, t.output_lines),
            ("a\nb\nc", Some(TruncatedBy::Lines), 4, 3)
        );
        let t = truncate_head("aaaa\nbbbb\ncccc", SMALL);
        assert_eq!((t.content.as_str(), t.truncated_by), ("aaaa\nbbbb", Some(TruncatedBy::Bytes)));
        let t = truncate_head("aaaaaaaaaaaa\nb", SMALL);
        assert!(t.first_line_exceeds_limit);
        assert_eq!(t.content, "");
        assert!(!truncate_head("a\nb", SMALL).truncated);
    }

    #[test]
    fn tail_keeps_the_end_and_a_partial_last_line() {
        let t = truncate_tail("a\nb\nc\nd\n", SMALL);
        assert_eq!(t.content, "b\nc\nd");
        let t = truncate_tail("x\n€€€€€€", SMALL);
        assert!(t.last_line_partial);
        assert_eq!(t.content, "€€€");
    }

    #[test]
    fn line_and_middle() {
        assert_eq!(truncate_line("abcdef", 3), ("abc... [truncated]".to_string(), true));
        assert_eq!(truncate_line("abc", 3), ("abc".to_string(), false));
        // UTF-16 units, as JavaScript's length: an emoji counts two, and one
        // the cut would split is left out.
        assert_eq!(truncate_line("😀😀", 4), ("😀😀".to_string(), false));
        assert_eq!(truncate_line("😀😀😀", 4), ("😀😀... [truncated]".to_string(), true));
        assert_eq!(truncate_line("x😀", 2), ("x... [truncated]".to_string(), true));
        assert_eq!(truncate_line("éé", 1), ("é... [truncated]".to_string(), true));
        assert_eq!(truncate_middle("abcdefghij", 4), "ab…6 chars truncated…ij");
    }

    proptest! {
        #[test]
        fn head_never_cuts_inside_a_line(s in "[a-c€\n]{0,200}", lines in 1usize..10, bytes in 1usize..60) {
            let t = truncate_head(&s, Limits { max_lines: lines, max_bytes: bytes });
            prop_assert!(t.content.len() <= bytes.max(s.len().min(bytes)));
            prop_assert!(t.output_lines <= lines);
            prop_assert!(s.starts_with(&t.content));
            if t.truncated && !t.content.is_empty() {
                prop_assert_eq!(s.as_bytes()[t.content.len()], b'\n');
            }
            prop_assert_eq!(t.total_lines, count_lines(&s));
            prop_assert_eq!(t.output_bytes, t.content.len());
        }

        #[test]
        fn tail_is_a_suffix_of_whole_lines_or_marked_partial(s in "[a-c€\n]{0,200}", lines in 1usize..10, bytes in 4usize..60) {
            let t = truncate_tail(&s, Limits { max_lines: lines, max_bytes: bytes });
            let body = s.strip_suffix('\n').unwrap_or(&s);
            prop_assert!(body.ends_with(&t.content) || s == t.content);
            prop_assert!(t.content.len() <= bytes || !t.truncated);
            if t.truncated && !t.last_line_partial && t.content.len() < body.len() {
                prop_assert_eq!(body.as_bytes()[body.len() - t.content.len() - 1], b'\n');
            }
        }

        #[test]
        fn middle_cuts_on_char_boundaries(s in "[a€😀]{0,100}", max in 0usize..50) {
            let m = truncate_middle(&s, max);
            prop_assert!(m.len() <= s.len().max(max) + 40);
        }
    }
}
