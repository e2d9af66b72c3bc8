//! One streaming pass over a text file: count its lines, and keep only what
//! the output can show of the selected window.
//!
//! Lines are what the reference gets from splitting the decoded text on `\n`
//! (a final newline adds an empty last line). The file is read in fixed
//! chunks; memory stays bounded by the output limits whatever the file size:
//! the decoded lengths of the first `keep_lens` selected lines and the first
//! `prefix_cap` bytes of the selected text are all that is kept. Decoding is
//! UTF-8 with U+FFFD for every maximal invalid subpart (like Node's), done
//! incrementally across chunk boundaries.

use std::io::{self, Read};

use memchr::{memchr, memchr_iter};

/// Read size of one chunk.
const CHUNK: usize = 64 * 1024;

/// The window of lines to keep: `start..end` (0-based), `end` `None` = to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Selection {
    /// First selected line.
    pub start: u64,
    /// One past the last selected line, or to the end of the file.
    pub end: Option<u64>,
}

/// What one pass found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Scan {
    /// Lines in the file (newlines + 1).
    pub total_lines: u64,
    /// Lines in the selection (0 when it is empty or starts past the end).
    pub selected: u64,
    /// Bytes of the decoded selection, joined with `\n`.
    pub selected_bytes: u64,
    /// The last selected line is empty.
    pub last_selected_empty: bool,
    /// Decoded lengths of the first selected lines (at most `keep_lens`).
    pub line_lens: Vec<usize>,
    /// The decoded selection's first bytes (at most `prefix_cap`, whole characters).
    pub prefix: String,
}

/// Why a pass stopped early.
#[derive(Debug)]
pub(super) enum ScanError {
    /// Reading failed.
    Io(io::Error),
    /// The call was aborted.
    Aborted,
}

/// Incremental lossy UTF-8 decoding: an incomplete sequence at the end of a
/// piece waits for the next one.
#[derive(Default)]
struct Lossy {
    pending: [u8; 4],
    len: usize,
}

impl Lossy {
    fn feed(&mut self, mut input: &[u8], out: &mut dyn FnMut(&str)) {
        while self.len > 0 && !input.is_empty() {
            self.pending[self.len] = input[0];
            self.len += 1;
            input = &input[1..];
            match std::str::from_utf8(&self.pending[..self.len]) {
                Ok(s) => {
                    out(s);
                    self.len = 0;
                }
                Err(e) => match e.error_len() {
                    None => {}
                    Some(bad) => {
                        out("\u{FFFD}");
                        let rest = self.pending;
                        let rest_len = self.len;
                        self.len = 0;
                        self.feed(&rest[bad..rest_len], out);
                    }
                },
            }
        }
        let mut rest = input;
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out(s);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    if !valid.is_empty() {
                        out(std::str::from_utf8(valid).unwrap_or_default());
                    }
                    match e.error_len() {
                        Some(bad) => {
                            out("\u{FFFD}");
                            rest = &after[bad..];
                        }
                        None => {
                            self.pending[..after.len()].copy_from_slice(after);
                            self.len = after.len();
                            break;
                        }
                    }
                }
            }
        }
    }

    fn finish(&mut self, out: &mut dyn FnMut(&str)) {
        if self.len > 0 {
            self.len = 0;
            out("\u{FFFD}");
        }
    }
}

/// The kept prefix of the selection; once anything is left out, nothing more
/// is added (no gaps).
struct Prefix {
    text: String,
    cap: usize,
    bytes: u64,
}

impl Prefix {
    fn push(&mut self, s: &str) {
        self.bytes += s.len() as u64;
        if self.text.len() >= self.cap {
            return;
        }
        let piece = crate::truncate::head_bytes(s, self.cap - self.text.len());
        self.text.push_str(piece);
        if piece.len() < s.len() {
            self.cap = self.text.len();
        }
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr_iter(b'\n', bytes).count() as u64
}

/// The position of the `n`-th (0-based) newline in `bytes`, if there is one.
fn nth_newline(bytes: &[u8], n: u64) -> Option<usize> {
    if n >= bytes.len() as u64 {
        return None;
    }
    memchr_iter(b'\n', bytes).nth(n as usize)
}

enum Phase {
    Before,
    In,
    After,
}

struct State {
    sel: Selection,
    keep_lens: usize,
    phase: Phase,
    newlines: u64,
    sel_newlines: u64,
    cur_len: usize,
    cur_has_bytes: bool,
    lens: Vec<usize>,
    dec: Lossy,
    prefix: Prefix,
}

impl State {
    fn feed_line_bytes(&mut self, bytes: &[u8], track_len: bool) {
        let Self { dec, prefix, cur_len, .. } = self;
        dec.feed(bytes, &mut |s| {
            prefix.push(s);
            if track_len {
                *cur_len += s.len();
            }
        });
    }

