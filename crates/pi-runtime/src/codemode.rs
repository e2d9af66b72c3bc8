//! What the built-in extensions `builtin:codemode` and `builtin:tool-search`
//! get from the session: the `codemode.*` settings, the session's custom
//! entries (for `store()`), the model list (for `models`), and where the
//! script reference lives.

use std::sync::Arc;

use pi_codemode::{CodemodeOptions, Mode, Models};
use pi_config::{ModelEntry, Settings};
use serde_json::{Value, json};

/// `codemode.mode` and `codemode.inlineBudget` of `settings`.
pub fn settings(settings: &Settings) -> (Mode, Option<f64>) {
    let mode = if settings.codemode_only() { Mode::Only } else { Mode::On };
    (mode, settings.codemode_inline_budget())
}

/// The script reference: this build's `docs/codemode.md`.
pub fn docs_path() -> String {
    crate::docs::file("codemode.md").to_string_lossy().into_owned()
}

/// A model as the catalogue entry scripts receive (never its headers).
/// Built from the entry's plain fields: start-up builds one for every model
/// of the catalog, so nothing here parses or resolves anything.
fn model_info(e: &ModelEntry) -> Value {
    let base_url = if e.base_url.contains('{') {
        pi_config::env_auth::fill_base_url(&pi_config::env_auth::ProcessEnv, &e.base_url)
    } else {
        e.base_url.clone()
    };
    json!({
        "id": e.id,
        "name": e.name,
        "api": e.api,
        "provider": e.provider,
        "baseUrl": base_url,
        "reasoning": e.reasoning,
        "input": e.input,
        "cost": {"input": e.cost.input, "output": e.cost.output, "cacheRead": e.cost.cache_read, "cacheWrite": e.cost.cache_write},
        "contextWindow": e.context_window,
        "maxTokens": e.max_tokens,
    })
}

/// The model list as `models` sees it.
pub fn catalogue(models: &Arc<[ModelEntry]>) -> Models {
    Models {
        chat: Vec::new(),
        chat_source: Some({
            let models = models.clone();
            Arc::new(move || models.iter().map(model_info).collect())
        }),
        available: crate::model_select::available(models).iter().map(|m| format!("{}/{}", m.provider, m.id)).collect(),
    }
}

/// The options of the tool built-ins for this session.
pub fn options(from: &Settings, store: pi_agent::SharedSession, models: &Arc<[ModelEntry]>) -> CodemodeOptions {
    let (mode, budget) = settings(from);
    CodemodeOptions {
        settings: pi_codemode::Settings::new(mode, budget),
        store,
        models: Arc::new(catalogue(models)),
        docs_path: docs_path(),
        runtimes: pi_codemode::Runtimes::new(),
    }
}
