#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use tokio::io::AsyncReadExt;

use super::*;

/// What the guard passes on from `input`, read in pieces of `piece` bytes.
async fn through(input: &[u8], piece: usize, max_bytes: usize, max_depth: usize) -> Vec<String> {
    let chunks: Vec<Vec<u8>> = input.chunks(piece.max(1)).map(<[u8]>::to_vec).collect();
    let mut builder = tokio_test_reader(chunks);
    let mut guard = Guard::with_limits(&mut builder, max_bytes, max_depth);
    let mut out = Vec::new();
    guard.read_to_end(&mut out).await.unwrap();
    String::from_utf8(out).unwrap().lines().map(String::from).collect()
}

/// A reader that hands out `chunks` one read at a time.
fn tokio_test_reader(chunks: Vec<Vec<u8>>) -> Pieces {
    Pieces(chunks.into())
}

struct Pieces(std::collections::VecDeque<Vec<u8>>);

impl AsyncRead for Pieces {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        if let Some(c) = self.0.pop_front() {
            buf.put_slice(&c);
        }
        Poll::Ready(Ok(()))
    }
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[tokio::test]
async fn lines_within_the_limits_pass_unchanged_in_any_pieces() {
    let input =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"{[{[\"}}\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\nlast";
    for piece in [1, 2, 3, 7, 64, 4096] {
        let got = through(input, piece, 1000, 4).await;
        assert_eq!(
            got,
            [
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"{[{[\"}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}",
                "last"
            ]
        );
    }
}

#[tokio::test]
async fn a_too_deep_answer_becomes_an_error_for_its_id_naming_the_limit() {
    let line =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":\"req-7\",\"result\":{}}}\n{{\"id\":2,\"result\":{{}}}}\n", nested(130));
    for piece in [1, 5, 4096] {
        let got = through(line.as_bytes(), piece, 1 << 20, 100).await;
        assert_eq!(got.len(), 2, "{got:?}");
        let error: Value = serde_json::from_str(&got[0]).unwrap();
        assert_eq!(error["id"], "req-7");
        assert_eq!(error["error"]["code"], REFUSED_ANSWER_CODE);
        assert_eq!(error["error"]["message"], text::mcp_answer_too_deep(100));
        assert!(error["error"]["message"].as_str().unwrap().contains("MCP_MAX_MESSAGE_DEPTH"));
        assert_eq!(got[1], "{\"id\":2,\"result\":{}}", "the next line goes on");
    }
}

#[tokio::test]
async fn a_too_large_answer_becomes_an_error_and_memory_stays_bounded() {
    let big = format!("{{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{{\"text\":\"{}\"}}}}\n", "y".repeat(100_000));
    let got = through(big.as_bytes(), 4096, 10_000, 100).await;
    let error: Value = serde_json::from_str(&got[0]).unwrap();
    assert_eq!(error["id"], 42);
    assert_eq!(error["error"]["message"], text::mcp_answer_too_large(10_000));
}

#[tokio::test]
async fn a_refused_message_without_an_id_is_dropped() {
    let line = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"note\",\"params\":{}}}\n{{\"id\":3}}\n", nested(50));
    assert_eq!(through(line.as_bytes(), 3, 1 << 20, 10).await, ["{\"id\":3}"]);
}

#[test]
fn the_id_is_read_at_the_top_level_only() {
    let line = br#"{"result":{"id":"inner","x":"\"id\":9"},"id" : 17,"jsonrpc":"2.0"}"#;
    assert_eq!(top_level_id(line), Some(json!(17)));
    assert_eq!(top_level_id(br#"{"method":"x"}"#), None);
    assert_eq!(top_level_id(br#"{"id":"a\"b"}"#), Some(json!("a\"b")));
}
