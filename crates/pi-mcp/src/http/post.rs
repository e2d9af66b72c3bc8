//! The HTTP client under rmcp's streamable HTTP transport: rmcp's own reqwest
//! client for the protocol's housekeeping (`initialize`, `tools/list`,
//! notifications, the event stream, ending the session), and requests of
//! pi's own for tool calls and resource requests, for two things rmcp's
//! client does not give:
//!
//! - the raw answers to resource requests (JSON or server-sent events) go to
//!   the connection's [`Stash`], so listings keep the server's key order as
//!   over stdio;
//! - a failure status is reported with its body, as the reference words it
//!   (`MCP HTTP request failed with status 503: busy`), where rmcp keeps
//!   only the status.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};

use crate::stdio::Stash;
use crate::text;

type PostResult = Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>>;
type Events = futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

/// rmcp's reqwest client plus pi's requests for tool calls and resources.
#[derive(Clone)]
pub(crate) struct Client {
    http: reqwest::Client,
    stash: Arc<Stash>,
}

impl Client {
    /// A client whose resource answers go to `stash`. Connections are not
    /// pooled and only same-origin 307/308 redirects are followed, as with
    /// rmcp's own default client.
    pub(crate) fn new(stash: Arc<Stash>) -> Result<Self, reqwest::Error> {
        let redirects = reqwest::redirect::Policy::custom(|attempt| {
            let same_origin = attempt.previous().first().is_some_and(|first| first.origin() == attempt.url().origin());
            let keeps_method = matches!(attempt.status().as_u16(), 307 | 308);
            if same_origin && keeps_method && attempt.previous().len() <= text::HTTP_MAX_REDIRECTS {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let http = reqwest::Client::builder().pool_max_idle_per_host(0).redirect(redirects).build()?;
        Ok(Client { http, stash })
    }

    /// Send `message` ourselves, as rmcp's client would, reading the answer ourselves.
    async fn post_own(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> PostResult {
        let mut request = self.http.post(uri.as_ref()).header(ACCEPT, "text/event-stream, application/json");
        if let Some(token) = auth {
            request = request.bearer_auth(token);
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let session_attached = session_id.is_some();
        if let Some(id) = session_id {
            request = request.header("mcp-session-id", id.as_ref());
        }
        let response = request.json(&message).send().await.map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if matches!(status.as_u16(), 202 | 204) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status.as_u16() == 404 && session_attached {
            return Err(StreamableHttpError::SessionExpired);
        }
        let kind = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let kind = kind.to_ascii_lowercase();
        let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string);
        let json = kind.starts_with("application/json");
        if !status.is_success() {
            let limit = if json { limits.max_json_response_size } else { text::HTTP_ERROR_BODY_BYTES };
            let body = read_bounded(response, limit).await.unwrap_or_default();
            if json && let Ok(error @ rmcp::model::JsonRpcMessage::Error(_)) = serde_json::from_slice(&body) {
                return Ok(StreamableHttpPostResponse::Json(error, session));
            }
            let shown = text::http_failed(status.as_u16(), &String::from_utf8_lossy(&body));
            return Err(StreamableHttpError::UnexpectedServerResponse(shown.into()));
        }
        if json {
            let body = read_bounded(response, limits.max_json_response_size).await?;
            self.stash.scan(&body);
            let message: ServerJsonRpcMessage = serde_json::from_slice(&body)?;
            return Ok(StreamableHttpPostResponse::Json(message, session));
        }
        if kind.starts_with("text/event-stream") {
            return Ok(StreamableHttpPostResponse::Sse(self.events(response), session));
        }
        Err(StreamableHttpError::UnexpectedContentType(Some(kind)))
    }

    /// The answer's server-sent events, each shown to the stash; an event
    /// past [`text::HTTP_MAX_EVENT_BYTES`] ends the stream with an error.
    fn events(&self, response: reqwest::Response) -> Events {
        let mut since_event = 0usize;
        let bytes = response.bytes_stream().map(move |chunk| {
            let chunk = chunk.map_err(std::io::Error::other)?;
            since_event =
                match memchr::memmem::rfind(&chunk, b"\n\n").or_else(|| memchr::memmem::rfind(&chunk, b"\n\r\n")) {
                    Some(at) => chunk.len() - at,
                    None => since_event + chunk.len(),
                };
            if since_event > text::HTTP_MAX_EVENT_BYTES {
                return Err(std::io::Error::other(text::HTTP_EVENT_TOO_LARGE));
            }
            Ok(chunk)
        });
        let stash = self.stash.clone();
        sse_stream::SseStream::from_bytes_stream(bytes)
            .inspect(move |event| {
                if let Ok(sse_stream::Sse { data: Some(data), .. }) = event {
                    stash.scan(data.as_bytes());
                }
            })
            .boxed()
    }
}

/// The body, at most `limit` bytes (an error past it).
async fn read_bounded(
    response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, StreamableHttpError<reqwest::Error>> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(StreamableHttpError::Client)?;
        if body.len() + chunk.len() > limit {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Whether pi sends `message` itself: tool calls and resource requests.
fn own(message: &ClientJsonRpcMessage) -> bool {
    let ClientJsonRpcMessage::Request(request) = message else { return false };
    let method = request.request.method();
    method == "tools/call" || method.starts_with("resources/")
}

impl StreamableHttpClient for Client {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> PostResult {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(uri, message, session_id, auth, headers, limits).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> PostResult {
        if own(&message) {
            return self.post_own(uri, message, session_id, auth, headers, limits).await;
        }
        self.http.post_message_with_response_limits(uri, message, session_id, auth, headers, limits).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.http.delete_session(uri, session_id, auth, headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<Events, StreamableHttpError<Self::Error>> {
        self.http.get_stream(uri, session_id, last_event_id, auth, headers).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        max_event_size: usize,
    ) -> Result<Events, StreamableHttpError<Self::Error>> {
        let http = &self.http;
        http.get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth, headers, max_event_size).await
    }
}
