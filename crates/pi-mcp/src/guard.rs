//! Size and depth limits on what a stdio server writes. Its standard output
//! is passed on line by line; a message longer than
//! [`text::MCP_MAX_MESSAGE_BYTES`] or nested deeper than
//! [`text::MCP_MAX_MESSAGE_DEPTH`] is not passed on: an answer (a message
//! with an `id`) is replaced by a JSON-RPC error for the same id naming the
//! limit, so the request waiting for it fails at once with that message
//! instead of timing out; anything else is dropped. Memory stays bounded
//! (at most one line up to the limit) and every byte is looked at once.

use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{Value, json};
use tokio::io::{AsyncRead, ReadBuf};

use crate::text;

/// The JSON-RPC error code of a refused answer (server error range).
pub const REFUSED_ANSWER_CODE: i64 = -32001;

/// How the current line looks so far, read byte by byte.
#[derive(Default)]
struct Scan {
    depth: usize,
    deepest: usize,
    in_string: bool,
    escaped: bool,
    len: usize,
}

impl Scan {
    fn feed(&mut self, bytes: &[u8]) {
        self.len += bytes.len();
        for &b in bytes {
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    self.deepest = self.deepest.max(self.depth);
                }
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    /// The limit the line broke, if any.
    fn broken(&self, max_bytes: usize, max_depth: usize) -> Option<String> {
        if self.len > max_bytes {
            Some(text::mcp_answer_too_large(max_bytes))
        } else if self.deepest > max_depth {
            Some(text::mcp_answer_too_deep(max_depth))
        } else {
            None
        }
    }
}

/// A reader that passes on whole lines within the limits.
pub(crate) struct Guard<R> {
    inner: R,
    /// The current line (its first `max_bytes` bytes at most).
    line: Vec<u8>,
    scan: Scan,
    /// Lines ready to pass on, and how much of them was passed.
    ready: Vec<u8>,
    sent: usize,
    max_bytes: usize,
    max_depth: usize,
    eof: bool,
}

impl<R> Guard<R> {
    /// Guard `inner` with the limits of [`text`].
    pub(crate) fn new(inner: R) -> Self {
        Guard::with_limits(inner, text::MCP_MAX_MESSAGE_BYTES, text::MCP_MAX_MESSAGE_DEPTH)
    }

    /// Guard `inner` with other limits (tests).
    pub(crate) fn with_limits(inner: R, max_bytes: usize, max_depth: usize) -> Self {
        let (line, scan, ready) = (Vec::new(), Scan::default(), Vec::new());
        Guard { inner, line, scan, ready, sent: 0, max_bytes, max_depth, eof: false }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            self.scan.feed(chunk);
            if self.line.len() < self.max_bytes {
                let room = self.max_bytes - self.line.len();
                self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            if chunk.last() == Some(&b'\n') {
                self.end_line();
            }
        }
    }

    /// A whole line was read: pass it on, or its refusal.
    fn end_line(&mut self) {
        let scan = std::mem::take(&mut self.scan);
        match scan.broken(self.max_bytes, self.max_depth) {
            None => self.ready.extend_from_slice(&self.line),
            Some(message) => {
                if let Some(id) = top_level_id(&self.line) {
                    let error = json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": REFUSED_ANSWER_CODE, "message": message}});
                    self.ready.extend_from_slice(error.to_string().as_bytes());
                    self.ready.push(b'\n');
                }
            }
        }
        self.line.clear();
    }
}

/// The `id` of a JSON-RPC message from its start (its top-level `id`, a
/// number or a string), read without parsing the rest (too big or too deep).
fn top_level_id(line: &[u8]) -> Option<Value> {
    let (mut depth, mut i) = (0usize, 0usize);
    while i < line.len() {
        match line[i] {
            b'"' => {
                let end = string_end(line, i)?;
                if depth == 1 && &line[i..=end] == b"\"id\"" {
                    let rest = &line[end + 1..];
                    let colon = rest.iter().position(|b| !b.is_ascii_whitespace())?;
                    if rest[colon] != b':' {
                        i = end + 1;
                        continue;
                    }
                    return first_value(&rest[colon + 1..]);
                }
                i = end + 1;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote that ends the string starting at `start`.
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut escaped = false;
    for (k, &b) in line.iter().enumerate().skip(start + 1) {
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b'"') => return Some(k),
            _ => {}
        }
    }
    None
}

/// A number or string value at the start of `rest`.
fn first_value(rest: &[u8]) -> Option<Value> {
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &rest[start..];
    let end = if rest.first() == Some(&b'"') {
        string_end(rest, 0)? + 1
    } else {
        rest.iter().position(|b| matches!(b, b',' | b'}' | b' ' | b'\n' | b'\r' | b'\t')).unwrap_or(rest.len())
    };
    serde_json::from_slice::<Value>(&rest[..end]).ok().filter(|v| v.is_number() || v.is_string())
}

impl<R: AsyncRead + Unpin> AsyncRead for Guard<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.sent < this.ready.len() {
                let n = (this.ready.len() - this.sent).min(buf.remaining());
                buf.put_slice(&this.ready[this.sent..this.sent + n]);
                this.sent += n;
                if this.sent == this.ready.len() {
                    this.ready.clear();
                    this.sent = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 64 * 1024];
            let mut inner_buf = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut inner_buf) {
                Poll::Ready(Ok(())) => {
                    let filled = inner_buf.filled();
                    if filled.is_empty() {
                        // The end: a last line without a newline is passed on as it is.
                        this.eof = true;
                        if !this.line.is_empty() {
                            this.end_line();
                        }
                    } else {
                        let bytes = filled.to_vec();
                        this.feed(&bytes);
                    }
                }
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests;
