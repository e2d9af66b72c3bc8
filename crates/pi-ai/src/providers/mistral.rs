//! Mistral (`mistral-conversations`): `POST {baseUrl}/v1/chat/completions`
//! with Mistral's own message shapes, streamed as server-sent events (read
//! by [`super::mistral_stream`]).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::{
    ArrayWriter, ObjectWriter, Prepared, data_url, max_tokens, messages_to_send, mistral_ids, open_stream,
    tool_result_parts, user_blocks,
};
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::http;
use crate::model::{Model, StreamOptions};
use crate::text;
use crate::types::{AssistantMessage, ContentBlock, ContextRef, Message, StopReason, ToolResultMessage, UserContent};

/// Where Mistral's API lives when the model names no base URL.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.mistral.ai";
/// The path appended to the base URL.
const CHAT_PATH: &str = "v1/chat/completions";
/// The header that carries the session id (for the server's cache affinity).
const AFFINITY_HEADER: &str = "x-affinity";
/// Thinking levels from the least to the most; an unsupported one becomes
/// the next supported one above it, else the nearest below.
const LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// The request: URL, headers and body.
pub(crate) fn prepare(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let base = if model.base_url.is_empty() { DEFAULT_BASE_URL } else { &model.base_url };
    let url = http::join_url(base, CHAT_PATH);
    let auth = options.api_key.as_ref().map(|k| format!("Bearer {k}"));
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    if let Some(a) = &auth {
        pairs.push(("authorization", a));
    }
    if let Some(sid) = &options.session_id {
        pairs.push((AFFINITY_HEADER, sid));
    }
    let headers = http::request_headers(pairs, model, options)?;
    Ok(Prepared { url, headers, body: request_body(model, context, options)? })
}

/// Send a prepared request, streaming the answer into `em`. Mistral's
/// errors carry no wait: a `Retry-After` is not passed on (as in the
/// reference, whose retry waits its own delay).
pub(crate) async fn send(request: Prepared, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let opened = open_stream(request, em, http_error).await;
    let mut sse = opened.map_err(|e| match e {
        ProviderError::Failed(message, mut failure) => {
            failure.retry_after = None;
            ProviderError::Failed(message, failure)
        }
        other => other,
    })?;
    em.start().await?;
    super::mistral_stream::read_stream(&mut sse, em).await
}

