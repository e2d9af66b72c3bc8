//! The HTTP side shared by the clients: one `reqwest` client, POSTing a JSON
//! body, reading a server-sent-event stream, and turning transport failures
//! into the reference's messages.

use std::pin::Pin;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use crate::error::{ClientError, ProviderError};
use crate::failure::{self, FailureKind};
use crate::limits::{CONNECT_TIMEOUT, MAX_ERROR_BODY_BYTES, MAX_ERROR_BODY_CHARS, READ_TIMEOUT};
use crate::sse::{SseEvent, SseParser};
use crate::text;

/// The header with the server's wait in milliseconds (OpenAI), read first.
const RETRY_AFTER_MS: &str = "retry-after-ms";
/// The standard header with the server's wait (seconds or an HTTP date).
const RETRY_AFTER: &str = "retry-after";

static CLIENT: OnceLock<Result<reqwest::Client, ClientError>> = OnceLock::new();
/// The client that speaks HTTP/2 without negotiation (`h2c` on `http://` URLs).
static H2C_CLIENT: OnceLock<Result<reqwest::Client, ClientError>> = OnceLock::new();

fn build_client(prior_knowledge: bool) -> Result<reqwest::Client, ClientError> {
    // Ignore the error: another part of the process may have installed it.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .user_agent(concat!("pi/", env!("CARGO_PKG_VERSION")));
    let builder = if prior_knowledge { builder.http2_prior_knowledge() } else { builder };
    Ok(builder.build()?)
}

pub(crate) fn client() -> Result<&'static reqwest::Client, ProviderError> {
    Ok(shared_client()?)
}

/// The shared client, or why it could not be built.
pub(crate) fn shared_client() -> Result<&'static reqwest::Client, ClientError> {
    CLIENT.get_or_init(|| build_client(false)).as_ref().map_err(Clone::clone)
}

/// POST `body` and return the answer, whatever its status (the caller reads
/// it). `h2c`: speak HTTP/2 from the first byte on an `http://` URL, as the
/// AWS SDK does (TLS URLs negotiate HTTP/2 as usual).
pub(crate) async fn post_raw(
    url: &str,
    headers: HeaderMap,
    body: Vec<u8>,
    h2c: bool,
) -> Result<reqwest::Response, ProviderError> {
    let client = if h2c && url.starts_with("http://") {
        H2C_CLIENT.get_or_init(|| build_client(true)).as_ref().map_err(|e| ProviderError::from(e.clone()))?
    } else {
        client()?
    };
    client.post(url).headers(headers).body(body).send().await.map_err(|e| transport_error(&e, url))
}

/// The failure of a response body that stopped: a timeout or a cut connection.
pub(crate) fn body_error(e: &reqwest::Error) -> ProviderError {
    if e.is_timeout() {
        ProviderError::of_kind(FailureKind::Timeout, text::TIMED_OUT)
    } else {
        ProviderError::of_kind(FailureKind::StreamCut, text::STREAM_CUT)
    }
}

/// Join a base URL and a path with exactly one `/`.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

/// A non-2xx answer.
pub(crate) struct HttpStatusError {
    pub status: u16,
    pub body: String,
    /// The wait the answer asked for (`retry-after-ms`, else `Retry-After`).
    pub retry_after: Option<Duration>,
    /// The answer's `x-should-retry` (`true` or `false`), when it had one.
    pub should_retry: Option<bool>,
}

/// What can go wrong before the event stream starts.
pub(crate) enum SendError {
    /// The server answered with an error status.
    Status(HttpStatusError),
    /// Anything else (already worded).
    Other(ProviderError),
}

/// The pieces of a response body as they arrive.
type Body = Pin<Box<dyn Stream<Item = Result<Vec<u8>, reqwest::Error>> + Send>>;

/// A stream of server-sent events.
pub(crate) struct SseStream {
    body: Body,
    parser: SseParser,
    ended: bool,
    /// The answer's status.
    pub status: u16,
    /// The answer's headers.
    pub headers: HeaderMap,
}

impl SseStream {
    fn new(body: Body) -> Self {
        SseStream { body, parser: SseParser::default(), ended: false, status: 200, headers: HeaderMap::new() }
    }

