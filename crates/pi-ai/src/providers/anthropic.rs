//! Anthropic Messages (`POST {baseUrl}/v1/messages?beta=true`, SSE).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::anthropic_wire::{self as wire, Thinking};
use super::{ArrayWriter, ObjectWriter, Prepared, max_tokens, messages_to_send, open_stream, tool_result_parts};
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::http::{self, SseStream};
use crate::model::{Model, StreamOptions};
use crate::strict;
use crate::text;
use crate::types::{ContentBlock, ContextRef, Message, StopReason, Tool, Usage, UserContent};

/// The `anthropic-version` header.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Anthropic tool ids allow `[a-zA-Z0-9_-]`, at most 64 characters.
fn tool_id(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).take(64).collect()
}

fn cache_control() -> Value {
    json!({"type": "ephemeral"})
}

fn image_block(data: &str, mime: &str) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
}

/// The request body, written straight to bytes (the conversation one
/// message at a time; see [`ObjectWriter`]).
pub(crate) fn request_body(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<super::RequestBody, ProviderError> {
    let max = max_tokens(model, options);
    let oauth = wire::uses_oauth(options);
    let thinking = Thinking::of(model, options, max);
    let mut body = ObjectWriter::to(&options.body_sink);
    body.field("model", &model.id)?;
    body.array("messages", |out| {
        write_messages(model, context, oauth, out)?;
        match thinking.as_ref().and_then(Thinking::effort_message) {
            Some(effort) => out.push(&effort),
            None => Ok(()),
        }
    })?;
    body.field("max_tokens", &max)?;
    body.field("stream", &true)?;
    if let Some(system) = wire::system_blocks(context.system_prompt, oauth) {
        body.field("system", &system)?;
    }
    if !context.tools.is_empty() {
        let c = &model.compat;
        let strict = c.supports_strict_tools == Some(true);
        let eager = c.anthropic.supports_eager_tool_input_streaming != Some(false);
        let tools = context
            .tools
            .iter()
            .map(|t| tool_definition(t, strict, eager, oauth))
            .collect::<Result<Vec<Value>, _>>()?;
        let cache_last = c.anthropic.supports_cache_control_on_tools != Some(false);
        body.array("tools", |out| {
            let last = tools.len() - 1;
            for (n, mut tool) in tools.into_iter().enumerate() {
                // Cache the tool list too (marker on the last tool, as the reference does).
                if n == last
                    && cache_last
                    && let Some(obj) = tool.as_object_mut()
                {
                    obj.insert("cache_control".into(), cache_control());
                }
                out.push(&tool)?;
            }
            if wire::inline_tools(model, true) {
                out.push(&wire::deferred_placeholder_tool())?;
            }
            Ok(())
        })?;
    }
    if let Some(thinking) = thinking {
        body.field("thinking", &thinking.body())?;
        if let Some(config) = thinking.output_config() {
            body.field("output_config", &config)?;
        }
    }
    Ok(body.finish())
}

/// A tool as Anthropic declares it: strict (its strict schema as is, with
/// `properties` added when absent) when the provider and the tool allow it.
fn tool_definition(t: &Tool, strict_tools: bool, eager: bool, oauth: bool) -> Result<Value, ProviderError> {
    let declared = strict::declare(t, strict_tools, Some(strict::anthropic_refuses))?;
    let mut tool = Map::new();
    tool.insert("name".into(), wire::wire_tool_name(&t.name, oauth).into());
    tool.insert("description".into(), t.description.as_str().into());
    if eager {
        tool.insert("eager_input_streaming".into(), true.into());
    }
    let schema = match declared {
        strict::Declared::Strict(Value::Object(mut schema)) => {
            tool.insert("strict".into(), true.into());
            schema.entry("properties").or_insert_with(|| json!({}));
            schema
        }
        _ => {
            let mut schema = Map::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), t.parameters.get("properties").cloned().unwrap_or_else(|| json!({})));
            schema.insert("required".into(), t.parameters.get("required").cloned().unwrap_or_else(|| json!([])));
            if let Some(obj) = t.parameters.as_object() {
                for (k, v) in obj {
                    if !matches!(k.as_str(), "type" | "properties" | "required") {
                        schema.insert(k.clone(), v.clone());
                    }
                }
            }
            schema
        }
    };
    tool.insert("input_schema".into(), Value::Object(schema));
    Ok(Value::Object(tool))
}

