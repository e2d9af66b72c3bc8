//! An entry's line of JSON as it is held in memory. A long line loaded from
//! a session file stays in the file: the entry keeps where it is (the file
//! is only ever appended to, by pi as by the reference) and reads it back
//! when it is asked for, so a resumed session does not hold its file's text
//! twice (once as lines, once as the model's context). Short lines, lines
//! written in this run and lines rewritten on load are held as text.

use std::borrow::Cow;
use std::fs::File;
use std::sync::Arc;

/// Lines loaded from a file at least this long are read back from it when
/// asked for instead of being held.
pub const STORED_IN_FILE_MIN_BYTES: usize = 256;

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

    /// The line's text; `None` when it can no longer be read from its file
    /// or is no longer the same line there (`id` is the entry's id, which a
    /// line holds).
    pub(crate) fn text(&self, id: &str) -> Option<Cow<'_, str>> {
        match self {
            StoredLine::Text(t) => Some(Cow::Borrowed(t)),
            StoredLine::InFile { place, len } => {
                use std::os::unix::fs::FileExt;
                let mut buf = vec![0u8; *len as usize];
                place.file.read_exact_at(&mut buf, place.at).ok()?;
                let text = String::from_utf8(buf).ok()?;
                let whole = text.starts_with('{') && text.ends_with('}');
                (whole && (id.is_empty() || text.contains(&format!("\"{id}\"")))).then_some(Cow::Owned(text))
            }
        }
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
}