    /// Events parsed from these body pieces (for tests: split anywhere).
    #[cfg(test)]
    pub fn from_chunks(chunks: Vec<Vec<u8>>) -> Self {
        Self::new(Box::pin(futures::stream::iter(chunks.into_iter().map(Ok))))
    }

    /// The next event; `None` at the end of the body (an event left open
    /// there is dropped).
    pub async fn next(&mut self) -> Option<Result<SseEvent, ProviderError>> {
        loop {
            if let Some(ev) = self.parser.next_event() {
                return Some(Ok(ev));
            }
            if self.ended {
                return None;
            }
            match self.body.next().await {
                Some(Ok(bytes)) => {
                    if let Err(e) = self.parser.push(&bytes) {
                        self.ended = true;
                        return Some(Err(ProviderError::failed(e.to_string())));
                    }
                }
                Some(Err(e)) => {
                    self.ended = true;
                    return Some(Err(body_error(&e)));
                }
                None => self.ended = true,
            }
        }
    }
}

/// Headers as a JSON object (lower-case names in order; repeated ones joined with `, `).
pub(crate) fn header_object(headers: &HeaderMap) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    let mut sorted: Vec<_> = headers.iter().collect();
    sorted.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    for (name, value) in sorted {
        let v = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match out.get_mut(name.as_str()) {
            Some(Value::String(prev)) => {
                prev.push_str(", ");
                prev.push_str(&v);
            }
            _ => {
                out.insert(name.as_str().to_string(), Value::String(v));
            }
        }
    }
    out
}

/// Build a header map; later entries win.
pub(crate) fn headers<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<HeaderMap, ProviderError> {
    let mut map = HeaderMap::new();
    for (k, v) in pairs {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| ProviderError::failed(format!("Invalid HTTP header name: {k}")))?;
        let value = HeaderValue::from_str(v)
            .map_err(|_| ProviderError::failed(format!("Invalid value for HTTP header {k}")))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// The headers of a request: the provider's own `fixed` ones, then the
/// model's configured headers, then the call's, later ones winning.
pub(crate) fn request_headers<'a>(
    fixed: Vec<(&'a str, &'a str)>,
    model: &'a crate::Model,
    options: &'a crate::StreamOptions,
) -> Result<HeaderMap, ProviderError> {
    let extra = model.headers.iter().chain(options.headers.iter()).map(|(k, v)| (k.as_str(), v.as_str()));
    headers(fixed.into_iter().chain(extra))
}

/// POST `body` (JSON) and return the event stream of a 2xx answer.
pub(crate) async fn post_sse(
    url: &str,
    headers: HeaderMap,
    body: crate::providers::RequestBody,
) -> Result<SseStream, SendError> {
    let client = client().map_err(SendError::Other)?;
    // A client that names its own `accept` (as the OpenAI SDK's do) keeps it.
    let accept = if headers.contains_key("accept") { None } else { Some("text/event-stream") };
    let mut builder = client.post(url).headers(headers).header("content-type", "application/json");
    if let Some(accept) = accept {
        builder = builder.header("accept", accept);
    }
    let resp = builder.body(body.into_http()).send().await.map_err(|e| SendError::Other(transport_error(&e, url)))?;
    let status = resp.status();
    if !status.is_success() {
        let retry_after = retry_after(resp.headers(), SystemTime::now());
        let should_retry = should_retry(resp.headers());
        let body = read_error_body(resp).await;
        return Err(SendError::Status(HttpStatusError { status: status.as_u16(), body, retry_after, should_retry }));
    }
    let headers = resp.headers().clone();
    let mut stream = SseStream::new(Box::pin(resp.bytes_stream().map(|piece| piece.map(Vec::from))));
    stream.status = status.as_u16();
    stream.headers = headers;
    Ok(stream)
}

/// The wait an error answer asks for: `retry-after-ms`, else `Retry-After`.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    get(RETRY_AFTER_MS)
        .and_then(failure::parse_retry_after_ms)
        .or_else(|| get(RETRY_AFTER).and_then(|v| failure::parse_retry_after(v, now)))
}

/// The answer's `x-should-retry`: `true` or `false`, else nothing.
fn should_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get(failure::SHOULD_RETRY_HEADER).and_then(|v| v.to_str().ok()).map(str::trim) {
        Some("true") => Some(true),
        Some("false") => Some(false),
        _ => None,
    }
}

