//! The built-in `llama.cpp` provider: a local llama.cpp router (`llama
//! serve` without a model). Its models are the router's loaded and sleeping
//! models, kept in `<agent_dir>/models-store.json` under `"llama.cpp"` when
//! the model list is refreshed (interactive and RPC modes do so at start-up);
//! every mode reads them from there, so `--list-models` and `-p` make no
//! request to the router. The router is found at the `LLAMA_BASE_URL` of
//! the stored `/login llama.cpp` credential, else of the environment, else
//! at [`DEFAULT_SERVER_URL`]; its key is the stored one, else
//! `LLAMA_API_KEY`, else [`DEFAULT_KEY`].

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::ConfigError;
use crate::models::{DEFAULT_CONTEXT_WINDOW, ModelEntry, custom_entry};
use crate::models_file::{ModelConfig, ProviderConfig};

/// The provider's ID (also the built-in extension's name).
pub const PROVIDER: &str = "llama.cpp";
/// The setting entry that switches the provider and `/llama` off.
pub const DISABLE_ENTRY: &str = "-builtin:llama.cpp";
/// Where the router is when nothing says otherwise.
pub const DEFAULT_SERVER_URL: &str = "http://127.0.0.1:9931";
/// The variable (and stored credential `env` key) with the router's URL.
pub const BASE_URL_VAR: &str = "LLAMA_BASE_URL";
/// The variable with the router's key.
pub const API_KEY_VAR: &str = "LLAMA_API_KEY";
/// The key sent when none is configured (the router ignores it without `--api-key`).
pub const DEFAULT_KEY: &str = "local";
/// The file that keeps the refreshed model lists.
pub const STORE_FILE: &str = "models-store.json";
/// The wire API of the chat models.
pub const CHAT_API: &str = "openai-completions";
/// The API of the classifier entries kept beside the chat models.
pub const CLASSIFY_API: &str = "llama-cpp-classify";
/// The path under the router's URL where chat requests go.
pub const INFERENCE_PATH: &str = "/v1";

/// One router model as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredModel {
    /// The router's model ID.
    pub id: String,
    /// The context size the router starts it with (`-c`/`--ctx-size`), if known.
    pub context_window: Option<u64>,
    /// Its chat template takes `enable_thinking`.
    pub reasoning: bool,
}

/// The router URL as typed: surrounding space and trailing slashes dropped.
pub fn normalize_server_url(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

/// The URL chat requests go to for a router at `server`.
pub fn inference_url(server: &str) -> String {
    format!("{}{INFERENCE_PATH}", normalize_server_url(server))
}

/// The context size in a router model's start arguments (`-c N`, `--ctx-size N`), when positive.
pub fn context_from_args(args: &[String]) -> Option<u64> {
    let at = args.iter().position(|a| a == "-c" || a == "--ctx-size")?;
    args.get(at + 1)?.parse::<u64>().ok().filter(|n| *n > 0)
}

fn store_path(agent_dir: &Path) -> std::path::PathBuf {
    agent_dir.join(STORE_FILE)
}

fn read_store(agent_dir: &Path) -> Map<String, Value> {
    match crate::files::read_config_text(&store_path(agent_dir)) {
        Ok(Some(text)) => serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| match v {
                Value::Object(o) => Some(o),
                _ => None,
            })
            .unwrap_or_default(),
        _ => Map::new(),
    }
}

/// The stored chat models of the provider (none when the file is missing,
/// unreadable or not as pi writes it: the next refresh rewrites it).
pub fn stored_models(agent_dir: &Path) -> Vec<ModelEntry> {
    let store = read_store(agent_dir);
    let Some(list) = store.get(PROVIDER).and_then(|p| p.get("models")).and_then(Value::as_array) else {
        return Vec::new();
    };
    let provider = ProviderConfig {
        base_url: Some(inference_url(DEFAULT_SERVER_URL)),
        api: Some(CHAT_API.into()),
        ..Default::default()
    };
    let path = store_path(agent_dir);
    list.iter()
        .filter(|m| m.get("type").is_none() && m.get("api").and_then(Value::as_str) == Some(CHAT_API))
        .filter_map(|m| serde_json::from_value::<ModelConfig>(m.clone()).ok())
        .filter_map(|mc| custom_entry(&path, PROVIDER, &provider, mc, None).ok())
        .map(|mut e| {
            e.env_key = Some(API_KEY_VAR.into());
            e
        })
        .collect()
}

