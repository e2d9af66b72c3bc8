//! A request body held as the chunks it was written in: a long conversation's
//! body (tens of megabytes when a big session is resumed) is never copied
//! into a growing buffer (which holds up to twice its size, and three times
//! while it grows) nor joined before it is sent; the HTTP client sends the
//! chunks one after another with the body's exact length.
//!
//! A body longer than [`STREAMED_BODY_MIN_BYTES`] is not held at all where
//! nothing needs it whole (see `crate::stream_ref`): a first pass over the
//! conversation only counts its bytes (the `content-length`), the request
//! goes out, and a second pass writes the body again chunk by chunk while
//! the HTTP client sends it, a few chunks in flight at a time.

use std::collections::VecDeque;
use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::limits::{REQUEST_BODY_CHUNK_BYTES, STREAMED_BODY_MIN_BYTES};

/// What a [`ChunkWriter`] does with the bytes it is given.
#[derive(Clone, Debug, Default)]
pub(crate) enum Sink {
    /// Keeps them all (the usual).
    #[default]
    Keep,
    /// Keeps them while the body is under [`STREAMED_BODY_MIN_BYTES`]; past
    /// that, drops them and only counts.
    KeepShort,
    /// Only counts.
    Count,
    /// Sends each chunk as it fills, `left` bytes at most.
    Send {
        /// Where the chunks go (the HTTP body being sent).
        tx: mpsc::Sender<Bytes>,
        /// Bytes still to send (the length announced).
        left: usize,
    },
}

/// Where a request body's bytes go as it is written: kept (the default),
/// or, for a long body, counted and then sent while written (set by
/// `crate::stream_ref` on its own copy of the options).
#[derive(Clone, Debug, Default)]
pub struct BodySink(pub(crate) Sink);

/// Bytes being written: full chunks of [`REQUEST_BODY_CHUNK_BYTES`] and the
/// chunk being filled.
#[derive(Debug, Default)]
pub(crate) struct ChunkWriter {
    full: Vec<Bytes>,
    current: Vec<u8>,
    len: usize,
    sink: Sink,
}