pub(crate) async fn read_error_body(resp: reqwest::Response) -> String {
    let mut bytes = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        bytes.extend_from_slice(&chunk);
        if bytes.len() >= MAX_ERROR_BODY_BYTES {
            bytes.truncate(MAX_ERROR_BODY_BYTES);
            break;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A request that got no answer: a timeout, or a connection failure worded
/// as the reference words it.
fn transport_error(e: &reqwest::Error, url: &str) -> ProviderError {
    let timed_out = || ProviderError::of_kind(FailureKind::Timeout, text::TIMED_OUT);
    if e.is_timeout() {
        return timed_out();
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut deepest = e.to_string();
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                let detail = format!("connect ECONNREFUSED {}", host_port(url));
                return ProviderError::of_kind(FailureKind::Connection, text::connection_error(&detail));
            }
            if io.kind() == std::io::ErrorKind::TimedOut {
                return timed_out();
            }
        }
        deepest = s.to_string();
        source = s.source();
    }
    ProviderError::of_kind(FailureKind::Connection, text::connection_error(&deepest))
}

fn host_port(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => {
            let host = u.host_str().unwrap_or("").trim_start_matches('[').trim_end_matches(']').to_string();
            match u.port_or_known_default() {
                Some(p) => format!("{host}:{p}"),
                None => host,
            }
        }
        Err(_) => url.to_string(),
    }
}

/// Cut an error body to [`MAX_ERROR_BODY_CHARS`] characters.
pub(crate) fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_ERROR_BODY_CHARS) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// The error value of a JSON error body: its `error` field, else the body.
fn error_value(v: &Value) -> &Value {
    match v.get("error") {
        Some(e) if !e.is_null() => e,
        _ => v,
    }
}

fn non_empty_object(v: &Value) -> bool {
    v.as_object().is_some_and(|o| !o.is_empty())
}

/// The OpenAI SDK's wording of an HTTP error: `<status> <message>`.
fn openai_sdk_message(status: u16, body: &str) -> String {
    if body.is_empty() {
        return format!("{status} {}", text::NO_BODY);
    }
    match serde_json::from_str::<Value>(body) {
        Ok(v) => {
            let e = error_value(&v);
            let msg = match e.get("message") {
                Some(Value::String(m)) if !m.is_empty() => m.clone(),
                Some(m) if !m.is_null() && m != &Value::Bool(false) => m.to_string(),
                _ => e.to_string(),
            };
            format!("{status} {}", clip(&msg))
        }
        Err(_) => format!("{status} {}", clip(body)),
    }
}

/// Chat Completions: `<status>: <error JSON>` for an error object,
/// else the SDK's wording (`<status> <text>`, `<status> status code (no body)`).
pub(crate) fn completions_http_error(e: &HttpStatusError) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(&e.body) {
        let err = error_value(&v);
        if non_empty_object(err) {
            return format!("{}: {}", e.status, clip(&err.to_string()));
        }
    }
    openai_sdk_message(e.status, &e.body)
}

/// Responses: `<provider> API error (<status>): <error JSON or SDK wording>`.
pub(crate) fn responses_http_error(provider: &str, e: &HttpStatusError) -> String {
    let detail = match serde_json::from_str::<Value>(&e.body) {
        Ok(v) if non_empty_object(error_value(&v)) => clip(&error_value(&v).to_string()),
        _ => openai_sdk_message(e.status, &e.body),
    };
    text::responses_http_error(provider, e.status, &detail)
}

