//! A request body held as the chunks it was written in: a long conversation's
//! body (tens of megabytes when a big session is resumed) is never copied
//! into a growing buffer (which holds up to twice its size, and three times
//! while it grows) nor joined before it is sent; the HTTP client sends the
//! chunks one after another with the body's exact length.

use std::collections::VecDeque;
use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;

use crate::limits::REQUEST_BODY_CHUNK_BYTES;

/// Bytes being written: full chunks of [`REQUEST_BODY_CHUNK_BYTES`] and the
/// chunk being filled.
#[derive(Debug, Default)]
pub(crate) struct ChunkWriter {
    full: Vec<Bytes>,
    current: Vec<u8>,
    len: usize,
}

impl ChunkWriter {
    /// An empty writer.
    pub(crate) fn new() -> Self {
        ChunkWriter::default()
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
        while !bytes.is_empty() {
            if self.current.capacity() == 0 {
                self.current = Vec::with_capacity(REQUEST_BODY_CHUNK_BYTES);
            }
            let room = self.current.capacity() - self.current.len();
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.current.extend_from_slice(now);
            bytes = later;
            if self.current.len() == self.current.capacity() {
                self.full.push(Bytes::from(std::mem::take(&mut self.current)));
            }
        }
    }

    /// The body written.
    pub(crate) fn finish(mut self) -> RequestBody {
        if !self.current.is_empty() {
            self.full.push(Bytes::from(self.current));
        }
        RequestBody { chunks: self.full, len: self.len }
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

/// A whole request body, in chunks.
#[derive(Clone, Debug, Default)]
pub(crate) struct RequestBody {
    chunks: Vec<Bytes>,
    len: usize,
}

impl RequestBody {
    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bytes in one piece (for signing, compressing or parsing it whole).
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for c in &self.chunks {
            out.extend_from_slice(c);
        }
        out
    }

    /// The body for the HTTP client: one buffer when it is one chunk, the
    /// chunks streamed with their exact total length (sent as
    /// `content-length`) otherwise.
    pub(crate) fn into_http(self) -> reqwest::Body {
        match <[Bytes; 1]>::try_from(self.chunks) {
            Ok([one]) => reqwest::Body::from(one),
            Err(chunks) if chunks.is_empty() => reqwest::Body::from(Bytes::new()),
            Err(chunks) => reqwest::Body::wrap(Chunks { left: chunks.into(), len: self.len as u64 }),
        }
    }
}

impl From<Vec<u8>> for RequestBody {
    fn from(bytes: Vec<u8>) -> Self {
        let len = bytes.len();
        let chunks = if bytes.is_empty() { Vec::new() } else { vec![Bytes::from(bytes)] };
        RequestBody { chunks, len }
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
