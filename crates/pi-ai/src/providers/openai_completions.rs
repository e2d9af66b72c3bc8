//! OpenAI Chat Completions (`POST {baseUrl}/chat/completions`, SSE).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::completions_messages::{REASONING_FIELDS, Shape, write_messages};
use super::completions_thinking::{extra_fields, thinking_fields};
use super::{ObjectWriter, Prepared, final_reason, max_tokens, open_stream};
use crate::emitter::{BlockKind, Emitter};
use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::http::{self, SseStream};
use crate::model::{MaxTokensField, Model, StreamOptions};
use crate::text;
use crate::types::{ContentBlock, ContextRef, Message, StopReason, Usage};

/// Providers (by name) and base-URL fragments of servers that reject `store`.
const NO_STORE_PROVIDERS: [&str; 13] = [
    "nvidia",
    "cerebras",
    "xai",
    "together",
    "deepseek",
    "zai",
    "zai-coding-cn",
    "moonshotai",
    "moonshotai-cn",
    "opencode",
    "cloudflare-workers-ai",
    "cloudflare-ai-gateway",
    "ant-ling",
];
/// Base-URL fragments of servers that reject `store`.
const NO_STORE_HOSTS: [&str; 13] = [
    "integrate.api.nvidia.com",
    "cerebras.ai",
    "api.x.ai",
    "api.together.ai",
    "api.together.xyz",
    "chutes.ai",
    "api.z.ai",
    "open.bigmodel.cn",
    "api.moonshot.",
    "opencode.ai",
    "api.cloudflare.com",
    "gateway.ai.cloudflare.com",
    "api.ant-ling.com",
];
/// Providers that take the limit as `max_tokens`.
const MAX_TOKENS_PROVIDERS: [&str; 9] = [
    "deepseek",
    "moonshotai",
    "moonshotai-cn",
    "cloudflare-ai-gateway",
    "together",
    "nvidia",
    "ant-ling",
    "zai",
    "zai-coding-cn",
];
/// Base-URL fragments of servers that take the limit as `max_tokens`.
const MAX_TOKENS_HOSTS: [&str; 9] = [
    "chutes.ai",
    "api.moonshot.",
    "gateway.ai.cloudflare.com",
    "api.together.ai",
    "api.together.xyz",
    "integrate.api.nvidia.com",
    "api.ant-ling.com",
    "api.z.ai",
    "open.bigmodel.cn",
];
/// DeepSeek's domain, matched without regard to case (no `store`, `max_tokens`).
const DEEPSEEK_HOST: &str = "deepseek.com";
/// The provider whose reasoning models get the `developer` role by default.
const OPENAI_PROVIDER: &str = "openai";
/// OpenAI's own API host (the `developer` role by default).
const OPENAI_HOST: &str = "api.openai.com";

/// The `compat` switches of a model, with unset ones detected as the
/// reference does from the provider name and base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Compat {
    store: bool,
    developer_role: bool,
    usage_in_streaming: bool,
    max_tokens_field: MaxTokensField,
}

impl Compat {
    fn of(model: &Model) -> Self {
        let provider = model.provider.as_str();
        let url = model.base_url.as_str();
        let deepseek = url.to_lowercase().contains(DEEPSEEK_HOST);
        let non_standard =
            deepseek || NO_STORE_PROVIDERS.contains(&provider) || NO_STORE_HOSTS.iter().any(|h| url.contains(h));
        let use_max_tokens =
            deepseek || MAX_TOKENS_PROVIDERS.contains(&provider) || MAX_TOKENS_HOSTS.iter().any(|h| url.contains(h));
        let openai = provider == OPENAI_PROVIDER || url.contains(OPENAI_HOST);
        let c = &model.compat;
        Self {
            store: c.supports_store.unwrap_or(!non_standard),
            developer_role: c.supports_developer_role.unwrap_or(openai),
            usage_in_streaming: c.supports_usage_in_streaming.unwrap_or(true),
            max_tokens_field: c.max_tokens_field.unwrap_or(if use_max_tokens {
                MaxTokensField::MaxTokens
            } else {
                MaxTokensField::MaxCompletionTokens
            }),
        }
    }
}

