//! The three HTTP clients against the mock server of `pi-test-support`:
//! text, tool calls, malformed arguments, HTTP errors, a cut stream, abort.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::time::{Duration, Instant};

use pi_ai::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, Context, Message, Model, StopReason, StreamOptions, Tool,
    ToolResultMessage, UserMessage, complete, stream,
};
use pi_test_support::{MockServer, ToolCallSpec, Turn};
use serde_json::json;

const APIS: [&str; 3] = ["openai-completions", "openai-responses", "anthropic-messages"];

fn model(server: &MockServer, api: &str) -> Model {
    let base_url = if api == "anthropic-messages" { server.base_url() } else { format!("{}/v1", server.base_url()) };
    Model {
        id: "mock-1".into(),
        name: "mock-1".into(),
        api: api.into(),
        provider: "mock".into(),
        base_url,
        input: vec!["text".into()],
        context_window: 128_000,
        max_tokens: 16_384,
        ..Default::default()
    }
}

fn context() -> Context {
    Context {
        system_prompt: Some("You are a test.".into()),
        messages: vec![Message::User(UserMessage::text("go"))],
        tools: vec![Tool {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}),
            constrained_sampling: None,
        }],
    }
}

fn options() -> StreamOptions {
    StreamOptions { api_key: Some("test-key".into()), ..Default::default() }
}

/// Collect all events; assert the stream ends with exactly one terminal event.
async fn events(model: &Model, ctx: &Context, opts: StreamOptions) -> Vec<AssistantMessageEvent> {
    let mut rx = stream(model, ctx, opts);
    let mut out = Vec::new();
    while let Some(e) = rx.recv().await {
        out.push(e);
    }
    let terminals = out.iter().filter(|e| e.final_message().is_some()).count();
    assert_eq!(terminals, 1, "one terminal event: {out:#?}");
    assert!(out.last().unwrap().final_message().is_some(), "terminal event last");
    // `start` comes first once the server accepted the request; a request
    // refused outright (HTTP error) ends with the error event alone.
    assert!(matches!(out[0], AssistantMessageEvent::Start { .. }) || out.len() == 1, "start first");
    let starts = out.iter().filter(|e| matches!(e, AssistantMessageEvent::Start { .. })).count();
    assert!(starts <= 1);
    out
}

fn last(evs: &[AssistantMessageEvent]) -> &AssistantMessage {
    evs.last().unwrap().final_message().unwrap()
}

#[tokio::test]
async fn text_streams_and_requests_are_well_formed() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::text("hello world")]);
        let evs = events(&model(&server, api), &context(), options()).await;
        let m = last(&evs);
        assert_eq!(m.stop_reason, StopReason::Stop, "{api}");
        assert_eq!(m.text(), "hello world", "{api}");
        assert_eq!(&*m.api, api);
        assert_eq!((&*m.provider, &*m.model), ("mock", "mock-1"));
        assert!(m.usage.output == 5 && m.usage.total_tokens >= 15, "{api}: {:?}", m.usage);
        let deltas = evs.iter().filter(|e| matches!(e, AssistantMessageEvent::TextDelta { .. })).count();
        assert_eq!(deltas, 2, "{api}: the mock sends the text in two pieces");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1);
        let r = &reqs[0];
        assert_eq!(r.method, "POST");
        assert_eq!(r.body["model"], "mock-1");
        assert_eq!(r.body["stream"], true);
        match api {
            "openai-completions" => {
                assert_eq!(r.path, "/v1/chat/completions");
                assert_eq!(r.header("authorization"), Some("Bearer test-key"));
                assert_eq!(r.body["messages"][0], json!({"role":"system","content":"You are a test."}));
                assert_eq!(r.body["stream_options"], json!({"include_usage": true}));
                assert_eq!(r.body["max_completion_tokens"], 16384);
                assert_eq!(r.body["store"], false);
                assert_eq!(r.body["tools"][0]["type"], "function");
                assert_eq!(r.body["tools"][0]["function"]["name"], "read");
            }
            "openai-responses" => {
                assert_eq!(r.path, "/v1/responses");
                assert_eq!(r.header("authorization"), Some("Bearer test-key"));
                assert_eq!(r.body["input"][0], json!({"role":"system","content":"You are a test."}));
                assert_eq!(r.body["max_output_tokens"], 16384);
                assert_eq!(r.body["tools"][0]["name"], "read");
            }
            _ => {
                assert_eq!(r.path, "/v1/messages?beta=true");
                assert_eq!(r.header("anthropic-dangerous-direct-browser-access"), Some("true"));
                assert_eq!(r.header("x-api-key"), Some("test-key"));
                assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
                assert_eq!(r.body["max_tokens"], 16384);
                assert_eq!(r.body["system"][0]["text"], "You are a test.");
                assert_eq!(r.body["tools"][0]["input_schema"]["required"], json!(["path"]));
            }
        }
    }
}

