//! Reading Mistral streams, the good and the bad.

use super::*;
use crate::model::Model;
use crate::providers::testing::{PIECE_SIZES, split_bytes};
use crate::types::ContentBlock;
use serde_json::json;
use tokio::sync::mpsc;

fn model() -> Model {
    Model { id: "mc-1".into(), api: "mistral-conversations".into(), provider: "mc".into(), ..Default::default() }
}

fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect::<String>() + "data: [DONE]\n\n"
}

fn chunk(delta: Value, finish: Value) -> Value {
    json!({"id": "cmpl-1", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// Read `body` cut in pieces of `size`; the result and the message, and the
/// event types in order.
async fn read(body: &str, size: usize) -> (Result<StopReason, ProviderError>, crate::AssistantMessage, Vec<String>) {
    let (tx, mut rx) = mpsc::channel(10_000);
    let mut em = Emitter::new(tx, &model());
    let mut sse = SseStream::from_chunks(split_bytes(body, size));
    let r = read_stream(&mut sse, &mut em).await;
    let m = em.message();
    drop(em);
    let mut kinds = Vec::new();
    while let Ok(e) = rx.try_recv() {
        kinds.push(serde_json::to_value(&e).unwrap()["type"].as_str().unwrap_or("").to_string());
    }
    (r, m, kinds)
}

#[tokio::test]
async fn thinking_text_and_tool_calls_in_any_pieces() {
    let body = sse(&[
        chunk(
            json!({"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "I should "}]}]}),
            Value::Null,
        ),
        chunk(
            json!({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "read it."}]}]}),
            Value::Null,
        ),
        chunk(json!({"content": "Read\u{e9} \u{1F600}"}), Value::Null),
        chunk(
            json!({"tool_calls": [
            {"id": "abcDEF123", "function": {"name": "read", "arguments": {"path": "f.txt"}}, "index": 0},
            {"id": "xyz987654", "function": {"name": "bash", "arguments": "{\"comm"}, "index": 1}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"id": "null", "function": {"name": "", "arguments": "and\":\"true\"}"}, "index": 1}]}),
            Value::Null,
        ),
        json!({"id": "cmpl-1", "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120, "prompt_tokens_details": {"cached_tokens": 30}}}),
    ]);
    for size in PIECE_SIZES {
        let (r, m, kinds) = read(&body, size).await;
        assert_eq!(r, Ok(StopReason::ToolUse), "piece size {size}");
        assert_eq!(
            m.content,
            vec![
                ContentBlock::Thinking { thinking: "I should read it.".into(), signature: None },
                ContentBlock::text("Read\u{e9} \u{1F600}"),
                ContentBlock::tool_call("abcDEF123", "read", json!({"path": "f.txt"})),
                ContentBlock::tool_call("xyz987654", "bash", json!({"command": "true"})),
            ]
        );
        assert_eq!((m.usage.input, m.usage.cache_read, m.usage.output, m.usage.total_tokens), (70, 30, 20, 120));
        assert_eq!(m.response_id.as_deref(), Some("cmpl-1"));
        assert_eq!(m.raw_stop_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            kinds,
            [
                "thinking_start",
                "thinking_delta",
                "thinking_delta",
                "thinking_end",
                "text_start",
                "text_delta",
                "text_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_end",
                "toolcall_end"
            ]
        );
    }
}

#[tokio::test]
async fn finish_reasons_map_as_the_reference_maps_them() {
    let text = |finish: &str| sse(&[chunk(json!({"content": "Hi"}), json!(finish))]);
    assert_eq!(read(&text("stop"), 64).await.0, Ok(StopReason::Stop));
    assert_eq!(read(&text("length"), 64).await.0, Ok(StopReason::Length));
    assert_eq!(read(&text("model_length"), 64).await.0, Ok(StopReason::Length));
    let (r, m, _) = read(&text("error"), 64).await;
    assert_eq!(
        r,
        Err(ProviderError::of_kind(FailureKind::Reported(Some(500)), "Provider stopped with: error (server error)"))
    );
    assert_eq!((m.text(), m.raw_stop_reason.as_deref()), ("Hi".to_string(), Some("error")));
    assert_eq!(
        read(&text("weird"), 64).await.0,
        Err(ProviderError::of_kind(FailureKind::Reported(None), "Provider stopped with: weird"))
    );
    // A stream without a finish reason was cut short (and may be retried).
    let (r, m, _) = read(&sse(&[chunk(json!({"content": "Hi"}), Value::Null)]), 64).await;
    assert_eq!(r, Err(ProviderError::of_kind(FailureKind::StreamCut, text::MISTRAL_NO_FINISH)));
    assert_eq!(m.text(), "Hi");
    // `[DONE]` is not needed after a finish reason.
    let body = format!("data: {}\n\n", chunk(json!({"content": "Hi"}), json!("stop")));
    assert_eq!(read(&body, 64).await.0, Ok(StopReason::Stop));
}

#[tokio::test]
async fn bad_events_fail_with_the_reference_words() {
    let hi = chunk(json!({"content": "Hi"}), Value::Null);
    let cases: [(&str, &str); 7] = [
        ("not json", "Unexpected token 'o', \"not json\" is not valid JSON"),
        ("{\"choices\": [", "Unexpected end of JSON input"),
        ("{}", text::MISTRAL_INVALID_EVENT),
        ("null", text::MISTRAL_INVALID_EVENT),
        ("[1]", text::MISTRAL_INVALID_EVENT),
        ("{\"object\":\"error\",\"message\":\"Service unavailable\"}", text::MISTRAL_INVALID_EVENT),
        ("{\"choices\":[{\"delta\":{\"content\":5}}]}", text::MISTRAL_INVALID_EVENT),
    ];
    for (bad, want) in cases {
        let body = format!("data: {hi}\n\ndata: {bad}\n\ndata: [DONE]\n\n");
        let (r, m, _) = read(&body, 7).await;
        assert_eq!(r, Err(ProviderError::failed(want)), "{bad}");
        assert_eq!(m.text(), "Hi", "{bad}: content before the failure is kept");
    }
}

#[tokio::test]
async fn odd_but_valid_chunks_are_read() {
    let body = sse(&[
        json!({"choices": []}),
        json!({"choices": [{"delta": {"content": "a"}}]}),
        json!({"choices": [{"delta": {"content": null, "tool_calls": null}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "text", "text": "b"}, {"type": "image_url"}, {"type": "thinking", "thinking": "t"}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"function": {"name": "read", "arguments": "{}"}}]}}]}),
        json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}], "usage": "x"}),
    ]);
    let (r, m, _) = read(&body, usize::MAX).await;
    assert_eq!(r, Ok(StopReason::ToolUse));
    assert_eq!(m.content.len(), 3);
    assert_eq!(m.content[0], ContentBlock::text("ab"));
    assert_eq!(m.content[1], ContentBlock::Thinking { thinking: "t".into(), signature: None });
    // A call without an id gets a Mistral one.
    match &m.content[2] {
        ContentBlock::ToolCall(call) => {
            let crate::ToolCallBlock { id, name, .. } = &**call;
            assert_eq!((id.len(), name.as_str()), (9, "read"));
        }
        other => panic!("not a tool call: {other:?}"),
    }
}