/// Anthropic: `<status> <body.message or the body as JSON or the text>`.
pub(crate) fn anthropic_http_error(e: &HttpStatusError) -> String {
    if e.body.is_empty() {
        return format!("{} {}", e.status, text::NO_BODY);
    }
    match serde_json::from_str::<Value>(&e.body) {
        Ok(v) => match v.get("message") {
            Some(Value::String(m)) if !m.is_empty() => format!("{} {}", e.status, clip(m)),
            _ => format!("{} {}", e.status, clip(&v.to_string())),
        },
        Err(_) => format!("{} {}", e.status, clip(&e.body)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(status: u16, body: &str) -> HttpStatusError {
        HttpStatusError { status, body: body.to_string(), retry_after: None, should_retry: None }
    }

    #[test]
    fn retry_after_headers_in_order() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let map = |pairs: &[(&str, &str)]| headers(pairs.iter().copied()).unwrap();
        assert_eq!(retry_after(&map(&[("Retry-After", "2")]), now), Some(Duration::from_secs(2)));
        assert_eq!(
            retry_after(&map(&[("retry-after", "2"), ("retry-after-ms", "150")]), now),
            Some(Duration::from_millis(150))
        );
        assert_eq!(
            retry_after(&map(&[("retry-after-ms", "x"), ("retry-after", "3")]), now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            retry_after(&map(&[("retry-after", "Sun, 09 Sep 2001 01:47:00 GMT")]), now),
            Some(Duration::from_secs(20)),
        );
        assert_eq!(retry_after(&map(&[("retry-after", "later")]), now), None);
        assert_eq!(retry_after(&map(&[]), now), None);
        assert_eq!(should_retry(&map(&[("x-should-retry", "false")])), Some(false));
        assert_eq!(should_retry(&map(&[("X-Should-Retry", "true")])), Some(true));
        assert_eq!(should_retry(&map(&[("x-should-retry", "maybe")])), None);
    }

    /// Each expected string was printed by the reference (`pi -p`) for the same answer.
    #[test]
    fn completions_errors_read_like_the_reference() {
        let cases = [
            (500, r#"{"error":{"message":"boom"}}"#, r#"500: {"message":"boom"}"#),
            (
                429,
                r#"{"error": {"message": "Rate limit reached", "type": "rate_limit"}}"#,
                r#"429: {"message":"Rate limit reached","type":"rate_limit"}"#,
            ),
            (400, r#"{"message":"top msg"}"#, r#"400: {"message":"top msg"}"#),
            (400, r#"{"error":"strerr"}"#, r#"400 "strerr""#),
            (400, "", "400 status code (no body)"),
            (400, r#"{"error":{"message":"m","code":"c"},"x":1}"#, r#"400: {"message":"m","code":"c"}"#),
            (404, "<html>nf</html>", "404 <html>nf</html>"),
            (400, "plain text body", "400 plain text body"),
        ];
        for (status, body, want) in cases {
            assert_eq!(completions_http_error(&e(status, body)), want, "{body}");
        }
    }

    #[test]
    fn responses_errors_read_like_the_reference() {
        let cases = [
            (
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad thing"}}"#,
                r#"mock API error (400): {"type":"invalid_request_error","message":"bad thing"}"#,
            ),
            ("plain text body", "mock API error (400): 400 plain text body"),
            ("", "mock API error (400): 400 status code (no body)"),
            (r#"{"error":"strerr"}"#, r#"mock API error (400): 400 "strerr""#),
            (r#"{"message":"top msg"}"#, r#"mock API error (400): {"message":"top msg"}"#),
        ];
        for (body, want) in cases {
            assert_eq!(responses_http_error("mock", &e(400, body)), want, "{body}");
        }
    }

    #[test]
    fn anthropic_errors_read_like_the_reference() {
        let cases = [
            (
                r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "bad thing"}}"#,
                r#"400 {"type":"error","error":{"type":"invalid_request_error","message":"bad thing"}}"#,
            ),
            ("plain text body", "400 plain text body"),
            ("", "400 status code (no body)"),
            (r#"{"error":"strerr"}"#, r#"400 {"error":"strerr"}"#),
            (r#"{"message":"top msg"}"#, "400 top msg"),
        ];
        for (body, want) in cases {
            assert_eq!(anthropic_http_error(&e(400, body)), want, "{body}");
        }
    }

    #[test]
    fn long_bodies_are_clipped() {
        let body = "x".repeat(10_000);
        assert_eq!(completions_http_error(&e(500, &body)).len(), 4 + MAX_ERROR_BODY_CHARS);
    }

    #[test]
    fn urls_join_with_one_slash() {
        assert_eq!(join_url("http://h/v1/", "/chat/completions"), "http://h/v1/chat/completions");
        assert_eq!(host_port("http://127.0.0.1:45999/v1"), "127.0.0.1:45999");
        assert_eq!(host_port("https://api.openai.com/v1"), "api.openai.com:443");
    }
}