#[tokio::test]
async fn one_tool_call_is_parsed() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"}))]);
        let evs = events(&model(&server, api), &context(), options()).await;
        let m = last(&evs);
        assert_eq!(m.stop_reason, StopReason::ToolUse, "{api}");
        let calls = m.tool_calls();
        assert_eq!(calls.len(), 1, "{api}");
        assert_eq!(calls[0].name, "read");
        assert_eq!(calls[0].arguments, json!({"path": "f.txt"}));
        assert_eq!(calls[0].arguments_error, None);
        let ends: Vec<_> = evs
            .iter()
            .filter_map(|e| match e {
                AssistantMessageEvent::ToolcallEnd { tool_call, .. } => Some(tool_call.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ends, calls, "{api}: toolcall_end carries the parsed call");
    }
}

#[tokio::test]
async fn two_tool_calls_with_text_keep_their_order_and_ids() {
    for api in APIS {
        let server = MockServer::start(vec![
            Turn::tools(vec![
                ToolCallSpec::new("read", json!({"path": "a"})).with_id("id_a"),
                ToolCallSpec::new("bash", json!({"command": "ls -la"})).with_id("id_b"),
            ])
            .with_text("Let me look."),
        ]);
        let m = complete(&model(&server, api), &context(), options()).await;
        assert_eq!(m.stop_reason, StopReason::ToolUse, "{api}: {m:?}");
        assert_eq!(m.text(), "Let me look.");
        let calls = m.tool_calls();
        assert_eq!(calls.len(), 2, "{api}");
        assert!(calls[0].id.starts_with("id_a"), "{api}: {}", calls[0].id);
        assert!(calls[1].id.starts_with("id_b"), "{api}: {}", calls[1].id);
        assert_eq!(calls[1].arguments, json!({"command": "ls -la"}));
        assert!(matches!(m.content[0], ContentBlock::Text { .. }));
    }
}

#[tokio::test]
async fn malformed_arguments_keep_the_raw_text_for_the_agent() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::tools(vec![
            ToolCallSpec::new("read", json!({"path": "f.txt"})),
            ToolCallSpec::raw("bash", "{bad json"),
        ])]);
        let m = complete(&model(&server, api), &context(), options()).await;
        assert_eq!(m.stop_reason, StopReason::ToolUse, "{api}");
        let calls = m.tool_calls();
        assert_eq!(calls[0].arguments_error, None);
        assert_eq!(calls[1].arguments, json!({}));
        assert_eq!(
            calls[1].arguments_error.as_deref(),
            Some(
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)\n\nReceived arguments:\n{bad json"
            ),
            "{api}"
        );
    }
}

