//! Reading a Gemini stream: server-sent events whose data is a
//! `GenerateContentResponse` chunk (`candidates[0].content.parts`,
//! `finishReason`, `usageMetadata`), or `{"error": {…}}`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::emitter::{BlockKind, Emitter};
use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::http::{HttpStatusError, SseStream, clip};
use crate::json_args;
use crate::providers::{final_reason, reported};
use crate::text::google as text;
use crate::types::{StopReason, Usage, now_ms};

/// Tool-call ids made for calls the server sent without one.
static CALLS_WITHOUT_ID: AtomicU64 = AtomicU64::new(0);

/// An id for a call the server sent without one: `<name>_<ms>_<n>`.
fn new_call_id(name: &str) -> String {
    let n = CALLS_WITHOUT_ID.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{name}_{}_{n}", now_ms())
}

/// The stop reason of a `finishReason`; any other than these two fails the request.
fn stop_reason(finish: &str) -> Option<StopReason> {
    match finish {
        "STOP" => Some(StopReason::Stop),
        "MAX_TOKENS" => Some(StopReason::Length),
        _ => None,
    }
}

/// Read the events of a 2xx answer into `em`.
pub(crate) async fn read_stream(sse: &mut SseStream, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut finish: Option<String> = None;
    while let Some(ev) = sse.next().await {
        let ev = ev?;
        if ev.data.trim().is_empty() {
            continue;
        }
        let chunk: Value = match serde_json::from_str(&ev.data) {
            Ok(v) => v,
            Err(e) => {
                // In `JSON.parse`'s words, as the reference reports it (serde's
                // own for what JavaScript would accept, such as a lone surrogate).
                let message = json_args::parse_strict(&ev.data).err().map_or_else(|| e.to_string(), |j| j.to_string());
                return Err(ProviderError::failed(message));
            }
        };
        em.raw(&chunk).await;
        if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
            let status = err.get("status").and_then(Value::as_str).unwrap_or("UNKNOWN");
            return Err(reported(text::stream_error(status, &chunk.to_string()), err));
        }
        em.start().await?;
        if let Some(reason) = handle_chunk(&chunk, em).await? {
            finish = Some(reason);
        }
    }
    let Some(finish) = finish else {
        return Err(ProviderError::of_kind(FailureKind::StreamCut, text::NO_FINISH_REASON));
    };
    em.end_all().await?;
    match stop_reason(&finish) {
        Some(reason) => Ok(final_reason(em, reason)),
        None => Err(ProviderError::of_kind(FailureKind::Reported(None), format!("{}{finish}", text::PROVIDER_STOPPED))),
    }
}

/// Apply one chunk; its `finishReason` when it has one.
async fn handle_chunk(chunk: &Value, em: &mut Emitter) -> Result<Option<String>, ProviderError> {
    if let Some(id) = chunk.get("responseId").and_then(Value::as_str) {
        em.set_response_id(id, false);
    }
    let candidate = chunk.pointer("/candidates/0");
    let parts = candidate.and_then(|c| c.pointer("/content/parts")).and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        handle_part(part, em).await?;
    }
    if let Some(u) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
        em.set_usage(usage(u));
    }
    let finish = candidate.and_then(|c| c.get("finishReason")).and_then(Value::as_str);
    if let Some(f) = finish {
        em.set_raw_stop_reason(f);
    }
    Ok(finish.map(str::to_string))
}

/// Usage from `usageMetadata`: cached prompt tokens apart, thoughts counted as output.
fn usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cachedContentTokenCount");
    let thoughts = n("thoughtsTokenCount");
    Usage {
        input: n("promptTokenCount").saturating_sub(cached),
        output: n("candidatesTokenCount").saturating_add(thoughts),
        cache_read: cached,
        reasoning: Some(thoughts),
        ..Default::default()
    }
}

/// One part: text and thought text extend the open block of their kind (a
/// new one starts when the kind changes); a function call is a whole tool call.
async fn handle_part(part: &Value, em: &mut Emitter) -> Result<(), ProviderError> {
    let signature = part.get("thoughtSignature").and_then(Value::as_str).filter(|s| !s.is_empty());
    if let Some(call) = part.get("functionCall").filter(|c| c.is_object()) {
        close_open(em).await?;
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let id = match call.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            Some(id) => id.to_string(),
            None => new_call_id(name),
        };
        let i = em.toolcall_start(&id, name).await?;
        let args = match call.get("args") {
            Some(a) if !a.is_null() => a.to_string(),
            _ => "{}".to_string(),
        };
        em.toolcall_delta(i, &args).await?;
        if let Some(sig) = signature {
            em.toolcall_signature(i, sig);
        }
        return em.end(i).await;
    }
    let Some(text) = part.get("text").and_then(Value::as_str) else {
        return Ok(());
    };
    if part.get("thought").and_then(Value::as_bool) == Some(true) {
        let i = match em.open_last(BlockKind::Thinking) {
            Some(i) => i,
            None => {
                close_open(em).await?;
                em.thinking_start(None).await?
            }
        };
        em.thinking_delta(i, text).await?;
        if let Some(sig) = signature {
            em.thinking_signature(i, sig, false);
        }
    } else if !text.is_empty() {
        let i = match em.open_last(BlockKind::Text) {
            Some(i) => i,
            None => {
                close_open(em).await?;
                em.text_start().await?
            }
        };
        em.text_delta(i, text).await?;
    }
    Ok(())
}

/// Close the last block if it is still open.
async fn close_open(em: &mut Emitter) -> Result<(), ProviderError> {
    for kind in [BlockKind::Text, BlockKind::Thinking] {
        if let Some(i) = em.open_last(kind) {
            em.end(i).await?;
        }
    }
    Ok(())
}

/// The words of an HTTP error answer: a JSON body as JSON (compact), any
/// other body wrapped as `{"error":{"message":…,"code":…,"status":…}}` with
/// the status's reason phrase, as the reference shows them.
pub(crate) fn http_error_message(e: &HttpStatusError) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(&e.body) {
        return clip(&v.to_string());
    }
    let reason = reqwest::StatusCode::from_u16(e.status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
    let wrapped = serde_json::json!({"error": {"message": clip(&e.body), "code": e.status, "status": reason}});
    wrapped.to_string()
}

/// The wait an error body asks for in its `RetryInfo` detail (`"retryDelay": "2.5s"`).
pub(crate) fn retry_info_delay(body: &str) -> Option<Duration> {
    let v: Value = serde_json::from_str(body).ok()?;
    let details = v.pointer("/error/details")?.as_array()?;
    details.iter().find_map(|d| {
        let is_retry_info = d.get("@type").and_then(Value::as_str).is_some_and(|t| t.ends_with("google.rpc.RetryInfo"));
        let delay = d.get("retryDelay").and_then(Value::as_str)?;
        let seconds: f64 = delay.strip_suffix('s')?.trim().parse().ok()?;
        (is_retry_info && seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(1e9)))
    })
}
