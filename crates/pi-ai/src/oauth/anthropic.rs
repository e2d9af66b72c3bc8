//! Anthropic (Claude Pro/Max): browser login with PKCE (local callback or a
//! pasted `code#state`), and refresh. Token requests carry JSON.

use serde_json::json;

use super::endpoints::{self, ANTHROPIC_AUTHORIZE_URL, ANTHROPIC_CLIENT_ID, ANTHROPIC_SCOPES, ANTHROPIC_TOKEN_URL};
use super::http::{self, Body};
use super::pkce::Pkce;
use super::{OAuthError, REFRESH_MARGIN_MS, Tokens, now_ms};

const REFRESH: &str = "Anthropic token refresh";
const EXCHANGE: &str = "Anthropic token exchange";

/// The sign-in page for `pkce` (whose verifier is also the `state`) and
/// `redirect_uri`.
pub fn authorize_url(pkce: &Pkce, redirect_uri: &str) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("code", "true")
        .append_pair("client_id", ANTHROPIC_CLIENT_ID)
        .append_pair("response_type", "code")
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("scope", ANTHROPIC_SCOPES)
        .append_pair("code_challenge", &pkce.challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", &pkce.verifier)
        .finish();
    format!("{}?{query}", endpoints::resolve(ANTHROPIC_AUTHORIZE_URL))
}

/// Tokens from an answer: the access token's lifetime is shortened by the
/// refresh margin, as the reference stores it.
fn tokens(what: &str, answer: &serde_json::Value, old_refresh: Option<&str>) -> Result<Tokens, OAuthError> {
    let access = http::text_field(what, answer, "access_token")?;
    let refresh = match (http::text_field(what, answer, "refresh_token"), old_refresh) {
        (Ok(r), _) => r,
        (Err(_), Some(old)) => old.to_string(),
        (Err(e), None) => return Err(e),
    };
    Ok(Tokens {
        access,
        refresh,
        expires: now_ms() + http::expires_in_ms(answer) - REFRESH_MARGIN_MS,
        account_id: None,
    })
}

/// Exchange the code the login returned.
pub async fn exchange_code(code: &str, state: &str, pkce: &Pkce, redirect_uri: &str) -> Result<Tokens, OAuthError> {
    let body = json!({
        "grant_type": "authorization_code",
        "client_id": ANTHROPIC_CLIENT_ID,
        "code": code,
        "state": state,
        "redirect_uri": redirect_uri,
        "code_verifier": pkce.verifier,
    });
    let answer = http::post(EXCHANGE, &endpoints::resolve(ANTHROPIC_TOKEN_URL), Body::Json(&body), &[]).await?;
    tokens(EXCHANGE, &answer, None)
}

/// New tokens for a refresh token.
pub async fn refresh(refresh_token: &str) -> Result<Tokens, OAuthError> {
    let body = json!({
        "grant_type": "refresh_token",
        "client_id": ANTHROPIC_CLIENT_ID,
        "refresh_token": refresh_token,
    });
    let answer = http::post(REFRESH, &endpoints::resolve(ANTHROPIC_TOKEN_URL), Body::Json(&body), &[]).await?;
    tokens(REFRESH, &answer, Some(refresh_token))
}

/// What the user pasted: `code#state`, a bare code, or the redirect URL
/// (`…?code=…&state=…`). Answers the code and the state, if given.
pub fn parse_pasted(input: &str) -> Option<(String, Option<String>)> {
    let input = input.trim();
    if input.is_empty() {
        return None;
    }
    if let Ok(u) = url::Url::parse(input) {
        let get = |name: &str| u.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
        return get("code").map(|code| (code, get("state")));
    }
    match input.split_once('#') {
        Some((code, state)) => Some((code.to_string(), Some(state.to_string()))),
        None => Some((input.to_string(), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_in_page_asks_for_what_the_reference_asks() {
        let p = Pkce::from_verifier("VER".into());
        let u = authorize_url(&p, "http://localhost:53692/callback");
        assert!(u.starts_with("https://claude.ai/oauth/authorize?code=true&client_id=9d1c250a-"), "{u}");
        assert!(u.contains(
            "&redirect_uri=http%3A%2F%2Flocalhost%3A53692%2Fcallback&scope=org%3Acreate_api_key+user%3Aprofile"
        ));
        assert!(u.ends_with("&code_challenge_method=S256&state=VER"), "{u}");
    }

    #[test]
    fn pasted_codes() {
        assert_eq!(parse_pasted(" abc#xyz "), Some(("abc".into(), Some("xyz".into()))));
        assert_eq!(parse_pasted("abc"), Some(("abc".into(), None)));
        assert_eq!(
            parse_pasted("http://localhost:53692/callback?code=c1&state=s1"),
            Some(("c1".into(), Some("s1".into())))
        );
        assert_eq!(parse_pasted("http://localhost:53692/callback?error=denied"), None);
        assert_eq!(parse_pasted("  "), None);
    }
}
