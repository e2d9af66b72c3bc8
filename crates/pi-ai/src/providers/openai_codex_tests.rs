use super::*;
use crate::types::{Context, Message, Tool, UserMessage};
use tokio::sync::mpsc;

/// A token whose payload is `claims` (header and signature are not read).
fn jwt(claims: &Value) -> String {
    use base64::Engine;
    let enc = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!("{}.{}.sig", enc(&json!({"alg": "RS256"})), enc(claims))
}

fn token() -> String {
    jwt(&json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acc-1"}}))
}

fn model(reasoning: bool) -> Model {
    Model {
        id: "m1".into(),
        api: "openai-codex-responses".into(),
        provider: "openai-codex".into(),
        base_url: "http://127.0.0.1:1".into(),
        reasoning,
        ..Default::default()
    }
}

fn context() -> Context {
    Context {
        system_prompt: Some("sys".into()),
        messages: vec![Message::User(UserMessage::text("go"))],
        tools: vec![Tool {
            name: "read".into(),
            description: "Read".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            constrained_sampling: None,
        }],
    }
}

fn body(model: &Model, options: &StreamOptions) -> Value {
    serde_json::from_slice(&request_body(model, &context().view(), options).unwrap().to_vec()).unwrap()
}

#[test]
fn url_gets_codex_responses_once() {
    assert_eq!(url(""), "https://chatgpt.com/backend-api/codex/responses");
    assert_eq!(url("http://h:1"), "http://h:1/codex/responses");
    assert_eq!(url("http://h:1/x/"), "http://h:1/x/codex/responses");
    assert_eq!(url("http://h:1/codex"), "http://h:1/codex/responses");
    assert_eq!(url("http://h:1/codex/responses/"), "http://h:1/codex/responses");
}

#[test]
fn account_id_from_the_token_claims() {
    assert_eq!(account_id(&token()).as_deref(), Some("acc-1"));
    // Padding and the standard alphabet are accepted too.
    let padded = {
        use base64::Engine;
        let claims = json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acc-2"}}).to_string();
        format!("h.{}.s", base64::engine::general_purpose::STANDARD.encode(claims))
    };
    assert_eq!(account_id(&padded).as_deref(), Some("acc-2"));
    for bad in [
        "",
        "notajwt",
        "a.b",
        "a.b.c.d",
        "a.!!!.c",
        &jwt(&json!({"sub": "x"})),
        &jwt(&json!({"https://api.openai.com/auth": {"chatgpt_account_id": ""}})),
        &jwt(&json!({"https://api.openai.com/auth": {"chatgpt_account_id": 7}})),
        &jwt(&json!([1, 2])),
    ] {
        assert_eq!(account_id(bad), None, "{bad}");
    }
}

#[test]
fn body_as_the_reference_writes_it() {
    let opts = StreamOptions { session_id: Some("sid".into()), reasoning: Some("xhigh".into()), ..Default::default() };
    let b = body(&model(true), &opts);
    let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "model",
            "store",
            "stream",
            "input",
            "text",
            "include",
            "prompt_cache_key",
            "tool_choice",
            "parallel_tool_calls",
            "max_output_tokens",
            "tools",
            "reasoning"
        ]
    );
    assert_eq!(b["input"][0], json!({"role": "developer", "content": "sys"}));
    assert_eq!(b["text"], json!({"verbosity": "low"}));
    assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(
        (b["store"].clone(), b["tool_choice"].clone(), b["parallel_tool_calls"].clone()),
        (json!(false), json!("auto"), json!(true))
    );
    assert_eq!(b["max_output_tokens"], 16384);
    assert_eq!(b["reasoning"], json!({"effort": "high", "summary": "auto"}));
    // Strict mode by default: a tool that does not ask for it says `strict: false`.
    assert_eq!(b["tools"][0]["strict"], json!(false));

    let off = body(&model(true), &StreamOptions::default());
    assert_eq!(off["reasoning"], json!({"effort": "none", "summary": "auto"}));
    assert!(off.get("prompt_cache_key").is_none());
    let plain = body(&model(false), &StreamOptions { reasoning: Some("high".into()), ..Default::default() });
    assert!(plain.get("reasoning").is_none());
    assert_eq!(plain["input"][0]["role"], "system");
    let tiny = body(&model(false), &StreamOptions { max_tokens: Some(3), ..Default::default() });
    assert_eq!(tiny["max_output_tokens"], 16);
}

