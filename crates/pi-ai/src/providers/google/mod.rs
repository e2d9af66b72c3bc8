//! Google's two wire APIs, one body and one stream format:
//! Generative AI (`google-generative-ai`, the Gemini API with an API key)
//! and Vertex AI (`google-vertex`, an API key or Application Default
//! Credentials). See `docs/providers.md`.

mod adc;
mod request;
mod stream;
mod thinking;
mod vertex;

use std::time::SystemTime;

use super::Prepared;
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::{Failure, FailureKind};
use crate::http::{self, SendError, SseStream};
use crate::model::{Model, StreamOptions};
use crate::types::{ContextRef, StopReason};

pub(crate) use stream::read_stream;

/// The Gemini API's default base URL.
pub(crate) const GENERATIVE_AI_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";
/// The header that carries an API key.
const API_KEY_HEADER: &str = "x-goog-api-key";
/// The client header the reference's SDK sends.
const API_CLIENT_HEADER: &str = "x-goog-api-client";
/// Its value (our client's name and version).
const API_CLIENT: &str = concat!("pi/", env!("CARGO_PKG_VERSION"));

/// `models/{id}:streamGenerateContent?alt=sse` (an id given as `models/…` is not doubled).
fn model_path(id: &str) -> String {
    format!("models/{}:streamGenerateContent?alt=sse", id.strip_prefix("models/").unwrap_or(id))
}

/// The request of `google-generative-ai`: `POST {baseUrl}/models/{id}:streamGenerateContent?alt=sse`.
pub(crate) fn prepare_generative(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let base = if model.base_url.is_empty() { GENERATIVE_AI_BASE_URL } else { &model.base_url };
    let url = http::join_url(base, &model_path(&model.id));
    let mut pairs: Vec<(&str, &str)> = vec![(API_CLIENT_HEADER, API_CLIENT)];
    if let Some(k) = &options.api_key {
        pairs.push((API_KEY_HEADER, k));
    }
    let headers = http::request_headers(pairs, model, options)?;
    Ok(Prepared { url, headers, body: request::request_body(model, context, options)? })
}

/// The request of `google-vertex` (its `Authorization` header, for
/// Application Default Credentials, is added by [`send_vertex`]).
pub(crate) fn prepare_vertex(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let key = vertex::api_key(options);
    let url = vertex::url(model, key.is_some(), &model_path(&model.id))?;
    let mut pairs: Vec<(&str, &str)> = vec![(API_CLIENT_HEADER, API_CLIENT)];
    if let Some(k) = key.as_deref() {
        pairs.push((API_KEY_HEADER, k));
    }
    let headers = http::request_headers(pairs, model, options)?;
    Ok(Prepared { url, headers, body: request::request_body(model, context, options)? })
}

/// Send a `google-generative-ai` request, streaming the answer into `em`.
pub(crate) async fn send_generative(request: Prepared, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut sse = open(request, em).await?;
    read_stream(&mut sse, em).await
}

/// Send a `google-vertex` request: with an access token from the
/// Application Default Credentials unless it carries an API key.
pub(crate) async fn send_vertex(
    mut request: Prepared,
    options: &StreamOptions,
    em: &mut Emitter,
) -> Result<StopReason, ProviderError> {
    if vertex::api_key(options).is_none() && !request.headers.contains_key("authorization") {
        let token = adc::access_token().await?;
        let bearer = format!("Bearer {token}");
        request.headers.extend(http::headers([("authorization", bearer.as_str())])?);
    }
    let mut sse = open(request, em).await?;
    read_stream(&mut sse, em).await
}

/// POST, and map an error answer to the reference's words with the wait it
/// asks for (`Retry-After`, else the body's `RetryInfo`).
async fn open(request: Prepared, em: &Emitter) -> Result<SseStream, ProviderError> {
    match http::post_sse(&request.url, request.headers, request.body).await {
        Ok(s) => {
            em.response(s.status, &s.headers).await;
            Ok(s)
        }
        Err(SendError::Status(e)) => {
            let retry_after = e.retry_after.or_else(|| stream::retry_info_delay(&e.body));
            let failure = Failure { kind: FailureKind::Status(e.status), retry_after };
            Err(ProviderError::Failed(stream::http_error_message(&e), failure))
        }
        Err(SendError::Other(e)) => Err(e),
    }
}

/// Seconds since the epoch (for token lifetimes).
fn unix_now() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[cfg(test)]
mod tests;