/// Messages on their way out: each is written when the next comes, so the
/// last one can still get its cache marker.
struct Outbox<'w, 'o> {
    out: &'w mut ArrayWriter<'o>,
    held: Option<Value>,
    /// Tool results collect into one user message until something else comes.
    results: Vec<Value>,
}

impl Outbox<'_, '_> {
    fn push(&mut self, message: Value) -> Result<(), ProviderError> {
        if let Some(previous) = self.held.replace(message) {
            self.out.push(&previous)?;
        }
        Ok(())
    }

    fn flush_results(&mut self) -> Result<(), ProviderError> {
        if self.results.is_empty() {
            return Ok(());
        }
        let results = std::mem::take(&mut self.results);
        self.push(json!({"role": "user", "content": results}))
    }

    /// Write the last message, cached up to its newest block when the user sent it.
    fn finish(mut self) -> Result<(), ProviderError> {
        self.flush_results()?;
        let Some(mut last) = self.held.take() else { return Ok(()) };
        if last["role"] == "user"
            && let Some(block) =
                last["content"].as_array_mut().and_then(|b| b.last_mut()).and_then(Value::as_object_mut)
        {
            block.insert("cache_control".into(), cache_control());
        }
        self.out.push(&last)
    }
}

/// The `messages` array.
fn write_messages(
    model: &Model,
    context: &ContextRef<'_>,
    oauth: bool,
    out: &mut ArrayWriter<'_>,
) -> Result<(), ProviderError> {
    let images_ok = model.supports_images();
    let mut outbox = Outbox { out, held: None, results: Vec::new() };
    for &m in messages_to_send(context).iter() {
        match m {
            Message::User(u) => {
                outbox.flush_results()?;
                let blocks: Vec<Value> = match &u.content {
                    UserContent::Text(t) => vec![json!({"type": "text", "text": t})],
                    UserContent::Blocks(b) => super::user_blocks(b, images_ok)
                        .iter()
                        .filter_map(|b| match b {
                            ContentBlock::Text { text } if !text.is_empty() => {
                                Some(json!({"type": "text", "text": text}))
                            }
                            ContentBlock::Image { data, mime_type } if images_ok => Some(image_block(data, mime_type)),
                            _ => None,
                        })
                        .collect(),
                };
                if !blocks.is_empty() {
                    outbox.push(json!({"role": "user", "content": blocks}))?;
                }
            }
            Message::Assistant(a) => {
                outbox.flush_results()?;
                let same_api = *a.api == *model.api;
                let blocks: Vec<Value> = a
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Thinking { thinking, signature: Some(sig) } if same_api && !sig.is_empty() => {
                            Some(json!({"type": "thinking", "thinking": thinking, "signature": sig}))
                        }
                        ContentBlock::Text { text } if !text.is_empty() => Some(json!({"type": "text", "text": text})),
                        ContentBlock::ToolCall(call) => Some(json!({
                            "type": "tool_use", "id": tool_id(&call.id), "name": wire::wire_tool_name(&call.name, oauth), "input": call.arguments,
                        })),
                        _ => None,
                    })
                    .collect();
                if !blocks.is_empty() {
                    outbox.push(json!({"role": "assistant", "content": blocks}))?;
                }
            }
            Message::ToolResult(r) => {
                let (text, images) = tool_result_parts(r, images_ok);
                let content = if images.is_empty() {
                    Value::String(text)
                } else {
                    let mut parts = Vec::new();
                    if !text.is_empty() {
                        parts.push(json!({"type": "text", "text": text}));
                    }
                    parts.extend(images.iter().map(|(d, m)| image_block(d, m)));
                    Value::Array(parts)
                };
                outbox.results.push(json!({
                    "type": "tool_result",
                    "tool_use_id": tool_id(&r.tool_call_id),
                    "content": content,
                    "is_error": r.is_error,
                }));
            }
        }
    }
    outbox.finish()
}

