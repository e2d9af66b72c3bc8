//! The token requests' HTTP: a JSON or form POST whose answer is a JSON object.

use std::sync::OnceLock;

use serde_json::Value;

use crate::error::ClientError;

use super::{ANSWER_LIMIT, ERROR_BODY_LIMIT, OAuthError, TOKEN_REQUEST_TIMEOUT};

static CLIENT: OnceLock<Result<reqwest::Client, ClientError>> = OnceLock::new();

fn client() -> Result<&'static reqwest::Client, ClientError> {
    CLIENT
        .get_or_init(|| {
            let _ = rustls::crypto::ring::default_provider().install_default();
            reqwest::Client::builder().timeout(TOKEN_REQUEST_TIMEOUT).build().map_err(ClientError::from)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// How the body is sent.
pub(crate) enum Body<'a> {
    /// `application/json`.
    Json(&'a Value),
    /// `application/x-www-form-urlencoded`.
    Form(&'a [(&'a str, &'a str)]),
}

/// POST to `url` (already resolved) and read the JSON object it answers.
pub(crate) async fn post(what: &str, url: &str, body: Body<'_>, headers: &[(&str, &str)]) -> Result<Value, OAuthError> {
    let request_failed = |message: String| OAuthError::Request { what: what.into(), url: url.into(), message };
    let client = client().map_err(|e| request_failed(e.to_string()))?;
    let mut request = client.post(url).header("accept", "application/json");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let request = match body {
        Body::Json(v) => request.header("content-type", "application/json").body(v.to_string()),
        Body::Form(pairs) => {
            let text = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
            request.header("content-type", "application/x-www-form-urlencoded").body(text)
        }
    };
    answer(what, url, request.send().await.map_err(|e| request_failed(e.to_string()))?).await
}

/// The JSON object of a 2xx answer, or the error it is.
async fn answer(what: &str, url: &str, response: reqwest::Response) -> Result<Value, OAuthError> {
    let request_failed = |message: String| OAuthError::Request { what: what.into(), url: url.into(), message };
    let status = response.status();
    let mut response = response;
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| request_failed(e.to_string()))? {
        if bytes.len() + chunk.len() > ANSWER_LIMIT {
            return Err(OAuthError::BadAnswer { what: what.into(), message: "the answer is too large".into() });
        }
        bytes.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes);
        let body: String = text.chars().take(ERROR_BODY_LIMIT).collect();
        return Err(OAuthError::Status { what: what.into(), url: url.into(), status: status.as_u16(), body });
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v @ Value::Object(_)) => Ok(v),
        _ => Err(OAuthError::BadAnswer { what: what.into(), message: "expected a JSON object".into() }),
    }
}

/// A string field of an answer.
pub(crate) fn text_field(what: &str, answer: &Value, name: &str) -> Result<String, OAuthError> {
    answer
        .get(name)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .ok_or_else(|| OAuthError::BadAnswer { what: what.into(), message: format!("no \"{name}\"") })
}

/// `expires_in` (seconds) of an answer; 3600 when missing.
pub(crate) fn expires_in_ms(answer: &Value) -> i64 {
    answer.get("expires_in").and_then(Value::as_f64).map_or(3_600_000, |s| (s * 1000.0) as i64)
}
