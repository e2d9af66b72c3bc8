//! The file as read (BOM, line endings) and the way edits go back into it:
//! replacements found in the `\n` text are spliced into the original text, so
//! everything outside them keeps its bytes, and the line breaks of a
//! replacement take the ending found at the first `\n` from where the
//! replacement starts (`\r\n` or `\n`; on the last line, the file's last
//! `\n`; in a file without `\n`, `\r` if it has one). A mixed file stays mixed,
//! a CR-only file stays CR-only. (Measured on the reference, Pi 1.6.0: a lone
//! `\r` on the replacement's own line does not count as its ending.)

use super::apply::{Rep, to_lf};

const BOM: char = '\u{FEFF}';

/// A file's text split into what matching needs and what writing restores.
#[derive(Debug)]
pub(super) struct Source {
    bom: bool,
    /// The text after the BOM, with its own line endings.
    original: String,
    /// `original` with `\n` line breaks, when it has a `\r` (otherwise
    /// `original` is that text already: no second copy).
    lf: Option<String>,
    /// Offsets in the `\n` text of the `\n`s that stand for a `\r\n`.
    crlf: Vec<usize>,
}

impl Source {
    /// Decode a file, taking its bytes (valid UTF-8 is not copied; invalid
    /// bytes become U+FFFD, as the reference reads them).
    pub fn decode(bytes: Vec<u8>) -> Source {
        let mut original = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        let bom = original.starts_with(BOM);
        if bom {
            original.drain(..BOM.len_utf8());
        }
        let lf = original.contains('\r').then(|| to_lf(&original));
        // The k-th `\r\n` sits k bytes earlier in the `\n` text.
        let crlf = match lf {
            Some(_) => original.match_indices("\r\n").enumerate().map(|(k, (i, _))| i - k).collect(),
            None => Vec::new(),
        };
        Source { bom, original, lf, crlf }
    }

    /// The text with `\n` line breaks, which edits match against.
    pub fn lf(&self) -> &str {
        self.lf.as_deref().unwrap_or(&self.original)
    }

    /// Drop the `\n` copy once matching and the diff are done (splicing
    /// needs only the original).
    pub fn drop_lf(&mut self) {
        self.lf = None;
    }

    /// The offset in the original text of an offset in the `\n` text.
    fn original_offset(&self, lf_offset: usize) -> usize {
        lf_offset + self.crlf.partition_point(|&i| i < lf_offset)
    }

    /// The file's new bytes: `reps` (sorted, on the `\n` text) spliced into the original.
    pub fn splice(&self, reps: &[Rep]) -> Vec<u8> {
        let mut out = String::with_capacity(self.original.len() + 3);
        if self.bom {
            out.push(BOM);
        }
        let mut at = 0;
        for r in reps {
            let (start, end) = (self.original_offset(r.start), self.original_offset(r.end));
            out.push_str(&self.original[at..start]);
            let ending = ending_at(&self.original, start);
            if ending == "\n" {
                push_joined(&mut out, &r.text);
            } else {
                push_joined(&mut out, &r.text.replace('\n', ending));
            }
            at = end;
        }
        push_joined(&mut out, &self.original[at..]);
        out.into_bytes()
    }
}

/// Append `piece`; where a lone `\r` would meet a `\n` across the joint (and
/// the two would read as one `\r\n` break), the `\r` becomes `\r\n`, so the
/// file still reads as the edited text (as the reference writes it).
fn push_joined(out: &mut String, piece: &str) {
    if out.ends_with('\r') && piece.starts_with('\n') {
        out.push('\n');
    }
    out.push_str(piece);
}

