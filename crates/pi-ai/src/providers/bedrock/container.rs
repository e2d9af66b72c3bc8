//! Keys of an ECS task or EKS pod: `GET` the URL in
//! `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (on `169.254.170.2`) or
//! `AWS_CONTAINER_CREDENTIALS_FULL_URI`, with the token of
//! `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` or
//! `AWS_CONTAINER_AUTHORIZATION_TOKEN` as `Authorization`, for
//! `{AccessKeyId, SecretAccessKey, Token}`.

use serde_json::Value;

use super::credentials::Keys;
use super::error::{CredentialsError, FileProblem, KeysProblem, UrlProblem};
use crate::limits::{CONTAINER_CREDENTIALS_TIMEOUT, MAX_CONTAINER_CREDENTIALS_BYTES};

/// The ECS credentials endpoint a relative URI is resolved against.
const ECS_HOST: &str = "http://169.254.170.2";
/// Hosts a full URI may name over plain HTTP (the ECS and EKS agents, loopback).
const PLAIN_HTTP_HOSTS: [&str; 5] = ["169.254.170.2", "169.254.170.23", "[fd00:ec2::23]", "localhost", "[::1]"];

/// Where to ask and with what token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub url: String,
    pub token: Option<String>,
}

/// The endpoint the environment names, if any (an error when it names one
/// pi will not ask, or a token file it cannot read).
pub(crate) fn endpoint(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<Endpoint>, CredentialsError> {
    let url = match (var("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"), var("AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
        (Some(rel), _) => format!("{ECS_HOST}{rel}"),
        (None, Some(full)) => {
            let parsed = reqwest::Url::parse(&full)
                .map_err(|e| CredentialsError::ContainerUrl { url: full.clone(), why: UrlProblem::Parse(e) })?;
            let host = parsed.host_str().unwrap_or("");
            let loopback = host.starts_with("127.");
            let host_ok = PLAIN_HTTP_HOSTS.contains(&host) || loopback;
            if parsed.scheme() != "https" && !(parsed.scheme() == "http" && host_ok) {
                return Err(CredentialsError::ContainerUrl { url: full, why: UrlProblem::PlainHttp });
            }
            full
        }
        (None, None) => return Ok(None),
    };
    let token = match var("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE") {
        Some(path) => Some(
            std::fs::read_to_string(&path)
                .map_err(|e| CredentialsError::File { path: path.clone().into(), why: FileProblem::Io(e) })?
                .trim()
                .to_string(),
        ),
        None => var("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
    };
    Ok(Some(Endpoint { url, token }))
}

/// Ask the endpoint for keys.
pub(crate) async fn keys_from(endpoint: &Endpoint) -> Result<Keys, CredentialsError> {
    let fail = |why: KeysProblem| CredentialsError::Container { url: endpoint.url.clone(), why };
    let client = crate::http::shared_client().map_err(|e| fail(KeysProblem::Client(e)))?;
    let mut request = client.get(&endpoint.url);
    if let Some(t) = &endpoint.token {
        request = request.header("authorization", t);
    }
    let fetch = async {
        let resp = request.send().await.map_err(|e| fail(KeysProblem::Request(e)))?;
        let status = resp.status();
        let body = crate::http::read_error_body(resp).await;
        Ok::<_, CredentialsError>((status, body))
    };
    let (status, body) = tokio::time::timeout(CONTAINER_CREDENTIALS_TIMEOUT, fetch)
        .await
        .map_err(|_| fail(KeysProblem::TimedOut(CONTAINER_CREDENTIALS_TIMEOUT)))??;
    if !status.is_success() {
        return Err(fail(KeysProblem::Status { status: status.as_u16(), body: crate::http::clip(&body) }));
    }
    if body.len() >= MAX_CONTAINER_CREDENTIALS_BYTES {
        return Err(fail(KeysProblem::TooLarge(MAX_CONTAINER_CREDENTIALS_BYTES)));
    }
    let v: Value = serde_json::from_str(&body).map_err(|e| fail(KeysProblem::NotJson(e)))?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    match (s("AccessKeyId"), s("SecretAccessKey")) {
        (Some(access_key_id), Some(secret_access_key)) => {
            Ok(Keys { access_key_id, secret_access_key, session_token: s("Token") })
        }
        _ => Err(fail(KeysProblem::NoKeys)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// The endpoint, an error as its text.
    fn endpoint(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<Endpoint>, String> {
        super::endpoint(var).map_err(|e| e.to_string())
    }

    /// The keys, an error as its text.
    async fn keys_from(endpoint: &Endpoint) -> Result<Keys, String> {
        super::keys_from(endpoint).await.map_err(|e| e.to_string())
    }

    fn vars<'a>(m: &'a HashMap<&'a str, String>) -> impl Fn(&str) -> Option<String> + 'a {
        move |n| m.get(n).cloned()
    }

    /// A one-shot HTTP server answering `body` with `status`; returns its
    /// URL and the request it got.
    async fn serve_once(status: u16, body: &'static str) -> (String, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/creds", listener.local_addr().unwrap());
        let handle = tokio::spawn(async move {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; 4096];
            let n = sock.read(&mut buf).await.unwrap();
            let head =
                format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
            sock.write_all(head.as_bytes()).await.unwrap();
            String::from_utf8_lossy(&buf[..n]).into_owned()
        });
        (url, handle)
    }

    #[tokio::test]
    async fn keys_from_the_container_endpoint() {
        let (url, seen) = serve_once(
            200,
            r#"{"AccessKeyId":"AKIDECS","SecretAccessKey":"s","Token":"tok","Expiration":"2099-01-01T00:00:00Z"}"#,
        )
        .await;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token"), "secret-token\n").unwrap();
        let env = HashMap::from([
            ("AWS_CONTAINER_CREDENTIALS_FULL_URI", url),
            ("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", dir.path().join("token").display().to_string()),
        ]);
        let ep = endpoint(&vars(&env)).unwrap().unwrap();
        assert_eq!(ep.token.as_deref(), Some("secret-token"));
        let keys = keys_from(&ep).await.unwrap();
        assert_eq!((keys.access_key_id.as_str(), keys.session_token.as_deref()), ("AKIDECS", Some("tok")));
        let request = seen.await.unwrap().to_ascii_lowercase();
        assert!(request.starts_with("get /creds ") && request.contains("authorization: secret-token"), "{request}");
        let (url, _) = serve_once(403, "denied").await;
        let err = keys_from(&Endpoint { url, token: None }).await.unwrap_err();
        assert!(err.contains("403 denied"), "{err}");
        let (url, _) = serve_once(200, "[]").await;
        assert!(keys_from(&Endpoint { url, token: None }).await.unwrap_err().contains("AccessKeyId"));
    }

    #[test]
    fn which_endpoints_are_asked() {
        let rel = HashMap::from([("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/creds/x".to_string())]);
        assert_eq!(endpoint(&vars(&rel)).unwrap().unwrap().url, "http://169.254.170.2/v2/creds/x");
        let plain = HashMap::from([("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/creds".to_string())]);
        assert!(endpoint(&vars(&plain)).unwrap_err().contains("example.com"));
        let tls = HashMap::from([("AWS_CONTAINER_CREDENTIALS_FULL_URI", "https://example.com/creds".to_string())]);
        assert!(endpoint(&vars(&tls)).unwrap().is_some());
        let none = HashMap::new();
        assert_eq!(endpoint(&vars(&none)), Ok(None));
    }
}
