//! Reading a session file's lines. A long file is read in ranges side by
//! side, each on a thread of its own and split at line boundaries, then put
//! back in file order: reading and checking every line of a 100,000-entry
//! session is most of the time it takes to continue it. The same split
//! serves building its context (see [`super::context`]).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use super::entry::{Entry, LineError};
use super::stored::FilePlace;

/// Files with at least this many bytes of entries are read in ranges side by side.
pub const PARALLEL_READ_MIN_BYTES: u64 = 4 << 20;

/// Contexts of at least this many entries are read side by side.
pub const PARALLEL_CONTEXT_MIN_ENTRIES: usize = 4096;

/// At most this many threads read one file (or build one context).
pub const MAX_READERS: usize = 4;

/// The bytes read at once from a range.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// How many threads to read with (1 when the machine has one core).
pub(crate) fn readers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_READERS)
}

/// Bytes `[at, end)` of a file read with positioned reads, so readers of
/// different ranges share the file without sharing a cursor.
struct Range<'a> {
    file: &'a File,
    at: u64,
    end: u64,
}

impl Read for Range<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.end.saturating_sub(self.at)).unwrap_or(usize::MAX);
        let n = buf.len().min(left);
        if n == 0 {
            return Ok(0);
        }
        let got = self.file.read_at(&mut buf[..n], self.at)?;
        self.at += got as u64;
        Ok(got)
    }
}

/// The lines of a range, each with where it starts.
pub(crate) struct Lines<'a> {
    reader: BufReader<Range<'a>>,
    at: u64,
}

impl<'a> Lines<'a> {
    /// The lines of bytes `[at, end)` of `file` (`end` may lie past its end).
    pub(crate) fn new(file: &'a File, at: u64, end: u64) -> Lines<'a> {
        Lines { reader: BufReader::with_capacity(READ_BUFFER_BYTES, Range { file, at, end }), at }
    }

    /// Where the next line starts.
    pub(crate) fn position(&self) -> u64 {
        self.at
    }

    /// The next line (without its `\n` or `\r\n`) and where it starts; a
    /// line that is not UTF-8 is an error.
    pub(crate) fn next_line(&mut self) -> Option<(u64, std::io::Result<String>)> {
        let mut buf = Vec::new();
        let start = self.at;
        match self.reader.read_until(b'\n', &mut buf) {
            Ok(0) => None,
            Ok(n) => {
                self.at += n as u64;
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                }
                Some((start, String::from_utf8(buf).map_err(|_| super::invalid_utf8())))
            }
            Err(e) => Some((start, Err(e))),
        }
    }
}

/// What a range of lines holds.
#[derive(Default)]
pub(crate) struct Loaded {
    /// Its entries, in order.
    pub entries: Vec<Entry>,
    /// Its unreadable lines: (line number within the range from 1, why).
    pub bad: Vec<(usize, String)>,
    /// How many lines it has.
    pub lines: usize,
}

/// The entries of bytes `[at, end)` (long lines left in the file when `in_file`).
fn load_range(file: &Arc<File>, at: u64, end: u64, in_file: bool) -> Loaded {
    let mut lines = Lines::new(file, at, end);
    let mut out = Loaded::default();
    while let Some((start, line)) = lines.next_line() {
        out.lines += 1;
        let line = match line {
            Ok(l) if l.trim().is_empty() => continue,
            Ok(l) => l,
            Err(e) => {
                out.bad.push((out.lines, e.to_string()));
                continue;
            }
        };
        let place = in_file.then(|| FilePlace { file: file.clone(), at: start });
        match Entry::from_file_line(line, place) {
            Ok(e) => out.entries.push(e),
            Err(LineError::NotObject) => out.bad.push((out.lines, crate::text::SESSION_LINE_NOT_OBJECT.to_string())),
            Err(LineError::Invalid(e)) => out.bad.push((out.lines, e)),
        }
    }
    out
}

