//! OpenAI Responses (`POST {baseUrl}/responses`, SSE).

use std::collections::HashMap;

use serde_json::{Value, json};

pub(crate) use super::responses_input::write_input;
use super::{ArrayWriter, ObjectWriter, Prepared, final_reason, max_tokens, open_stream, openai_effort};
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::http::{self, SseStream};
use crate::model::{Model, StreamOptions};
use crate::text;
use crate::types::{ContextRef, StopReason, Usage};

/// The request body, written straight to bytes (the conversation one item
/// at a time; see [`ObjectWriter`]).
pub(crate) fn request_body(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<super::RequestBody, ProviderError> {
    let mut body = ObjectWriter::to(&options.body_sink);
    body.field("model", &model.id)?;
    body.array("input", |out| write_input(model, context, out))?;
    body.field("stream", &true)?;
    if let Some(sid) = &options.session_id {
        body.field("prompt_cache_key", sid)?;
    }
    body.field("store", &false)?;
    body.field("max_output_tokens", &max_tokens(model, options))?;
    if !context.tools.is_empty() {
        let strict = model.compat.supports_strict_mode == Some(true);
        body.array("tools", |out| write_tools(context, strict, out))?;
    }
    if model.reasoning {
        match options.thinking_level() {
            // GitHub Copilot gets no reasoning field with thinking off.
            None if model.provider == super::github_copilot::PROVIDER => {}
            None => body.field("reasoning", &json!({"effort": "none"}))?,
            Some(level) => {
                body.field("reasoning", &json!({"effort": openai_effort(level), "summary": "auto"}))?;
                body.field("include", &json!(["reasoning.encrypted_content"]))?;
            }
        }
    }
    Ok(body.finish())
}

/// The `tools` array: each tool as `{type: "function", name, description,
/// parameters, strict?}` (see [`super::body::function_tool`]).
pub(crate) fn write_tools(
    context: &ContextRef<'_>,
    strict: bool,
    out: &mut ArrayWriter<'_>,
) -> Result<(), ProviderError> {
    for t in context.tools {
        let mut tool = serde_json::Map::new();
        tool.insert("type".into(), "function".into());
        if let Value::Object(f) = super::body::function_tool(t, strict)? {
            tool.extend(f);
        }
        out.push(&Value::Object(tool))?;
    }
    Ok(())
}

/// The request: URL, headers and body.
pub(crate) fn prepare(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let base = if model.base_url.is_empty() { "https://api.openai.com/v1" } else { &model.base_url };
    let url = http::join_url(base, "responses");
    let auth = options.api_key.as_ref().map(|k| format!("Bearer {k}"));
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    if let Some(a) = &auth {
        pairs.push(("authorization", a));
    }
    let session = super::affinity::headers(model, options, super::affinity::Api::Responses);
    pairs.extend(session.iter().map(|(k, v)| (*k, v.as_str())));
    let headers = http::request_headers(pairs, model, options)?;
    Ok(Prepared { url, headers, body: request_body(model, context, options)? })
}

/// Send a prepared request, streaming the answer into `em`.
pub(crate) async fn send(model: &Model, request: Prepared, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let provider = model.provider.clone();
    let mut sse = open_stream(request, em, |e| http::responses_http_error(&provider, e)).await?;
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
        let data: Value = serde_json::from_str(&ev.data).map_err(|_| ProviderError::failed(text::MALFORMED_EVENT))?;
        em.raw(&data).await;
        if let Some(reason) = handle_event(&data, &mut state, em).await? {
            em.end_all().await?;
            return Ok(final_reason(em, reason));
        }
    }
    Err(ProviderError::of_kind(FailureKind::StreamCut, text::RESPONSES_NO_TERMINAL))
}

#[derive(Default)]
pub(crate) struct State {
    /// Content index by output item id.
    items: HashMap<String, usize>,
    /// Summary parts seen per reasoning item (to separate them).
    summary_parts: HashMap<String, u64>,
}

