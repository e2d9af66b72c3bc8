//! The `application/vnd.amazon.eventstream` framing of a ConverseStream
//! answer: each message is a prelude (total and header lengths, CRC32), typed
//! headers, a payload and a CRC32 of the whole. Frames are cut and checked by
//! `aws-smithy-eventstream` (AWS's own decoder); this reader feeds it the
//! body as it arrives and bounds what it holds to one frame of at most
//! [`MAX_EVENT_FRAME_BYTES`] (the length is checked before anything is
//! buffered), so memory stays flat and the work linear.

use std::pin::Pin;

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use aws_smithy_types::event_stream::{HeaderValue, Message};
use bytes::{Buf, BytesMut};
use futures::{Stream, StreamExt};

use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::limits::MAX_EVENT_FRAME_BYTES;
use crate::text::bedrock as words;

/// The bytes of a prelude (total length, headers length, CRC).
const PRELUDE_BYTES: usize = 12;

/// The pieces of a response body as they arrive.
pub(crate) type Body = Pin<Box<dyn Stream<Item = Result<bytes::Bytes, reqwest::Error>> + Send>>;

/// One decoded frame: its `:message-type`, `:event-type` (or
/// `:exception-type`, `:error-code`) and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    /// `event`, `exception` or `error`.
    pub message_type: String,
    /// The event or exception name.
    pub name: String,
    /// `:error-message` of an `error` frame.
    pub error_message: Option<String>,
    /// The payload (JSON for ConverseStream).
    pub payload: bytes::Bytes,
}

impl Frame {
    fn from_message(m: Message) -> Frame {
        let header = |name: &str| {
            m.headers().iter().find(|h| h.name().as_str() == name).and_then(|h| match h.value() {
                HeaderValue::String(s) => Some(s.as_str().to_string()),
                _ => None,
            })
        };
        let message_type = header(":message-type").unwrap_or_else(|| "event".to_string());
        let name = match message_type.as_str() {
            "exception" => header(":exception-type"),
            "error" => header(":error-code"),
            _ => header(":event-type"),
        }
        .unwrap_or_default();
        Frame { message_type, name, error_message: header(":error-message"), payload: m.payload().clone() }
    }
}

/// Frames read from a body.
pub(crate) struct FrameReader {
    body: Body,
    buffer: BytesMut,
    decoder: MessageFrameDecoder,
    /// Whether the decoder is between frames (its next read is a prelude).
    at_frame_start: bool,
    ended: bool,
}

impl FrameReader {
    /// A reader of `body`.
    pub fn new(body: Body) -> Self {
        FrameReader {
            body,
            buffer: BytesMut::new(),
            decoder: MessageFrameDecoder::new(),
            at_frame_start: true,
            ended: false,
        }
    }

    /// Frames cut from these pieces (for tests and benchmarks).
    #[cfg(test)]
    pub fn from_chunks(chunks: Vec<Vec<u8>>) -> Self {
        Self::new(Box::pin(futures::stream::iter(chunks.into_iter().map(|c| Ok(bytes::Bytes::from(c))))))
    }

    /// The next frame; `None` at a clean end of the body. A bad frame, a
    /// body cut inside a frame or a transport failure is an error (and the
    /// last thing this returns).
    pub async fn next(&mut self) -> Option<Result<Frame, ProviderError>> {
        if self.ended {
            return None;
        }
        let result = self.read().await;
        if !matches!(result, Some(Ok(_))) {
            self.ended = true;
        }
        result
    }

