//! OpenAI Codex (ChatGPT subscription): browser login with PKCE (local
//! callback or the pasted redirect URL), and refresh. Token requests carry
//! a form; the ChatGPT account comes from the access token's claims.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::endpoints::{
    self, CODEX_AUTH_CLAIM, CODEX_AUTHORIZE_URL, CODEX_CLIENT_ID, CODEX_DEVICE_CODE_URL, CODEX_DEVICE_PAGE,
    CODEX_DEVICE_REDIRECT_URI, CODEX_DEVICE_TOKEN_URL, CODEX_ORIGINATOR, CODEX_SCOPES, CODEX_TOKEN_URL,
};
use super::http::{self, Body};
use super::pkce::{Pkce, random_bytes};
use super::{OAuthError, Tokens, now_ms};

const REFRESH: &str = "OpenAI Codex token refresh";
const EXCHANGE: &str = "OpenAI Codex token exchange";

/// A fresh `state` for the sign-in page.
pub fn new_state() -> String {
    random_bytes(16).iter().map(|b| format!("{b:02x}")).collect()
}

/// The sign-in page.
pub fn authorize_url(pkce: &Pkce, state: &str, redirect_uri: &str) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("response_type", "code")
        .append_pair("client_id", CODEX_CLIENT_ID)
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("scope", CODEX_SCOPES)
        .append_pair("code_challenge", &pkce.challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", state)
        .append_pair("id_token_add_organizations", "true")
        .append_pair("codex_cli_simplified_flow", "true")
        .append_pair("originator", CODEX_ORIGINATOR)
        .finish();
    format!("{}?{query}", endpoints::resolve(CODEX_AUTHORIZE_URL))
}

/// The ChatGPT account ID in an access token (a JWT), if any.
pub fn account_id(access_token: &str) -> Option<String> {
    let payload = access_token.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims.get(CODEX_AUTH_CLAIM)?.get("chatgpt_account_id")?.as_str().filter(|s| !s.is_empty()).map(String::from)
}

fn tokens(what: &str, answer: &Value) -> Result<Tokens, OAuthError> {
    let access = http::text_field(what, answer, "access_token")?;
    let refresh = http::text_field(what, answer, "refresh_token")?;
    let Some(account) = account_id(&access) else {
        return Err(OAuthError::BadAnswer {
            what: what.into(),
            message: "no ChatGPT account in the access token".into(),
        });
    };
    Ok(Tokens { access, refresh, expires: now_ms() + http::expires_in_ms(answer), account_id: Some(account) })
}

/// Exchange the code the login returned.
pub async fn exchange_code(code: &str, pkce: &Pkce, redirect_uri: &str) -> Result<Tokens, OAuthError> {
    exchange(code, &pkce.verifier, redirect_uri).await
}

async fn exchange(code: &str, verifier: &str, redirect_uri: &str) -> Result<Tokens, OAuthError> {
    let form = [
        ("grant_type", "authorization_code"),
        ("client_id", CODEX_CLIENT_ID),
        ("code", code),
        ("code_verifier", verifier),
        ("redirect_uri", redirect_uri),
    ];
    let answer = http::post(EXCHANGE, &endpoints::resolve(CODEX_TOKEN_URL), Body::Form(&form), &[]).await?;
    tokens(EXCHANGE, &answer)
}

/// New tokens for a refresh token.
pub async fn refresh(refresh_token: &str) -> Result<Tokens, OAuthError> {
    let form = [("grant_type", "refresh_token"), ("refresh_token", refresh_token), ("client_id", CODEX_CLIENT_ID)];
    let answer = http::post(REFRESH, &endpoints::resolve(CODEX_TOKEN_URL), Body::Form(&form), &[]).await?;
    tokens(REFRESH, &answer)
}

const DEVICE: &str = "OpenAI Codex device code";
/// How long a device code is waited for.
pub const DEVICE_WAIT_LIMIT: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// A device login in progress: the user enters `user_code` at `page`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceCode {
    /// The code to enter.
    pub user_code: String,
    /// Where to enter it.
    pub page: String,
    device_auth_id: String,
    interval: std::time::Duration,
}

/// Ask for a device code.
pub async fn device_start() -> Result<DeviceCode, OAuthError> {
    let body = serde_json::json!({"client_id": CODEX_CLIENT_ID});
    let answer = http::post(DEVICE, &endpoints::resolve(CODEX_DEVICE_CODE_URL), Body::Json(&body), &[]).await?;
    let interval = match answer.get("interval") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    };
    Ok(DeviceCode {
        user_code: http::text_field(DEVICE, &answer, "user_code")?,
        page: CODEX_DEVICE_PAGE.to_string(),
        device_auth_id: http::text_field(DEVICE, &answer, "device_auth_id")?,
        interval: std::time::Duration::from_secs(interval.unwrap_or(5).clamp(1, 60)),
    })
}

/// Poll until the code was entered (403 and 404 mean "not yet"), then
/// exchange the code the poll returns.
pub async fn device_wait(code: &DeviceCode) -> Result<Tokens, OAuthError> {
    let deadline = tokio::time::Instant::now() + DEVICE_WAIT_LIMIT;
    let body = serde_json::json!({"device_auth_id": code.device_auth_id, "user_code": code.user_code});
    let url = endpoints::resolve(CODEX_DEVICE_TOKEN_URL);
    loop {
        match http::post(DEVICE, &url, Body::Json(&body), &[]).await {
            Ok(answer) => {
                let auth_code = http::text_field(DEVICE, &answer, "authorization_code")?;
                let verifier = http::text_field(DEVICE, &answer, "code_verifier")?;
                return exchange(&auth_code, &verifier, CODEX_DEVICE_REDIRECT_URI).await;
            }
            Err(OAuthError::Status { status: 403 | 404, .. }) => {}
            Err(e) => return Err(e),
        }
        if tokio::time::Instant::now() + code.interval > deadline {
            return Err(OAuthError::Login("The device code expired before it was entered.".into()));
        }
        tokio::time::sleep(code.interval).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: Value) -> String {
        format!("e30.{}.sig", URL_SAFE_NO_PAD.encode(claims.to_string()))
    }

    #[test]
    fn the_account_comes_from_the_token() {
        let t = jwt(serde_json::json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acc-1"}}));
        assert_eq!(account_id(&t).as_deref(), Some("acc-1"));
        assert_eq!(account_id(&jwt(serde_json::json!({"sub": "x"}))), None);
        assert_eq!(account_id("not-a-jwt"), None);
        assert_eq!(account_id("a.!!!.c"), None);
    }

    #[test]
    fn sign_in_page_and_state() {
        let s = new_state();
        assert_eq!(s.len(), 32);
        assert!(s.bytes().all(|b| b.is_ascii_hexdigit()));
        let u = authorize_url(&Pkce::from_verifier("v".into()), &s, "http://localhost:1455/auth/callback");
        assert!(u.starts_with("https://auth.openai.com/oauth/authorize?response_type=code&client_id=app_"), "{u}");
        assert!(u.contains("&scope=openid+profile+email+offline_access&"));
        assert!(u.ends_with("&id_token_add_organizations=true&codex_cli_simplified_flow=true&originator=pi"));
    }
}
