//! Reading a session file's lines. A long file is read in ranges side by
//! side, each on a thread of its own and split at line boundaries, then put
//! back in file order: reading and checking every line of a 100,000-entry
//! session is most of the time it takes to continue it. The same split
//! serves building its context (see [`super::context`]).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Mutex};

use super::entry::{Entry, LineError};
use super::stored::FilePlace;
use crate::messages::AgentMessage;

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

/// Run `jobs` side by side, each on a thread of its own but the first (on
/// this one), answering their results in order. A job whose thread cannot
/// be started (the process at its thread limit) runs on this thread too:
/// reading a session never fails for want of threads.
pub(crate) fn run_all<R: Send, F: FnOnce() -> R + Send>(jobs: Vec<F>) -> Vec<R> {
    let slots: Vec<Mutex<Option<F>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let run = |slot: &Mutex<Option<F>>| slot.lock().ok().and_then(|mut j| j.take()).map(|j| j());
    std::thread::scope(|s| {
        let started: Vec<_> = slots
            .iter()
            .skip(1)
            .map(|slot| std::thread::Builder::new().spawn_scoped(s, move || run(slot)).ok())
            .collect();
        let mut out: Vec<R> = slots.first().and_then(run).into_iter().collect();
        for (handle, slot) in started.into_iter().zip(slots.iter().skip(1)) {
            let done = handle.and_then(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            out.extend(done.or_else(|| run(slot)));
        }
        out
    })
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

/// Messages read with their entries (see [`load`]): each line's message
/// (none for a line that is not a `message` entry read at once), and each
/// entry's line.
#[derive(Debug, Default)]
pub(crate) struct Preparsed {
    /// The message of each line after the header.
    pub by_line: Vec<Option<AgentMessage>>,
    /// The line of each entry (an index into `by_line`).
    pub entry_line: Vec<u32>,
}

/// One range's part of the lists by line (see [`load`]).
struct Slots<'a> {
    messages: &'a mut [Option<AgentMessage>],
    entries: &'a mut [Option<Entry>],
}

/// The entries of bytes `[at, end)` (long lines left in the file when
/// `in_file`); with `slots` (one per line of the range), each entry goes to
/// its line's slot, and the messages of `message` lines are read with them
/// into theirs. (A line past the slots, written since they were counted,
/// goes to the range's own list, its message to be read again later.)
fn load_range(file: &Arc<File>, (at, end): (u64, u64), in_file: bool, mut slots: Option<Slots<'_>>) -> Loaded {
    let mut lines = Lines::new(file, at, end);
    let mut out = Loaded::default();
    let message_kind = super::entry::message_kind();
    while let Some((start, line)) = lines.next_line() {
        let here = out.lines;
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
        let entry = match slots.as_mut().map(|_| super::message_line::message_entry(&line)) {
            Some(Some(m)) => {
                if let Some(slot) = slots.as_mut().and_then(|s| s.messages.get_mut(here)) {
                    *slot = Some(m.message);
                }
                Entry::of_message(line, place, m.id, m.parent, &message_kind)
            }
            _ => match Entry::from_file_line(line, place) {
                Ok(e) => e,
                Err(LineError::NotObject) => {
                    out.bad.push((out.lines, crate::text::SESSION_LINE_NOT_OBJECT.to_string()));
                    continue;
                }
                Err(LineError::Invalid(e)) => {
                    out.bad.push((out.lines, e));
                    continue;
                }
            },
        };
        match slots.as_mut().and_then(|s| s.entries.get_mut(here)) {
            Some(slot) => *slot = Some(entry),
            None => out.entries.push(entry),
        }
    }
    out
}

/// A slot and what it holds take the same room, so lists of slots become
/// lists of what they hold without a second allocation.
const _: () = assert!(size_of::<Option<Entry>>() == size_of::<Entry>());

/// The entries from byte `at` to the end of `file`, in parts in file order
/// (several when the file is long and the machine has cores to spare). With
/// `messages`, the `message` entries' messages are read in the same pass
/// (see [`Preparsed`]): the lines are counted first, each range fills its
/// own part of one list of entries and one of messages, by line, and the
/// entries (all in the first part) are that list in place.
pub(crate) fn load(file: &Arc<File>, at: u64, in_file: bool, messages: bool) -> (Vec<Loaded>, Preparsed) {
    let len = file.metadata().map_or(0, |m| m.len());
    let mut bounds = split(file, at, len);
    // The last range reads to wherever the file ends.
    bounds.push(u64::MAX);
    let ranges: Vec<(u64, u64)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    if !messages {
        return (side_by_side(file, &ranges, in_file, Vec::new()), Preparsed::default());
    }
    // One slot per line, and one more per range (its last line may end without a newline).
    let counts: Vec<usize> =
        run_all(ranges.iter().map(|&(from, to)| move || newlines(file, from, to.min(len)) + 1).collect());
    let total: usize = counts.iter().sum();
    let mut pre = Preparsed::default();
    let mut entries: Vec<Option<Entry>> = Vec::new();
    pre.by_line.reserve_exact(total + super::SESSION_GROWTH_ROOM);
    pre.by_line.resize_with(total, || None);
    entries.reserve_exact(total + super::SESSION_GROWTH_ROOM);
    entries.resize_with(total, || None);
    let mut shares = Vec::new();
    let (mut messages_left, mut entries_left) = (&mut pre.by_line[..], &mut entries[..]);
    for &n in &counts {
        let (m, m_rest) = std::mem::take(&mut messages_left).split_at_mut(n);
        let (e, e_rest) = std::mem::take(&mut entries_left).split_at_mut(n);
        shares.push(Some(Slots { messages: m, entries: e }));
        (messages_left, entries_left) = (m_rest, e_rest);
    }
    let mut parts = side_by_side(file, &ranges, in_file, shares);
    let mut lines: Vec<u32> = Vec::with_capacity(total);
    lines.extend(
        entries.iter().enumerate().filter(|(_, e)| e.is_some()).map(|(at, _)| u32::try_from(at).unwrap_or(u32::MAX)),
    );
    #[allow(clippy::filter_map_identity)] // (`flatten` is not collected in place)
    let mut all: Vec<Entry> = entries.into_iter().filter_map(std::convert::identity).collect();
    // Entries past the counted lines (written since) have no line's slot.
    for part in &mut parts {
        lines.extend(std::iter::repeat_n(u32::MAX, part.entries.len()));
        all.append(&mut part.entries);
    }
    if let Some(first) = parts.first_mut() {
        first.entries = all;
    }
    pre.entry_line = lines;
    (parts, pre)
}

/// Each range loaded (with its slots, when given), side by side.
fn side_by_side(file: &Arc<File>, ranges: &[(u64, u64)], in_file: bool, shares: Vec<Option<Slots<'_>>>) -> Vec<Loaded> {
    let shares = shares.into_iter().chain(std::iter::repeat_with(|| None));
    run_all(ranges.iter().zip(shares).map(|(&range, slots)| move || load_range(file, range, in_file, slots)).collect())
}

/// The newlines in bytes `[from, to)` of `file`.
fn newlines(file: &File, from: u64, to: u64) -> usize {
    let mut buf = vec![0u8; READ_BUFFER_BYTES];
    let (mut at, mut n) = (from, 0);
    while at < to {
        let want = usize::try_from(to - at).unwrap_or(usize::MAX).min(buf.len());
        match file.read_at(&mut buf[..want], at) {
            Ok(0) | Err(_) => break,
            Ok(got) => {
                n += buf[..got].iter().filter(|&&b| b == b'\n').count();
                at += got as u64;
            }
        }
    }
    n
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn jobs_answer_in_order_wherever_they_run() {
        let jobs: Vec<_> = (0..7).map(|i| move || i * 10).collect();
        assert_eq!(run_all(jobs), [0, 10, 20, 30, 40, 50, 60]);
        assert!(run_all(Vec::<fn() -> u8>::new()).is_empty());
    }

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
        let (parts, pre) = load(&file, 0, true, false);
        assert!(pre.by_line.is_empty() && pre.entry_line.is_empty());
        let ids: Vec<String> = parts.iter().flat_map(|p| p.entries.iter().map(|e| e.id().to_string())).collect();
        assert_eq!(ids, expected);
        assert!(parts.iter().flat_map(|p| &p.entries).all(|e| e.line().ends_with('}')));
        let bad: Vec<_> = parts.iter().flat_map(|p| &p.bad).collect();
        assert_eq!(bad.len(), 1, "the one bad line: {bad:?}");
        assert_eq!(parts.iter().map(|p| p.lines).sum::<usize>(), expected.len() + 2, "blank lines count as lines");
    }
}