/// The texts the reference prints for the same answers.
#[tokio::test]
async fn http_500_and_429_surface_the_status_and_server_message() {
    for api in APIS {
        let server = MockServer::start(vec![
            Turn::error(500, "boom"),
            Turn::status(429, r#"{"error":{"message":"Rate limit reached","type":"rate_limit"}}"#)
                .with_header("retry-after", "1"),
        ]);
        let want_500 = match api {
            "openai-completions" => r#"500: {"message":"boom"}"#,
            "openai-responses" => r#"mock API error (500): {"message":"boom"}"#,
            _ => r#"500 {"error":{"message":"boom"}}"#,
        };
        let want_429 = match api {
            "openai-completions" => r#"429: {"message":"Rate limit reached","type":"rate_limit"}"#,
            "openai-responses" => r#"mock API error (429): {"message":"Rate limit reached","type":"rate_limit"}"#,
            _ => r#"429 {"error":{"message":"Rate limit reached","type":"rate_limit"}}"#,
        };
        for want in [want_500, want_429] {
            let evs = events(&model(&server, api), &context(), options()).await;
            assert_eq!(evs.len(), 1, "{api}: no start before an HTTP error (as the reference)");
            let AssistantMessageEvent::Error { reason, error } = evs.last().unwrap() else { panic!("{api}: {evs:?}") };
            assert_eq!(*reason, StopReason::Error);
            assert_eq!(error.stop_reason, StopReason::Error);
            assert_eq!(error.error_message.as_deref(), Some(want), "{api}");
        }
        // 429 then success: a second request works (the agent's retry).
        server.push(vec![Turn::error(429, "slow down"), Turn::text("ok")]);
        let first = complete(&model(&server, api), &context(), options()).await;
        assert!(first.error_message.unwrap().contains("429"));
        let second = complete(&model(&server, api), &context(), options()).await;
        assert_eq!(second.text(), "ok", "{api}");
    }
}

#[tokio::test]
async fn a_cut_stream_is_an_error_keeping_the_partial_content() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::text("hello there, this is long").cut()]);
        let evs = events(&model(&server, api), &context(), options()).await;
        let m = last(&evs);
        assert_eq!(m.stop_reason, StopReason::Error, "{api}: {m:?}");
        assert_eq!(m.error_message.as_deref(), Some("terminated: other side closed"), "{api}");
    }
}

#[tokio::test]
async fn a_stream_that_ends_early_names_what_was_missing() {
    let cases = [
        (
            "openai-completions",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n",
            "Stream ended without finish_reason",
        ),
        (
            "anthropic-messages",
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n",
            "Anthropic stream ended without a stop reason",
        ),
        (
            "openai-responses",
            "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\n",
            "OpenAI Responses stream ended before a terminal response event",
        ),
    ];
    for (api, sse, want) in cases {
        let server = MockServer::start(vec![Turn::raw_sse(sse)]);
        let m = complete(&model(&server, api), &context(), options()).await;
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.error_message.as_deref(), Some(want), "{api}");
        if api == "openai-completions" {
            assert_eq!(m.text(), "hi", "partial content is kept");
        }
    }
}

#[tokio::test]
async fn abort_ends_with_request_was_aborted() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::text("a long answer that stalls").stall()]);
        let opts = options();
        let signal = opts.signal.clone();
        let mut rx = stream(&model(&server, api), &context(), opts);
        // Wait until some text arrived, then abort.
        let started = Instant::now();
        let mut got_text = false;
        let mut terminal = None;
        while let Some(e) = rx.recv().await {
            if matches!(e, AssistantMessageEvent::TextDelta { .. }) && !got_text {
                got_text = true;
                signal.cancel();
            }
            if let Some(m) = e.final_message() {
                terminal = Some((e.clone(), m.clone()));
            }
        }
        assert!(got_text, "{api}");
        let (ev, m) = terminal.expect("terminal event");
        assert!(matches!(ev, AssistantMessageEvent::Error { reason: StopReason::Aborted, .. }));
        assert_eq!(m.stop_reason, StopReason::Aborted);
        assert_eq!(m.error_message.as_deref(), Some("Request was aborted"));
        assert!(!m.text().is_empty(), "{api}: partial text kept");
        assert!(started.elapsed() < Duration::from_secs(5), "{api}: prompt abort");
    }
}

