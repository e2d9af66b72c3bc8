//! The built-in extension `builtin:llama.cpp`: the `llama.cpp` provider
//! (a local llama.cpp router, see [`pi_config::llama`]) and the `/llama`
//! command. Interactive and RPC modes refresh the stored model list at
//! start-up in the background; `-builtin:llama.cpp` (or
//! `--no-extensions`) removes the provider and the command.

use std::path::Path;

use pi_ai::llama::{self as router, RouterError, RouterModel};
use pi_config::llama::{self as config, StoredModel};
use pi_config::{Credential, ModelEntry};

use crate::text;

/// The built-in extension's name.
pub const BUILTIN: &str = config::PROVIDER;

/// Where the router is and the key it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Router {
    /// The router's URL (no trailing slash).
    pub server: String,
    /// The key sent as `Authorization: Bearer`.
    pub key: String,
}

/// Whether the built-in is loaded.
pub fn enabled(builtins: &[String]) -> bool {
    builtins.iter().any(|b| b == BUILTIN)
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// The router as configured: the stored `/login llama.cpp` credential's
/// `LLAMA_BASE_URL`, else the environment's; `None` when neither is set.
/// The key: the stored one, else `LLAMA_API_KEY`, else [`config::DEFAULT_KEY`].
pub fn configured() -> Option<Router> {
    let file = crate::auth::resolve::snapshot(&crate::auth::resolve::store()).ok();
    let stored = match file.as_ref().map(|f| f.get(config::PROVIDER)) {
        Some(Ok(Some(Credential::ApiKey(k)))) => Some(k),
        _ => None,
    };
    let server = stored
        .as_ref()
        .and_then(|k| k.env.get(config::BASE_URL_VAR).cloned())
        .filter(|u| !u.trim().is_empty())
        .or_else(|| env(config::BASE_URL_VAR))?;
    let stored_key = stored
        .filter(|k| !k.key.is_empty())
        .and_then(|k| pi_config::resolve_value("key", &k.key).ok())
        .filter(|k| !k.is_empty());
    let key = stored_key.or_else(|| env(config::API_KEY_VAR)).unwrap_or_else(|| config::DEFAULT_KEY.to_string());
    Some(Router { server: config::normalize_server_url(&server), key })
}

/// The run's model list with the built-in applied: without it, no
/// `llama.cpp` model; with it, the stored models send to the configured router.
pub fn prepare_models(models: &mut Vec<ModelEntry>, on: bool) {
    if !on {
        models.retain(|m| m.provider != config::PROVIDER);
        return;
    }
    let server = configured().map_or_else(|| config::DEFAULT_SERVER_URL.to_string(), |r| r.server);
    for m in models.iter_mut().filter(|m| m.provider == config::PROVIDER) {
        m.base_url = config::inference_url(&server);
    }
}

/// Read the router's models and keep its loaded and sleeping ones in the
/// store (a loaded model's template tells whether it thinks).
pub async fn refresh(r: &Router, agent_dir: &Path) -> Result<Vec<RouterModel>, RouterError> {
    let all = router::list_models(&r.server, Some(&r.key)).await?;
    let mut keep = Vec::new();
    for m in all.iter().filter(|m| m.usable()) {
        let reasoning = if m.status == "loaded" {
            let props = router::props(&r.server, Some(&r.key), &m.id).await.ok();
            props
                .as_ref()
                .and_then(|p| p.get("chat_template"))
                .and_then(serde_json::Value::as_str)
                .is_some_and(|t| t.contains("enable_thinking"))
        } else {
            false
        };
        keep.push(StoredModel { id: m.id.clone(), context_window: config::context_from_args(&m.args), reasoning });
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    // A store that cannot be written only costs the next start its list.
    let _ = config::write_store(agent_dir, &r.server, &keep, now);
    Ok(all)
}

/// Refresh in the background when the router is configured (interactive and RPC modes).
pub fn refresh_in_background(runtime: &tokio::runtime::Runtime, agent_dir: &Path) {
    if let Some(r) = configured() {
        let dir = agent_dir.to_path_buf();
        runtime.spawn(async move {
            let _ = refresh(&r, &dir).await;
        });
    }
}

/// The `get_commands` entry of `/llama` (as the reference lists it).
pub fn rpc_command() -> serde_json::Value {
    serde_json::json!({
        "name": text::LLAMA_COMMAND,
        "description": text::LLAMA_DESCRIPTION,
        "source": "extension",
        "sourceInfo": {"path": format!("builtin:{BUILTIN}"), "source": "builtin", "scope": "temporary", "origin": "top-level"}
    })
}

/// Why `/login llama.cpp` failed; shown as it is.
#[derive(Debug, thiserror::Error)]
pub enum LlamaLoginError {
    /// The router did not answer its model list.
    #[error(transparent)]
    Router(#[from] RouterError),
    /// The credential could not be saved in `auth.json`.
    #[error(transparent)]
    Store(#[from] pi_config::AuthError),
}

/// `/login llama.cpp` with the typed URL (empty: `LLAMA_BASE_URL`, else
/// the default) and key (empty: none): the router must answer its model
/// list, then the credential is stored in `auth.json` as the reference
/// stores it (`env.LLAMA_BASE_URL`, `key` only when given) and the model
/// list refreshed. The notice to show, or the error.
pub async fn login(typed_url: &str, typed_key: &str, agent_dir: &Path) -> Result<String, LlamaLoginError> {
    let server = match typed_url.trim() {
        "" => env(config::BASE_URL_VAR).unwrap_or_else(|| config::DEFAULT_SERVER_URL.to_string()),
        url => url.to_string(),
    };
    let server = config::normalize_server_url(&server);
    let key = typed_key.trim().to_string();
    let r =
        Router { server: server.clone(), key: if key.is_empty() { config::DEFAULT_KEY.into() } else { key.clone() } };
    refresh(&r, agent_dir).await?;
    let credential = Credential::ApiKey(pi_config::auth::ApiKeyCredential {
        key,
        env: [(config::BASE_URL_VAR.to_string(), server.clone())].into(),
        ..Default::default()
    });
    let store = crate::auth::resolve::store();
    store.update(|f| f.set(config::PROVIDER, &credential))?;
    Ok(text::llama_saved(&server, store.path()))
}

/// Whether a typed message is `/llama` (with or without arguments).
pub fn is_command(message: &str) -> bool {
    let Some(rest) = message.trim_start().strip_prefix('/') else { return false };
    let name = rest.split_whitespace().next().unwrap_or("");
    name == text::LLAMA_COMMAND
}

/// What choosing `model` in `/llama` does: load it when unloaded, unload it
/// when loaded or sleeping; any other state is reported. The notice to show.
pub async fn toggle(r: &Router, model: &RouterModel) -> Result<String, RouterError> {
    match model.status.as_str() {
        "unloaded" => router::load(&r.server, Some(&r.key), &model.id).await.map(|()| text::llama_loaded(&model.id)),
        "loaded" | "sleeping" => {
            router::unload(&r.server, Some(&r.key), &model.id).await.map(|()| text::llama_unloaded(&model.id))
        }
        other => Ok(text::llama_busy(&model.id, other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_command() {
        assert!(is_command("/llama") && is_command(" /llama x") && !is_command("/llamas") && !is_command("llama"));
        assert!(enabled(&["llama.cpp".into()]) && !enabled(&["mcp".into()]));
        assert_eq!(rpc_command()["sourceInfo"]["path"], "builtin:llama.cpp");
    }
}