#[tokio::test]
async fn a_dropped_connection_reads_terminated() {
    let e = ProviderError::of_kind(FailureKind::StreamCut, text::STREAM_CUT);
    assert_eq!(cut_in_mistral_words(e), ProviderError::of_kind(FailureKind::StreamCut, "terminated"));
    let other = ProviderError::of_kind(FailureKind::Timeout, text::TIMED_OUT);
    assert_eq!(cut_in_mistral_words(other.clone()), other);
}

/// Pieces with the same `index` are one call, whatever their ids; pieces
/// without an index are told apart by their ids (as the reference reads them).
#[tokio::test]
async fn calls_are_keyed_by_index_else_by_id() {
    let call = |id: &str, index: Option<u64>| {
        let mut c = json!({"id": id, "function": {"name": "bash", "arguments": "{\"command\":\"true\"}"}});
        if let Some(i) = index {
            c["index"] = json!(i);
        }
        c
    };
    let body = sse(&[
        chunk(json!({"tool_calls": [call("abcDEF123", Some(0))]}), Value::Null),
        chunk(json!({"tool_calls": [call("xyz987654", Some(0))]}), Value::Null),
        chunk(json!({"tool_calls": [call("qqq987654", None), call("rrr987654", None)]}), Value::Null),
        chunk(json!({}), json!("tool_calls")),
    ]);
    let (r, m, _) = read(&body, usize::MAX).await;
    assert_eq!(r, Ok(StopReason::ToolUse));
    let ids: Vec<String> = m.tool_calls().into_iter().map(|c| c.id).collect();
    assert_eq!(ids, ["abcDEF123", "qqq987654", "rrr987654"]);
    // The two pieces of index 0 made one call whose arguments do not parse.
    assert!(m.tool_calls()[0].arguments_error.is_some());
}