/// The entries from byte `at` to the end of `file`, in parts in file order
/// (several when the file is long and the machine has cores to spare).
pub(crate) fn load(file: &Arc<File>, at: u64, in_file: bool) -> Vec<Loaded> {
    let len = file.metadata().map_or(0, |m| m.len());
    let mut bounds = split(file, at, len);
    // The last range reads to wherever the file ends.
    bounds.push(u64::MAX);
    if bounds.len() <= 2 {
        return vec![load_range(file, at, u64::MAX, in_file)];
    }
    std::thread::scope(|s| {
        let rest: Vec<_> = bounds[1..]
            .windows(2)
            .map(|w| {
                let (from, to) = (w[0], w[1]);
                s.spawn(move || load_range(file, from, to, in_file))
            })
            .collect();
        let mut parts = vec![load_range(file, bounds[0], bounds[1], in_file)];
        for h in rest {
            parts.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        parts
    })
}

/// Where the ranges of `[at, len)` start: `at`, then line starts near equal
/// shares of it (none when it is short).
fn split(file: &File, at: u64, len: u64) -> Vec<u64> {
    let mut bounds = vec![at];
    let readers = readers() as u64;
    if len.saturating_sub(at) < PARALLEL_READ_MIN_BYTES || readers < 2 {
        return bounds;
    }
    let share = (len - at) / readers;
    for k in 1..readers {
        let last = bounds.last().copied().unwrap_or(at);
        let from = (at + share * k).max(last);
        if let Some(p) = line_start_after(file, from, len).filter(|&p| p > last && p < len) {
            bounds.push(p);
        }
    }
    bounds
}

/// The start of the line after the first newline at or after `from`.
fn line_start_after(file: &File, from: u64, len: u64) -> Option<u64> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut at = from;
    while at < len {
        let n = file.read_at(&mut buf, at).ok().filter(|&n| n > 0)?;
        if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
            return Some(at + i as u64 + 1);
        }
        at += n as u64;
    }
    None
}

/// `work` in up to [`readers`] consecutive shares, each given to `one`
/// with its share of `out` (the item at the same places) to fill: the first
/// share on this thread, the others side by side.
pub(crate) fn side_by_side<T: Sync, O: Send>(
    work: &[T],
    out: &mut [O],
    min_len: usize,
    one: impl Fn(&[T], &mut [O]) + Sync,
) {
    let readers = readers();
    if work.len() < min_len || readers < 2 {
        one(work, out);
        return;
    }
    let share = work.len().div_ceil(readers);
    let mut shares = work.chunks(share).zip(out.chunks_mut(share));
    let Some((head, head_out)) = shares.next() else { return };
    let one = &one;
    std::thread::scope(|s| {
        let rest: Vec<_> = shares.map(|(w, o)| s.spawn(move || one(w, o))).collect();
        one(head, head_out);
        for h in rest {
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_long_file_read_in_ranges_gives_every_line_once_in_order() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let mut expected = Vec::new();
        let mut text = String::new();
        let mut i = 0;
        while text.len() < (PARALLEL_READ_MIN_BYTES as usize) * 2 {
            // Lines of varied length, some long enough to stay in the file.
            let pad = "x".repeat(i % 700);
            let line = format!(r#"{{"type":"message","id":"{i:08x}","parentId":null,"pad":"{pad}"}}"#);
            text.push_str(&line);
            text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
            expected.push(format!("{i:08x}"));
            if i == 5000 {
                text.push_str("not json\n\n");
            }
            i += 1;
        }
        f.write_all(text.as_bytes()).unwrap();
        let file = Arc::new(File::open(f.path()).unwrap());
        let bounds = split(&file, 0, text.len() as u64);
        assert_eq!(bounds.len(), readers(), "one range per reader: {bounds:?}");
        assert!(bounds.iter().skip(1).all(|&b| text.as_bytes()[b as usize - 1] == b'\n'), "ranges start lines");
        let parts = load(&file, 0, true);
        let ids: Vec<String> = parts.iter().flat_map(|p| p.entries.iter().map(|e| e.id().to_string())).collect();
        assert_eq!(ids, expected);
        assert!(parts.iter().flat_map(|p| &p.entries).all(|e| e.line().ends_with('}')));
        let bad: Vec<_> = parts.iter().flat_map(|p| &p.bad).collect();
        assert_eq!(bad.len(), 1, "the one bad line: {bad:?}");
        assert_eq!(parts.iter().map(|p| p.lines).sum::<usize>(), expected.len() + 2, "blank lines count as lines");
    }

    #[test]
    fn shares_keep_their_order() {
        let work: Vec<usize> = (0..10_000).collect();
        let double = |w: &[usize], o: &mut [usize]| w.iter().zip(o).for_each(|(w, o)| *o = w * 2);
        let mut out = vec![0; work.len()];
        side_by_side(&work, &mut out, 100, double);
        assert!(out.iter().enumerate().all(|(i, &o)| o == i * 2), "every item once, in its place");
        let mut out = vec![0; 5];
        side_by_side(&work[..5], &mut out, 100, double);
        assert_eq!(out, [0, 2, 4, 6, 8], "short work is done in one share");
    }
}
