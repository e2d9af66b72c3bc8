//! Tests of the Google clients: the body as the reference sends it, the
//! stream as the reference reads it, and hostile input.

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::*;
use crate::http::{HttpStatusError, SseStream};
use crate::providers::testing::{PIECE_SIZES, split_bytes};
use crate::types::{AssistantMessage, ContentBlock, Context, Message, Tool, ToolResultMessage, UserMessage};

fn model(id: &str) -> Model {
    Model {
        id: id.into(),
        api: "google-generative-ai".into(),
        provider: "google".into(),
        reasoning: true,
        max_tokens: 65536,
        ..Default::default()
    }
}

fn sse(chunks: &[Value]) -> String {
    chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect()
}

async fn read(model: &Model, body: &str, size: usize) -> (Result<StopReason, ProviderError>, AssistantMessage) {
    let (tx, _rx) = mpsc::channel(100_000);
    let mut em = Emitter::new(tx, model);
    let mut stream = SseStream::from_chunks(split_bytes(body, size));
    let r = read_stream(&mut stream, &mut em).await;
    (r, em.message())
}

/// The first answer of the side-by-side run (thinking, text, two calls).
fn tool_turn() -> String {
    sse(&[
        json!({"candidates":[{"content":{"parts":[{"text":"Let me think","thought":true},{"text":" more","thought":true,"thoughtSignature":"c2lnMQ=="}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":100,"totalTokenCount":100},"modelVersion":"gemini-2.5-flash-001","responseId":"resp1"}),
        json!({"candidates":[{"content":{"parts":[{"text":"I'll "},{"text":"read it."}],"role":"model"},"index":0}],"responseId":"resp1"}),
        json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":"read","args":{"path":"f.txt"},"id":"call-xyz"},"thoughtSignature":"c2lnMg=="},{"functionCall":{"name":"read","args":{"path":"missing.txt"}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":20,"totalTokenCount":150,"cachedContentTokenCount":30,"thoughtsTokenCount":30},"responseId":"resp1"}),
    ])
}

#[tokio::test]
async fn a_tool_turn_reads_like_the_reference_in_any_pieces() {
    let body = tool_turn();
    for size in PIECE_SIZES {
        let (r, m) = read(&model("gemini-2.5-flash"), &body, size).await;
        assert_eq!(r, Ok(StopReason::ToolUse), "piece size {size}");
        assert_eq!(m.content.len(), 4);
        assert_eq!(
            m.content[0],
            ContentBlock::Thinking { thinking: "Let me think more".into(), signature: Some("c2lnMQ==".into()) }
        );
        assert_eq!(m.content[1], ContentBlock::text("I'll read it."));
        let ContentBlock::ToolCall(call) = &m.content[2] else { panic!() };
        let crate::ToolCallBlock { id, arguments, thought_signature, .. } = &**call;
        assert_eq!(
            (id.as_str(), arguments, thought_signature.as_deref()),
            ("call-xyz", &json!({"path": "f.txt"}), Some("c2lnMg=="))
        );
        let ContentBlock::ToolCall(call) = &m.content[3] else { panic!() };
        let crate::ToolCallBlock { id, thought_signature, .. } = &**call;
        assert!(id.starts_with("read_") && id.matches('_').count() == 2, "{id}");
        assert_eq!(thought_signature, &None);
        let u = &m.usage;
        assert_eq!((u.input, u.output, u.cache_read, u.reasoning, u.total_tokens), (70, 50, 30, Some(30), 150));
        assert_eq!(m.response_id.as_deref(), Some("resp1"));
        assert_eq!(m.raw_stop_reason.as_deref(), Some("STOP"));
    }
}

#[tokio::test]
async fn finish_reasons_and_errors_in_the_stream() {
    let m = model("gemini-2.5-flash");
    let text = |finish: Option<&str>| {
        let mut c = json!({"candidates":[{"content":{"parts":[{"text":"x"}],"role":"model"},"index":0}]});
        if let Some(f) = finish {
            c["candidates"][0]["finishReason"] = f.into();
        }
        sse(&[c])
    };
    assert_eq!(read(&m, &text(Some("MAX_TOKENS")), 7).await.0, Ok(StopReason::Length));
    let (r, msg) = read(&m, &text(Some("SAFETY")), 7).await;
    assert_eq!(r, Err(ProviderError::of_kind(FailureKind::Reported(None), "Provider stopped with: SAFETY")));
    assert_eq!(msg.text(), "x");
    let (r, _) = read(&m, &text(None), 7).await;
    assert_eq!(r, Err(ProviderError::of_kind(FailureKind::StreamCut, "Google stream ended without a finish reason")));
    // An error chunk: its status name and the chunk, of the kind its code stands for.
    let err = json!({"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}});
    let (r, msg) = read(&m, &format!("{}{}", text(None), sse(&[err])), 3).await;
    assert_eq!(
        r,
        Err(ProviderError::of_kind(
            FailureKind::Reported(Some(500)),
            r#"got status: INTERNAL. {"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}"#
        ))
    );
    assert_eq!(msg.text(), "x", "what came before the error is kept");
}

#[tokio::test]
async fn a_malformed_chunk_fails_with_json_parse_words() {
    let m = model("gemini-2.5-flash");
    let (r, _) = read(&m, "data: {\"candidates\":[]}\r\n\r\ndata: {not json\r\n\r\n", 5).await;
    assert_eq!(r, Err(ProviderError::failed("Expected property name or '}' in JSON at position 1 (line 1 column 2)")));
    let (r, _) = read(&m, "data: [1,\r\n\r\n", usize::MAX).await;
    assert_eq!(r.unwrap_err().kind(), Some(FailureKind::Other));
}

#[tokio::test]
async fn a_long_text_part_in_small_pieces_is_read_whole() {
    let long = "é".repeat(1 << 20);
    let body = sse(&[json!({"candidates":[{"content":{"parts":[{"text": long}]},"finishReason":"STOP"}]})]);
    let (r, m) = read(&model("g"), &body, 16 * 1024).await;
    assert_eq!(r, Ok(StopReason::Stop));
    assert_eq!(m.text().len(), long.len());
}

/// Chunks of the wrong shapes: every read ends with a result.
#[tokio::test]
async fn hostile_chunks_never_panic() {
    let bodies = [
        "data: {\"candidates\":7}\n\n",
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"args\":[1]}}]},\"finishReason\":9}]}\n\n",
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":5,\"thought\":\"yes\"},{\"functionCall\":null}]}}],\"usageMetadata\":{\"promptTokenCount\":-4,\"cachedContentTokenCount\":99}}\n\n",
        "data: {\"error\":\"plain\"}\n\n",
        "data: {\"error\":{\"code\":99999999999}}\n\n",
        "data: null\n\ndata: []\n\ndata: \"x\"\n\n",
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\",\"thought\":true},{\"functionCall\":{\"name\":\"n\",\"args\":{\"a\":1}}},{\"text\":\"b\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"candidatesTokenCount\":18446744073709551615,\"thoughtsTokenCount\":5}}\n\n",
    ];
    for body in bodies {
        for size in [1, 4, usize::MAX] {
            let _ = read(&model("gemini-3-pro-preview"), body, size).await;
        }
    }
}

#[test]
fn http_errors_read_like_the_reference() {
    let e =
        |status: u16, body: &str| HttpStatusError { status, body: body.into(), retry_after: None, should_retry: None };
    let json_body = r#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}"#;
    assert_eq!(stream::http_error_message(&e(400, json_body)), json_body);
    assert_eq!(stream::http_error_message(&e(400, "[{\"error\": 1}]")), r#"[{"error":1}]"#);
    assert_eq!(
        stream::http_error_message(&e(500, "internal oops")),
        r#"{"error":{"message":"internal oops","code":500,"status":"Internal Server Error"}}"#
    );
    let retry = r#"{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]}}"#;
    assert_eq!(stream::retry_info_delay(retry), Some(std::time::Duration::from_millis(2500)));
    assert_eq!(stream::retry_info_delay(r#"{"error":{"details":[{"retryDelay":"2s"}]}}"#), None);
    assert_eq!(stream::retry_info_delay("not json"), None);
}

fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read".into(),
        parameters: json!({"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}),
        constrained_sampling: None,
    }
}

fn result(id: &str, text: &str, is_error: bool) -> Message {
    Message::ToolResult(ToolResultMessage {
        nested_calls: None,
        usage: None,
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text(text)],
        details: None,
        is_error,
        duration_ms: None,
        timestamp: 0,
    })
}

fn conversation(model: &Model) -> Context {
    let mut call = ContentBlock::tool_call("call-xyz", "read", json!({"path": "f.txt"}));
    if let ContentBlock::ToolCall(block) = &mut call {
        block.thought_signature = Some("c2lnMg==".into());
    }
    Context {
        system_prompt: Some("sys".into()),
        messages: vec![
            Message::User(UserMessage::text("read f.txt")),
            Message::Assistant(AssistantMessage {
                content: vec![
                    ContentBlock::Thinking { thinking: "hmm".into(), signature: Some("c2lnMQ==".into()) },
                    ContentBlock::text("I'll read it."),
                    call,
                    ContentBlock::tool_call("read_1_1", "read", json!({"path": "missing.txt"})),
                ],
                api: crate::intern::intern(&model.api),
                provider: crate::intern::intern(&model.provider),
                model: crate::intern::intern(&model.id),
                stop_reason: StopReason::ToolUse,
                ..Default::default()
            }),
            result("call-xyz", "hello\n", false),
            result("read_1_1", "ENOENT", true),
        ],
        tools: vec![read_tool()],
    }
}

fn body(model: &Model, ctx: &Context, level: Option<&str>) -> Value {
    let options = StreamOptions { reasoning: level.map(String::from), ..Default::default() };
    serde_json::from_slice(&request::request_body(model, &ctx.view(), &options).unwrap().to_vec()).unwrap()
}

/// The body the reference sent for the same conversation (gemini-2.5-flash, medium).
#[test]
fn the_body_matches_the_reference() {
    let m = model("gemini-2.5-flash");
    assert_eq!(
        body(&m, &conversation(&m), Some("medium")),
        json!({
            "contents": [
                {"parts": [{"text": "read f.txt"}], "role": "user"},
                {"parts": [
                    {"text": "hmm", "thought": true, "thoughtSignature": "c2lnMQ=="},
                    {"text": "I'll read it."},
                    {"functionCall": {"args": {"path": "f.txt"}, "name": "read"}, "thoughtSignature": "c2lnMg=="},
                    {"functionCall": {"args": {"path": "missing.txt"}, "name": "read"}}
                ], "role": "model"},
                {"parts": [
                    {"functionResponse": {"name": "read", "response": {"output": "hello\n"}}},
                    {"functionResponse": {"name": "read", "response": {"error": "ENOENT"}}}
                ], "role": "user"}
            ],
            "systemInstruction": {"parts": [{"text": "sys"}], "role": "user"},
            "tools": [{"functionDeclarations": [{"name": "read", "description": "Read",
                "parametersJsonSchema": {"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}}]}],
            "generationConfig": {"maxOutputTokens": 65536, "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 8192}}
        })
    );
}

/// Gemini 3 takes call ids, and images inside the function response; other
/// models get reasoning as text and no signatures.
#[test]
fn gemini_3_sends_ids_and_another_model_gets_text() {
    let m3 = model("gemini-3-flash-preview");
    let mut ctx = conversation(&m3);
    if let Message::ToolResult(r) = &mut ctx.messages[2] {
        r.content.push(ContentBlock::image("AAAA", "image/png"));
    }
    let mut m3i = m3.clone();
    m3i.input = vec!["text".into(), "image".into()];
    let b = body(&m3i, &ctx, Some("high"));
    assert_eq!(
        b["contents"][1]["parts"][2]["functionCall"],
        json!({"args": {"path": "f.txt"}, "id": "call-xyz", "name": "read"})
    );
    assert_eq!(
        b["contents"][2]["parts"][0]["functionResponse"],
        json!({"name": "read", "response": {"output": "hello\n"},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}], "id": "call-xyz"})
    );
    assert_eq!(b["generationConfig"]["thinkingConfig"], json!({"includeThoughts": true, "thinkingLevel": "HIGH"}));
    // Gemini 2.5: the image follows the results in a user turn of its own.
    let mut m25 = model("gemini-2.5-flash");
    m25.input = vec!["text".into(), "image".into()];
    let b = body(&m25, &ctx, None);
    assert_eq!(
        b["contents"][3],
        json!({"parts": [{"text": "Tool result image:"}, {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}], "role": "user"})
    );
    assert_eq!(b["generationConfig"]["thinkingConfig"], json!({"thinkingBudget": 0}));
    let other = Model { provider: "other".into(), ..model("gemini-2.5-flash") };
    let b = body(&other, &conversation(&m25), None);
    assert_eq!(b["contents"][1]["parts"][0], json!({"text": "hmm"}));
    assert_eq!(b["contents"][1]["parts"][2], json!({"functionCall": {"args": {"path": "f.txt"}, "name": "read"}}));
}

#[test]
fn urls_and_headers() {
    let m = Model { base_url: "http://127.0.0.1:9/v1beta".into(), ..model("models/gemini-2.5-flash") };
    let ctx = Context { system_prompt: None, messages: vec![Message::User(UserMessage::text("hi"))], tools: vec![] };
    let options = StreamOptions { api_key: Some("k".into()), ..Default::default() };
    let p = prepare_generative(&m, &ctx.view(), &options).unwrap();
    assert_eq!(p.url, "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    assert_eq!(p.headers.get("x-goog-api-key").map(|v| v.to_str().unwrap()), Some("k"));
    let v = Model { api: "google-vertex".into(), base_url: "http://127.0.0.1:9".into(), ..model("gemini-2.5-flash") };
    let p = prepare_vertex(&v, &ctx.view(), &options).unwrap();
    assert_eq!(p.url, "http://127.0.0.1:9/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    assert_eq!(p.headers.get("x-goog-api-key").map(|v| v.to_str().unwrap()), Some("k"));
}

/// Gemini 3 declares a tool that prefers strict arguments with its strict
/// schema and asks for validated calls, as the reference does; 2.5 does not.
#[test]
fn strict_tools_on_gemini_3() {
    use crate::strict::{ConstrainedSampling, StrictMode};
    let mut tool = read_tool();
    tool.constrained_sampling = Some(ConstrainedSampling::JsonSchema(StrictMode::Prefer));
    let ctx =
        Context { system_prompt: None, messages: vec![Message::User(UserMessage::text("hi"))], tools: vec![tool] };
    let b = body(&model("gemini-3-flash-preview"), &ctx, None);
    assert_eq!(b["toolConfig"], json!({"functionCallingConfig": {"mode": "VALIDATED"}}));
    assert_eq!(
        b["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"],
        json!({"type":"object","required":["path"],"properties":{"path":{"type":"string"}},"additionalProperties":false})
    );
    let keys: Vec<&String> = b.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["contents", "tools", "toolConfig", "generationConfig"]);
    let b = body(&model("gemini-2.5-flash"), &ctx, None);
    assert_eq!(b.get("toolConfig"), None);
    assert_eq!(b["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"], read_tool().parameters);
}

/// Random bytes and random chunks of the shapes the reader looks at, cut
/// anywhere: reading always ends with a result.
mod random {
    use proptest::prelude::*;

    use super::*;

    const KEYS: &[&str] = &[
        "candidates",
        "content",
        "parts",
        "text",
        "thought",
        "thoughtSignature",
        "functionCall",
        "name",
        "args",
        "id",
        "finishReason",
        "usageMetadata",
        "promptTokenCount",
        "error",
        "code",
        "status",
        "responseId",
    ];
    const WORDS: &[&str] = &["STOP", "MAX_TOKENS", "SAFETY", "INTERNAL", "read", "{", "x"];

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            prop::sample::select(WORDS).prop_map(Value::from),
        ];
        leaf.prop_recursive(5, 48, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
                prop::collection::vec((prop::sample::select(KEYS), inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
            ]
        })
    }

    fn body() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..400),
            prop::collection::vec(value(), 0..10).prop_map(|vs| vs
                .iter()
                .map(|v| format!("data: {v}\r\n\r\n"))
                .collect::<String>()
                .into_bytes()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        #[test]
        fn any_stream_ends_with_a_result(body in body(), size in 1usize..64) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async {
                let m = model("gemini-3-pro-preview");
                let (tx, _rx) = mpsc::channel(4 * body.len() + 16);
                let mut em = Emitter::new(tx, &m);
                let chunks = body.chunks(size).map(<[u8]>::to_vec).collect();
                let _ = read_stream(&mut SseStream::from_chunks(chunks), &mut em).await;
            });
        }
    }
}
