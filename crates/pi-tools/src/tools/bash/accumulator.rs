//! A command's output as it streams: decoded, counted, and kept in bounded memory.
//!
//! Raw bytes are decoded as UTF-8 across read boundaries (a character split
//! between two reads comes out whole; invalid bytes become U+FFFD). Lines and
//! bytes of the decoded text are counted for the whole stream, while only a
//! rolling window of the last [`BASH_TAIL_WINDOW`] bytes stays in memory, from
//! which the model's tail is cut. As soon as the output passes the line or byte
//! limit, every raw byte (from the first) goes to an output file.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::limits::{BASH_STRUCTURED_MAX_BYTES, BASH_TAIL_WINDOW, MAX_BYTES, MAX_LINES};
use crate::output_file::OutputFiles;
use crate::text::bash as text;
use crate::truncate::{Limits, Truncation, tail_bytes, truncate_tail};

const REPLACEMENT: &str = "\u{FFFD}";

/// A streaming UTF-8 decoder: lossy, with WHATWG-style replacement (one
/// U+FFFD per maximal invalid subsequence), holding back an incomplete
/// character at the end of a read until the next one.
#[derive(Debug, Default)]
pub(crate) struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// Decode `input`, handing each decoded piece to `out`.
    pub(crate) fn decode(&mut self, input: &[u8], out: &mut impl FnMut(&str)) {
        if self.pending.is_empty() {
            self.decode_slice(input, out);
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(input);
            self.decode_slice(&joined, out);
        }
    }

    fn decode_slice(&mut self, mut input: &[u8], out: &mut impl FnMut(&str)) {
        loop {
            match std::str::from_utf8(input) {
                Ok(s) => {
                    if !s.is_empty() {
                        out(s);
                    }
                    return;
                }
                Err(e) => {
                    let (valid, rest) = input.split_at(e.valid_up_to());
                    if !valid.is_empty() {
                        out(std::str::from_utf8(valid).unwrap_or_default());
                    }
                    match e.error_len() {
                        Some(n) => {
                            out(REPLACEMENT);
                            input = &rest[n..];
                        }
                        None => {
                            self.pending = rest.to_vec();
                            return;
                        }
                    }
                }
            }
        }
    }

    /// End of input: an incomplete character left over becomes one U+FFFD.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(&str)) {
        if !self.pending.is_empty() {
            self.pending.clear();
            out(REPLACEMENT);
        }
    }
}

/// Decode a complete byte string lossily (same rules as [`Utf8Stream`]).
fn decode_all(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The state of the full-output file.
#[derive(Debug)]
enum FileState {
    /// Not needed (yet): the output is within the limits.
    None,
    /// Open; every raw byte so far is in it.
    Open(File, PathBuf),
    /// Could not be created or written; the reason.
    Failed(String),
}

/// What the model is shown of the output at one moment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shown {
    /// The output text, or its tail when truncated (no notice).
    pub text: String,
    /// Set when the output is over a limit, with the whole stream's totals.
    pub truncation: Option<Truncation>,
    /// The `[Showing …]` notice, when truncated.
    pub notice: Option<String>,
    /// The full-output file, when one holds the output.
    pub full_output_path: Option<PathBuf>,
}

impl Shown {
    /// The model-facing text: the output, and after a blank line the notice.
    pub(crate) fn model_text(&self) -> String {
        match &self.notice {
            Some(n) => format!("{}\n\n{n}", self.text),
            None => self.text.clone(),
        }
    }

    /// `details` of a result: `{truncation, fullOutputPath}`, or `None` when
    /// nothing was cut.
    pub(crate) fn details(&self) -> Option<Value> {
        let t = self.truncation.as_ref()?;
        let mut truncation = Map::new();
        truncation.insert("content".into(), Value::String(t.content.clone()));
        if let Ok(Value::Object(rest)) = serde_json::to_value(t) {
            truncation.extend(rest);
        }
        let mut details = Map::new();
        details.insert("truncation".into(), Value::Object(truncation));
        if let Some(p) = &self.full_output_path {
            details.insert("fullOutputPath".into(), Value::String(p.to_string_lossy().into_owned()));
        }
        Some(Value::Object(details))
    }

