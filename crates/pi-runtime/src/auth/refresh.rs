//! Refreshing a stored OAuth login before it expires: under the lock on
//! `auth.json`, re-read (another pi may have refreshed it meanwhile), ask the
//! provider for new tokens, and write them back. A failure leaves the file
//! as it was.

use pi_ai::oauth::{self, Tokens};
use pi_config::auth::OAuthCredential;
use pi_config::{AuthStore, Credential};
use serde_json::{Map, Value};

use super::error::{RefreshError, ResolveError};

/// New tokens for `provider`'s refresh token.
async fn refresh_tokens(provider: &str, refresh: &str) -> Result<Tokens, RefreshError> {
    let result = match provider {
        "anthropic" => oauth::anthropic::refresh(refresh).await,
        "openai-codex" => oauth::codex::refresh(refresh).await,
        "github-copilot" => oauth::copilot::copilot_token(refresh).await,
        _ => return Err(RefreshError::Unsupported(provider.to_string())),
    };
    Ok(result?)
}

/// The stored credential for new tokens: the provider's fields, as the
/// reference writes them (Codex keeps the account, Copilot its other fields).
pub fn credential_of(provider: &str, tokens: Tokens, old: Option<&OAuthCredential>) -> OAuthCredential {
    let mut extra = match (provider, old) {
        ("github-copilot", Some(o)) => o.extra.clone(),
        _ => Map::new(),
    };
    if let Some(account) = tokens.account_id {
        extra.insert("accountId".into(), Value::from(account));
    }
    OAuthCredential { access: tokens.access, refresh: tokens.refresh, expires: tokens.expires, extra }
}

/// `provider`'s stored OAuth login, refreshed first when it expires within
/// `min_valid_ms` (at least the refresh margin).
/// `Ok(None)`: no OAuth login is stored.
pub async fn fresh_oauth(
    store: &AuthStore,
    provider: &str,
    min_valid_ms: i64,
) -> Result<Option<OAuthCredential>, ResolveError> {
    let margin = min_valid_ms.max(oauth::REFRESH_MARGIN_MS);
    let stale = |o: &OAuthCredential| oauth::now_ms().saturating_add(margin) >= o.expires;
    // A quick look without the lock: most requests find a valid token.
    match store.read()?.get(provider)? {
        Some(Credential::OAuth(o)) if !stale(&o) => return Ok(Some(o)),
        Some(Credential::OAuth(_)) => {}
        _ => return Ok(None),
    }
    let locker = store.clone();
    let lock = tokio::task::spawn_blocking(move || locker.lock()).await??;
    let mut file = lock.read()?;
    let old = match file.get(provider)? {
        Some(Credential::OAuth(o)) => o,
        _ => return Ok(None),
    };
    // Refreshed by another process while we waited for the lock.
    if !stale(&old) {
        return Ok(Some(old));
    }
    let tokens = refresh_tokens(provider, &old.refresh)
        .await
        .map_err(|cause| ResolveError::Refresh { provider: provider.to_string(), cause })?;
    let fresh = credential_of(provider, tokens, Some(&old));
    file.set(provider, &Credential::OAuth(fresh.clone()));
    lock.write(&file)?;
    Ok(Some(fresh))
}