    async fn read(&mut self) -> Option<Result<Frame, ProviderError>> {
        loop {
            match self.decode() {
                Ok(Some(frame)) => return Some(Ok(frame)),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
            match self.body.next().await {
                Some(Ok(piece)) => self.buffer.extend_from_slice(&piece),
                Some(Err(e)) => return Some(Err(crate::http::body_error(&e))),
                None if self.buffer.is_empty() && self.at_frame_start => return None,
                None => return Some(Err(ProviderError::of_kind(FailureKind::StreamCut, words::TRUNCATED_FRAME))),
            }
        }
    }

    /// A frame from the buffer, if a whole one is there.
    fn decode(&mut self) -> Result<Option<Frame>, ProviderError> {
        if self.at_frame_start {
            if self.buffer.len() < PRELUDE_BYTES {
                return Ok(None);
            }
            let total = u32::from_be_bytes([self.buffer[0], self.buffer[1], self.buffer[2], self.buffer[3]]);
            if total as usize > MAX_EVENT_FRAME_BYTES {
                return Err(ProviderError::failed(words::frame_too_large(total.into(), MAX_EVENT_FRAME_BYTES)));
            }
            // The decoder takes the prelude out of the buffer now.
            self.at_frame_start = false;
        }
        let before = self.buffer.remaining();
        let decoded = self.decoder.decode_frame(&mut self.buffer);
        match decoded {
            Ok(DecodedFrame::Complete(m)) => {
                self.at_frame_start = true;
                Ok(Some(Frame::from_message(m)))
            }
            Ok(DecodedFrame::Incomplete) => {
                debug_assert!(self.buffer.remaining() <= before);
                Ok(None)
            }
            Err(e) => Err(ProviderError::failed(frame_error(&e.to_string()))),
        }
    }
}

/// The decoder's error in the reference's words where it has them (the two
/// checksums, read back from the decoder's message), else named as a bad frame.
fn frame_error(decoder_message: &str) -> String {
    let checksums = |rest: &str| -> Option<(u32, u32)> {
        let (stored, computed) = rest.split_once(" didn't match expected checksum 0x")?;
        Some((u32::from_str_radix(stored, 16).ok()?, u32::from_str_radix(computed.trim(), 16).ok()?))
    };
    if let Some((stored, computed)) = decoder_message.strip_prefix("prelude checksum 0x").and_then(checksums) {
        return words::prelude_checksum(stored, computed);
    }
    if let Some((stored, computed)) = decoder_message.strip_prefix("message checksum 0x").and_then(checksums) {
        return words::message_checksum(computed, stored);
    }
    words::bad_frame(decoder_message)
}

/// Frames written for tests (an encoder independent of the decoder).
#[cfg(test)]
pub(crate) mod testing {
    use super::PRELUDE_BYTES;

