//! Streamable HTTP servers: rmcp's reqwest transport with the entry's
//! headers (after `${VAR}` / `!command` substitution). A server that answers
//! 401 is reported as needing sign-in, which this build does not do.

use std::collections::HashMap;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    HttpStatusError, StreamableHttpClientTransportConfig, StreamableHttpError,
};

use crate::client::{ClientError, Handler};
use crate::stdio::Stash;
use crate::{subst, text};

mod post;

/// Connect to `url` with `headers`; `timeout` bounds `initialize`; raw
/// answers to resource requests go to `stash`.
pub(crate) async fn connect(
    server: &str,
    url: &str,
    headers: &[(String, String)],
    handler: Handler,
    timeout: std::time::Duration,
    stash: std::sync::Arc<Stash>,
) -> Result<(RunningService<RoleClient, Handler>, Option<u32>), ClientError> {
    let mut custom = HashMap::new();
    for (k, v) in headers {
        let value = subst::value(server, &format!("header \"{k}\""), v)?;
        let name =
            HeaderName::try_from(k.as_str()).map_err(|e| ClientError::Connect(format!("header \"{k}\": {e}")))?;
        let value = HeaderValue::try_from(value).map_err(|e| ClientError::Connect(format!("header \"{k}\": {e}")))?;
        custom.insert(name, value);
    }
    // reqwest is built without a default TLS provider (as for pi-ai): ring, installed once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    config.custom_headers = custom;
    let client = post::Client::new(stash).map_err(|e| ClientError::Connect(e.to_string()))?;
    let transport = StreamableHttpClientTransport::with_client(client, config);
    match tokio::time::timeout(timeout, handler.serve(transport)).await {
        Ok(Ok(s)) => Ok((s, None)),
        Ok(Err(e)) => {
            let shown = e.to_string();
            let retry = match &e {
                rmcp::service::ClientInitializeError::TransportError { error, .. } => transient(error),
                other => transient(other),
            };
            if shown.contains("Auth required") || shown.contains("401") {
                Err(ClientError::Connect(text::needs_sign_in(server)))
            } else if retry {
                Err(ClientError::Transient(shown))
            } else {
                Err(ClientError::Connect(shown))
            }
        }
        Err(_) => Err(ClientError::Connect(text::CONNECT_TIMED_OUT.into())),
    }
}

/// Whether an HTTP status is worth another attempt (408, 429, 5xx).
pub(crate) fn transient_status(status: u16) -> bool {
    status == 408 || status == 429 || (500..=599).contains(&status)
}

fn transient_reqwest(e: &reqwest::Error) -> bool {
    e.is_connect() || e.is_timeout() || e.status().is_some_and(|s| transient_status(s.as_u16()))
}

/// Whether a failure (anywhere in its chain of causes) is a network error or
/// a transient HTTP status, so the request is worth another attempt.
pub(crate) fn transient(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    let mut shown = String::new();
    while let Some(err) = cause {
        if let Some(h) = err.downcast_ref::<HttpStatusError>() {
            return transient_status(h.status);
        }
        if let Some(r) = err.downcast_ref::<reqwest::Error>() {
            return transient_reqwest(r);
        }
        match err.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::HttpStatus(h)) => return transient_status(h.status),
            Some(StreamableHttpError::Client(r)) => return transient_reqwest(r),
            _ => {}
        }
        shown.push_str(&err.to_string());
        shown.push('\n');
        cause = err.source();
    }
    // Causes behind a boxed, type-erased error: their text still says `HTTP
    // <status>` (rmcp's) or `… failed with status <status>` (pi's own requests).
    let status_after = |marker: &str| {
        shown.match_indices(marker).any(|(at, _)| {
            let digits: String = shown[at + marker.len()..].chars().take_while(char::is_ascii_digit).collect();
            digits.len() == 3 && digits.parse().is_ok_and(transient_status)
        })
    };
    status_after("HTTP ") || status_after(text::HTTP_FAILED_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_statuses_are_408_429_and_5xx() {
        let yes = [408, 429, 500, 502, 503, 599];
        let no = [200, 400, 401, 403, 404, 409, 600];
        assert!(yes.iter().all(|s| transient_status(*s)));
        assert!(!no.iter().any(|s| transient_status(*s)));
    }

    #[test]
    fn a_status_error_anywhere_in_the_chain_counts() {
        let e: StreamableHttpError<reqwest::Error> = StreamableHttpError::HttpStatus(HttpStatusError::new(503, None));
        assert!(transient(&e));
        let e: StreamableHttpError<reqwest::Error> = StreamableHttpError::HttpStatus(HttpStatusError::new(400, None));
        assert!(!transient(&e));
        let boxed = std::io::Error::other("Transport error: HTTP 429");
        assert!(transient(&boxed));
        assert!(!transient(&std::io::Error::other("HTTP 4290 is no status")));
        assert!(!transient(&std::io::Error::other("garbage")));
        let ours = std::io::Error::other(format!("Transport send error: {}", text::http_failed(503, "busy")));
        assert!(transient(&ours));
        assert!(!transient(&std::io::Error::other(text::http_failed(404, "Not Found"))));
    }
}