fn item_key(data: &Value) -> String {
    data.get("item_id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| data.get("output_index").and_then(Value::as_u64).map(|i| format!("#{i}")))
        .unwrap_or_default()
}

fn item_id(item: &Value, data: &Value) -> String {
    item.get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| data.get("output_index").and_then(Value::as_u64).map(|i| format!("#{i}")))
        .unwrap_or_default()
}

/// Handle one event; `Ok(Some(reason))` at the terminal event.
pub(crate) async fn handle_event(
    data: &Value,
    st: &mut State,
    em: &mut Emitter,
) -> Result<Option<StopReason>, ProviderError> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match data.get("type").and_then(Value::as_str).unwrap_or("") {
        "response.created" | "response.in_progress" => {
            if let Some(id) = data.pointer("/response/id").and_then(Value::as_str) {
                em.set_response_id(id, false);
            }
        }
        "response.output_item.added" => {
            let item = &data["item"];
            let key = item_id(item, data);
            match item.get("type").and_then(Value::as_str).unwrap_or("") {
                "function_call" => {
                    let id = format!("{}|{}", s(item, "call_id"), s(item, "id"));
                    let i = em.toolcall_start(&id, &s(item, "name")).await?;
                    em.toolcall_delta(i, &s(item, "arguments")).await?;
                    st.items.insert(key, i);
                }
                "reasoning" => {
                    let i = em.thinking_start(None).await?;
                    st.items.insert(key, i);
                }
                _ => {}
            }
        }
        "response.output_text.delta" | "response.refusal.delta" => {
            let key = item_key(data);
            let i = match st.items.get(&key) {
                Some(&i) if em.is_open(i) => i,
                _ => {
                    let i = em.text_start().await?;
                    st.items.insert(key, i);
                    i
                }
            };
            em.text_delta(i, &s(data, "delta")).await?;
        }
        "response.function_call_arguments.delta" => {
            if let Some(&i) = st.items.get(&item_key(data)) {
                em.toolcall_delta(i, &s(data, "delta")).await?;
            }
        }
        "response.function_call_arguments.done" => {
            if let Some(&i) = st.items.get(&item_key(data))
                && let Some(a) = data.get("arguments").and_then(Value::as_str)
            {
                em.toolcall_set_raw(i, a);
            }
        }
        "response.reasoning_summary_part.added" => {
            let key = item_key(data);
            let seen = st.summary_parts.entry(key.clone()).or_insert(0);
            *seen += 1;
            if *seen > 1
                && let Some(&i) = st.items.get(&key)
            {
                em.thinking_delta(i, "\n\n").await?;
            }
        }
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
            let key = item_key(data);
            let i = match st.items.get(&key) {
                Some(&i) => i,
                None => {
                    let i = em.thinking_start(None).await?;
                    st.items.insert(key, i);
                    i
                }
            };
            em.thinking_delta(i, &s(data, "delta")).await?;
        }
        "response.output_item.done" => {
            let item = &data["item"];
            let key = item_id(item, data);
            if let Some(&i) = st.items.get(&key) {
                match item.get("type").and_then(Value::as_str).unwrap_or("") {
                    "function_call" => {
                        if let Some(a) = item.get("arguments").and_then(Value::as_str)
                            && !a.is_empty()
                        {
                            em.toolcall_set_raw(i, a);
                        }
                    }
                    "reasoning" => em.thinking_signature(i, &item.to_string(), false),
                    _ => {}
                }
                em.end(i).await?;
            }
        }
        "response.completed" | "response.incomplete" => {
            let resp = &data["response"];
            if let Some(id) = resp.get("id").and_then(Value::as_str) {
                em.set_response_id(id, false);
            }
            if let Some(u) = resp.get("usage").filter(|u| u.is_object()) {
                em.set_usage(parse_usage(u));
            }
            let status = resp
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or(if data["type"] == "response.completed" { "completed" } else { "incomplete" });
            em.set_raw_stop_reason(status);
            let reason = match status {
                "incomplete" => StopReason::Length,
                _ => StopReason::Stop,
            };
            return Ok(Some(reason));
        }
        "response.failed" => {
            let err = data.pointer("/response/error").cloned().unwrap_or(Value::Null);
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| data["response"].to_string());
            let code = err.get("code").and_then(Value::as_str);
            return Err(super::reported(text::responses_failed(code, &message), &err));
        }
        "error" => {
            let message =
                data.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| data.to_string());
            return Err(super::reported(message, data));
        }
        _ => {}
    }
    Ok(None)
}