    /// A frame as the event-stream encoding writes it (string headers only).
    pub fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
        let mut h = Vec::new();
        for (k, v) in headers {
            h.push(k.len() as u8);
            h.extend_from_slice(k.as_bytes());
            h.push(7);
            h.extend_from_slice(&(v.len() as u16).to_be_bytes());
            h.extend_from_slice(v.as_bytes());
        }
        let total = (PRELUDE_BYTES + h.len() + payload.len() + 4) as u32;
        let mut out = Vec::new();
        out.extend_from_slice(&total.to_be_bytes());
        out.extend_from_slice(&(h.len() as u32).to_be_bytes());
        let crc = crc32(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(payload);
        let crc = crc32(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// CRC-32 (IEEE), bit by bit.
    pub fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    /// An event frame with a JSON payload.
    pub fn event(name: &str, json: &str) -> Vec<u8> {
        frame(
            &[(":event-type", name), (":content-type", "application/json"), (":message-type", "event")],
            json.as_bytes(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{crc32, event, frame};
    use super::*;

    async fn read_all(chunks: Vec<Vec<u8>>) -> (Vec<Frame>, Option<ProviderError>) {
        let mut r = FrameReader::from_chunks(chunks);
        let mut frames = Vec::new();
        while let Some(f) = r.next().await {
            match f {
                Ok(f) => frames.push(f),
                Err(e) => return (frames, Some(e)),
            }
        }
        (frames, None)
    }

    fn pieces(bytes: &[u8], size: usize) -> Vec<Vec<u8>> {
        bytes.chunks(size.max(1)).map(<[u8]>::to_vec).collect()
    }

    #[tokio::test]
    async fn frames_in_pieces_of_any_size() {
        let mut body = event("messageStart", r#"{"role":"assistant"}"#);
        body.extend(event("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"hé"}}"#));
        body.extend(frame(&[(":message-type", "exception"), (":exception-type", "throttlingException")], b"{}"));
        for size in [1, 2, 3, 7, 13, 64, usize::MAX] {
            let (frames, err) = read_all(pieces(&body, size)).await;
            assert!(err.is_none(), "{size}: {err:?}");
            let names: Vec<_> = frames.iter().map(|f| (f.message_type.as_str(), f.name.as_str())).collect();
            assert_eq!(
                names,
                [("event", "messageStart"), ("event", "contentBlockDelta"), ("exception", "throttlingException")]
            );
            assert_eq!(&frames[1].payload[..], r#"{"contentBlockIndex":0,"delta":{"text":"hé"}}"#.as_bytes());
        }
    }

    #[tokio::test]
    async fn bad_input_is_a_clear_error() {
        let good = event("messageStart", "{}");
        let mut bad_message_crc = good.clone();
        let last = bad_message_crc.len() - 1;
        bad_message_crc[last] ^= 1;
        let mut bad_prelude_crc = good.clone();
        bad_prelude_crc[11] ^= 1;
        let mut bad_payload = good.clone();
        bad_payload[last - 5] ^= 0x20;
        for (what, body) in
            [("message crc", bad_message_crc), ("prelude crc", bad_prelude_crc), ("payload", bad_payload)]
        {
            for size in [1, 5, usize::MAX] {
                let (frames, err) = read_all(pieces(&body, size)).await;
                let err = err.unwrap_or_else(|| panic!("{what}: no error"));
                assert!(frames.is_empty());
                assert_eq!(err.kind(), Some(FailureKind::Other), "{what}");
                assert!(err.to_string().contains("checksum ("), "{what}: {err}");
            }
        }
        // The reference's words, with the numbers of the frame at hand.
        let mut bad = good.clone();
        let stored = u32::from_be_bytes([bad[last - 3], bad[last - 2], bad[last - 1], bad[last]]);
        bad[last] ^= 1;
        let (_, err) = read_all(vec![bad]).await;
        assert_eq!(err.unwrap().to_string(), words::message_checksum(stored, stored ^ 1));
        let mut bad = good.clone();
        let prelude = u32::from_be_bytes([bad[8], bad[9], bad[10], bad[11]]);
        bad[11] ^= 1;
        let (_, err) = read_all(vec![bad]).await;
        assert_eq!(err.unwrap().to_string(), words::prelude_checksum(prelude ^ 1, prelude));
        assert_eq!(frame_error("invalid message length"), words::bad_frame("invalid message length"));
        // A body that stops inside a frame.
        let (frames, err) = read_all(vec![good.clone(), good[..good.len() - 3].to_vec()]).await;
        assert_eq!(frames.len(), 1);
        assert_eq!(
            err.map(|e| (e.to_string(), e.kind())),
            Some((words::TRUNCATED_FRAME.into(), Some(FailureKind::StreamCut)))
        );
        // A prelude announcing 4 GiB is refused before anything is buffered.
        let mut huge = vec![0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
        huge.extend_from_slice(&crc32(&huge).to_be_bytes());
        let (_, err) = read_all(vec![huge]).await;
        assert!(err.unwrap().to_string().contains("larger than 16 MiB"));
        // Lengths that contradict each other, and junk.
        for junk in [
            vec![0u8; 16],
            vec![0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0],
            b"HTTP/1.1 200 OK\r\n\r\n{}".to_vec(),
            vec![0, 0, 0, 16, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8],
        ] {
            let (frames, err) = read_all(vec![junk.clone()]).await;
            assert!(frames.is_empty() && err.is_some(), "{junk:?}");
        }
        // Nothing at all is a clean end.
        assert_eq!(read_all(vec![]).await, (vec![], None));
    }
}