/// The request body, written straight to bytes (the conversation one
/// message at a time; see [`ObjectWriter`]).
pub(crate) fn request_body(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<super::RequestBody, ProviderError> {
    let compat = Compat::of(model);
    let thinking_on = model.reasoning && options.thinking_level().is_some();
    let mut body = ObjectWriter::to(&options.body_sink);
    body.field("model", &model.id)?;
    let shape = Shape { model, developer_role: compat.developer_role, thinking_on };
    body.array("messages", |out| write_messages(&shape, context, out))?;
    body.field("stream", &true)?;
    if model.base_url.contains(OPENAI_HOST)
        && let Some(sid) = &options.session_id
    {
        body.field("prompt_cache_key", sid)?;
    }
    if compat.usage_in_streaming {
        body.field("stream_options", &json!({"include_usage": true}))?;
    }
    if compat.store {
        body.field("store", &false)?;
    }
    let max = max_tokens(model, options);
    body.field(compat.max_tokens_field.as_str(), &max)?;
    if context.tools.is_empty()
        && model.compat.completions.requires_tools_with_tool_history == Some(true)
        && has_tool_history(context)
    {
        body.field("tools", &json!([]))?;
    }
    if !context.tools.is_empty() {
        let strict = model.compat.supports_strict_mode == Some(true);
        let functions = context
            .tools
            .iter()
            .map(|t| super::body::function_tool(t, strict))
            .collect::<Result<Vec<Value>, ProviderError>>()?;
        body.array("tools", |out| {
            for f in &functions {
                out.push(&json!({"type": "function", "function": f}))?;
            }
            Ok(())
        })?;
    }
    for (name, value) in thinking_fields(model, options, max).into_iter().chain(extra_fields(model)) {
        body.field(name, &value)?;
    }
    Ok(body.finish())
}

/// Whether the conversation holds tool calls or tool results.
fn has_tool_history(context: &ContextRef<'_>) -> bool {
    context.messages.iter().any(|m| match m {
        Message::ToolResult(_) => true,
        Message::Assistant(a) => a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_))),
        Message::User(_) => false,
    })
}

/// The request: URL, headers and body.
pub(crate) fn prepare(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let base = if model.base_url.is_empty() { "https://api.openai.com/v1" } else { &model.base_url };
    let url = http::join_url(base, "chat/completions");
    let auth = options.api_key.as_ref().map(|k| format!("Bearer {k}"));
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    if let Some(a) = &auth {
        pairs.push(("authorization", a));
    }
    let session = super::affinity::headers(model, options, super::affinity::Api::Completions);
    pairs.extend(session.iter().map(|(k, v)| (*k, v.as_str())));
    let headers = http::request_headers(pairs, model, options)?;
    Ok(Prepared { url, headers, body: request_body(model, context, options)? })
}

/// Send a prepared request, streaming the answer into `em`.
pub(crate) async fn send(request: Prepared, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut sse = open_stream(request, em, http::completions_http_error).await?;
    em.start().await?;
    read_stream(&mut sse, em).await
}

/// Read the events of a 2xx answer into `em`.
pub(crate) async fn read_stream(sse: &mut SseStream, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut state = State::default();
    while let Some(ev) = sse.next().await {
        let ev = ev?;
        if ev.data.trim() == "[DONE]" {
            break;
        }
        if ev.data.trim().is_empty() {
            continue;
        }
        let chunk: Value = serde_json::from_str(&ev.data).map_err(|_| ProviderError::failed(text::MALFORMED_EVENT))?;
        em.raw(&chunk).await;
        handle_chunk(&chunk, &mut state, em).await?;
    }
    let Some(reason) = state.finish else {
        return Err(ProviderError::of_kind(FailureKind::StreamCut, text::COMPLETIONS_NO_FINISH));
    };
    em.end_all().await?;
    Ok(final_reason(em, reason))
}

#[derive(Default)]
pub(crate) struct State {
    /// Content index of each streamed tool call, by its `index`.
    tools: HashMap<u64, usize>,
    /// The mapped finish reason, once seen.
    finish: Option<StopReason>,
}

