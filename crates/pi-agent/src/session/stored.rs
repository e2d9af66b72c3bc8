//! An entry's line of JSON as it is held in memory. A long line loaded from
//! a session file stays in the file: the entry keeps where it is (the file
//! is only ever appended to, by pi as by the reference) and reads it back
//! when it is asked for, so a resumed session does not hold its file's text
//! twice (once as lines, once as the model's context). Short lines, lines
//! written in this run and lines rewritten on load are held as text.

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

/// Lines loaded from a file at least this long are read back from it when
/// asked for instead of being held. A line left in the file costs its entry
/// nothing more; a line held costs its length and an allocation, so only
/// the tiniest lines (a bare `{"type":…}`) are held.
pub const STORED_IN_FILE_MIN_BYTES: usize = 64;

/// Where a loaded line is in its file.
#[derive(Debug, Clone)]
pub(crate) struct FilePlace {
    /// The session file, open for reading.
    pub file: Arc<File>,
    /// The line's first byte.
    pub at: u64,
}

/// A line held as text or left in its file.
#[derive(Debug, Clone)]
pub(crate) enum StoredLine {
    /// As it is.
    Text(Box<str>),
    /// `len` bytes at `place` (no newline).
    InFile { place: FilePlace, len: u32 },
}

impl StoredLine {
    /// `line`, left in its file when it was read from one at `place` and is long.
    pub(crate) fn new(line: String, place: Option<FilePlace>) -> StoredLine {
        match (place, u32::try_from(line.len())) {
            (Some(place), Ok(len)) if line.len() >= STORED_IN_FILE_MIN_BYTES => StoredLine::InFile { place, len },
            _ => StoredLine::Text(line.into_boxed_str()),
        }
    }

    /// This line, now also written at `place`: left there when it is long
    /// (a line left in another file, copied here, is read from here).
    pub(crate) fn leave_in_file(&mut self, place: FilePlace) {
        let len = match self {
            StoredLine::Text(t) if t.len() >= STORED_IN_FILE_MIN_BYTES => u32::try_from(t.len()).ok(),
            StoredLine::InFile { len, .. } => Some(*len),
            StoredLine::Text(_) => None,
        };
        if let Some(len) = len {
            *self = StoredLine::InFile { place, len };
        }
    }

    /// The line's text; `None` when it can no longer be read from its file
    /// or is no longer the same line there (`id` is the entry's id, which a
    /// line holds).
    pub(crate) fn text(&self, id: &str) -> Option<Cow<'_, str>> {
        match self {
            StoredLine::Text(t) => Some(Cow::Borrowed(t)),
            StoredLine::InFile { place, len } => {
                let mut buf = vec![0u8; *len as usize];
                place.file.read_exact_at(&mut buf, place.at).ok()?;
                let text = String::from_utf8(buf).ok()?;
                is_line_of(&text, id).then_some(Cow::Owned(text))
            }
        }
    }
}

/// Whether `text`, read where an entry's line was, still is that line: a
/// whole object holding the entry's `id` (any line, when `id` is empty).
fn is_line_of(text: &str, id: &str) -> bool {
    let whole = text.starts_with('{') && text.ends_with('}');
    whole && (id.is_empty() || text.match_indices(id).any(|(at, _)| quoted(text, at, id.len())))
}

/// Whether the `len` bytes at `at` of `text` are between quotes.
fn quoted(text: &str, at: usize, len: usize) -> bool {
    let b = text.as_bytes();
    at > 0 && b.get(at - 1) == Some(&b'"') && b.get(at + len) == Some(&b'"')
}

/// The bytes read at once when lines are read one after another.
const WINDOW_BYTES: usize = 1 << 20;

/// Reads the lines of entries one after another (the active branch, as the
/// context is built) a window of the file at a time, instead of one read
/// each.
#[derive(Default)]
pub(crate) struct LineReader {
    /// The file the window is of.
    file: Option<Arc<File>>,
    /// Where the window starts in it.
    at: u64,
    /// The window's buffer (kept between windows, so each is not zeroed again).
    buf: Vec<u8>,
    /// How much of `buf` the window fills.
    valid: usize,
}