#[tokio::test]
async fn abort_before_the_answer_and_while_waiting() {
    let server = MockServer::start(vec![Turn::text("late").delay(Duration::from_secs(30))]);
    let m = model(&server, "openai-completions");
    let opts = options();
    opts.signal.cancel();
    let msg = complete(&m, &context(), opts).await;
    assert_eq!(msg.stop_reason, StopReason::Aborted);
    assert_eq!(msg.error_message.as_deref(), Some("Request was aborted"));

    let opts = options();
    let signal = opts.signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        signal.cancel();
    });
    let t = Instant::now();
    let msg = complete(&m, &context(), opts).await;
    assert_eq!(msg.stop_reason, StopReason::Aborted);
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn connection_refused_reads_like_the_reference() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    for api in APIS {
        let m = Model {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            api: api.into(),
            id: "mock-1".into(),
            provider: "mock".into(),
            ..Default::default()
        };
        let msg = complete(&m, &context(), options()).await;
        assert_eq!(msg.stop_reason, StopReason::Error);
        assert_eq!(
            msg.error_message.as_deref(),
            Some(format!("Connection error.: connect ECONNREFUSED 127.0.0.1:{port}").as_str()),
            "{api}"
        );
    }
}

#[tokio::test]
async fn history_with_tool_results_round_trips_through_each_api() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("done")]);
        let model = model(&server, api);
        let mut ctx = context();
        let first = complete(&model, &ctx, options()).await;
        let call = first.tool_calls().remove(0);
        ctx.messages.push(Message::Assistant(first));
        ctx.messages.push(Message::ToolResult(ToolResultMessage {
            nested_calls: None,
            usage: None,
            tool_call_id: call.id.clone(),
            tool_name: call.name.as_str().into(),
            content: vec![ContentBlock::text("")],
            details: None,
            is_error: false,
            duration_ms: None,
            timestamp: 0,
        }));
        let second = complete(&model, &ctx, options()).await;
        assert_eq!(second.text(), "done", "{api}: {second:?}");
        let body = &server.requests()[1].body;
        let s = body.to_string();
        match api {
            "openai-completions" => {
                assert!(s.contains(r#"{"role":"tool","content":"(no tool output)","tool_call_id":"call_0_0"}"#), "{s}")
            }
            "openai-responses" => assert!(
                s.contains(r#"{"type":"function_call_output","call_id":"call_0_0","output":"(no tool output)"}"#),
                "{s}"
            ),
            _ => assert!(s.contains(r#""tool_use_id":"toolu_0_0","content":"","is_error":false"#), "{s}"),
        }
    }
}

#[tokio::test]
async fn thinking_streams_for_each_api() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::thinking("let me think", "answer")]);
        let mut m = model(&server, api);
        m.reasoning = true;
        let opts = StreamOptions { reasoning: Some("high".into()), ..options() };
        let msg = complete(&m, &context(), opts).await;
        assert_eq!(msg.stop_reason, StopReason::Stop, "{api}: {msg:?}");
        let ContentBlock::Thinking { thinking, signature } = &msg.content[0] else { panic!("{api}: {msg:?}") };
        assert_eq!(thinking, "let me think", "{api}");
        assert!(signature.is_some(), "{api}");
        assert_eq!(msg.text(), "answer");
    }
}