#[test]
fn headers_carry_the_account() {
    let mut m = model(false);
    m.headers.insert("originator".into(), "other".into());
    m.headers.insert("chatgpt-account-id".into(), "forged".into());
    let opts = StreamOptions { api_key: Some(token()), session_id: Some("sid".into()), ..Default::default() };
    let p = prepare(&m, &context().view(), &opts).unwrap();
    let h = |n: &str| p.headers.get(n).map(|v| v.to_str().unwrap().to_string());
    assert_eq!(p.url, "http://127.0.0.1:1/codex/responses");
    assert_eq!(h("authorization"), Some(format!("Bearer {}", token())));
    assert_eq!(h("chatgpt-account-id").as_deref(), Some("acc-1"));
    assert_eq!(h("openai-beta").as_deref(), Some("responses=experimental"));
    assert_eq!(h("originator").as_deref(), Some("other"), "the model may set the originator");
    assert_eq!(h("session-id").as_deref(), Some("sid"));
    assert_eq!(h("x-client-request-id").as_deref(), Some("sid"));

    let err = |key: Option<&str>| {
        let opts = StreamOptions { api_key: key.map(str::to_string), ..Default::default() };
        prepare(&m, &context().view(), &opts).err().unwrap().to_string()
    };
    assert_eq!(err(None), "No API key for provider: openai-codex");
    assert_eq!(err(Some("sk-plain")), "Failed to extract accountId from token");
}