impl ChunkWriter {
    /// An empty writer keeping what it is given.
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        ChunkWriter::default()
    }

    /// An empty writer sending to `sink`.
    pub(crate) fn to(sink: &BodySink) -> Self {
        ChunkWriter { sink: sink.0.clone(), ..ChunkWriter::default() }
    }

    /// Append one byte.
    pub(crate) fn push(&mut self, b: u8) {
        if self.current.len() + 1 < self.current.capacity() {
            self.current.push(b);
            self.len += 1;
        } else {
            self.extend_from_slice(&[b]);
        }
    }

    /// Append `bytes`, starting new chunks as each fills.
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        // Most pieces fit in the chunk being filled.
        if bytes.len() < self.current.capacity() - self.current.len() {
            self.current.extend_from_slice(bytes);
            self.len += bytes.len();
        } else {
            self.spill(bytes);
        }
    }

    /// Append `bytes`, filling the current chunk and starting new ones.
    #[cold]
    fn spill(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len();
        if matches!(self.sink, Sink::Count) {
            return;
        }
        while !bytes.is_empty() {
            if self.current.capacity() == 0 {
                self.current = Vec::with_capacity(REQUEST_BODY_CHUNK_BYTES);
            }
            let room = self.current.capacity() - self.current.len();
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.current.extend_from_slice(now);
            bytes = later;
            if self.current.len() == self.current.capacity() {
                let chunk = Bytes::from(std::mem::take(&mut self.current));
                self.chunk_done(chunk);
                if matches!(self.sink, Sink::Count) {
                    return;
                }
            }
        }
    }

    /// A chunk is written: keep it, or send it (waiting for room in flight).
    fn chunk_done(&mut self, mut chunk: Bytes) {
        match &mut self.sink {
            Sink::Keep => self.full.push(chunk),
            Sink::KeepShort if self.len < STREAMED_BODY_MIN_BYTES => self.full.push(chunk),
            Sink::KeepShort | Sink::Count => {
                // Long: from here on only its length is wanted.
                self.full = Vec::new();
                self.current = Vec::new();
                self.sink = Sink::Count;
            }
            Sink::Send { tx, left } => {
                chunk.truncate(*left);
                *left -= chunk.len();
                // A request that was dropped (aborted, refused) takes no more.
                if chunk.is_empty() || tx.blocking_send(chunk).is_err() {
                    self.current = Vec::new();
                    self.sink = Sink::Count;
                }
            }
        }
    }

    /// The body written (only its length, when it was counted or sent).
    pub(crate) fn finish(mut self) -> RequestBody {
        if !self.current.is_empty() {
            let last = Bytes::from(std::mem::take(&mut self.current));
            self.chunk_done(last);
        }
        let whole = matches!(self.sink, Sink::Keep | Sink::KeepShort);
        RequestBody { chunks: self.full, len: self.len, whole, stream: None }
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A request body: in chunks, or (when long) sent as it is written.
#[derive(Debug)]
pub(crate) struct RequestBody {
    chunks: Vec<Bytes>,
    len: usize,
    /// Whether `chunks` hold the whole body (not when it was only counted).
    whole: bool,
    /// The chunks of a body written while it is sent.
    stream: Option<mpsc::Receiver<Bytes>>,
}

impl RequestBody {
    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether it is held whole (else it was only counted: too long to hold).
    pub(crate) fn is_whole(&self) -> bool {
        self.whole
    }

    /// A body of `len` bytes arriving through `rx` as it is written.
    pub(crate) fn streamed(rx: mpsc::Receiver<Bytes>, len: usize) -> RequestBody {
        RequestBody { chunks: Vec::new(), len, whole: false, stream: Some(rx) }
    }

    /// The bytes in one piece (for signing, compressing or parsing it whole;
    /// a body that was counted or is streamed has none held: such bodies are
    /// only made where nothing reads them whole).
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for c in &self.chunks {
            out.extend_from_slice(c);
        }
        out
    }

    /// The body for the HTTP client: one buffer when it is one chunk, the
    /// chunks (held or arriving) with their exact total length (sent as
    /// `content-length`) otherwise.
    pub(crate) fn into_http(self) -> reqwest::Body {
        if let Some(rx) = self.stream {
            return reqwest::Body::wrap(Arriving { rx, left: self.len as u64 });
        }
        match <[Bytes; 1]>::try_from(self.chunks) {
            Ok([one]) => reqwest::Body::from(one),
            Err(chunks) if chunks.is_empty() => reqwest::Body::from(Bytes::new()),
            Err(chunks) => reqwest::Body::wrap(Chunks { left: chunks.into(), len: self.len as u64 }),
        }
    }
}

/// The chunks of a body being written while it is sent, of known length.
struct Arriving {
    rx: mpsc::Receiver<Bytes>,
    left: u64,
}

impl http_body::Body for Arriving {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(c)) => {
                self.left = self.left.saturating_sub(c.len() as u64);
                Poll::Ready(Some(Ok(http_body::Frame::data(c))))
            }
            Poll::Ready(None) if self.left > 0 => Poll::Ready(Some(Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                crate::text::REQUEST_BODY_CUT,
            )))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}

impl Default for RequestBody {
    fn default() -> Self {
        RequestBody { chunks: Vec::new(), len: 0, whole: true, stream: None }
    }
}

impl From<Vec<u8>> for RequestBody {
    fn from(bytes: Vec<u8>) -> Self {
        let len = bytes.len();
        let chunks = if bytes.is_empty() { Vec::new() } else { vec![Bytes::from(bytes)] };
        RequestBody { chunks, len, whole: true, stream: None }
    }
}

impl PartialEq<[u8]> for RequestBody {
    fn eq(&self, other: &[u8]) -> bool {
        self.len == other.len() && {
            let mut rest = other;
            self.chunks.iter().all(|c| {
                let (head, tail) = rest.split_at(c.len());
                rest = tail;
                head == &c[..]
            })
        }
    }
}