/// A body far larger than one write chunk (a long session's request) arrives
/// whole, with a `content-length` that is its exact size (some servers and
/// proxies refuse chunked uploads), for each API.
#[tokio::test]
async fn a_long_conversation_arrives_whole_with_its_length() {
    // Multi-byte characters and characters JSON escapes, cut anywhere by the chunks.
    let piece = "é\"\n\u{1}😀 plain text ".repeat(4_000);
    let mut ctx = context();
    for i in 0..30 {
        ctx.messages.push(Message::User(UserMessage::text(format!("{i}:{piece}"))));
    }
    for api in APIS {
        let server = MockServer::start(vec![Turn::text("ok")]);
        let evs = events(&model(&server, api), &ctx, options()).await;
        assert_eq!(last(&evs).stop_reason, StopReason::Stop, "{api}");
        let r = &server.requests()[0];
        let length: usize = r.header("content-length").expect("content-length sent").parse().unwrap();
        assert_eq!(length, r.raw_body.len(), "{api}");
        assert!(length > 3_000_000, "{api}: {length} bytes, many chunks");
        assert!(r.header("transfer-encoding").is_none(), "{api}");
        let text = r.raw_body.as_str();
        for i in 0..30 {
            assert!(text.contains(&format!("{i}:")), "{api}: message {i} is in the body");
        }
        assert!(!r.body.is_null(), "{api}: the body is one JSON document");
    }
}

/// A conversation whose body is longer than `pi_ai::limits::STREAMED_BODY_MIN_BYTES`.
fn long_context() -> Context {
    let piece = "é\"\n\u{1}😀 plain text ".repeat(8_000);
    let mut ctx = context();
    for i in 0..40 {
        ctx.messages.push(Message::User(UserMessage::text(format!("{i}:{piece}"))));
    }
    ctx
}

/// The raw body and `content-length` a server got for `ctx`, on a runtime of `flavor`.
fn body_sent(api: &str, ctx: &Context, multi_thread: bool) -> (String, usize) {
    let rt = if multi_thread {
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    };
    let server = MockServer::start(vec![Turn::text("ok")]);
    let evs = rt.block_on(events(&model(&server, api), ctx, options()));
    assert_eq!(last(&evs).stop_reason, StopReason::Stop, "{api}: {:?}", last(&evs));
    let r = &server.requests()[0];
    assert!(r.header("transfer-encoding").is_none(), "{api}");
    (r.raw_body.clone(), r.header("content-length").expect("content-length sent").parse().unwrap())
}

/// A body too long to hold is counted, then written again while it is sent
/// (on a runtime with workers): the server gets the very bytes the held
/// body has, with its exact length announced.
#[test]
fn a_body_too_long_to_hold_is_sent_as_it_is_written_byte_for_byte() {
    let ctx = long_context();
    for api in APIS {
        let (held, held_len) = body_sent(api, &ctx, false);
        let (streamed, streamed_len) = body_sent(api, &ctx, true);
        assert!(held_len > pi_ai::limits::STREAMED_BODY_MIN_BYTES, "{api}: {held_len} bytes");
        assert_eq!((streamed_len, streamed.len()), (held_len, held.len()), "{api}");
        assert!(streamed == held, "{api}: the same bytes");
    }
}

/// A long body whose request cannot be made (nothing listens) ends in an
/// error event; writing it does not wait for a reader that is gone.
#[test]
fn a_long_body_with_nowhere_to_go_fails_without_hanging() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let ctx = long_context();
    for api in APIS {
        let m = Model { base_url: format!("http://127.0.0.1:{port}/v1"), ..model_at(api) };
        let started = Instant::now();
        let evs =
            rt.block_on(async { tokio::time::timeout(Duration::from_secs(30), events(&m, &ctx, options())).await });
        let evs = evs.expect("no hang");
        assert_eq!(last(&evs).stop_reason, StopReason::Error, "{api}");
        assert!(started.elapsed() < Duration::from_secs(20), "{api}");
    }
}

/// A model of `api` with no server yet.
fn model_at(api: &str) -> Model {
    Model {
        id: "mock-1".into(),
        name: "mock-1".into(),
        api: api.into(),
        provider: "mock".into(),
        input: vec!["text".into()],
        context_window: 128_000,
        max_tokens: 16_384,
        ..Default::default()
    }
}
