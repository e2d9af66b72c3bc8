//! GitHub Copilot's token exchange: a GitHub OAuth token (the `refresh` of
//! a stored `github-copilot` login) is traded at GitHub for a short-lived
//! Copilot API token (the login's `access`), whose `proxy-ep` names the API
//! host of the account. [`exchange`] asks GitHub; [`cached_token`] keeps
//! each answer until five minutes before it expires.
//!
//! The exchange endpoint is [`TOKEN_URL`] (`https://api.<domain>/…` for a
//! GitHub Enterprise domain). Tests point it at a local server with the
//! test-only variable [`TOKEN_URL_ENV`].

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::text::copilot as text;

/// The provider id of GitHub Copilot.
pub const PROVIDER: &str = "github-copilot";
/// Where a GitHub token is exchanged for a Copilot token (github.com).
pub const TOKEN_URL: &str = "https://api.github.com/copilot_internal/v2/token";
/// Test-only: a URL that replaces [`TOKEN_URL`] (and any Enterprise one).
pub const TOKEN_URL_ENV: &str = "PI_TEST_COPILOT_TOKEN_URL";
/// The Copilot API of an individual account, when the token names none.
pub const DEFAULT_BASE_URL: &str = "https://api.individual.githubcopilot.com";
/// A token counts as expired this long before GitHub's `expires_at`.
pub const EXPIRY_MARGIN: Duration = Duration::from_secs(5 * 60);
/// How long the exchange may take.
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);
/// Answers longer than this are not read.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The editor identity GitHub expects on the exchange (and that the
/// catalog's Copilot models send on every request).
pub const EDITOR_HEADERS: [(&str, &str); 4] = [
    ("user-agent", "GitHubCopilotChat/0.35.0"),
    ("editor-version", "vscode/1.107.0"),
    ("editor-plugin-version", "copilot-chat/0.35.0"),
    ("copilot-integration-id", "vscode-chat"),
];

/// A Copilot API token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopilotToken {
    /// The bearer token for the Copilot API.
    pub token: String,
    /// When to stop using it, in milliseconds since the epoch
    /// ([`EXPIRY_MARGIN`] before GitHub's `expires_at`).
    pub expires_ms: u64,
    /// The account's API base URL (see [`base_url`]).
    pub base_url: String,
}

/// Why an exchange failed. Its `Display` is the cause in the reference's
/// words; [`TokenError::message`] is the sentence to show a user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// GitHub answered with an error status.
    #[error("{}", text::exchange_status(*status, reason, body))]
    Status {
        /// The HTTP status.
        status: u16,
        /// Its reason phrase.
        reason: String,
        /// The answer's body (clipped).
        body: String,
    },
    /// The answer is not what an exchange answers.
    #[error("{0}")]
    Invalid(&'static str),
    /// No answer: connection, TLS, timeout.
    #[error("{0}")]
    Transport(String),
}

impl TokenError {
    /// The message for the user: what failed and to sign in again.
    pub fn message(&self) -> String {
        text::refresh_failed(&self.to_string())
    }
}

/// The exchange URL: [`TOKEN_URL_ENV`] when set, else `api.<domain>` of a
/// GitHub Enterprise domain, else [`TOKEN_URL`].
pub fn token_url(enterprise_domain: Option<&str>) -> String {
    if let Ok(url) = std::env::var(TOKEN_URL_ENV)
        && !url.is_empty()
    {
        return url;
    }
    match enterprise_domain.filter(|d| !d.is_empty()) {
        Some(domain) => format!("https://api.{domain}/copilot_internal/v2/token"),
        None => TOKEN_URL.to_string(),
    }
}

/// The API base URL of a Copilot token: its `proxy-ep=proxy.<host>` field
/// as `https://api.<host>`; else `https://copilot-api.<domain>` for an
/// Enterprise domain; else [`DEFAULT_BASE_URL`].
pub fn base_url(token: &str, enterprise_domain: Option<&str>) -> String {
    let proxy = token.split(';').find_map(|field| field.trim().strip_prefix("proxy-ep=")).filter(|h| !h.is_empty());
    if let Some(host) = proxy {
        let host = host.strip_prefix("proxy.").map_or_else(|| host.to_string(), |rest| format!("api.{rest}"));
        return format!("https://{host}");
    }
    match enterprise_domain.filter(|d| !d.is_empty()) {
        Some(domain) => format!("https://copilot-api.{domain}"),
        None => DEFAULT_BASE_URL.to_string(),
    }
}

/// Trade a GitHub token for a Copilot token at [`token_url`] (one GET, no retry).
pub async fn exchange(github_token: &str, enterprise_domain: Option<&str>) -> Result<CopilotToken, TokenError> {
    exchange_at(&token_url(enterprise_domain), github_token, enterprise_domain).await
}

/// [`exchange`] at a given URL.
pub async fn exchange_at(
    url: &str,
    github_token: &str,
    enterprise_domain: Option<&str>,
) -> Result<CopilotToken, TokenError> {
    let client = crate::http::client().map_err(|e| TokenError::Transport(e.to_string()))?;
    let mut request = client
        .get(url)
        .timeout(EXCHANGE_TIMEOUT)
        .header("accept", "application/json")
        .header("authorization", format!("Bearer {github_token}"));
    for (name, value) in EDITOR_HEADERS {
        request = request.header(name, value);
    }
    let answer = request.send().await.map_err(|e| TokenError::Transport(crate::text::connection_error(&cause(&e))))?;
    let status = answer.status();
    let body = read_capped(answer).await?;
    if !status.is_success() {
        let reason = status.canonical_reason().unwrap_or("").to_string();
        return Err(TokenError::Status { status: status.as_u16(), reason, body: crate::http::clip(&body) });
    }
    parse_answer(&body, enterprise_domain)
}