/// An HTTP error in the reference's words: the body as sent, or the
/// status's reason phrase when the body is empty.
fn http_error(e: &http::HttpStatusError) -> String {
    if e.body.is_empty() {
        let reason = reqwest::StatusCode::from_u16(e.status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
        return text::mistral_http_error(e.status, reason);
    }
    text::mistral_http_error(e.status, &http::clip(&e.body))
}

/// The request body: `{model, stream, messages, tools?, max_tokens,
/// reasoning_effort? | prompt_mode?, prompt_cache_key?}`.
pub(crate) fn request_body(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<super::RequestBody, ProviderError> {
    let mut body = ObjectWriter::to(&options.body_sink);
    body.field("model", &model.id)?;
    body.field("stream", &true)?;
    body.array("messages", |out| write_messages(model, context, out))?;
    if !context.tools.is_empty() {
        let strict = model.compat.supports_strict_mode == Some(true);
        body.array("tools", |out| {
            for t in context.tools {
                let mut function = super::body::function_tool(t, strict)?;
                if let Value::Object(f) = &mut function {
                    f.entry("strict").or_insert(Value::Bool(false));
                }
                out.push(&json!({"type": "function", "function": function}))?;
            }
            Ok(())
        })?;
    }
    body.field("max_tokens", &max_tokens(model, options))?;
    match reasoning(model, options) {
        Some(Reasoning::Effort(effort)) => body.field("reasoning_effort", &effort)?,
        Some(Reasoning::PromptMode) => body.field("prompt_mode", &"reasoning")?,
        None => {}
    }
    if let Some(sid) = &options.session_id {
        body.field("prompt_cache_key", sid)?;
    }
    Ok(body.finish())
}

/// How a reasoning model is asked to think.
#[derive(Debug, PartialEq)]
enum Reasoning {
    /// `reasoning_effort`: the model's `thinkingLevelMap` value for the level.
    Effort(String),
    /// `prompt_mode: "reasoning"`: a reasoning model without a level map, thinking on.
    PromptMode,
}

fn reasoning(model: &Model, options: &StreamOptions) -> Option<Reasoning> {
    if !model.reasoning {
        return None;
    }
    let level = options.thinking_level().unwrap_or("off");
    if model.thinking_level_map.is_empty() {
        return (level != "off").then_some(Reasoning::PromptMode);
    }
    let value = |l: &str| match model.thinking_level_map.get(l) {
        Some(v) => v.clone(),
        None if l == "off" => Some("none".to_string()),
        None => Some(l.to_string()),
    };
    let at = LEVELS.iter().position(|l| *l == level).unwrap_or(LEVELS.len() - 1);
    let above = LEVELS[at..].iter();
    let below = LEVELS[..at].iter().rev();
    above.chain(below).find_map(|l| value(l)).map(Reasoning::Effort)
}

/// The `messages` array: the system prompt, then the conversation.
fn write_messages(model: &Model, context: &ContextRef<'_>, out: &mut ArrayWriter<'_>) -> Result<(), ProviderError> {
    let images_ok = model.supports_images();
    if let Some(sp) = context.system_prompt {
        out.push(&json!({"role": "system", "content": sp}))?;
    }
    // The ids sent for tool calls of other models, so their results follow.
    let mut ids: HashMap<&str, String> = HashMap::new();
    for &m in messages_to_send(context).iter() {
        match m {
            Message::User(u) => {
                let parts: Vec<Value> = match &u.content {
                    UserContent::Text(t) => vec![json!({"type": "text", "text": t})],
                    UserContent::Blocks(b) => {
                        user_blocks(b, images_ok).iter().filter_map(|b| part(b, images_ok)).collect()
                    }
                };
                if !parts.is_empty() {
                    out.push(&json!({"role": "user", "content": parts}))?;
                }
            }
            Message::Assistant(a) => {
                if let Some(item) = assistant(model, a, &mut ids) {
                    out.push(&item)?;
                }
            }
            Message::ToolResult(r) => {
                let id = ids.get(r.tool_call_id.as_str()).map_or(r.tool_call_id.as_str(), String::as_str);
                out.push(&tool_result(r, id, images_ok))?;
            }
        }
    }
    Ok(())
}

/// A user content part: text, or an image as a data URL.
fn part(b: &ContentBlock, images_ok: bool) -> Option<Value> {
    match b {
        ContentBlock::Text { text } => Some(json!({"type": "text", "text": text})),
        ContentBlock::Image { data, mime_type } if images_ok => {
            Some(json!({"type": "image_url", "image_url": data_url(data, mime_type)}))
        }
        _ => None,
    }
}

/// An assistant message: its thinking (only when it came from this very
/// model) and text as content chunks, its tool calls with Mistral ids
/// (those of another model made into Mistral's form, noted in `ids`).
/// `None` when nothing is left to send.
fn assistant<'a>(model: &Model, a: &'a AssistantMessage, ids: &mut HashMap<&'a str, String>) -> Option<Value> {
    let same_model = *a.provider == *model.provider && *a.api == *model.api && *a.model == *model.id;
    let mut content = Vec::new();
    let mut calls = Vec::new();
    for b in &a.content {
        match b {
            ContentBlock::Thinking { thinking, .. } if same_model && !thinking.is_empty() => {
                content.push(json!({"type": "thinking", "thinking": [{"type": "text", "text": thinking}]}));
            }
            ContentBlock::Text { text } if !text.is_empty() => content.push(json!({"type": "text", "text": text})),
            ContentBlock::ToolCall(call) => {
                let crate::ToolCallBlock { id, name, arguments, .. } = &**call;
                let sent = if same_model { id.clone() } else { mistral_ids::normalize(id) };
                ids.insert(id.as_str(), sent.clone());
                calls.push(json!({
                    "id": sent,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()},
                    "index": 0,
                }));
            }
            _ => {}
        }
    }
    if content.is_empty() && calls.is_empty() {
        return None;
    }
    let mut item = Map::new();
    item.insert("role".into(), "assistant".into());
    item.insert("prefix".into(), false.into());
    if !content.is_empty() {
        item.insert("content".into(), content.into());
    }
    if !calls.is_empty() {
        item.insert("tool_calls".into(), calls.into());
    }
    Some(Value::Object(item))
}

/// A tool result: its text trimmed ([`text::NO_TOOL_OUTPUT`] when nothing
/// is left, [`text::MISTRAL_TOOL_ERROR_PREFIX`] before a failure's), then
/// its images.
fn tool_result(r: &ToolResultMessage, id: &str, images_ok: bool) -> Value {
    let (joined, images) = tool_result_parts(r, images_ok);
    let trimmed = joined.trim();
    let body = if trimmed.is_empty() { text::NO_TOOL_OUTPUT } else { trimmed };
    let text = if r.is_error { format!("{}{body}", text::MISTRAL_TOOL_ERROR_PREFIX) } else { body.to_string() };
    let mut parts = vec![json!({"type": "text", "text": text})];
    parts.extend(images.iter().map(|(d, m)| json!({"type": "image_url", "image_url": data_url(d, m)})));
    json!({"role": "tool", "name": r.tool_name, "content": parts, "tool_call_id": id})
}

#[cfg(test)]
#[path = "mistral_tests.rs"]
mod tests;