/// The chunks left to send, as an HTTP body of known length.
struct Chunks {
    left: VecDeque<Bytes>,
    len: u64,
}

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let next = self.left.pop_front();
        if let Some(c) = &next {
            self.len -= c.len() as u64;
        }
        Poll::Ready(next.map(|c| Ok(http_body::Frame::data(c))))
    }

    fn is_end_stream(&self) -> bool {
        self.left.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_join_back_to_what_was_written() {
        let mut w = ChunkWriter::new();
        let piece: Vec<u8> = (0..=255u8).cycle().take(REQUEST_BODY_CHUNK_BYTES / 3 + 7).collect();
        let mut expected = Vec::new();
        for _ in 0..10 {
            w.extend_from_slice(&piece);
            w.push(b'!');
            expected.extend_from_slice(&piece);
            expected.push(b'!');
        }
        let body = w.finish();
        assert_eq!(body.len(), expected.len());
        assert!(body.chunks.len() > 3, "written in more than one chunk");
        assert!(body.chunks.iter().all(|c| c.len() <= REQUEST_BODY_CHUNK_BYTES));
        assert_eq!(body.to_vec(), expected);
        assert!(body == expected[..]);
        expected[5] ^= 1;
        assert!(body != expected[..]);
    }

    #[test]
    fn an_empty_body_is_empty() {
        let body = ChunkWriter::new().finish();
        assert!(body.len() == 0 && body.chunks.is_empty());
        assert!(body == b""[..]);
        assert_eq!(RequestBody::from(Vec::new()).len(), 0);
    }

    fn written(sink: Sink, bytes: &[u8]) -> RequestBody {
        let mut w = ChunkWriter::to(&BodySink(sink));
        for piece in bytes.chunks(1000) {
            w.extend_from_slice(piece);
        }
        w.finish()
    }

    #[test]
    fn a_short_body_is_kept_a_long_one_only_counted() {
        let short: Vec<u8> = (0..STREAMED_BODY_MIN_BYTES / 2).map(|i| (i % 251) as u8).collect();
        let body = written(Sink::KeepShort, &short);
        assert!(body.is_whole() && body == short[..]);
        let long: Vec<u8> = (0..STREAMED_BODY_MIN_BYTES + 5).map(|i| (i % 251) as u8).collect();
        let body = written(Sink::KeepShort, &long);
        assert!(!body.is_whole() && body.chunks.is_empty(), "nothing held");
        assert_eq!(body.len(), long.len());
    }

    #[test]
    fn a_sent_body_goes_down_the_channel_cut_at_its_length() {
        let bytes: Vec<u8> = (0..REQUEST_BODY_CHUNK_BYTES * 3 + 17).map(|i| (i % 251) as u8).collect();
        let (tx, mut rx) = mpsc::channel(16);
        let body = written(Sink::Send { tx, left: bytes.len() - 10 }, &bytes);
        assert!(!body.is_whole() && body.chunks.is_empty());
        let mut got = Vec::new();
        while let Ok(c) = rx.try_recv() {
            assert!(c.len() <= REQUEST_BODY_CHUNK_BYTES);
            got.extend_from_slice(&c);
        }
        assert_eq!(got, bytes[..bytes.len() - 10], "sent as written, never past the length announced");
        // Nobody receiving: the rest is dropped, nothing waits.
        let (tx, rx) = mpsc::channel(1);
        drop(rx);
        assert_eq!(written(Sink::Send { tx, left: bytes.len() }, &bytes).len(), bytes.len());
    }

    #[tokio::test]
    async fn a_streamed_body_that_ends_short_is_an_error() {
        use http_body_util::BodyExt;
        let (tx, rx) = mpsc::channel(4);
        tx.send(Bytes::from_static(b"abc")).await.unwrap();
        drop(tx);
        let body = RequestBody::streamed(rx, 10).into_http();
        assert_eq!(http_body::Body::size_hint(&body).exact(), Some(10));
        assert!(body.collect().await.is_err());
    }

    #[tokio::test]
    async fn the_http_body_streams_every_chunk_with_its_exact_length() {
        use http_body_util::BodyExt;
        let mut w = ChunkWriter::new();
        let bytes: Vec<u8> = (0..REQUEST_BODY_CHUNK_BYTES * 2 + 5).map(|i| (i % 251) as u8).collect();
        w.extend_from_slice(&bytes);
        let body = w.finish().into_http();
        assert_eq!(http_body::Body::size_hint(&body).exact(), Some(bytes.len() as u64));
        let collected = body.collect().await.unwrap().to_bytes();
        assert_eq!(&collected[..], &bytes[..]);
    }
}
