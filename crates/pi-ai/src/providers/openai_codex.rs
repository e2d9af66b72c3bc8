//! OpenAI Codex Responses: the Responses API of a ChatGPT subscription
//! (`POST {baseUrl}/codex/responses`, SSE). The conversation is written as
//! for [`super::openai_responses`] and the stream read by its parser; what
//! differs is the endpoint, the account headers, a few body fields, a
//! zstd-compressed body and how errors read.

use serde_json::{Value, json};

use super::{ArrayWriter, ObjectWriter, Prepared, final_reason, max_tokens, open_stream, openai_effort};
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::{Failure, FailureKind};
use crate::http::{self, HttpStatusError, SseStream};
use crate::model::{Model, StreamOptions};
use crate::providers::openai_responses;
use crate::text::codex as text;
use crate::types::{ContextRef, StopReason};

/// Where the Codex backend lives when the model names no base URL.
pub const DEFAULT_BASE_URL: &str = "https://chatgpt.com/backend-api";
/// The path appended to the base URL (unless it already ends with it).
const RESPONSES_PATH: &str = "codex/responses";
/// The JWT claim that holds the ChatGPT account.
const AUTH_CLAIM: &str = "https://api.openai.com/auth";
/// The account id inside [`AUTH_CLAIM`].
const ACCOUNT_ID_FIELD: &str = "chatgpt_account_id";
/// `OpenAI-Beta` of a streamed (SSE) request.
const OPENAI_BETA: &str = "responses=experimental";
/// The `originator` header the backend expects on every request.
const ORIGINATOR: &str = "pi";
/// The backend refuses `max_output_tokens` below this.
const MIN_OUTPUT_TOKENS: u64 = 16;
/// The zstd level of request bodies (about zstd's level 1).
const ZSTD_LEVEL: ruzstd::encoding::CompressionLevel = ruzstd::encoding::CompressionLevel::Fastest;
/// The text verbosity asked for.
const TEXT_VERBOSITY: &str = "low";

/// The URL to POST to: `{baseUrl}/codex/responses` (a base URL ending in
/// `/codex` or `/codex/responses` is completed, not doubled).
pub(crate) fn url(base_url: &str) -> String {
    let base = if base_url.trim().is_empty() { DEFAULT_BASE_URL } else { base_url };
    let base = base.trim_end_matches('/');
    if base.ends_with("/codex/responses") {
        base.to_string()
    } else if base.ends_with("/codex") {
        http::join_url(base, "responses")
    } else {
        http::join_url(base, RESPONSES_PATH)
    }
}

/// The ChatGPT account id in an access token (a JWT): the
/// `chatgpt_account_id` of its `https://api.openai.com/auth` claim.
pub fn account_id(token: &str) -> Option<String> {
    use base64::Engine;
    let mut parts = token.split('.');
    let (Some(_), Some(payload), Some(_), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    let payload = payload.trim_end_matches('=');
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(payload))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    let id = claims.get(AUTH_CLAIM)?.get(ACCOUNT_ID_FIELD)?.as_str()?;
    (!id.is_empty()).then(|| id.to_string())
}

