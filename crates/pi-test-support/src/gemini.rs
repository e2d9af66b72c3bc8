//! The Gemini stream format (Google Generative AI and Vertex AI,
//! `POST …:streamGenerateContent?alt=sse`) and a Google OAuth token
//! endpoint (`POST …/token`) for Vertex AI's Application Default Credentials.

use serde_json::{Value, json};

use crate::{Turn, USAGE_INPUT, USAGE_OUTPUT};

/// A private RSA key (PKCS #8 PEM) for a test service account; generated
/// for these tests, it signs nothing anywhere else.
pub const TEST_SERVICE_ACCOUNT_KEY: &str = include_str!("google-test-key.pem");
/// Its public key (PKCS #1 DER, base64), to check a JWT's signature.
pub const TEST_SERVICE_ACCOUNT_PUBLIC_KEY_B64: &str = include_str!("google-test-key.pub.b64");

/// The access token the mock token endpoint hands out (`-<n>` appended, n
/// counting the tokens given).
pub const MOCK_ACCESS_TOKEN: &str = "ya29.mock-token";

/// Whether a path (without its query) is a Gemini stream request.
pub(crate) fn is_stream_path(route: &str) -> bool {
    route.ends_with(":streamGenerateContent")
}

/// Whether a path is the OAuth token endpoint.
pub(crate) fn is_token_path(route: &str) -> bool {
    route.ends_with("/token")
}

/// The token endpoint's answer: a token good for an hour.
pub(crate) fn token_answer(n: usize) -> String {
    json!({"access_token": format!("{MOCK_ACCESS_TOKEN}-{n}"), "expires_in": 3600, "token_type": "Bearer"}).to_string()
}

fn chunk(v: &Value) -> String {
    format!("data: {v}\r\n\r\n")
}

fn parts_chunk(parts: Value, index: usize) -> String {
    chunk(&json!({"candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}],
        "responseId": format!("gresp_{index}")}))
}

/// The events of a turn: thinking (thought parts, the last with a
/// signature), text, each tool call as one `functionCall` part (the first
/// with a signature; ids only when scripted), then `finishReason: STOP` and usage.
pub(crate) fn events(turn: &Turn, index: usize) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = &turn.thinking {
        let pieces = turn.pieces(t);
        let last = pieces.len().saturating_sub(1);
        for (k, p) in pieces.into_iter().enumerate() {
            let mut part = json!({"text": p, "thought": true});
            if k == last {
                part["thoughtSignature"] = format!("sig_{index}").into();
            }
            out.push(parts_chunk(json!([part]), index));
        }
    }
    if let Some(t) = &turn.text {
        for p in turn.pieces(t) {
            out.push(parts_chunk(json!([{"text": p}]), index));
        }
    }
    for (k, c) in turn.tool_calls.iter().enumerate() {
        let id = c.id.as_ref().map(|id| format!(",\"id\":{}", Value::from(id.as_str()))).unwrap_or_default();
        let signature = if k == 0 { format!(",\"thoughtSignature\":\"callsig_{index}\"") } else { String::new() };
        // Raw arguments go in as they are (a malformed call makes a malformed chunk).
        let part = format!(
            "{{\"functionCall\":{{\"name\":{}{id},\"args\":{}}}{signature}}}",
            Value::from(c.name.as_str()),
            c.args.text()
        );
        out.push(format!(
            "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{part}],\"role\":\"model\"}},\"index\":0}}],\"responseId\":\"gresp_{index}\"}}\r\n\r\n"
        ));
    }
    out.push(chunk(&json!({
        "candidates": [{"content": {"parts": [], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": USAGE_INPUT, "candidatesTokenCount": USAGE_OUTPUT,
            "totalTokenCount": USAGE_INPUT + USAGE_OUTPUT},
        "responseId": format!("gresp_{index}"),
    })));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolCallSpec;

    #[test]
    fn a_tool_turn_is_one_call_per_chunk_then_the_finish() {
        let turn = Turn::tools(vec![ToolCallSpec::new("read", json!({"path": "a"})).with_id("c1")]).with_text("hi");
        let evs = events(&turn, 3);
        assert_eq!(evs.len(), 2 + 1 + 1);
        let call: Value = serde_json::from_str(evs[2].trim().strip_prefix("data: ").unwrap()).unwrap();
        assert_eq!(
            call["candidates"][0]["content"]["parts"][0],
            json!({"functionCall": {"name": "read", "id": "c1", "args": {"path": "a"}}, "thoughtSignature": "callsig_3"})
        );
        assert!(evs[3].contains("\"finishReason\":\"STOP\""));
        assert!(is_stream_path("/v1/models/m:streamGenerateContent"));
        assert!(is_token_path("/token"));
        assert!(TEST_SERVICE_ACCOUNT_KEY.starts_with("-----BEGIN PRIVATE KEY-----"));
    }
}