    /// A streaming update's `details`: `{}` while nothing is cut.
    pub(crate) fn update_details(&self) -> Value {
        self.details().unwrap_or_else(|| json!({}))
    }
}

/// The structured `output` for scripts and whether it was cut.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StructuredOutput {
    /// Up to 1 MiB of output; longer output is its first and last 512 KiB
    /// around `[... <N> bytes omitted ...]`.
    pub output: String,
    /// True when `output` is not the whole output.
    pub truncated: bool,
}

/// The streaming accumulator of one command's output.
pub(crate) struct Accumulator {
    prefix: &'static str,
    temp_dir: PathBuf,
    /// Where the output file, once made, is remembered.
    files: OutputFiles,
    decoder: Utf8Stream,
    /// The last decoded bytes (between one and two [`BASH_TAIL_WINDOW`]s once trimmed).
    window: String,
    total_bytes: u64,
    newlines: u64,
    ends_with_newline: bool,
    /// Bytes of the line being written (after the last newline).
    line_bytes: u64,
    /// Bytes of the last complete line.
    prev_line_bytes: u64,
    raw_total: u64,
    /// Raw bytes kept while no file holds them (at most the structured limit).
    raw_prefix: Vec<u8>,
    file: FileState,
    version: u64,
    /// Told every decoded piece as it arrives (user commands stream it).
    on_output: Option<crate::OutputFn>,
}

impl Accumulator {
    /// An empty accumulator whose output file, when needed, is
    /// `<temp_dir>/<prefix>-<16 hex>.log`, remembered in `files`.
    pub(crate) fn new(prefix: &'static str, temp_dir: PathBuf, files: OutputFiles) -> Self {
        Accumulator {
            prefix,
            temp_dir,
            files,
            decoder: Utf8Stream::default(),
            window: String::new(),
            total_bytes: 0,
            newlines: 0,
            ends_with_newline: false,
            line_bytes: 0,
            prev_line_bytes: 0,
            raw_total: 0,
            raw_prefix: Vec::new(),
            file: FileState::None,
            version: 0,
            on_output: None,
        }
    }

    /// Hand every decoded piece to `f` as well (called with the accumulator locked).
    pub(crate) fn with_output(mut self, f: Option<crate::OutputFn>) -> Self {
        self.on_output = f;
        self
    }

    /// Changes with every read; an update is due when it moved.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// Lines of the decoded output so far (a trailing newline adds none).
    pub(crate) fn total_lines(&self) -> u64 {
        self.newlines + u64::from(self.total_bytes > 0 && !self.ends_with_newline)
    }

    fn over_limit(&self) -> bool {
        self.total_lines() > MAX_LINES as u64 || self.total_bytes > MAX_BYTES as u64
    }

    /// Take one read of raw output.
    pub(crate) fn push(&mut self, raw: &[u8]) {
        if raw.is_empty() {
            return;
        }
        self.version += 1;
        self.raw_total += raw.len() as u64;
        match &mut self.file {
            FileState::Open(f, _) => {
                if let Err(e) = f.write_all(raw) {
                    self.file = FileState::Failed(e.to_string());
                }
            }
            FileState::None | FileState::Failed(_) => {
                let room = BASH_STRUCTURED_MAX_BYTES.saturating_sub(self.raw_prefix.len());
                self.raw_prefix.extend_from_slice(&raw[..room.min(raw.len())]);
            }
        }
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.decode(raw, &mut |piece| self.absorb(piece));
        self.decoder = decoder;
        self.open_file_if_needed();
    }

    fn absorb(&mut self, piece: &str) {
        if let Some(f) = &self.on_output {
            f(piece);
        }
        self.count(piece);
    }