/// The line ending for replacement text starting at `pos`: that of the next
/// `\n` at or after `pos` (`\r\n` when a `\r` precedes it), else that of the
/// file's last `\n`; in a file without `\n`, `\r` if it has any, else `\n`.
fn ending_at(text: &str, pos: usize) -> &'static str {
    let bytes = text.as_bytes();
    let kind = |i: usize| if i > 0 && bytes[i - 1] == b'\r' { "\r\n" } else { "\n" };
    if let Some(off) = bytes[pos..].iter().position(|&b| b == b'\n') {
        return kind(pos + off);
    }
    match bytes[..pos].iter().rposition(|&b| b == b'\n') {
        Some(i) => kind(i),
        None if bytes.contains(&b'\r') => "\r",
        None => "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(original: &str, start: usize, end: usize, text: &str) -> String {
        let s = Source::decode(original.as_bytes().to_vec());
        String::from_utf8(s.splice(&[Rep { start, end, text: text.into() }])).unwrap()
    }

    #[test]
    fn replacement_takes_the_ending_of_its_line() {
        // lf "a\nb\nc\nd\n": replace "b\nc" (2..5).
        assert_eq!(edit("a\r\nb\nc\r\nd\n", 2, 5, "X\nY\nZ"), "a\r\nX\nY\nZ\r\nd\n");
        assert_eq!(edit("a\nb\r\nc\nd\r\n", 0, 3, "1\n2\n3"), "1\n2\n3\r\nc\nd\r\n");
        assert_eq!(edit("a\rb\rc\r", 2, 4, "B1\nB2\n"), "a\rB1\rB2\rc\r");
        // Starting on line 1's break: line 1's ending.
        assert_eq!(edit("a\r\nb\nc\n", 1, 3, "\nX\nY"), "a\r\nX\r\nY\nc\n");
    }

    #[test]
    fn last_line_without_ending_uses_the_line_before() {
        assert_eq!(edit("x\ny\na\r\nb", 6, 7, "b\nc"), "x\ny\na\r\nb\r\nc");
        assert_eq!(edit("a\rb", 2, 3, "b\nc"), "a\rb\rc");
        assert_eq!(edit("abc", 1, 2, "1\n2"), "a1\n2c");
    }

    #[test]
    fn lone_cr_is_only_used_in_files_without_lf() {
        // The next `\n` decides, even past lines that end in `\r`.
        assert_eq!(edit("a\rb\rc\n", 0, 1, "x\ny"), "x\ny\rb\rc\n");
        assert_eq!(edit("a\rb\rc\r\n", 0, 1, "x\ny"), "x\r\ny\rb\rc\r\n");
        assert_eq!(edit("a\r\r\nb", 0, 1, "x\ny"), "x\r\ny\r\r\nb");
        // After the last `\n`: the last `\n` decides.
        assert_eq!(edit("a\r\nb\rc", 4, 5, "c\nd"), "a\r\nb\rc\r\nd");
        assert_eq!(edit("a\nb\rc\rd", 6, 7, "d\ne"), "a\nb\rc\rd\ne");
        // No `\n` at all.
        assert_eq!(edit("ab\rc", 3, 4, "c\nd"), "ab\rc\rd");
        assert_eq!(edit("\ra", 1, 2, "a\nb"), "\ra\rb");
    }

    #[test]
    fn a_lone_cr_meeting_an_lf_across_a_joint_becomes_crlf() {
        // lf "a\nX\nb": removing X would glue "\r" and "\n" into one break.
        assert_eq!(edit("a\rX\nb", 2, 3, ""), "a\r\n\nb");
        assert_eq!(edit("foo\rbar\nx", 4, 7, "\nQ"), "foo\r\n\nQ\nx");
        assert_eq!(edit("a\rX\nb\n", 2, 3, "\n"), "a\r\n\n\nb\n");
        // No gluing: nothing to do.
        assert_eq!(edit("a\rX\r\nb\n", 2, 3, ""), "a\r\r\nb\n");
        assert_eq!(edit("a\rX\nb\n", 2, 4, ""), "a\rb\n");
    }

    #[test]
    fn bom_is_kept() {
        let s = Source::decode("\u{FEFF}a\r\nb\r\n".as_bytes().to_vec());
        assert_eq!(s.lf(), "a\nb\n");
        let out = s.splice(&[Rep { start: 0, end: 1, text: "A\nA2".into() }]);
        assert_eq!(out, "\u{FEFF}A\r\nA2\r\nb\r\n".as_bytes());
    }
}