    fn finish_decoder(&mut self, track_len: bool) {
        let Self { dec, prefix, cur_len, .. } = self;
        dec.finish(&mut |s| {
            prefix.push(s);
            if track_len {
                *cur_len += s.len();
            }
        });
    }

    /// The newline that ends the current selected line ends the selection.
    fn at_last_selected_line(&self) -> bool {
        self.sel.end.is_some_and(|e| self.sel.start + self.sel_newlines + 1 >= e)
    }

    fn process(&mut self, buf: &[u8]) {
        let mut rest = buf;
        while !rest.is_empty() {
            match self.phase {
                Phase::Before => {
                    let need = self.sel.start - self.newlines;
                    match nth_newline(rest, need - 1) {
                        Some(p) => {
                            self.newlines += need;
                            rest = &rest[p + 1..];
                            self.phase = Phase::In;
                        }
                        None => {
                            self.newlines += count_newlines(rest);
                            rest = &[];
                        }
                    }
                }
                Phase::In if self.lens.len() < self.keep_lens => match memchr(b'\n', rest) {
                    Some(p) => {
                        self.feed_line_bytes(&rest[..p], true);
                        self.cur_has_bytes |= p > 0;
                        self.finish_decoder(true);
                        self.lens.push(self.cur_len);
                        self.newlines += 1;
                        rest = &rest[p + 1..];
                        if self.at_last_selected_line() {
                            self.phase = Phase::After;
                        } else {
                            self.prefix.push("\n");
                            self.sel_newlines += 1;
                            self.cur_len = 0;
                            self.cur_has_bytes = false;
                        }
                    }
                    None => {
                        self.feed_line_bytes(rest, true);
                        self.cur_has_bytes = true;
                        rest = &[];
                    }
                },
                Phase::In => {
                    let terminator = match self.sel.end {
                        Some(e) => nth_newline(rest, e - self.sel.start - 1 - self.sel_newlines),
                        None => None,
                    };
                    let piece = match terminator {
                        Some(p) => &rest[..p],
                        None => rest,
                    };
                    let inner = count_newlines(piece);
                    self.feed_line_bytes(piece, false);
                    self.sel_newlines += inner;
                    self.newlines += inner;
                    if inner > 0 {
                        self.cur_has_bytes = piece.last() != Some(&b'\n');
                    } else {
                        self.cur_has_bytes |= !piece.is_empty();
                    }
                    match terminator {
                        Some(p) => {
                            self.finish_decoder(false);
                            self.newlines += 1;
                            rest = &rest[p + 1..];
                            self.phase = Phase::After;
                        }
                        None => rest = &[],
                    }
                }
                Phase::After => {
                    self.newlines += count_newlines(rest);
                    rest = &[];
                }
            }
        }
    }
}

/// Scan `head` followed by the rest of `reader`, keeping the selected window.
/// `aborted` is polled once per chunk.
pub(super) fn scan(
    reader: &mut dyn Read,
    head: &[u8],
    sel: Selection,
    keep_lens: usize,
    prefix_cap: usize,
    aborted: &dyn Fn() -> bool,
) -> Result<Scan, ScanError> {
    let empty = sel.end.is_some_and(|e| e <= sel.start);
    let mut st = State {
        sel,
        keep_lens,
        phase: if empty {
            Phase::After
        } else if sel.start == 0 {
            Phase::In
        } else {
            Phase::Before
        },
        newlines: 0,
        sel_newlines: 0,
        cur_len: 0,
        cur_has_bytes: false,
        lens: Vec::new(),
        dec: Lossy::default(),
        prefix: Prefix { text: String::new(), cap: prefix_cap, bytes: 0 },
    };
    st.process(head);
    let mut buf = vec![0u8; CHUNK];
    loop {
        if aborted() {
            return Err(ScanError::Aborted);
        }
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ScanError::Io(e)),
        };
        st.process(&buf[..n]);
    }
    let total_lines = st.newlines + 1;
    let selected = match st.phase {
        Phase::Before => 0,
        _ if empty => 0,
        Phase::In => {
            let per_line = st.lens.len() < st.keep_lens;
            st.finish_decoder(per_line);
            if per_line {
                st.lens.push(st.cur_len);
            }
            st.sel_newlines + 1
        }
        Phase::After => st.sel_newlines + 1,
    };
    Ok(Scan {
        total_lines,
        selected,
        selected_bytes: if selected == 0 { 0 } else { st.prefix.bytes },
        last_selected_empty: selected > 0 && !st.cur_has_bytes,
        line_lens: if selected == 0 { Vec::new() } else { st.lens },
        prefix: if selected == 0 { String::new() } else { st.prefix.text },
    })
}

