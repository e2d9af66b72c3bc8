//! The Amazon event-stream encoding (`application/vnd.amazon.eventstream`)
//! of the Bedrock ConverseStream answers the mock server sends: frames of a
//! prelude (total length, headers length, CRC-32), string headers, a payload
//! and a CRC-32 of the whole. Written here from the format's description, on
//! purpose independent of the decoder under test.

use serde_json::{Value, json};

use crate::{Turn, USAGE_INPUT, USAGE_OUTPUT};

/// The header value type of a string.
const STRING_TYPE: u8 = 7;

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it).
pub fn crc32(bytes: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (n, slot) in t.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            }
            *slot = c;
        }
        t
    });
    !bytes.iter().fold(!0u32, |c, &b| table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8))
}

/// One frame with string headers.
pub fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(STRING_TYPE);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = (12 + h.len() + payload.len() + 4) as u32;
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let prelude_crc = crc32(&out);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    let message_crc = crc32(&out);
    out.extend_from_slice(&message_crc.to_be_bytes());
    out
}

/// An event (`:event-type`) with a JSON payload.
pub fn event(name: &str, payload: &Value) -> Vec<u8> {
    let headers = [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")];
    frame(&headers, payload.to_string().as_bytes())
}

/// An exception (`:exception-type`, e.g. `throttlingException`) with a message.
pub fn exception(kind: &str, message: &str) -> Vec<u8> {
    let headers = [(":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception")];
    frame(&headers, json!({"message": message}).to_string().as_bytes())
}

/// The frame with its message CRC off by one bit.
pub fn with_bad_crc(mut frame: Vec<u8>) -> Vec<u8> {
    if let Some(last) = frame.last_mut() {
        *last ^= 1;
    }
    frame
}

/// The ConverseStream frames of a scripted turn: reasoning (with a
/// signature), text, tool calls, `messageStop` and `metadata` usage.
pub fn converse_frames(turn: &Turn, index: usize) -> Vec<Vec<u8>> {
    let mut out = vec![event("messageStart", &json!({"role": "assistant"}))];
    let mut block = 0;
    if let Some(t) = &turn.thinking {
        for p in turn.pieces(t) {
            out.push(event(
                "contentBlockDelta",
                &json!({"contentBlockIndex": block, "delta": {"reasoningContent": {"text": p}}}),
            ));
        }
        out.push(event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": block, "delta": {"reasoningContent": {"signature": format!("sig_{index}")}}}),
        ));
        out.push(event("contentBlockStop", &json!({"contentBlockIndex": block})));
        block += 1;
    }
    if let Some(t) = &turn.text {
        for p in turn.pieces(t) {
            out.push(event("contentBlockDelta", &json!({"contentBlockIndex": block, "delta": {"text": p}})));
        }
        out.push(event("contentBlockStop", &json!({"contentBlockIndex": block})));
        block += 1;
    }
    for (k, c) in turn.tool_calls.iter().enumerate() {
        let id = c.id.clone().unwrap_or_else(|| format!("tooluse_{index}_{k}"));
        out.push(event(
            "contentBlockStart",
            &json!({"contentBlockIndex": block, "start": {"toolUse": {"toolUseId": id, "name": c.name}}}),
        ));
        for p in turn.pieces(&c.args.text()) {
            out.push(event(
                "contentBlockDelta",
                &json!({"contentBlockIndex": block, "delta": {"toolUse": {"input": p}}}),
            ));
        }
        out.push(event("contentBlockStop", &json!({"contentBlockIndex": block})));
        block += 1;
    }
    let stop = if turn.tool_calls.is_empty() { "end_turn" } else { "tool_use" };
    out.push(event("messageStop", &json!({"stopReason": stop})));
    out.push(event(
        "metadata",
        &json!({"usage": {"inputTokens": USAGE_INPUT, "outputTokens": USAGE_OUTPUT,
            "totalTokens": USAGE_INPUT + USAGE_OUTPUT}, "metrics": {"latencyMs": 1}}),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_and_frame_layout() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926, "the CRC-32 check value");
        let f = frame(&[(":event-type", "x")], b"{}");
        assert_eq!(u32::from_be_bytes([f[0], f[1], f[2], f[3]]) as usize, f.len());
        assert_eq!(u32::from_be_bytes([f[4], f[5], f[6], f[7]]), 1 + 11 + 1 + 2 + 1);
        assert_eq!(u32::from_be_bytes([f[8], f[9], f[10], f[11]]), crc32(&f[..8]));
        let n = f.len();
        assert_eq!(u32::from_be_bytes([f[n - 4], f[n - 3], f[n - 2], f[n - 1]]), crc32(&f[..n - 4]));
        assert_ne!(with_bad_crc(f.clone()), f);
    }
}
