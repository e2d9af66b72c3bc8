//! OAuth logins of the subscription providers: the endpoints, the token
//! requests (authorization code with PKCE, refresh, device code) and the
//! local callback that receives the browser's redirect.
//!
//! Every endpoint is a constant of [`endpoints`]; the test-only variable
//! [`endpoints::TEST_ORIGIN_ENV`] sends them all to a local server instead.
//! Nothing here touches files: callers store the [`Tokens`] they get.

pub mod anthropic;
pub mod callback;
pub mod codex;
pub mod copilot;
pub mod endpoints;
mod error;
mod http;
pub mod pkce;

use std::time::Duration;

pub use error::OAuthError;

/// A token request that has not answered after this long fails.
pub const TOKEN_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// At most this much of an error answer's body is kept for the message.
pub const ERROR_BODY_LIMIT: usize = 2048;
/// A token endpoint's answer larger than this is refused.
pub const ANSWER_LIMIT: usize = 1024 * 1024;
/// A token is refreshed when it expires within this margin (milliseconds).
pub const REFRESH_MARGIN_MS: i64 = 5 * 60 * 1000;

/// What a login or refresh returns, ready to be stored.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tokens {
    /// The access token.
    pub access: String,
    /// The refresh token.
    pub refresh: String,
    /// When the access token expires (milliseconds since the Unix epoch).
    pub expires: i64,
    /// The account the token belongs to, when the provider says (`accountId`).
    pub account_id: Option<String>,
}

/// The current time in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Whether a token expiring at `expires` (ms) should be refreshed now.
pub fn needs_refresh(expires: i64, now: i64) -> bool {
    now.saturating_add(REFRESH_MARGIN_MS) >= expires
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_margin() {
        assert!(needs_refresh(1_000, 2_000));
        assert!(needs_refresh(2_000 + REFRESH_MARGIN_MS, 2_000));
        assert!(!needs_refresh(2_001 + REFRESH_MARGIN_MS, 2_000));
    }
}