/// The request: URL, headers and body.
pub(crate) fn prepare(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let base = if model.base_url.is_empty() { "https://api.anthropic.com" } else { &model.base_url };
    let url = http::join_url(base, "v1/messages") + wire::BETA_QUERY;
    let oauth = wire::uses_oauth(options);
    let bearer = options.api_key.as_ref().filter(|_| oauth).map(|k| format!("Bearer {k}"));
    let mut pairs: Vec<(&str, &str)> = vec![("anthropic-version", ANTHROPIC_VERSION)];
    match (&bearer, &options.api_key) {
        (Some(b), _) => pairs.push(("authorization", b)),
        (None, Some(k)) => pairs.push(("x-api-key", k)),
        (None, None) => {}
    }
    pairs.push(wire::DIRECT_BROWSER_ACCESS);
    if oauth {
        pairs.push(("user-agent", wire::OAUTH_USER_AGENT));
        pairs.push(wire::OAUTH_APP);
    }
    let thinking = Thinking::of(model, options, max_tokens(model, options));
    let session = super::affinity::headers(model, options, super::affinity::Api::Anthropic);
    pairs.extend(session.iter().map(|(k, v)| (*k, v.as_str())));
    let betas = wire::betas(model, oauth, !context.tools.is_empty(), thinking.as_ref()).join(",");
    if !betas.is_empty() {
        pairs.push(("anthropic-beta", &betas));
    }
    let headers = http::request_headers(pairs, model, options)?;
    Ok(Prepared { url, headers, body: request_body(model, context, options)? })
}

/// Send a prepared request, streaming the answer into `em`.
pub(crate) async fn send(request: Prepared, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut sse = open_stream(request, em, http::anthropic_http_error).await?;
    read_stream(&mut sse, em).await
}

/// Read the events of a 2xx answer into `em`.
pub(crate) async fn read_stream(sse: &mut SseStream, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut state = State::default();
    while let Some(ev) = sse.next().await {
        let ev = ev?;
        if ev.event == "error" {
            let err = serde_json::from_str::<Value>(&ev.data).map(|v| v["error"].clone()).unwrap_or(Value::Null);
            return Err(super::reported(ev.data, &err));
        }
        // Events that are not JSON are skipped, as the reference does.
        let Ok(data) = serde_json::from_str::<Value>(&ev.data) else {
            continue;
        };
        em.raw(&data).await;
        // `start` follows message_start, so the partial already has its usage.
        let is_message_start = data.get("type").and_then(Value::as_str) == Some("message_start");
        if !is_message_start {
            em.start().await?;
        }
        let stop = handle_event(&data, &mut state, em).await?;
        em.start().await?;
        if stop {
            break;
        }
    }
    let Some(reason) = state.stop else {
        return Err(ProviderError::of_kind(FailureKind::StreamCut, text::ANTHROPIC_NO_STOP));
    };
    em.end_all().await?;
    Ok(reason)
}

#[derive(Default)]
pub(crate) struct State {
    /// Content index by Anthropic block index.
    blocks: HashMap<u64, usize>,
    /// The `input` of a tool call's start event, by content index.
    preset_input: HashMap<usize, String>,
    usage: Usage,
    stop: Option<StopReason>,
}