    /// The output ended: flush a dangling partial character.
    pub(crate) fn finish(&mut self) {
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.finish(&mut |piece| self.absorb(piece));
        self.open_file_if_needed();
        if let FileState::Open(f, _) = &mut self.file
            && let Err(e) = f.flush()
        {
            self.file = FileState::Failed(e.to_string());
        }
    }

    fn count(&mut self, piece: &str) {
        let bytes = piece.as_bytes();
        self.total_bytes += bytes.len() as u64;
        let newlines = count_newlines(bytes);
        if newlines == 0 {
            self.line_bytes += bytes.len() as u64;
        } else {
            let last = bytes.iter().rposition(|&b| b == b'\n').unwrap_or(0);
            self.prev_line_bytes = if newlines == 1 {
                self.line_bytes + last as u64
            } else {
                let before = bytes[..last].iter().rposition(|&b| b == b'\n').unwrap_or(0);
                (last - before - 1) as u64
            };
            self.line_bytes = (bytes.len() - last - 1) as u64;
            self.newlines += newlines;
        }
        if let Some(&b) = bytes.last() {
            self.ends_with_newline = b == b'\n';
        }
        if piece.len() >= BASH_TAIL_WINDOW {
            self.window.clear();
            self.window.push_str(tail_bytes(piece, BASH_TAIL_WINDOW));
        } else {
            self.window.push_str(piece);
            if self.window.len() > 2 * BASH_TAIL_WINDOW {
                let keep = tail_bytes(&self.window, BASH_TAIL_WINDOW).len();
                let cut = self.window.len() - keep;
                self.window.drain(..cut);
            }
        }
    }

    fn open_file_if_needed(&mut self) {
        if !matches!(self.file, FileState::None) || !self.over_limit() {
            return;
        }
        self.file = match self.files.create(&self.temp_dir, self.prefix, ".log") {
            Ok((mut f, path)) => match f.write_all(&self.raw_prefix) {
                Ok(()) => {
                    self.raw_prefix = Vec::new();
                    FileState::Open(f, path)
                }
                Err(e) => FileState::Failed(e.to_string()),
            },
            Err(e) => FileState::Failed(e.to_string()),
        };
    }

    /// What the model sees now.
    pub(crate) fn shown(&self) -> Shown {
        let full_output_path = match &self.file {
            FileState::Open(_, p) => Some(p.clone()),
            _ => None,
        };
        if !self.over_limit() {
            return Shown { text: self.window.clone(), truncation: None, notice: None, full_output_path };
        }
        // The view holds more than MAX_BYTES, so the tail never reaches its
        // possibly partial first line and the cut equals the whole stream's.
        let view = tail_bytes(&self.window, BASH_TAIL_WINDOW);
        let mut t = truncate_tail(view, Limits::default());
        let total_lines = self.total_lines();
        t.total_lines = usize::try_from(total_lines).unwrap_or(usize::MAX);
        t.total_bytes = usize::try_from(self.total_bytes).unwrap_or(usize::MAX);
        let full = match &self.file {
            FileState::Open(_, p) => text::full_output(&p.to_string_lossy()),
            FileState::Failed(reason) => text::full_output_not_saved(reason),
            FileState::None => text::full_output_not_saved("no output file"),
        };
        let notice = if t.last_line_partial {
            // As the reference: the size of the text after the last newline, so
            // output ending in a newline reports `line is 0B`.
            let line_bytes = self.line_bytes;
            text::showing_last_of_line(t.output_bytes, total_lines, line_bytes, &full)
        } else {
            let first = (total_lines + 1).saturating_sub(t.output_lines as u64);
            match t.truncated_by {
                Some(crate::truncate::TruncatedBy::Bytes) => {
                    text::showing_lines_byte_limit(first, total_lines, total_lines, &full)
                }
                _ => text::showing_lines(first, total_lines, total_lines, &full),
            }
        };
        Shown { text: t.content.clone(), truncation: Some(t), notice: Some(notice), full_output_path }
    }