pub(crate) async fn handle_chunk(chunk: &Value, state: &mut State, em: &mut Emitter) -> Result<(), ProviderError> {
    if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
        let msg = match err.get("message") {
            Some(Value::String(m)) => m.clone(),
            _ => err.to_string(),
        };
        return Err(super::reported(msg, err));
    }
    if let Some(id) = chunk.get("id").and_then(Value::as_str) {
        em.set_response_id(id, true);
    }
    if let Some(name) = chunk.get("model").and_then(Value::as_str) {
        em.set_response_model(name);
    }
    if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
        em.set_usage(parse_usage(u));
    }
    let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
        return Ok(());
    };
    if let Some(delta) = choice.get("delta") {
        for field in REASONING_FIELDS {
            if let Some(t) = delta.get(field).and_then(Value::as_str)
                && !t.is_empty()
            {
                let i = match em.open_last(BlockKind::Thinking) {
                    Some(i) => i,
                    None => em.thinking_start(Some(field.to_string())).await?,
                };
                em.thinking_delta(i, t).await?;
                break;
            }
        }
        if let Some(t) = delta.get("content").and_then(Value::as_str)
            && !t.is_empty()
        {
            let i = match em.open_last(BlockKind::Text) {
                Some(i) => i,
                None => em.text_start().await?,
            };
            em.text_delta(i, t).await?;
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (pos, call) in calls.iter().enumerate() {
                let index = call.get("index").and_then(Value::as_u64).unwrap_or(pos as u64);
                let id = call.get("id").and_then(Value::as_str);
                let f = call.get("function");
                let name = f.and_then(|f| f.get("name")).and_then(Value::as_str);
                let args = f.and_then(|f| f.get("arguments")).and_then(Value::as_str).unwrap_or("");
                let i = match state.tools.get(&index) {
                    Some(&i) => {
                        em.toolcall_identity(i, id, name);
                        i
                    }
                    None => {
                        let i = em.toolcall_start(id.unwrap_or(""), name.unwrap_or("")).await?;
                        state.tools.insert(index, i);
                        i
                    }
                };
                em.toolcall_delta(i, args).await?;
            }
        }
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        em.set_raw_stop_reason(reason);
        state.finish = Some(match reason {
            "length" => StopReason::Length,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            _ => StopReason::Stop,
        });
    }
    Ok(())
}