/// The request body, in the reference's key order.
pub(crate) fn request_body(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<super::RequestBody, ProviderError> {
    let mut body = ObjectWriter::to(&options.body_sink);
    body.field("model", &model.id)?;
    body.field("store", &false)?;
    body.field("stream", &true)?;
    body.array("input", |out: &mut ArrayWriter<'_>| openai_responses::write_input(model, context, out))?;
    body.field("text", &json!({"verbosity": TEXT_VERBOSITY}))?;
    body.field("include", &json!(["reasoning.encrypted_content"]))?;
    if let Some(sid) = &options.session_id {
        body.field("prompt_cache_key", sid)?;
    }
    body.field("tool_choice", &"auto")?;
    body.field("parallel_tool_calls", &true)?;
    body.field("max_output_tokens", &max_tokens(model, options).max(MIN_OUTPUT_TOKENS))?;
    if !context.tools.is_empty() {
        // Codex has a strict mode unless the model's compat says otherwise.
        let strict = model.compat.supports_strict_mode.unwrap_or(true);
        body.array("tools", |out| openai_responses::write_tools(context, strict, out))?;
    }
    if model.reasoning {
        let effort = options.thinking_level().map_or("none", openai_effort);
        body.field("reasoning", &json!({"effort": effort, "summary": "auto"}))?;
    }
    Ok(body.finish())
}

/// The request: URL, headers and body. Fails without a key, or with a key
/// that carries no ChatGPT account.
pub(crate) fn prepare(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let Some(token) = options.api_key.as_deref().filter(|k| !k.is_empty()) else {
        return Err(ProviderError::failed(text::no_api_key(&model.provider)));
    };
    let account = account_id(token).ok_or_else(|| ProviderError::failed(text::NO_ACCOUNT_ID))?;
    // The model's and the call's headers may replace `originator` (and the
    // user agent); the account, auth and stream headers are always pi's.
    let mut headers = http::request_headers(vec![("originator", ORIGINATOR)], model, options)?;
    let auth = format!("Bearer {token}");
    let mut fixed: Vec<(&str, &str)> = vec![
        ("authorization", &auth),
        ("chatgpt-account-id", &account),
        ("openai-beta", OPENAI_BETA),
        ("accept", "text/event-stream"),
        ("content-type", "application/json"),
    ];
    if let Some(sid) = &options.session_id {
        fixed.push(("session-id", sid));
        fixed.push(("x-client-request-id", sid));
    }
    headers.extend(http::headers(fixed)?);
    Ok(Prepared { url: url(&model.base_url), headers, body: request_body(model, context, options)? })
}

/// The body zstd-compressed (`content-encoding: zstd`), as the Codex
/// clients send it.
fn compressed(mut request: Prepared) -> Prepared {
    if let Ok(encoding) = http::headers([("content-encoding", "zstd")]) {
        request.body = ruzstd::encoding::compress_to_vec(request.body.to_vec().as_slice(), ZSTD_LEVEL).into();
        request.headers.extend(encoding);
    }
    request
}

/// Send a prepared request (after the hooks saw its JSON), streaming the
/// answer into `em`.
pub(crate) async fn send(request: Prepared, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let request = compressed(request);
    let mut usage_limit = false;
    let opened = open_stream(request, em, |e| {
        let (message, limited) = http_error(e, now_secs());
        usage_limit = limited;
        message
    })
    .await;
    let mut sse = match opened {
        Ok(s) => s,
        // A usage limit is not retried (it resets in hours, not seconds).
        Err(ProviderError::Failed(message, failure)) if usage_limit => {
            return Err(ProviderError::Failed(message, Failure { kind: FailureKind::Other, ..failure }));
        }
        Err(e) => return Err(e),
    };
    em.start().await?;
    read_stream(&mut sse, em).await
}

/// Read the events of a 2xx answer: Codex's own error events and its
/// `response.done` here, everything else by the Responses parser.
pub(crate) async fn read_stream(sse: &mut SseStream, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut state = openai_responses::State::default();
    while let Some(ev) = sse.next().await {
        let ev = ev?;
        let data = ev.data.trim();
        if data.is_empty() || data == "[DONE]" {
            continue;
        }
        let mut data: Value =
            serde_json::from_str(data).map_err(|_| ProviderError::failed(crate::text::MALFORMED_EVENT))?;
        em.raw(&data).await;
        match data.get("type").and_then(Value::as_str).unwrap_or("") {
            "error" => return Err(stream_error(&data)),
            "response.failed" => {
                let err = data.pointer("/response/error").cloned().unwrap_or(Value::Null);
                let message = err.get("message").and_then(Value::as_str).filter(|m| !m.is_empty());
                return Err(super::reported(message.unwrap_or(text::RESPONSE_FAILED), &err));
            }
            "response.done" => data["type"] = "response.completed".into(),
            _ => {}
        }
        if let Some(reason) = openai_responses::handle_event(&data, &mut state, em).await? {
            em.end_all().await?;
            return Ok(final_reason(em, reason));
        }
    }
    Err(ProviderError::of_kind(FailureKind::StreamCut, crate::text::RESPONSES_NO_TERMINAL))
}

/// An `error` event: `Codex error: <message, else code, else the event>`.
fn stream_error(data: &Value) -> ProviderError {
    let field = |k: &str| {
        data.get(k)
            .and_then(Value::as_str)
            .or_else(|| data.get("error").and_then(|e| e.get(k)).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let what = field("message").or_else(|| field("code")).unwrap_or_else(|| data.to_string());
    let err = data.get("error").filter(|e| e.is_object()).unwrap_or(data);
    super::reported(text::stream_error(&what), err)
}

/// Seconds since the Unix epoch.
fn now_secs() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// Whether a JSON value counts as present (not `null`, `false`, `0` or `""`).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// The message of an HTTP error answer, and whether it is a usage limit:
/// a JSON `error` whose `code` (or `type`) names a usage or rate limit, or
/// any 429, reads `You have hit your ChatGPT usage limit (<plan> plan).
/// Try again in ~<n> min.`; otherwise the error's `message`, else the body.
pub(crate) fn http_error(e: &HttpStatusError, now_secs: f64) -> (String, bool) {
    let fallback = if e.body.is_empty() {
        let reason = reqwest::StatusCode::from_u16(e.status).ok().and_then(|s| s.canonical_reason());
        reason.unwrap_or(text::REQUEST_FAILED).to_string()
    } else {
        http::clip(&e.body)
    };
    let Ok(parsed) = serde_json::from_str::<Value>(&e.body) else {
        return (fallback, false);
    };
    let Some(err) = parsed.get("error").filter(|v| truthy(v)) else {
        return (fallback, false);
    };
    let code = ["code", "type"]
        .iter()
        .find_map(|k| err.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()))
        .unwrap_or("")
        .to_ascii_lowercase();
    let limited = e.status == 429 || text::USAGE_LIMIT_CODES.iter().any(|c| code.contains(c));
    if limited {
        let plan = err.get("plan_type").and_then(Value::as_str).filter(|p| !p.is_empty());
        let minutes = err
            .get("resets_at")
            .and_then(Value::as_f64)
            .filter(|r| *r != 0.0)
            .map(|r| ((r - now_secs) / 60.0).round().max(0.0) as u64);
        return (text::usage_limit(plan, minutes), true);
    }
    let message = err.get("message").and_then(Value::as_str).filter(|m| !m.is_empty());
    (message.map_or(fallback, http::clip), false)
}

#[cfg(test)]
#[path = "openai_codex_tests.rs"]
mod tests;