    /// The structured `output`: the whole output up to 1 MiB of raw bytes,
    /// else the first and last 512 KiB (partial characters at the cuts dropped).
    pub(crate) fn structured(&self) -> StructuredOutput {
        let max = BASH_STRUCTURED_MAX_BYTES as u64;
        let file = match &self.file {
            FileState::Open(f, _) => Some(f),
            _ => None,
        };
        if self.raw_total <= max {
            let whole = match file {
                Some(f) => read_at(f, 0, self.raw_total as usize),
                None => Some(self.raw_prefix.clone()),
            };
            if let Some(bytes) = whole.filter(|b| b.len() as u64 == self.raw_total) {
                return StructuredOutput { output: decode_all(&bytes), truncated: false };
            }
        }
        let half = max / 2;
        let head_raw = match file {
            Some(f) => read_at(f, 0, half as usize),
            None => Some(self.raw_prefix[..self.raw_prefix.len().min(half as usize)].to_vec()),
        }
        .unwrap_or_default();
        let (tail_text, tail_raw_len) = match file.and_then(|f| read_at(f, self.raw_total - half, half as usize)) {
            Some(raw) => (decode_tail(&raw), raw.len() as u64),
            // Without a file only the decoded window is left.
            None => {
                let w = tail_bytes(&self.window, half as usize);
                (w.to_string(), w.len() as u64)
            }
        };
        let omitted = self.raw_total.saturating_sub(head_raw.len() as u64 + tail_raw_len);
        StructuredOutput {
            output: format!("{}{}{tail_text}", decode_head(&head_raw), text::structured_omitted(omitted)),
            truncated: true,
        }
    }
}

fn read_at(f: &File, offset: u64, len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    f.read_exact_at(&mut buf, offset).ok()?;
    Some(buf)
}

/// Decode the head of a cut: an incomplete character at its end is dropped.
fn decode_head(raw: &[u8]) -> String {
    let mut out = String::new();
    Utf8Stream::default().decode(raw, &mut |p| out.push_str(p));
    out
}

/// Decode the tail of a cut: continuation bytes at its start (the rest of a
/// character cut in two) are dropped.
fn decode_tail(raw: &[u8]) -> String {
    let skip = raw.iter().take(3).take_while(|&&b| (0x80..0xC0).contains(&b)).count();
    decode_all(&raw[skip..])
}