fn chat_record(server: &str, m: &StoredModel) -> Value {
    let window = m.context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW);
    let mut compat = json!({
        "supportsStore": false,
        "supportsReasoningEffort": false,
        "supportsUsageInStreaming": true,
        "supportsStrictMode": false,
        "maxTokensField": "max_tokens",
    });
    if m.reasoning {
        compat["thinkingFormat"] = json!("qwen-chat-template");
    }
    json!({
        "id": m.id, "name": m.id, "api": CHAT_API, "provider": PROVIDER,
        "baseUrl": inference_url(server), "reasoning": m.reasoning, "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": window, "maxTokens": window, "compat": compat,
    })
}

fn classifier_record(server: &str, m: &StoredModel) -> Value {
    json!({
        "type": "classifier", "id": m.id, "name": m.id, "api": CLASSIFY_API, "provider": PROVIDER,
        "baseUrl": normalize_server_url(server), "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": m.context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW),
    })
}

/// Keep `models` (the router's usable models) as the provider's entry of
/// the store, checked at `checked_at` (ms since the epoch); other entries
/// of the file stay as they are.
pub fn write_store(agent_dir: &Path, server: &str, models: &[StoredModel], checked_at: u64) -> Result<(), ConfigError> {
    let mut store = read_store(agent_dir);
    let mut records: Vec<Value> = models.iter().map(|m| chat_record(server, m)).collect();
    records.extend(models.iter().map(|m| classifier_record(server, m)));
    store.insert(PROVIDER.into(), json!({"models": records, "checkedAt": checked_at}));
    let path = store_path(agent_dir);
    let text = serde_json::to_string_pretty(&Value::Object(store)).unwrap_or_default();
    crate::trust::fsio::write_atomic(&path, text.as_bytes()).map_err(|source| ConfigError::Write { path, source })
}

/// Whether the `extensions` entries switch the built-in extension off.
pub fn disabled_by(entries: &[String]) -> bool {
    entries.iter().any(|e| e == DISABLE_ENTRY)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn m(id: &str) -> StoredModel {
        StoredModel { id: id.into(), context_window: None, reasoning: false }
    }

    #[test]
    fn stored_models_round_trip_and_other_entries_stay() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(STORE_FILE), r#"{"other": {"models": []}}"#).unwrap();
        let mut big = m("b");
        big.context_window = Some(32768);
        write_store(d.path(), "http://h:1/", &[m("a"), big], 5).unwrap();
        let got = stored_models(d.path());
        assert_eq!(got.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!((got[0].base_url.as_str(), got[0].api.as_str()), ("http://h:1/v1", CHAT_API));
        assert_eq!((got[0].context_window, got[1].max_tokens), (128_000, 32768));
        assert_eq!(got[0].env_key.as_deref(), Some(API_KEY_VAR));
        let text = std::fs::read_to_string(d.path().join(STORE_FILE)).unwrap();
        assert!(text.contains("\"other\"") && text.contains(CLASSIFY_API));
    }

    #[test]
    fn a_bad_store_gives_no_models() {
        let d = tempfile::tempdir().unwrap();
        assert!(stored_models(d.path()).is_empty());
        for bad in ["nope", "[]", r#"{"llama.cpp": {"models": [{"id": 3}]}}"#, r#"{"llama.cpp": 1}"#] {
            std::fs::write(d.path().join(STORE_FILE), bad).unwrap();
            assert!(stored_models(d.path()).is_empty(), "{bad}");
        }
    }

    #[test]
    fn context_size_comes_from_the_start_arguments() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(context_from_args(&args(&["-m", "x", "-c", "4096"])), Some(4096));
        assert_eq!(context_from_args(&args(&["--ctx-size", "0"])), None);
        assert_eq!(context_from_args(&args(&["-c"])), None);
        assert_eq!(normalize_server_url(" http://a:1// "), "http://a:1");
        assert!(disabled_by(&["-builtin:llama.cpp".into()]) && !disabled_by(&["builtin:llama.cpp".into()]));
    }
}
