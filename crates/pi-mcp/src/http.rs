//! Streamable HTTP servers: rmcp's reqwest transport with the entry's
//! headers (after `${VAR}` / `!command` substitution). A server that answers
//! 401 is reported as needing sign-in, which this build does not do.

use std::collections::HashMap;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::client::{ClientError, Handler};
use crate::{subst, text};

/// Connect to `url` with `headers`; `timeout` bounds `initialize`.
pub(crate) async fn connect(
    server: &str,
    url: &str,
    headers: &[(String, String)],
    handler: Handler,
    timeout: std::time::Duration,
) -> Result<(RunningService<RoleClient, Handler>, Option<u32>), ClientError> {
    let mut custom = HashMap::new();
    for (k, v) in headers {
        let value = subst::value(server, &format!("header \"{k}\""), v).map_err(ClientError::Connect)?;
        let name =
            HeaderName::try_from(k.as_str()).map_err(|e| ClientError::Connect(format!("header \"{k}\": {e}")))?;
        let value = HeaderValue::try_from(value).map_err(|e| ClientError::Connect(format!("header \"{k}\": {e}")))?;
        custom.insert(name, value);
    }
    // reqwest is built without a default TLS provider (as for pi-ai): ring, installed once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    config.custom_headers = custom;
    let transport = StreamableHttpClientTransport::from_config(config);
    match tokio::time::timeout(timeout, handler.serve(transport)).await {
        Ok(Ok(s)) => Ok((s, None)),
        Ok(Err(e)) => {
            let shown = e.to_string();
            if shown.contains("Auth required") || shown.contains("401") {
                Err(ClientError::Connect(text::needs_sign_in(server)))
            } else {
                Err(ClientError::Connect(shown))
            }
        }
        Err(_) => Err(ClientError::Connect(text::CONNECT_TIMED_OUT.into())),
    }
}