impl LineReader {
    /// The text of `line` (see [`StoredLine::text`]).
    pub(crate) fn text<'a>(&'a mut self, line: &'a StoredLine, id: &str) -> Option<Cow<'a, str>> {
        let StoredLine::InFile { place, len } = line else { return line.text(id) };
        let len = *len as usize;
        let same_file = self.file.as_ref().is_some_and(|f| Arc::ptr_eq(f, &place.file));
        let start = place.at.checked_sub(self.at).and_then(|d| usize::try_from(d).ok());
        let inside = match start {
            Some(s) if same_file => s.checked_add(len).is_some_and(|end| end <= self.valid),
            _ => false,
        };
        if !inside {
            self.fill(place, len)?;
        }
        let start = usize::try_from(place.at - self.at).ok()?;
        let window = self.buf.get(..self.valid)?;
        let text = std::str::from_utf8(window.get(start..start + len)?).ok()?;
        is_line_of(text, id).then_some(Cow::Borrowed(text))
    }

    /// Read the window at `place` (at least `len` bytes of it).
    fn fill(&mut self, place: &FilePlace, len: usize) -> Option<()> {
        self.file = None;
        self.valid = 0;
        let want = len.max(WINDOW_BYTES);
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        let mut got = 0;
        while got < want {
            match place.file.read_at(&mut self.buf[got..want], place.at + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.valid = got;
        (got >= len).then_some(())?;
        self.file = Some(place.file.clone());
        self.at = place.at;
        Some(())
    }
}

impl PartialEq for StoredLine {
    fn eq(&self, other: &StoredLine) -> bool {
        self.text("") == other.text("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_with(text: &str) -> (tempfile::NamedTempFile, Arc<File>) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        let read = Arc::new(File::open(f.path()).unwrap());
        (f, read)
    }

    #[test]
    fn long_lines_are_read_back_from_the_file_short_ones_are_held() {
        let long = format!(r#"{{"id":"a1","text":"{}"}}"#, "héllo ✓ ".repeat(40));
        let (_f, file) = file_with(&format!("{{\"type\":\"session\"}}\n{long}\n"));
        let place = FilePlace { file: file.clone(), at: 19 };
        let s = StoredLine::new(long.clone(), Some(place.clone()));
        assert!(matches!(s, StoredLine::InFile { .. }));
        assert_eq!(s.text("a1").as_deref(), Some(long.as_str()));
        let short = StoredLine::new(r#"{"id":"b"}"#.into(), Some(place));
        assert!(matches!(short, StoredLine::Text(_)));
        assert!(matches!(StoredLine::new(long, None), StoredLine::Text(_)), "a line not from a file is held");
    }

    #[test]
    fn a_line_that_changed_in_the_file_is_not_taken_for_it() {
        let long = format!(r#"{{"id":"a1","text":"{}"}}"#, "x".repeat(300));
        let (f, file) = file_with(&format!("{long}\n"));
        let s = StoredLine::new(long.clone(), Some(FilePlace { file, at: 0 }));
        assert!(s.text("zz").is_none(), "another entry's line");
        std::fs::write(f.path(), "short\n").unwrap();
        assert!(s.text("a1").is_none(), "a file cut short");
        let other = format!(r#"{{"id":"a1","text":"{}"}}"#, "y".repeat(300));
        std::fs::write(f.path(), format!("  {other}\n")).unwrap();
        assert!(s.text("a1").is_none(), "shifted: no longer a whole object");
    }

    #[test]
    fn lines_read_a_window_at_a_time_are_the_lines_read_one_by_one() {
        let lines: Vec<String> =
            (0..3000).map(|i| format!(r#"{{"id":"{i:08x}","text":"{}"}}"#, "é".repeat(150 + i % 7))).collect();
        let (_f, file) = file_with(&format!("{}\n", lines.join("\n")));
        let (_g, other) = file_with(&format!("{}\n", lines[5]));
        let mut at = 0;
        let mut stored = Vec::new();
        for l in &lines {
            stored.push(StoredLine::new(l.clone(), Some(FilePlace { file: file.clone(), at })));
            at += l.len() as u64 + 1;
        }
        let mut reader = LineReader::default();
        for (i, s) in stored.iter().enumerate().chain([(7, &stored[7])]) {
            let id = format!("{i:08x}");
            assert_eq!(reader.text(s, &id).as_deref(), Some(lines[i].as_str()));
        }
        let there = StoredLine::new(lines[5].clone(), Some(FilePlace { file: other, at: 0 }));
        assert_eq!(reader.text(&there, "00000005").as_deref(), Some(lines[5].as_str()), "another file");
        assert!(reader.text(&stored[9], "00000008").is_none(), "another entry's line");
        assert_eq!(reader.text(&StoredLine::Text("{}".into()), "").as_deref(), Some("{}"));
    }
}