fn parse_usage(u: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let prompt = n(u.get("prompt_tokens"));
    let cached = n(u.pointer("/prompt_tokens_details/cached_tokens"));
    Usage {
        input: prompt.saturating_sub(cached),
        output: n(u.get("completion_tokens")),
        cache_read: cached,
        cache_write: 0,
        reasoning: Some(n(u.pointer("/completion_tokens_details/reasoning_tokens"))),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AssistantMessageEvent;
    use crate::types::{Context, Tool, ToolResultMessage, UserMessage};
    use serde_json::json;
    use tokio::sync::mpsc;

    /// The body as a JSON value (its bytes parsed back).
    fn request_body(model: &Model, ctx: &Context, options: &StreamOptions) -> Value {
        serde_json::from_slice(&super::request_body(model, &ctx.view(), options).unwrap().to_vec()).unwrap()
    }

    fn model() -> Model {
        Model {
            id: "mock-1".into(),
            api: "openai-completions".into(),
            provider: "mock".into(),
            base_url: "http://x/v1".into(),
            max_tokens: 16384,
            input: vec!["text".into()],
            ..Default::default()
        }
    }

    async fn feed(chunks: &[Value]) -> (Vec<AssistantMessageEvent>, Result<StopReason, ProviderError>) {
        let (tx, mut rx) = mpsc::channel(1000);
        let mut em = Emitter::new(tx, &model());
        let body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        let mut sse = SseStream::from_chunks(vec![body.into_bytes()]);
        let res = read_stream(&mut sse, &mut em).await;
        if let Ok(r) = &res {
            em.done(*r).await;
        }
        drop(em);
        let mut evs = Vec::new();
        while let Some(e) = rx.recv().await {
            evs.push(e);
        }
        (evs, res)
    }

    fn types(evs: &[AssistantMessageEvent]) -> Vec<String> {
        evs.iter().map(|e| serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_string()).collect()
    }

    /// The same body split anywhere (also inside UTF-8 characters and `\r\n`)
    /// gives the same message.
    #[tokio::test]
    async fn split_chunks_give_the_same_message() {
        let body = concat!(
            "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\u{e9}llo \u{1F600}\"}}]}\r\n\r\n",
            ": keep-alive comment\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"path\\\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":\\\"\u{e9}.txt\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}\n\n",
            "data: [DONE]\n\n",
        );
        for size in crate::providers::testing::PIECE_SIZES {
            let (tx, _rx) = mpsc::channel(10_000);
            let mut em = Emitter::new(tx, &model());
            let mut sse = SseStream::from_chunks(crate::providers::testing::split_bytes(body, size));
            let r = read_stream(&mut sse, &mut em).await;
            assert_eq!(r, Ok(StopReason::ToolUse), "piece size {size}");
            assert_eq!(em.message().content[0], ContentBlock::text("h\u{e9}llo \u{1F600}"), "piece size {size}");
            assert_eq!(em.message().tool_calls()[0].arguments, json!({"path": "\u{e9}.txt"}), "piece size {size}");
            assert_eq!((em.message().usage.input, em.message().usage.output), (10, 5));
        }
    }

    #[tokio::test]
    async fn malformed_event_json_reads_like_the_reference() {
        let (tx, _rx) = mpsc::channel(100);
        let mut em = Emitter::new(tx, &model());
        let mut sse = SseStream::from_chunks(vec![b"data: {not json\n\n".to_vec()]);
        assert_eq!(
            read_stream(&mut sse, &mut em).await,
            Err(ProviderError::failed(
                "Could not parse message into JSON:\nFrom chunk:\nError reading response: malformed server-sent event JSON."
            ))
        );
    }

    #[tokio::test]
    async fn tool_call_deltas_are_assembled_by_index() {
        let chunks = vec![
            json!({"id":"c","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[
                {"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]}}]}),
            json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}}]}),
            json!({"choices":[{"index":0,"delta":{"tool_calls":[
                {"index":1,"id":"call_b","function":{"name":"bash","arguments":"{\"command\":"}}]}}]}),
            json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"f.txt\"}"}}]}}]}),
            json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"ls\"}"}}]}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,
                "prompt_tokens_details":{"cached_tokens":4}}}),
        ];
        let (evs, res) = feed(&chunks).await;
        assert_eq!(res, Ok(StopReason::ToolUse));
        assert_eq!(
            types(&evs),
            [
                "toolcall_start",
                "toolcall_delta",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_end",
                "toolcall_end",
                "done"
            ]
        );
        let AssistantMessageEvent::Done { message, .. } = evs.last().unwrap() else { panic!() };
        let calls = message.tool_calls();
        assert_eq!(calls[0].id, "call_a");
        assert_eq!(calls[0].arguments, json!({"path":"f.txt"}));
        assert_eq!(calls[1].name, "bash");
        assert_eq!(calls[1].arguments, json!({"command":"ls"}));
        assert_eq!(message.usage.input, 6);
        assert_eq!(message.usage.cache_read, 4);
        assert_eq!(message.usage.output, 5);
        assert_eq!(message.usage.total_tokens, 15);
        assert_eq!(message.response_id.as_deref(), Some("c"));
        assert_eq!(message.raw_stop_reason.as_deref(), Some("tool_calls"));
    }

    #[tokio::test]
    async fn the_answering_model_is_noted_only_when_it_is_another() {
        let message = |name: &str| {
            let chunks = vec![
                json!({"id":"c","model":name,"choices":[{"index":0,"delta":{"content":"hi"}}]}),
                json!({"id":"c","model":"third","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
            ];
            async move {
                let (evs, _) = feed(&chunks).await;
                let Some(AssistantMessageEvent::Done { message, .. }) = evs.last().cloned() else { panic!() };
                message
            }
        };
        let asked = model().id;
        assert_eq!(message(&asked).await.response_model.as_deref(), Some("third"));
        assert_eq!(message("other").await.response_model.as_deref(), Some("other"), "the first one named stays");
        let same = vec![json!({"model":asked,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})];
        let (evs, _) = feed(&same).await;
        let Some(AssistantMessageEvent::Done { message, .. }) = evs.last() else { panic!() };
        assert_eq!(message.response_model, None);
    }

    #[tokio::test]
    async fn thinking_then_text_closes_blocks_at_the_end_like_the_reference() {
        let chunks = vec![
            json!({"choices":[{"index":0,"delta":{"reasoning_content":"let me "}}]}),
            json!({"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}),
            json!({"choices":[{"index":0,"delta":{"content":"ans"}}]}),
            json!({"choices":[{"index":0,"delta":{"content":"wer"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ];
        let (evs, res) = feed(&chunks).await;
        assert_eq!(res, Ok(StopReason::Stop));
        assert_eq!(
            types(&evs),
            [
                "thinking_start",
                "thinking_delta",
                "thinking_delta",
                "text_start",
                "text_delta",
                "text_delta",
                "thinking_end",
                "text_end",
                "done"
            ]
        );
        let m = evs.last().unwrap().message();
        assert_eq!(
            m.content,
            vec![
                ContentBlock::Thinking { thinking: "let me think".into(), signature: Some("reasoning_content".into()) },
                ContentBlock::text("answer")
            ]
        );
    }

    #[tokio::test]
    async fn malformed_arguments_keep_the_raw_text() {
        let chunks = vec![
            json!({"choices":[{"index":0,"delta":{"tool_calls":[
                {"index":0,"id":"c1","function":{"name":"bash","arguments":"{bad json"}}]}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
        ];
        let (evs, _) = feed(&chunks).await;
        let AssistantMessageEvent::ToolcallEnd { tool_call, .. } = &evs[2] else { panic!("{evs:?}") };
        assert_eq!(tool_call.arguments, json!({}));
        assert_eq!(
            tool_call.arguments_error.as_deref(),
            Some(
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)\n\nReceived arguments:\n{bad json"
            )
        );
    }

    #[tokio::test]
    async fn no_finish_reason_is_an_error_and_error_chunks_surface() {
        let (_, res) = feed(&[json!({"choices":[{"index":0,"delta":{"content":"hi"}}]})]).await;
        assert_eq!(res, Err(ProviderError::of_kind(FailureKind::StreamCut, "Stream ended without finish_reason")));
        let (_, res) = feed(&[json!({"error":{"message":"mid boom","type":"server_error"}})]).await;
        assert_eq!(res, Err(ProviderError::of_kind(FailureKind::Reported(Some(500)), "mid boom")));
        let (_, res) = feed(&[json!({"error":{"message":"Provider returned error","code":502}})]).await;
        assert_eq!(res, Err(ProviderError::of_kind(FailureKind::Reported(Some(502)), "Provider returned error")));
    }

    #[test]
    fn request_body_matches_the_reference_shape() {
        let ctx = Context {
            system_prompt: Some("sys".into()),
            messages: vec![
                Message::User(UserMessage::text("go")),
                Message::Assistant(crate::types::AssistantMessage {
                    content: vec![
                        ContentBlock::tool_call("call_0_0", "read", json!({"path":"f.txt"})),
                        ContentBlock::tool_call("call_0_1", "bash", json!({})),
                    ],
                    api: "openai-completions".into(),
                    stop_reason: StopReason::ToolUse,
                    ..Default::default()
                }),
                Message::ToolResult(ToolResultMessage {
                    nested_calls: None,
                    usage: None,
                    tool_call_id: "call_0_0".into(),
                    tool_name: "read".into(),
                    content: vec![
                        ContentBlock::text("Read image file [image/png]"),
                        ContentBlock::image("AAAA", "image/png"),
                    ],
                    details: None,
                    is_error: false,
                    duration_ms: None,
                    timestamp: 0,
                }),
                Message::ToolResult(ToolResultMessage {
                    nested_calls: None,
                    usage: None,
                    tool_call_id: "call_0_1".into(),
                    tool_name: "bash".into(),
                    content: vec![ContentBlock::text("  \n")],
                    details: None,
                    is_error: true,
                    duration_ms: None,
                    timestamp: 0,
                }),
            ],
            tools: vec![Tool {
                name: "read".into(),
                description: "Read".into(),
                parameters: json!({"type":"object"}),
                constrained_sampling: None,
            }],
        };
        let body = request_body(&model(), &ctx, &StreamOptions::default());
        assert_eq!(
            body,
            json!({
                "model": "mock-1",
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": [{"type": "text", "text": "go"}]},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_0_0", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"f.txt\"}"}},
                        {"id": "call_0_1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
                    ]},
                    {"role": "tool", "content": "Read image file [image/png]\n(tool image omitted: model does not support images)", "tool_call_id": "call_0_0"},
                    {"role": "tool", "content": "(no tool output)", "tool_call_id": "call_0_1"}
                ],
                "stream": true,
                "stream_options": {"include_usage": true},
                "store": false,
                "max_completion_tokens": 16384,
                "tools": [{"type": "function", "function": {"name": "read", "description": "Read", "parameters": {"type": "object"}}}]
            })
        );
        // With image input the images follow the tool messages in a user message.
        let mut m = model();
        m.input.push("image".into());
        let body = request_body(&m, &ctx, &StreamOptions::default());
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(msgs[3]["content"], "Read image file [image/png]");
        assert_eq!(
            msgs[5],
            json!({"role": "user", "content": [
                {"type": "text", "text": "Attached image(s) from tool result:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]})
        );
    }

    #[test]
    fn reasoning_effort_only_for_reasoning_models() {
        let ctx = Context::default();
        let opts = StreamOptions { reasoning: Some("xhigh".into()), ..Default::default() };
        assert!(request_body(&model(), &ctx, &opts).get("reasoning_effort").is_none());
        let mut m = model();
        m.reasoning = true;
        assert_eq!(request_body(&m, &ctx, &opts)["reasoning_effort"], "high");
        assert!(request_body(&m, &ctx, &StreamOptions::default()).get("reasoning_effort").is_none());
    }

    #[test]
    fn user_images_become_one_placeholder_per_run_without_image_input() {
        let img = ContentBlock::image("AAAA", "image/png");
        let blocks = vec![ContentBlock::text("a"), img.clone(), img.clone(), ContentBlock::text("b"), img.clone()];
        let out = super::super::user_blocks(&blocks, false);
        let texts: Vec<String> = out
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => text.clone(),
                _ => "<image>".into(),
            })
            .collect();
        let p = crate::text::USER_IMAGE_OMITTED;
        assert_eq!(texts, ["a", p, "b", p]);
        assert_eq!(*super::super::user_blocks(&blocks, true), *blocks);
    }

    #[test]
    fn empty_user_messages_are_not_sent() {
        let ctx = Context {
            messages: vec![
                Message::User(UserMessage::text("first")),
                Message::User(UserMessage::text("")),
                Message::User(UserMessage::text("third")),
            ],
            ..Default::default()
        };
        let body = request_body(&model(), &ctx, &StreamOptions::default());
        let users: Vec<&Value> = body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "user").collect();
        assert_eq!(users.len(), 2, "{body}");
        assert_eq!(users[1]["content"][0]["text"], "third");
    }

    #[test]
    fn compat_switches_shape_the_request() {
        let ctx = Context { system_prompt: Some("sys".into()), ..Default::default() };
        let opts = StreamOptions::default();
        let mut m = model();
        m.compat = crate::model::OpenAiCompletionsCompat {
            supports_store: Some(false),
            supports_usage_in_streaming: Some(false),
            max_tokens_field: Some(MaxTokensField::MaxTokens),
            supports_developer_role: Some(true),
            ..Default::default()
        };
        let body = request_body(&m, &ctx, &opts);
        assert!(body.get("store").is_none() && body.get("stream_options").is_none());
        assert!(body.get("max_completion_tokens").is_none());
        assert_eq!(body["max_tokens"], 16384);
        // The developer role only for a reasoning model.
        assert_eq!(body["messages"][0]["role"], "system");
        m.reasoning = true;
        assert_eq!(request_body(&m, &ctx, &opts)["messages"][0]["role"], "developer");
        m.compat.supports_developer_role = Some(false);
        assert_eq!(request_body(&m, &ctx, &opts)["messages"][0]["role"], "system");
    }

    #[test]
    fn compat_defaults_follow_the_provider_and_base_url() {
        let of = |provider: &str, url: &str| {
            let m = Model { provider: provider.into(), base_url: url.into(), ..Default::default() };
            Compat::of(&m)
        };
        let local = of("mock", "http://127.0.0.1:9/v1");
        assert_eq!(
            local,
            Compat {
                store: true,
                developer_role: false,
                usage_in_streaming: true,
                max_tokens_field: MaxTokensField::MaxCompletionTokens,
            }
        );
        assert!(of("openai", "http://proxy/v1").developer_role);
        assert!(of("x", "https://api.openai.com/v1").developer_role);
        let ds = of("x", "https://API.DeepSeek.com/v1");
        assert!(!ds.store && ds.max_tokens_field == MaxTokensField::MaxTokens);
        let xai = of("xai", "http://x/v1");
        assert!(!xai.store && xai.max_tokens_field == MaxTokensField::MaxCompletionTokens);
        let together = of("t", "https://api.together.xyz/v1");
        assert!(!together.store && together.max_tokens_field == MaxTokensField::MaxTokens);
        // An explicit switch wins over detection.
        let mut m = Model { provider: "xai".into(), ..Default::default() };
        m.compat.supports_store = Some(true);
        assert!(Compat::of(&m).store);
        for f in MaxTokensField::ALL {
            assert_eq!(MaxTokensField::from_name(f.as_str()), Some(f));
        }
        assert_eq!(MaxTokensField::from_name("bogus"), None);
    }
}