/// Count `\n` bytes (written to vectorise).
fn count_newlines(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    let mut chunks = bytes.chunks_exact(64);
    for c in &mut chunks {
        n += c.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>() as u64;
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    fn feed(acc: &mut Accumulator, data: &[u8], chunk: usize) {
        for c in data.chunks(chunk.max(1)) {
            acc.push(c);
        }
        acc.finish();
    }

    fn acc(dir: &Path) -> Accumulator {
        Accumulator::new("pi-bash", dir.to_path_buf(), OutputFiles::new())
    }

    #[test]
    fn decoder_joins_split_characters_and_replaces_invalid_bytes() {
        let mut d = Utf8Stream::default();
        let mut out = String::new();
        let euro = "€".as_bytes();
        d.decode(&euro[..1], &mut |p| out.push_str(p));
        d.decode(&euro[1..2], &mut |p| out.push_str(p));
        assert_eq!(out, "");
        d.decode(&[euro[2], b'x', 0xff, 0xfe, b'y', 0xe2, 0x82], &mut |p| out.push_str(p));
        d.finish(&mut |p| out.push_str(p));
        assert_eq!(out, "€x\u{FFFD}\u{FFFD}y\u{FFFD}");
    }

    #[test]
    fn small_output_is_kept_whole_and_makes_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = acc(dir.path());
        feed(&mut a, b"a\nb\n", 1);
        let s = a.shown();
        assert_eq!((s.text.as_str(), s.notice, s.truncation), ("a\nb\n", None, None));
        assert_eq!(a.total_lines(), 2);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(a.structured(), StructuredOutput { output: "a\nb\n".into(), truncated: false });
    }

    #[test]
    fn exactly_the_limits_is_not_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = acc(dir.path());
        let lines: String = (1..=2000).map(|i| format!("{i}\n")).collect();
        feed(&mut a, lines.as_bytes(), 4096);
        assert!(a.shown().truncation.is_none());
        let mut b = acc(dir.path());
        feed(&mut b, &vec![b'x'; MAX_BYTES], 1000);
        assert!(b.shown().truncation.is_none());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn line_truncation_notice_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = acc(dir.path());
        let data: String = (1..=4000).map(|i| format!("{i}\n")).collect();
        feed(&mut a, data.as_bytes(), 777);
        let s = a.shown();
        let path = s.full_output_path.clone().unwrap();
        assert_eq!(path.parent(), Some(dir.path()));
        assert_eq!(
            s.notice.as_deref().unwrap(),
            format!("[Showing lines 2001-4000 of 4000. Full output: {}]", path.display())
        );
        assert!(s.text.starts_with("2001\n") && s.text.ends_with("\n4000"));
        let t = s.truncation.as_ref().unwrap();
        assert_eq!((t.total_lines, t.total_bytes, t.output_lines), (4000, data.len(), 2000));
        assert_eq!(std::fs::read(&path).unwrap(), data.as_bytes());
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let d = s.details().unwrap();
        assert_eq!(d["fullOutputPath"], path.to_string_lossy().as_ref());
        assert_eq!(d["truncation"]["truncatedBy"], "lines");
        assert_eq!(d["truncation"]["totalLines"], 4000);
        let keys: Vec<&String> = d["truncation"].as_object().unwrap().keys().collect();
        assert_eq!(keys[0], "content");
    }

    #[test]
    fn byte_truncation_counts_the_whole_stream() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = acc(dir.path());
        let line = format!("{}\n", "b".repeat(999));
        let data = line.repeat(1000);
        feed(&mut a, data.as_bytes(), 65536);
        let s = a.shown();
        let p = s.full_output_path.clone().unwrap();
        assert_eq!(
            s.notice.unwrap(),
            format!("[Showing lines 950-1000 of 1000 (50.0KB limit). Full output: {}]", p.display())
        );
        let t = s.truncation.unwrap();
        assert_eq!((t.total_bytes, t.output_lines, t.output_bytes), (1_000_000, 51, 50999));
        assert_eq!(std::fs::read(&p).unwrap().len(), 1_000_000);
    }

    #[test]
    fn one_huge_line_shows_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = acc(dir.path());
        let mut data = String::new();
        for i in 1..=10 {
            data.push_str(&format!("{i}\n"));
        }
        data.push_str(&"a".repeat(3_000_000));
        feed(&mut a, data.as_bytes(), 65536);
        let s = a.shown();
        let p = s.full_output_path.clone().unwrap();
        assert_eq!(
            s.notice.unwrap(),
            format!("[Showing last 50.0KB of line 11 (line is 2.9MB). Full output: {}]", p.display())
        );
        assert_eq!(s.text.len(), MAX_BYTES);
        assert!(a.window.len() <= 2 * BASH_TAIL_WINDOW);
        // With a final newline the reference says `line is 0B` (the text after
        // the last newline); we say the same, so models see identical notices.
        let mut b = acc(dir.path());
        feed(&mut b, format!("{}\n", "a".repeat(100_000)).as_bytes(), 4096);
        assert!(b.shown().notice.unwrap().starts_with("[Showing last 50.0KB of line 1 (line is 0B)."));
    }

    #[test]
    fn counts_decoded_bytes_of_invalid_output() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = acc(dir.path());
        feed(&mut a, &[0xff, 0xfe].repeat(30000), 4093);
        let s = a.shown();
        let t = s.truncation.as_ref().unwrap();
        assert_eq!((t.total_bytes, t.output_bytes, t.last_line_partial), (180000, 51198, true));
        assert!(s.notice.unwrap().starts_with("[Showing last 50.0KB of line 1 (line is 175.8KB)."));
        assert_eq!(std::fs::read(s.full_output_path.unwrap()).unwrap(), [0xff, 0xfe].repeat(30000));
    }

    #[test]
    fn structured_output_keeps_head_and_tail_of_raw_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = acc(dir.path());
        feed(&mut a, "€".repeat(400_000).as_bytes(), 65536);
        let s = a.structured();
        assert!(s.truncated);
        let (head, tail) = s.output.split_once("\n\n[... 151424 bytes omitted ...]\n\n").unwrap();
        assert_eq!((head.chars().count(), tail.chars().count()), (174762, 174762));
        assert!(head.chars().chain(tail.chars()).all(|c| c == '€'));

        let mut b = acc(dir.path());
        feed(&mut b, &vec![b'c'; 3_000_000], 100_000);
        let s = b.structured();
        assert_eq!(s.output.len(), 1_048_576 + "\n\n[... 1951424 bytes omitted ...]\n\n".len());

        let mut c = acc(dir.path());
        let data = vec![b'd'; 1_048_576];
        feed(&mut c, &data, 100_000);
        assert_eq!(c.structured(), StructuredOutput { output: "d".repeat(1_048_576), truncated: false });
    }

    #[test]
    fn without_a_file_the_output_is_still_shown() {
        let mut a = Accumulator::new("pi-bash", PathBuf::from("/nonexistent/dir"), OutputFiles::new());
        let data: String = (1..=3000).map(|i| format!("{i}\n")).collect();
        feed(&mut a, data.as_bytes(), 1000);
        let s = a.shown();
        assert!(s.full_output_path.is_none());
        let n = s.notice.clone().unwrap();
        assert!(n.starts_with("[Showing lines 1001-3000 of 3000. Full output could not be saved: "), "{n}");
        assert!(s.details().unwrap().get("fullOutputPath").is_none());
        assert_eq!(a.structured().output, data);
    }

    proptest! {
        /// However the stream is cut into reads, the result is the one of a single read.
        #[test]
        fn chunking_does_not_matter(parts in proptest::collection::vec(("[a€\n]{0,30}", any::<bool>()), 0..40), chunk in 1usize..17) {
            let mut data = Vec::new();
            for (s, bad) in &parts {
                data.extend_from_slice(s.as_bytes());
                if *bad { data.push(0xC3); }
            }
            let dir = tempfile::tempdir().unwrap();
            let mut one = acc(dir.path());
            feed(&mut one, &data, data.len().max(1));
            let mut many = acc(dir.path());
            feed(&mut many, &data, chunk);
            let expected = String::from_utf8_lossy(&data).into_owned();
            prop_assert_eq!(&many.shown().text, &expected);
            prop_assert_eq!(one.shown(), many.shown());
            prop_assert_eq!(many.total_lines() as usize, crate::truncate::count_lines(&expected));
        }

        /// Above the limits, the shown tail equals truncating the whole text.
        #[test]
        fn tail_matches_truncating_everything(line_len in 0usize..3000, lines in 1usize..120, chunk in 1000usize..70000) {
            let data: String = (0..lines).map(|i| format!("{}{}\n", i, "x".repeat(line_len))).collect();
            let dir = tempfile::tempdir().unwrap();
            let mut a = acc(dir.path());
            feed(&mut a, data.as_bytes(), chunk);
            let expected = truncate_tail(&data, Limits::default());
            let s = a.shown();
            match s.truncation {
                None => prop_assert!(!expected.truncated),
                Some(t) => {
                    prop_assert_eq!(&t.content, &expected.content);
                    prop_assert_eq!(t.total_lines, expected.total_lines);
                    prop_assert_eq!(t.total_bytes, expected.total_bytes);
                }
            }
        }
    }
}
