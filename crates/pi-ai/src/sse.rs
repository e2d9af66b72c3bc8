//! Server-sent events framing (the WHATWG `text/event-stream` rules), in time
//! linear in the size of the stream.
//!
//! Bytes are appended to one buffer; each byte is searched for a line end
//! once, a finished line is handled where it lies, and consumed bytes are
//! dropped only when they are at least half of the buffer (so the copying
//! adds up to less than the stream's size). A line may be as long as the
//! server likes, up to [`MAX_SSE_EVENT_BYTES`] for the event it belongs to.
//! Lines end with LF, CR or CRLF; a leading byte-order mark is dropped; `id`
//! and `retry` fields and comments are ignored; an event still open when the
//! body ends is dropped, as the standard says. Invalid UTF-8 becomes U+FFFD,
//! as a browser's decoder does.

use std::collections::VecDeque;

use crate::error::EventTooLarge;
use crate::limits::MAX_SSE_EVENT_BYTES;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event` field, `message` when there was none.
    pub event: String,
    /// The `data` lines joined with `\n`.
    pub data: String,
}

/// Turns body bytes into events.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// Bytes not consumed yet (the unfinished line, after `start`).
    buf: Vec<u8>,
    /// Where the unfinished line starts in `buf`.
    start: usize,
    /// How far `buf` has been searched for a line end.
    scanned: usize,
    /// The last line ended with CR: an LF right after it belongs to it.
    after_cr: bool,
    /// Whether the first bytes (and a byte-order mark) were seen.
    started: bool,
    /// The event being gathered.
    event: String,
    data: String,
    /// Events ready to be taken.
    ready: VecDeque<SseEvent>,
}

impl SseParser {
    /// Add body bytes; complete events become available to [`SseParser::next_event`].
    /// Fails when one event outgrows [`MAX_SSE_EVENT_BYTES`].
    pub fn push(&mut self, mut bytes: &[u8]) -> Result<(), EventTooLarge> {
        if self.started {
            if self.after_cr && !bytes.is_empty() {
                self.after_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                }
            }
            self.buf.extend_from_slice(bytes);
        } else {
            // Nothing was read yet, and the mark may come in pieces.
            self.buf.extend_from_slice(bytes);
            if self.buf.len() < BOM.len() && BOM.starts_with(&self.buf) {
                return Ok(());
            }
            self.started = true;
            if self.buf.starts_with(BOM) {
                self.buf.drain(..BOM.len());
            }
        }
        while let Some(at) = memchr::memchr2(b'\n', b'\r', &self.buf[self.scanned..]) {
            let end = self.scanned + at;
            let mut next = end + 1;
            if self.buf[end] == b'\r' {
                match self.buf.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let (start, line_end) = (self.start, end);
            self.start = next;
            self.scanned = next;
            self.line(start, line_end);
        }
        self.scanned = self.buf.len();
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.start + self.data.len() > MAX_SSE_EVENT_BYTES {
            return Err(EventTooLarge { limit: MAX_SSE_EVENT_BYTES });
        }
        Ok(())
    }

    /// The next complete event, if any.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    /// Handle the line `buf[start..end]`.
    fn line(&mut self, start: usize, end: usize) {
        let line = &self.buf[start..end];
        if line.is_empty() {
            self.dispatch();
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(c) => {
                let value = &line[c + 1..];
                (&line[..c], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                self.data.push_str(&String::from_utf8_lossy(value));
                self.data.push('\n');
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        let mut data = std::mem::take(&mut self.data);
        let event = std::mem::take(&mut self.event);
        if data.is_empty() {
            return;
        }
        data.pop();
        let event = if event.is_empty() { "message".to_string() } else { event };
        self.ready.push_back(SseEvent { event, data });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for piece in pieces {
            p.push(piece).unwrap();
            while let Some(e) = p.next_event() {
                out.push(e);
            }
        }
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent { event: event.into(), data: data.into() }
    }

    #[test]
    fn fields_lines_and_events() {
        let body = b"\xEF\xBB\xBFdata: a\ndata:b\r\n\r\n: comment\nevent: e\rdata\rid: 7\nretry: 5\n\nevent: lost\n\ndata: tail";
        let want = vec![ev("message", "a\nb"), ev("e", "")];
        // An event with an empty data line has data "" and is dispatched only
        // when a data field was seen: `data` alone counts.
        assert_eq!(parse(&[body]), want);
        // Every split, byte by byte included, gives the same events.
        for size in [1, 2, 3, 5, 8] {
            let pieces: Vec<&[u8]> = body.chunks(size).collect();
            assert_eq!(parse(&pieces), want, "pieces of {size}");
        }
    }

    #[test]
    fn crlf_split_between_pieces_is_one_line_end() {
        assert_eq!(parse(&[b"data: x\r", b"\n\r", b"\ndata: y\n\n"]), vec![ev("message", "x"), ev("message", "y")]);
        assert_eq!(parse(&[b"data: x\r", b"\r"]), vec![ev("message", "x")]);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_an_error() {
        assert_eq!(parse(&[b"data: \xFFok\n\n"]), vec![ev("message", "\u{FFFD}ok")]);
        // A character cut between pieces is whole again.
        assert_eq!(parse(&[b"data: \xC3", b"\xA9\n\n"]), vec![ev("message", "\u{e9}")]);
    }

    #[test]
    fn a_bom_is_only_dropped_at_the_start() {
        assert_eq!(parse(&[b"\xEF", b"\xBB", b"\xBFdata: a\n\n"]), vec![ev("message", "a")]);
        // Not a mark: the bytes are part of the (unknown) field name.
        assert_eq!(parse(&[b"\xEFdata: a\n\n"]), vec![]);
        assert_eq!(parse(&[b"data: \xEF\xBB\xBF\n\n"]), vec![ev("message", "\u{FEFF}")]);
    }

    #[test]
    fn an_oversized_event_is_an_error() {
        let mut p = SseParser::default();
        let piece = vec![b'x'; 1024 * 1024];
        p.push(b"data: ").unwrap();
        let mut failed = None;
        for _ in 0..=MAX_SSE_EVENT_BYTES / piece.len() {
            if let Err(e) = p.push(&piece) {
                failed = Some(e.to_string());
                break;
            }
        }
        assert_eq!(failed.as_deref(), Some("Error reading response: a server-sent event is larger than 256 MiB"));
    }

    proptest::proptest! {
        /// However the bytes are cut, the events are the same.
        #[test]
        fn pieces_do_not_matter(
            body in proptest::collection::vec(
                proptest::sample::select(b"data: event:x\r\n\xEF\xBB\xBF\xC3\xA9".to_vec()), 0..300),
            cuts in proptest::collection::vec(0usize..40, 0..10),
        ) {
            let whole = parse(&[&body]);
            let mut pieces: Vec<&[u8]> = Vec::new();
            let mut rest = &body[..];
            for c in cuts {
                let (a, b) = rest.split_at(c.min(rest.len()));
                pieces.push(a);
                rest = b;
            }
            pieces.push(rest);
            proptest::prop_assert_eq!(parse(&pieces), whole);
        }
    }

    /// A long line in small pieces and many short events in one piece both
    /// cost time in proportion to their size (the old framing re-read its
    /// buffer for every piece and copied the rest after every line).
    #[test]
    fn long_lines_and_many_events_in_linear_time() {
        let t = std::time::Instant::now();
        let mut p = SseParser::default();
        p.push(b"data: ").unwrap();
        let piece = vec![b'a'; 1024];
        for _ in 0..32 * 1024 {
            p.push(&piece).unwrap();
        }
        p.push(b"\n\n").unwrap();
        assert_eq!(p.next_event().unwrap().data.len(), 32 * 1024 * 1024);
        let many = "data: {}\n\n".repeat(1_000_000);
        p.push(many.as_bytes()).unwrap();
        let mut n = 0;
        while p.next_event().is_some() {
            n += 1;
        }
        assert_eq!(n, 1_000_000);
        assert!(t.elapsed() < std::time::Duration::from_secs(20), "took {:?}", t.elapsed());
    }
}