/// Handle one event; `Ok(true)` at `message_stop`.
pub(crate) async fn handle_event(data: &Value, st: &mut State, em: &mut Emitter) -> Result<bool, ProviderError> {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    match data.get("type").and_then(Value::as_str).unwrap_or("") {
        "message_start" => {
            let msg = &data["message"];
            if let Some(id) = msg.get("id").and_then(Value::as_str) {
                em.set_response_id(id, false);
            }
            let u = &msg["usage"];
            st.usage.input = n(u.get("input_tokens")).unwrap_or(0);
            st.usage.output = n(u.get("output_tokens")).unwrap_or(0);
            st.usage.cache_read = n(u.get("cache_read_input_tokens")).unwrap_or(0);
            st.usage.cache_write = n(u.get("cache_creation_input_tokens")).unwrap_or(0);
            st.usage.cache_write_1h = Some(n(u.pointer("/cache_creation/ephemeral_1h_input_tokens")).unwrap_or(0));
            em.set_usage(st.usage.clone());
        }
        "content_block_start" => {
            let index = n(data.get("index")).unwrap_or(0);
            let block = &data["content_block"];
            let i = match block.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => {
                    let i = em.text_start().await?;
                    if let Some(t) = block.get("text").and_then(Value::as_str) {
                        em.text_delta(i, t).await?;
                    }
                    i
                }
                "thinking" => {
                    let i = em.thinking_start(None).await?;
                    if let Some(t) = block.get("thinking").and_then(Value::as_str) {
                        em.thinking_delta(i, t).await?;
                    }
                    i
                }
                "tool_use" | "server_tool_use" => {
                    let id = block.get("id").and_then(Value::as_str).unwrap_or("");
                    let name = em.local_tool_name(block.get("name").and_then(Value::as_str).unwrap_or(""));
                    let i = em.toolcall_start(id, &name).await?;
                    if let Some(input) = block.get("input").filter(|v| v.as_object().is_some_and(|o| !o.is_empty())) {
                        st.preset_input.insert(i, input.to_string());
                    }
                    i
                }
                // redacted_thinking and unknown blocks are not kept.
                _ => return Ok(false),
            };
            st.blocks.insert(index, i);
        }
        "content_block_delta" => {
            let Some(&i) = st.blocks.get(&n(data.get("index")).unwrap_or(0)) else {
                return Ok(false);
            };
            let d = &data["delta"];
            let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("");
            match s("type") {
                "text_delta" => em.text_delta(i, s("text")).await?,
                "thinking_delta" => em.thinking_delta(i, s("thinking")).await?,
                "signature_delta" => em.thinking_signature(i, s("signature"), true),
                "input_json_delta" => em.toolcall_delta(i, s("partial_json")).await?,
                _ => {}
            }
        }
        "content_block_stop" => {
            if let Some(&i) = st.blocks.get(&n(data.get("index")).unwrap_or(0)) {
                // A tool call that streamed no arguments keeps the input of its start.
                if let Some(preset) = st.preset_input.remove(&i)
                    && em.toolcall_raw(i).is_empty()
                {
                    em.toolcall_set_raw(i, &preset);
                }
                em.end(i).await?;
            }
        }
        "message_delta" => {
            if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                em.set_raw_stop_reason(reason);
                st.stop = Some(match reason {
                    "max_tokens" | "model_context_window_exceeded" => StopReason::Length,
                    "tool_use" => StopReason::ToolUse,
                    _ => StopReason::Stop,
                });
            }
            if let Some(u) = data.get("usage") {
                if let Some(v) = n(u.get("output_tokens")) {
                    st.usage.output = v;
                }
                if let Some(v) = n(u.get("input_tokens")) {
                    st.usage.input = v;
                }
                if let Some(v) = n(u.get("cache_read_input_tokens")) {
                    st.usage.cache_read = v;
                }
                if let Some(v) = n(u.get("cache_creation_input_tokens")) {
                    st.usage.cache_write = v;
                }
                if let Some(v) = n(u.pointer("/cache_creation/ephemeral_1h_input_tokens")) {
                    st.usage.cache_write_1h = Some(v);
                }
                em.set_usage(st.usage.clone());
            }
        }
        "message_stop" => return Ok(true),
        "error" => {
            return Err(super::reported(data.to_string(), &data["error"]));
        }
        _ => {}
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AssistantMessageEvent;
    use crate::types::{AssistantMessage, Context, ToolResultMessage, UserMessage};
    use tokio::sync::mpsc;

    /// The body as a JSON value (its bytes parsed back).
    fn request_body(model: &Model, ctx: &Context, options: &StreamOptions) -> Value {
        serde_json::from_slice(&super::request_body(model, &ctx.view(), options).unwrap().to_vec()).unwrap()
    }

    fn model() -> Model {
        Model {
            id: "mock-1".into(),
            api: "anthropic-messages".into(),
            provider: "mock".into(),
            max_tokens: 16384,
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn split_chunks_give_the_same_message() {
        let body = concat!(
            "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":3}}}\r\n\r\n",
            "event: ping\ndata: {\"type\": \"ping\"}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"h\u{e9}llo \u{1F600}\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":7}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        for size in crate::providers::testing::PIECE_SIZES {
            let (tx, _rx) = mpsc::channel(10_000);
            let mut em = Emitter::new(tx, &model());
            let mut sse = SseStream::from_chunks(crate::providers::testing::split_bytes(body, size));
            assert_eq!(read_stream(&mut sse, &mut em).await, Ok(StopReason::Length), "piece size {size}");
            assert_eq!(em.message().text(), "h\u{e9}llo \u{1F600}");
            assert_eq!((em.message().usage.input, em.message().usage.output), (3, 7));
        }
    }

    #[tokio::test]
    async fn error_events_surface_their_data() {
        let (tx, _rx) = mpsc::channel(100);
        let mut em = Emitter::new(tx, &model());
        let data = r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
        let mut sse = SseStream::from_chunks(vec![format!("event: error\ndata: {data}\n\n").into_bytes()]);
        // The message is the event's data; the kind is the status its type stands for.
        assert_eq!(
            read_stream(&mut sse, &mut em).await,
            Err(ProviderError::of_kind(FailureKind::Reported(Some(529)), data))
        );
        let (tx, _rx) = mpsc::channel(100);
        let mut em = Emitter::new(tx, &model());
        let mut sse = SseStream::from_chunks(vec![b"event: error\ndata: not json\n\n".to_vec()]);
        assert_eq!(
            read_stream(&mut sse, &mut em).await,
            Err(ProviderError::of_kind(FailureKind::Reported(None), "not json"))
        );
        // A stream that stops before its stop reason was cut short.
        let (tx, _rx) = mpsc::channel(100);
        let mut em = Emitter::new(tx, &model());
        let mut sse = SseStream::from_chunks(vec![b"event: ping\ndata: {\"type\": \"ping\"}\n\n".to_vec()]);
        assert_eq!(
            read_stream(&mut sse, &mut em).await,
            Err(ProviderError::of_kind(FailureKind::StreamCut, text::ANTHROPIC_NO_STOP))
        );
    }

    #[tokio::test]
    async fn events_build_thinking_text_and_tool_calls() {
        let events = vec![
            json!({"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":2,"cache_creation_input_tokens":3}}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG"}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"hi"}}),
            json!({"type":"content_block_stop","index":1}),
            json!({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}),
            json!({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}),
            json!({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"f.txt\"}"}}),
            json!({"type":"content_block_stop","index":2}),
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}),
            json!({"type":"message_stop"}),
        ];
        let (tx, mut rx) = mpsc::channel(1000);
        let mut em = Emitter::new(tx, &model());
        let mut st = State::default();
        for e in &events {
            if handle_event(e, &mut st, &mut em).await.unwrap() {
                break;
            }
        }
        assert_eq!(st.stop, Some(StopReason::ToolUse));
        em.done(StopReason::ToolUse).await;
        drop(em);
        let mut last = None;
        let mut kinds = Vec::new();
        while let Some(e) = rx.recv().await {
            kinds.push(serde_json::to_value(&e).unwrap()["type"].as_str().unwrap().to_string());
            last = Some(e);
        }
        assert_eq!(
            kinds,
            [
                "thinking_start",
                "thinking_delta",
                "thinking_end",
                "text_start",
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
            vec![
                ContentBlock::Thinking { thinking: "hmm".into(), signature: Some("SIG".into()) },
                ContentBlock::text("hi"),
                ContentBlock::tool_call("toolu_1", "read", json!({"path":"f.txt"})),
            ]
        );
        assert_eq!(
            (m.usage.input, m.usage.output, m.usage.cache_read, m.usage.cache_write, m.usage.total_tokens),
            (10, 5, 2, 3, 20)
        );
        assert_eq!(m.response_id.as_deref(), Some("msg_1"));
        assert_eq!(m.raw_stop_reason.as_deref(), Some("tool_use"));
    }

    #[test]
    fn request_body_matches_the_reference_shape() {
        let ctx = Context {
            system_prompt: Some("sys".into()),
            messages: vec![
                Message::User(UserMessage::text("go")),
                Message::Assistant(AssistantMessage {
                    content: vec![
                        ContentBlock::Thinking { thinking: "t".into(), signature: Some("SIG".into()) },
                        ContentBlock::tool_call("call_0_0|fc_0", "read", json!({"path":"f.txt"})),
                    ],
                    api: "anthropic-messages".into(),
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
            tools: vec![Tool {
                name: "read".into(),
                description: "Read".into(),
                parameters: json!({"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}),
                constrained_sampling: None,
            }],
        };
        let mut m = model();
        m.reasoning = true;
        let opts = StreamOptions { reasoning: Some("high".into()), ..Default::default() };
        assert_eq!(
            request_body(&m, &ctx, &opts),
            json!({
                "model": "mock-1",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "go"}]},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "t", "signature": "SIG"},
                        {"type": "tool_use", "id": "call_0_0_fc_0", "name": "read", "input": {"path": "f.txt"}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "call_0_0_fc_0", "content": "", "is_error": false,
                         "cache_control": {"type": "ephemeral"}}
                    ]}
                ],
                "max_tokens": 16384,
                "stream": true,
                "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
                "tools": [{"name": "read", "description": "Read", "eager_input_streaming": true,
                    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
                    "cache_control": {"type": "ephemeral"}}],
                "thinking": {"type": "enabled", "budget_tokens": 15360, "display": "summarized"}
            })
        );
        let off = request_body(&m, &ctx, &StreamOptions::default());
        assert_eq!(off["thinking"], json!({"type": "disabled"}));
        let _ = AssistantMessageEvent::Start { partial: AssistantMessage::default().into() };
    }
}
