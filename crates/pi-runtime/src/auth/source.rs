//! The agent's credential source: before every model request the key is
//! resolved again, so a stored OAuth token that expires during a long
//! session is refreshed before the next request.

use std::sync::Arc;

use pi_agent::{CredentialSource, RequestAuth};
use pi_config::ModelEntry;

use super::error::ResolveError;
use super::{refresh, resolve};

/// The credentials of one request to `provider` (`entry` is its configured
/// model, if known); `current` is the key the agent holds, kept when
/// nothing else resolves.
pub async fn request_auth(
    entry: Option<&ModelEntry>,
    provider: &str,
    current: Option<String>,
) -> Result<RequestAuth, ResolveError> {
    let store = resolve::store();
    if let Some(o) = refresh::fresh_oauth(&store, provider, 0).await? {
        return Ok(RequestAuth { api_key: Some(o.access), headers: Default::default() });
    }
    let file = resolve::snapshot(&store)?;
    let found = match entry {
        Some(e) => resolve::resolve(e, None, &file)?,
        None => resolve::from_store(&file, provider)?,
    };
    Ok(match found {
        Some(r) => RequestAuth { api_key: r.api_key, headers: r.headers },
        None => RequestAuth { api_key: current, headers: Default::default() },
    })
}

/// A source over the configured `models`; with `--api-key` (`cli_key`) the
/// agent's key is used as it is.
pub fn credential_source(models: Arc<[ModelEntry]>, cli_key: Option<String>) -> CredentialSource {
    Arc::new(move |model: &pi_ai::Model, current: Option<&str>| {
        let models = models.clone();
        let provider = model.provider.clone();
        let id = model.id.clone();
        let current = current.map(String::from);
        let cli = cli_key.is_some();
        Box::pin(async move {
            if cli {
                return Ok(RequestAuth { api_key: current, headers: Default::default() });
            }
            let entry = models
                .iter()
                .find(|m| m.provider == provider && m.id == id)
                .or_else(|| models.iter().find(|m| m.provider == provider));
            request_auth(entry, &provider, current).await.map_err(|e| pi_agent::CredentialError::new(provider, e))
        })
    })
}
