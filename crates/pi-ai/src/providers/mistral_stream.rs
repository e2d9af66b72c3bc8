//! Reading Mistral's stream: `data:` chunks `{id, choices: [{delta:
//! {content, tool_calls}, finish_reason}], usage?}`, then `data: [DONE]`.
//! `content` is a string or a list of chunks (`text`, and `thinking` with its
//! own list of text chunks); a tool call comes whole or in pieces keyed by
//! its `index`, with arguments as text or as a JSON object. Each event is
//! handled as it comes, so reading takes time and memory in proportion to
//! the stream.

use std::collections::HashMap;

use serde_json::Value;

use super::final_reason;
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::http::SseStream;
use crate::json_args;
use crate::text;
use crate::types::{StopReason, Usage};

/// What the stream has opened so far.
#[derive(Default)]
pub(crate) struct State {
    /// The open text or thinking block: (is thinking, content index).
    current: Option<(bool, usize)>,
    /// Tool-call blocks by their key (see [`call_key`]).
    tools: HashMap<String, usize>,
    /// The finish reason, once a chunk gave one.
    finish: Option<String>,
}

/// Read the events of a 2xx answer into `em`.
pub(crate) async fn read_stream(sse: &mut SseStream, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut st = State::default();
    while let Some(ev) = sse.next().await {
        let ev = ev.map_err(cut_in_mistral_words)?;
        let data = ev.data.trim();
        if data == "[DONE]" {
            break;
        }
        if data.is_empty() {
            continue;
        }
        let chunk = parse(data)?;
        em.raw(&chunk).await;
        handle_chunk(&chunk, &mut st, em).await?;
    }
    finish(st, em).await
}

/// A dropped connection in the reference's Mistral wording.
fn cut_in_mistral_words(e: ProviderError) -> ProviderError {
    match e {
        ProviderError::Failed(_, failure) if failure.kind == FailureKind::StreamCut => {
            ProviderError::Failed(text::MISTRAL_STREAM_CUT.to_string(), failure)
        }
        other => other,
    }
}

/// An event's JSON; when it is not JSON, `JSON.parse`'s words for why.
fn parse(data: &str) -> Result<Value, ProviderError> {
    serde_json::from_str(data).map_err(|_| {
        let message = json_args::parse_strict(data)
            .err()
            .map_or_else(|| text::MISTRAL_INVALID_EVENT.to_string(), |j| j.to_string());
        ProviderError::failed(message)
    })
}

fn invalid() -> ProviderError {
    ProviderError::failed(text::MISTRAL_INVALID_EVENT)
}

/// Handle one chunk.
pub(crate) async fn handle_chunk(chunk: &Value, st: &mut State, em: &mut Emitter) -> Result<(), ProviderError> {
    let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
        return Err(invalid());
    };
    if let Some(id) = chunk.get("id").and_then(Value::as_str) {
        em.set_response_id(id, true);
    }
    if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
        em.set_usage(parse_usage(u));
    }
    let Some(choice) = choices.first() else {
        return Ok(());
    };
    let delta = choice.get("delta").unwrap_or(&Value::Null);
    match delta.get("content").unwrap_or(&Value::Null) {
        Value::Null => {}
        Value::String(s) => append(st, em, false, s).await?,
        Value::Array(items) => {
            for item in items {
                content_chunk(item, st, em).await?;
            }
        }
        _ => return Err(invalid()),
    }
    match delta.get("tool_calls").unwrap_or(&Value::Null) {
        Value::Null => {}
        Value::Array(calls) => {
            for (position, call) in calls.iter().enumerate() {
                tool_call(call, position as u64, st, em).await?;
            }
        }
        _ => return Err(invalid()),
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        st.finish = Some(reason.to_string());
    }
    Ok(())
}