/// Lines in `head` plus the rest of `reader` (newlines + 1), streaming.
pub(super) fn count_lines(reader: &mut dyn Read, head: &[u8], aborted: &dyn Fn() -> bool) -> Result<u64, ScanError> {
    let mut newlines = count_newlines(head);
    let mut buf = vec![0u8; CHUNK];
    loop {
        if aborted() {
            return Err(ScanError::Aborted);
        }
        match reader.read(&mut buf) {
            Ok(0) => return Ok(newlines + 1),
            Ok(n) => newlines += count_newlines(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ScanError::Io(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same result computed the obvious way, on the whole text.
    fn reference(bytes: &[u8], sel: Selection, keep_lens: usize, cap: usize) -> Scan {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.split('\n').collect();
        let n = lines.len() as u64;
        let s = sel.start.min(n) as usize;
        let e = sel.end.unwrap_or(n).min(n) as usize;
        let chosen: &[&str] = if sel.start >= n || e <= s { &[] } else { &lines[s..e] };
        let joined = chosen.join("\n");
        Scan {
            total_lines: n,
            selected: chosen.len() as u64,
            selected_bytes: joined.len() as u64,
            last_selected_empty: chosen.last().is_some_and(|l| l.is_empty()),
            line_lens: chosen.iter().take(keep_lens).map(|l| l.len()).collect(),
            prefix: crate::truncate::head_bytes(&joined, cap).to_string(),
        }
    }

    fn run(bytes: &[u8], head_len: usize, sel: Selection, keep: usize, cap: usize, chunked: usize) -> Scan {
        struct Dribble<'a>(&'a [u8], usize);
        impl Read for Dribble<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(self.1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let h = head_len.min(bytes.len());
        let mut r = Dribble(&bytes[h..], chunked.max(1));
        scan(&mut r, &bytes[..h], sel, keep, cap, &|| false).unwrap()
    }

    #[test]
    fn basic_windows() {
        let t = b"a\nb\nc\n";
        let all = run(t, 0, Selection { start: 0, end: None }, 10, 100, 3);
        assert_eq!((all.total_lines, all.selected, all.prefix.as_str()), (4, 4, "a\nb\nc\n"));
        assert!(all.last_selected_empty);
        let last = run(t, 0, Selection { start: 3, end: None }, 10, 100, 3);
        assert_eq!((last.selected, last.prefix.as_str(), last.line_lens.clone()), (1, "", vec![0]));
        let past = run(t, 0, Selection { start: 4, end: None }, 10, 100, 3);
        assert_eq!((past.total_lines, past.selected), (4, 0));
        let mid = run(t, 2, Selection { start: 1, end: Some(2) }, 10, 100, 1);
        assert_eq!((mid.selected, mid.prefix.as_str()), (1, "b"));
        let none = run(b"", 0, Selection { start: 0, end: None }, 10, 100, 1);
        assert_eq!((none.total_lines, none.selected, none.line_lens.clone()), (1, 1, vec![0]));
    }

    #[test]
    fn invalid_utf8_split_across_chunks() {
        let t = b"ab\xffcd\xe2\x82\nx\xc3\xe2\x82\xac!";
        for chunk in 1..6 {
            let s = run(t, 1, Selection { start: 0, end: None }, 10, 100, chunk);
            assert_eq!(s.prefix, "ab\u{FFFD}cd\u{FFFD}\nx\u{FFFD}€!");
            assert_eq!(s.line_lens, vec![10, 8]);
        }
    }

    proptest! {
        #[test]
        fn matches_whole_text_splitting(
            bytes in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'a'), Just(0xe2u8), Just(0x82u8), Just(0xacu8), Just(0xffu8)], 0..120),
            start in 0u64..30, len in proptest::option::of(0u64..30), keep in 0usize..6, cap in 0usize..40,
            head in 0usize..10, chunk in 1usize..9,
        ) {
            let sel = Selection { start, end: len.map(|l| start + l) };
            let got = run(&bytes, head, sel, keep, cap, chunk);
            let want = reference(&bytes, sel, keep, cap);
            prop_assert_eq!(got, want);
        }
    }
}