fn parse_usage(u: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let input = n(u.get("input_tokens"));
    let cached = n(u.pointer("/input_tokens_details/cached_tokens"));
    Usage {
        input: input.saturating_sub(cached),
        output: n(u.get("output_tokens")),
        cache_read: cached,
        reasoning: Some(n(u.pointer("/output_tokens_details/reasoning_tokens"))),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AssistantMessage, ContentBlock, Context, Message, ToolResultMessage, UserMessage};
    use tokio::sync::mpsc;

    /// The body as a JSON value (its bytes parsed back).
    fn request_body(model: &Model, ctx: &Context, options: &StreamOptions) -> Value {
        serde_json::from_slice(&super::request_body(model, &ctx.view(), options).unwrap().to_vec()).unwrap()
    }

    fn model() -> Model {
        Model {
            id: "mock-1".into(),
            api: "openai-responses".into(),
            provider: "mock".into(),
            max_tokens: 16384,
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn split_chunks_give_the_same_message() {
        let body = concat!(
            "event: response.created\r\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\r\n\r\n",
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"h\u{e9}llo \u{1F600}\"}\n\n",
            "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"id\":\"m\"}}\n\n",
            "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":{\"id\":\"r\",\"status\":\"incomplete\",\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}}\n\n",
        );
        for size in crate::providers::testing::PIECE_SIZES {
            let (tx, _rx) = mpsc::channel(10_000);
            let mut em = Emitter::new(tx, &model());
            let mut sse = SseStream::from_chunks(crate::providers::testing::split_bytes(body, size));
            assert_eq!(read_stream(&mut sse, &mut em).await, Ok(StopReason::Length), "piece size {size}");
            assert_eq!(em.message().text(), "h\u{e9}llo \u{1F600}");
            assert_eq!(
                (em.message().usage.input, em.message().usage.output, em.message().usage.total_tokens),
                (3, 4, 7)
            );
            assert_eq!(em.message().raw_stop_reason.as_deref(), Some("incomplete"));
        }
    }

    #[tokio::test]
    async fn events_build_text_and_tool_calls() {
        let events = vec![
            json!({"type":"response.created","response":{"id":"resp_1"}}),
            json!({"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}),
            json!({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"delta":"hel"}),
            json!({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"delta":"lo"}),
            json!({"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1"}}),
            json!({"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":""}}),
            json!({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"path\":"}),
            json!({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"\"f.txt\"}"}),
            json!({"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"{\"path\":\"f.txt\"}"}}),
            json!({"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15,"input_tokens_details":{"cached_tokens":2}}}}),
        ];
        let (tx, mut rx) = mpsc::channel(1000);
        let mut em = Emitter::new(tx, &model());
        let mut st = State::default();
        let mut reason = None;
        for e in &events {
            if let Some(r) = handle_event(e, &mut st, &mut em).await.unwrap() {
                reason = Some(final_reason(&em, r));
            }
        }
        assert_eq!(reason, Some(StopReason::ToolUse));
        em.done(StopReason::ToolUse).await;
        drop(em);
        let mut kinds = Vec::new();
        let mut last = None;
        while let Some(e) = rx.recv().await {
            kinds.push(serde_json::to_value(&e).unwrap()["type"].as_str().unwrap().to_string());
            last = Some(e);
        }
        assert_eq!(
            kinds,
            [
                "text_start",
                "text_delta",
                "text_delta",
                "text_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_end",
                "done"
            ]
        );
        let m = last.unwrap().message().clone();
        assert_eq!(
            m.content,
            vec![ContentBlock::text("hello"), ContentBlock::tool_call("call_1|fc_1", "read", json!({"path":"f.txt"}))]
        );
        assert_eq!((m.usage.input, m.usage.cache_read, m.usage.output, m.usage.total_tokens), (8, 2, 5, 15));
        assert_eq!(m.raw_stop_reason.as_deref(), Some("completed"));
    }

    #[tokio::test]
    async fn failures_read_like_the_reference() {
        let (tx, _rx) = mpsc::channel(1000);
        let mut em = Emitter::new(tx, &model());
        let mut st = State::default();
        let e = json!({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"failed boom"}}});
        assert_eq!(
            handle_event(&e, &mut st, &mut em).await,
            Err(ProviderError::of_kind(FailureKind::Reported(Some(500)), "server_error: failed boom"))
        );
        let e = json!({"type":"error","code":"rate_limit_exceeded","message":"err boom"});
        assert_eq!(
            handle_event(&e, &mut st, &mut em).await,
            Err(ProviderError::of_kind(FailureKind::Reported(Some(429)), "err boom"))
        );
        let e = json!({"type":"response.failed","response":{"error":{"code":"invalid_prompt","message":"no"}}});
        assert_eq!(
            handle_event(&e, &mut st, &mut em).await,
            Err(ProviderError::of_kind(FailureKind::Reported(None), "invalid_prompt: no"))
        );
    }

    #[test]
    fn request_body_matches_the_reference_shape() {
        let ctx = Context {
            system_prompt: Some("sys".into()),
            messages: vec![
                Message::User(UserMessage::text("go")),
                Message::Assistant(AssistantMessage {
                    content: vec![
                        ContentBlock::text("ok"),
                        ContentBlock::tool_call("call_0_0|fc_0", "read", json!({"path":"f.txt"})),
                    ],
                    api: "openai-responses".into(),
                    stop_reason: StopReason::ToolUse,
                    ..Default::default()
                }),
                Message::ToolResult(ToolResultMessage {
                    nested_calls: None,
                    usage: None,
                    tool_call_id: "call_0_0|fc_0".into(),
                    tool_name: "read".into(),
                    content: vec![ContentBlock::text("")],
                    details: None,
                    is_error: false,
                    duration_ms: None,
                    timestamp: 0,
                }),
            ],
            tools: vec![],
        };
        let opts = StreamOptions { session_id: Some("sid".into()), ..Default::default() };
        assert_eq!(
            request_body(&model(), &ctx, &opts),
            json!({
                "model": "mock-1",
                "input": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
                    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok", "annotations": []}], "status": "completed"},
                    {"type": "function_call", "id": "fc_0", "call_id": "call_0_0", "name": "read", "arguments": "{\"path\":\"f.txt\"}"},
                    {"type": "function_call_output", "call_id": "call_0_0", "output": "(no tool output)"}
                ],
                "stream": true,
                "prompt_cache_key": "sid",
                "store": false,
                "max_output_tokens": 16384
            })
        );
        let mut m = model();
        m.reasoning = true;
        let b = request_body(&m, &ctx, &StreamOptions::default());
        assert_eq!(b["input"][0]["role"], "developer");
        assert_eq!(b["reasoning"], json!({"effort": "none"}));
        let b = request_body(&m, &ctx, &StreamOptions { reasoning: Some("low".into()), ..Default::default() });
        assert_eq!(b["reasoning"], json!({"effort": "low", "summary": "auto"}));
        assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));
    }
}
