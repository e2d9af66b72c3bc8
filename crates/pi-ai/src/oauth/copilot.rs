//! GitHub Copilot: the device login (a code the user enters on GitHub), and
//! the Copilot token that the GitHub token buys, refreshed the same way.
//! Stored as `refresh` = the GitHub token, `access` = the Copilot token.

use std::time::Duration;

use serde_json::Value;

use super::endpoints::{self, COPILOT_ACCESS_TOKEN_URL, COPILOT_CLIENT_ID, COPILOT_DEVICE_CODE_URL, COPILOT_SCOPE};
use super::http::{self, Body};
use super::{OAuthError, Tokens};
use crate::copilot::TokenError;

const DEVICE: &str = "GitHub device code";
const POLL: &str = "GitHub device login";
const COPILOT: &str = "GitHub Copilot token";

/// Headers the Copilot endpoints expect (as the reference sends them): the
/// editor identity the token exchange sends too.
pub const COPILOT_HEADERS: &[(&str, &str)] = &crate::copilot::EDITOR_HEADERS;
/// The slowest poll interval a server may ask for.
const MAX_POLL_INTERVAL: Duration = Duration::from_secs(60);

/// What the user must do: open `verification_uri` and enter `user_code`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceCode {
    /// The code to enter.
    pub user_code: String,
    /// Where to enter it.
    pub verification_uri: String,
    device_code: String,
    interval: Duration,
    expires_in: Duration,
}

/// Ask GitHub for a device code.
pub async fn start() -> Result<DeviceCode, OAuthError> {
    let form = [("client_id", COPILOT_CLIENT_ID), ("scope", COPILOT_SCOPE)];
    let answer =
        http::post(DEVICE, &endpoints::resolve(COPILOT_DEVICE_CODE_URL), Body::Form(&form), COPILOT_HEADERS).await?;
    let secs = |name: &str, default: u64| answer.get(name).and_then(Value::as_u64).unwrap_or(default);
    Ok(DeviceCode {
        user_code: http::text_field(DEVICE, &answer, "user_code")?,
        verification_uri: http::text_field(DEVICE, &answer, "verification_uri")?,
        device_code: http::text_field(DEVICE, &answer, "device_code")?,
        interval: Duration::from_secs(secs("interval", 5).max(1)).min(MAX_POLL_INTERVAL),
        expires_in: Duration::from_secs(secs("expires_in", 900)),
    })
}

/// Poll until the user has entered the code; answers the GitHub token.
pub async fn wait(code: &DeviceCode) -> Result<String, OAuthError> {
    let deadline = tokio::time::Instant::now() + code.expires_in;
    let mut interval = code.interval;
    let form = [
        ("client_id", COPILOT_CLIENT_ID),
        ("device_code", code.device_code.as_str()),
        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
    ];
    loop {
        let answer =
            http::post(POLL, &endpoints::resolve(COPILOT_ACCESS_TOKEN_URL), Body::Form(&form), COPILOT_HEADERS).await?;
        if let Ok(token) = http::text_field(POLL, &answer, "access_token") {
            return Ok(token);
        }
        match answer.get("error").and_then(Value::as_str) {
            Some("authorization_pending") => {}
            Some("slow_down") => interval = (interval + Duration::from_secs(5)).min(MAX_POLL_INTERVAL),
            Some(other) => return Err(OAuthError::Login(format!("GitHub refused the device login: {other}"))),
            None => return Err(OAuthError::BadAnswer { what: POLL.into(), message: "no \"access_token\"".into() }),
        }
        if tokio::time::Instant::now() + interval > deadline {
            return Err(OAuthError::Login("The device code expired before it was entered.".into()));
        }
        tokio::time::sleep(interval).await;
    }
}

/// The Copilot token for a GitHub token (login and refresh alike): the
/// exchange of [`crate::copilot`], at its URL as the test origin redirects it.
pub async fn copilot_token(github_token: &str) -> Result<Tokens, OAuthError> {
    let url = endpoints::resolve(&crate::copilot::token_url(None));
    let token = crate::copilot::exchange_at(&url, github_token, None).await.map_err(|e| match e {
        TokenError::Status { status, body, .. } => {
            OAuthError::Status { what: COPILOT.into(), url: url.clone(), status, body }
        }
        TokenError::Invalid(message) => OAuthError::BadAnswer { what: COPILOT.into(), message: message.into() },
        TokenError::Transport(message) => OAuthError::Request { what: COPILOT.into(), url: url.clone(), message },
    })?;
    Ok(Tokens {
        access: token.token,
        refresh: github_token.to_string(),
        expires: i64::try_from(token.expires_ms).unwrap_or(i64::MAX),
        account_id: None,
    })
}