#[test]
fn http_errors_read_like_the_reference() {
    let e =
        |status: u16, body: &str| HttpStatusError { status, body: body.into(), retry_after: None, should_retry: None };
    let now = 1_000_000.0;
    let limit = r#"{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"Plus","resets_at":1000600}}"#;
    assert_eq!(
        http_error(&e(429, limit), now),
        ("You have hit your ChatGPT usage limit (plus plan). Try again in ~10 min.".into(), true)
    );
    // Any 429 with an error object is a usage limit; a reset past is ~0 min.
    assert_eq!(
        http_error(&e(429, r#"{"error":{"message":"slow down","resets_at":5}}"#), now),
        ("You have hit your ChatGPT usage limit. Try again in ~0 min.".into(), true)
    );
    assert_eq!(
        http_error(&e(403, r#"{"error":{"code":"usage_not_included"}}"#), now),
        ("You have hit your ChatGPT usage limit.".into(), true)
    );
    assert_eq!(http_error(&e(500, r#"{"error":{"message":"boom"}}"#), now), ("boom".into(), false));
    assert_eq!(http_error(&e(500, r#"{"detail":"x"}"#), now), (r#"{"detail":"x"}"#.into(), false));
    assert_eq!(http_error(&e(429, "slow"), now), ("slow".into(), false));
    for absent in [r#"{"error":null}"#, r#"{"error":false}"#, r#"{"error":0}"#, r#"{"error":""}"#, "[1]"] {
        assert_eq!(http_error(&e(429, absent), now), (absent.into(), false), "{absent}");
    }
    assert_eq!(
        http_error(&e(429, r#"{"error":"strerr"}"#), now),
        ("You have hit your ChatGPT usage limit.".into(), true)
    );
    assert_eq!(http_error(&e(400, r#"{"error":"strerr"}"#), now), (r#"{"error":"strerr"}"#.into(), false));
    assert_eq!(http_error(&e(502, ""), now), ("Bad Gateway".into(), false));
    assert_eq!(http_error(&e(599, ""), now), ("Request failed".into(), false));
}

async fn read(body: &str) -> (Result<StopReason, ProviderError>, String) {
    let (tx, _rx) = mpsc::channel(1000);
    let mut em = Emitter::new(tx, &model(false));
    let mut sse = SseStream::from_chunks(crate::providers::testing::split_bytes(body, 7));
    let r = read_stream(&mut sse, &mut em).await;
    (r, em.message().text())
}

#[tokio::test]
async fn the_stream_is_read_by_the_responses_parser() {
    let body = concat!(
        "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"hi\"}\n\n",
        "data: {\"type\":\"response.done\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":2,\"output_tokens\":1}}}\n\n",
    );
    let (r, text) = read(body).await;
    assert_eq!((r, text.as_str()), (Ok(StopReason::Stop), "hi"));
    let (r, _) = read("data: {\"type\":\"response.created\",\"response\":{}}\n\n").await;
    assert_eq!(r.unwrap_err().kind(), Some(FailureKind::StreamCut));
}

#[tokio::test]
async fn stream_errors_read_like_the_reference() {
    let msg = |r: Result<StopReason, ProviderError>| r.unwrap_err().to_string();
    let (r, _) =
        read("data: {\"type\":\"error\",\"code\":\"context_length_exceeded\",\"message\":\"Too long\"}\n\n").await;
    assert_eq!(msg(r), "Codex error: Too long");
    let (r, _) = read("data: {\"type\":\"error\",\"error\":{\"code\":\"server_error\"}}\n\n").await;
    let e = r.unwrap_err();
    assert_eq!((e.to_string(), e.kind()), ("Codex error: server_error".into(), Some(FailureKind::Reported(Some(500)))));
    let (r, _) = read("data: {\"type\":\"error\"}\n\n").await;
    assert_eq!(msg(r), "Codex error: {\"type\":\"error\"}");
    let (r, _) = read("data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"server_error\",\"message\":\"It broke\"}}}\n\n").await;
    assert_eq!(msg(r), "It broke");
    let (r, _) = read("data: {\"type\":\"response.failed\",\"response\":null}\n\n").await;
    assert_eq!(msg(r), "Codex response failed");
    let (r, _) = read("data: {not json\n\n").await;
    assert_eq!(msg(r), crate::text::MALFORMED_EVENT);
}

/// Random bytes, and events of the types Codex adds, cut anywhere: reading
/// ends with a result, never a panic or a hang.
mod random_streams {
    use super::*;
    use proptest::prelude::*;

    const TYPES: [&str; 8] = [
        "error",
        "response.failed",
        "response.done",
        "response.completed",
        "response.output_text.delta",
        "response.output_item.added",
        "response.output_item.done",
        "response.function_call_arguments.delta",
    ];

    fn event() -> impl Strategy<Value = String> {
        let value = prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            ".{0,5}".prop_map(Value::from),
            Just(json!({"type": "function_call", "id": "i", "call_id": "c", "name": "read"})),
            Just(json!({"error": {"code": 7, "message": []}, "status": "x"})),
        ];
        (prop::sample::select(&TYPES[..]), value.clone(), value).prop_map(|(t, a, b)| {
            format!("data: {}\n\n", json!({"type": t, "item": a, "response": b, "error": a, "delta": b}))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        #[test]
        fn any_stream_ends_with_a_result(
            events in prop::collection::vec(event(), 0..10),
            noise in prop::collection::vec(any::<u8>(), 0..64),
            size in 1usize..40,
        ) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let mut body = events.concat().into_bytes();
            body.extend_from_slice(&noise);
            rt.block_on(async {
                let (tx, _rx) = mpsc::channel(4 * body.len() + 16);
                let mut em = Emitter::new(tx, &model(false));
                let chunks = body.chunks(size).map(<[u8]>::to_vec).collect();
                let mut sse = SseStream::from_chunks(chunks);
                let _ = read_stream(&mut sse, &mut em).await;
            });
        }
    }
}

#[test]
fn bodies_go_zstd_compressed() {
    let body = br#"{"model":"m1","input":[]}"#.repeat(50);
    let p = compressed(Prepared { url: String::new(), headers: http::headers([]).unwrap(), body: body.clone().into() });
    assert_eq!(p.headers.get("content-encoding").unwrap(), "zstd");
    assert!(p.body.len() < body.len());
    let mut decoded = Vec::new();
    std::io::Read::read_to_end(
        &mut ruzstd::decoding::StreamingDecoder::new(p.body.to_vec().as_slice()).unwrap(),
        &mut decoded,
    )
    .unwrap();
    assert_eq!(decoded, body);
}