/// The innermost cause of a transport failure (`connection refused`…).
fn cause(e: &reqwest::Error) -> String {
    let mut last = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        last = s.to_string();
        source = s.source();
    }
    last
}

/// The answer's body, up to [`MAX_ANSWER_BYTES`].
async fn read_capped(mut answer: reqwest::Response) -> Result<String, TokenError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = answer.chunk().await.map_err(|e| TokenError::Transport(cause(&e)))? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_ANSWER_BYTES {
            bytes.truncate(MAX_ANSWER_BYTES);
            break;
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `{token, expires_at}` (seconds) as a [`CopilotToken`].
fn parse_answer(body: &str, enterprise_domain: Option<&str>) -> Result<CopilotToken, TokenError> {
    let value: Value = serde_json::from_str(body).map_err(|_| TokenError::Invalid(text::INVALID_ANSWER))?;
    if !value.is_object() {
        return Err(TokenError::Invalid(text::INVALID_ANSWER));
    }
    let token = value.get("token").and_then(Value::as_str).filter(|t| !t.is_empty());
    let expires_at = value.get("expires_at").and_then(Value::as_f64).filter(|e| e.is_finite() && *e >= 0.0);
    let (Some(token), Some(expires_at)) = (token, expires_at) else {
        return Err(TokenError::Invalid(text::INVALID_FIELDS));
    };
    let expires_ms = ((expires_at * 1000.0) as u64).saturating_sub(EXPIRY_MARGIN.as_millis() as u64);
    Ok(CopilotToken { token: token.to_string(), expires_ms, base_url: base_url(token, enterprise_domain) })
}

/// Milliseconds since the epoch.
fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Exchanged tokens by exchange URL, GitHub token and Enterprise domain.
type Cache = Mutex<HashMap<(String, String, Option<String>), CopilotToken>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Cache::default)
}

/// The Copilot token for a GitHub token: the one exchanged before while it
/// has not expired, else a new exchange (kept for the next call). A failed
/// exchange keeps nothing.
pub async fn cached_token(github_token: &str, enterprise_domain: Option<&str>) -> Result<CopilotToken, TokenError> {
    cached_token_at(&token_url(enterprise_domain), github_token, enterprise_domain).await
}

/// [`cached_token`] with the exchange at a given URL.
pub async fn cached_token_at(
    url: &str,
    github_token: &str,
    enterprise_domain: Option<&str>,
) -> Result<CopilotToken, TokenError> {
    let key = (url.to_string(), github_token.to_string(), enterprise_domain.map(str::to_string));
    let fresh = {
        let map = cache().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        map.get(&key).filter(|t| t.expires_ms > now_ms()).cloned()
    };
    if let Some(token) = fresh {
        return Ok(token);
    }
    let token = exchange_at(url, github_token, enterprise_domain).await?;
    cache().lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key, token.clone());
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_from_the_token_proxy_endpoint() {
        let t = "tid=1;exp=2;sku=x;proxy-ep=proxy.individual.githubcopilot.com;st=dotcom";
        assert_eq!(base_url(t, None), "https://api.individual.githubcopilot.com");
        assert_eq!(
            base_url("tid=1;proxy-ep=proxy.business.githubcopilot.com", Some("ghe.io")),
            "https://api.business.githubcopilot.com"
        );
        assert_eq!(base_url("tid=1;proxy-ep=copilot.example", None), "https://copilot.example");
        assert_eq!(base_url("ghu_plain", Some("company.ghe.com")), "https://copilot-api.company.ghe.com");
        assert_eq!(base_url("tid=1;proxy-ep=", None), DEFAULT_BASE_URL);
        assert_eq!(base_url("", None), DEFAULT_BASE_URL);
    }

    #[test]
    fn token_url_for_github_and_enterprise() {
        // (The test-only override is exercised by the integration tests.)
        if std::env::var(TOKEN_URL_ENV).is_err() {
            assert_eq!(token_url(None), TOKEN_URL);
            assert_eq!(token_url(Some("company.ghe.com")), "https://api.company.ghe.com/copilot_internal/v2/token");
        }
    }

    #[test]
    fn answers_are_checked() {
        let t = parse_answer(r#"{"token":"tid=1;proxy-ep=proxy.x.test","expires_at":1000,"refresh_in":1500}"#, None)
            .unwrap();
        assert_eq!(
            t,
            CopilotToken {
                token: "tid=1;proxy-ep=proxy.x.test".into(),
                expires_ms: 700_000,
                base_url: "https://api.x.test".into()
            }
        );
        let invalid = |b: &str| parse_answer(b, None).unwrap_err().to_string();
        assert_eq!(invalid("not json"), text::INVALID_ANSWER);
        assert_eq!(invalid("[1]"), text::INVALID_ANSWER);
        assert_eq!(invalid(r#"{"token":"t"}"#), text::INVALID_FIELDS);
        assert_eq!(invalid(r#"{"token":5,"expires_at":1}"#), text::INVALID_FIELDS);
        assert_eq!(invalid(r#"{"token":"t","expires_at":"soon"}"#), text::INVALID_FIELDS);
        assert_eq!(invalid(r#"{"token":"t","expires_at":-1}"#), text::INVALID_FIELDS);
    }

    #[test]
    fn a_failure_says_what_to_do() {
        let e = TokenError::Status {
            status: 401,
            reason: "Unauthorized".into(),
            body: "{\"message\":\"Bad credentials\"}".into(),
        };
        assert_eq!(
            e.message(),
            "OAuth refresh failed for github-copilot: 401 Unauthorized: {\"message\":\"Bad credentials\"}. Sign in again with /login github-copilot."
        );
    }
}