/// One item of a `content` list.
async fn content_chunk(item: &Value, st: &mut State, em: &mut Emitter) -> Result<(), ProviderError> {
    match item.get("type").and_then(Value::as_str) {
        Some("text") => append(st, em, false, item.get("text").and_then(Value::as_str).unwrap_or("")).await,
        Some("thinking") => match item.get("thinking").unwrap_or(&Value::Null) {
            Value::String(s) => append(st, em, true, s).await,
            Value::Array(parts) => {
                for p in parts {
                    append(st, em, true, p.get("text").and_then(Value::as_str).unwrap_or("")).await?;
                }
                Ok(())
            }
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Add text or thinking: to the open block of that kind, else to a new one
/// (the open block of the other kind ends first).
async fn append(st: &mut State, em: &mut Emitter, thinking: bool, delta: &str) -> Result<(), ProviderError> {
    if delta.is_empty() {
        return Ok(());
    }
    let i = match st.current {
        Some((kind, i)) if kind == thinking => i,
        _ => {
            close_current(st, em).await?;
            let i = if thinking { em.thinking_start(None).await? } else { em.text_start().await? };
            st.current = Some((thinking, i));
            i
        }
    };
    if thinking { em.thinking_delta(i, delta).await } else { em.text_delta(i, delta).await }
}

async fn close_current(st: &mut State, em: &mut Emitter) -> Result<(), ProviderError> {
    if let Some((_, i)) = st.current.take() {
        em.end(i).await?;
    }
    Ok(())
}

/// The id a piece names (`"null"` names none).
fn named_id(call: &Value) -> Option<&str> {
    call.get("id").and_then(Value::as_str).filter(|id| !id.is_empty() && *id != "null")
}

/// Which call a piece belongs to, as the reference tells them apart: its
/// `index` when it has one (pieces with the same index are one call, whatever
/// their ids), else its id, else its place in the chunk's list.
fn call_key(call: &Value, position: u64) -> String {
    match (call.get("index").and_then(Value::as_u64), named_id(call)) {
        (Some(index), _) => format!("index:{index}"),
        (None, Some(id)) => format!("id:{id}"),
        (None, None) => format!("position:{position}"),
    }
}

/// One tool call piece: a new call for a key not seen yet, else more
/// arguments for that call.
async fn tool_call(call: &Value, position: u64, st: &mut State, em: &mut Emitter) -> Result<(), ProviderError> {
    let key = call_key(call, position);
    let function = call.get("function").unwrap_or(&Value::Null);
    let i = match st.tools.get(&key) {
        Some(&i) => i,
        None => {
            close_current(st, em).await?;
            let id = named_id(call).map_or_else(|| super::mistral_ids::normalize(&key), str::to_string);
            let name = function.get("name").and_then(Value::as_str).unwrap_or("");
            let i = em.toolcall_start(&id, name).await?;
            st.tools.insert(key, i);
            i
        }
    };
    match function.get("arguments").unwrap_or(&Value::Null) {
        Value::Null => Ok(()),
        Value::String(s) => em.toolcall_delta(i, s).await,
        other => em.toolcall_delta(i, &other.to_string()).await,
    }
}

/// The end of the stream: close the open text or thinking block, then the
/// tool calls, and map the finish reason.
async fn finish(mut st: State, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let Some(reason) = st.finish.take() else {
        return Err(ProviderError::of_kind(FailureKind::StreamCut, text::MISTRAL_NO_FINISH));
    };
    close_current(&mut st, em).await?;
    em.end_all().await?;
    em.set_raw_stop_reason(&reason);
    let stop = match reason.as_str() {
        "stop" => StopReason::Stop,
        "length" | "model_length" => StopReason::Length,
        "tool_calls" => StopReason::ToolUse,
        "error" => {
            return Err(ProviderError::of_kind(FailureKind::Reported(Some(500)), text::mistral_stopped(&reason)));
        }
        other => return Err(ProviderError::of_kind(FailureKind::Reported(None), text::mistral_stopped(other))),
    };
    Ok(final_reason(em, stop))
}

/// Mistral's usage: `prompt_tokens` (cached ones included, in
/// `prompt_tokens_details.cached_tokens`) and `completion_tokens`.
fn parse_usage(u: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let prompt = n(u.get("prompt_tokens"));
    let cached = n(u.pointer("/prompt_tokens_details/cached_tokens"));
    Usage {
        input: prompt.saturating_sub(cached),
        output: n(u.get("completion_tokens")),
        cache_read: cached,
        ..Default::default()
    }
}

#[cfg(test)]
#[path = "mistral_stream_tests.rs"]
mod tests;
