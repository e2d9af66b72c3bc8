//! `models.json` and the small built-in catalogue.
//!
//! Each key under `providers` is a provider ID. A built-in ID changes that
//! provider (e.g. only its `baseUrl`); any other ID adds a provider, which needs
//! `baseUrl` and an `api` at provider or model level. A `models` entry adds or
//! replaces a model with the same `id`; `modelOverrides` then patches the
//! provider's models (built-in or custom). `compat` (provider, model or override
//! level) is merged switch by switch: the model's over the provider's, an
//! override's over both.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::ConfigError;

/// One usable model, with its connection facts still unresolved (`apiKey` and
/// header values may be `$NAME` or `!command`, see [`crate::resolve_value`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelEntry {
    /// Provider ID (`openai`, `anthropic`, or a `models.json` key).
    pub provider: String,
    /// Model ID sent to the API.
    pub id: String,
    /// Display name (also matched by `--model`).
    pub name: String,
    /// Wire API: `openai-completions`, `openai-responses`, `anthropic-messages`.
    pub api: String,
    /// API base URL.
    pub base_url: String,
    /// Raw `apiKey` from `models.json`, if any.
    pub api_key: Option<String>,
    /// Environment variable that holds the key for a built-in provider.
    pub env_key: Option<String>,
    /// Raw request headers.
    pub headers: BTreeMap<String, String>,
    /// Send the key as `Authorization: Bearer`.
    pub auth_header: bool,
    /// The model supports thinking.
    pub reasoning: bool,
    /// Input kinds (`text`, `image`).
    pub input: Vec<String>,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_tokens: u64,
    /// The `compat` switches (provider's, then the model's, then `modelOverrides`').
    pub compat: ModelCompat,
    /// `thinkingLevelMap`: the value sent for each thinking level (`null`: unsupported).
    pub thinking_level_map: BTreeMap<String, Option<String>>,
}

/// The switches of a `compat` object: the basic ones checked here (they
/// shape `openai-completions` requests, and strict tools on every API), the
/// others kept as given in [`ModelCompat::other`] for the provider layer.
/// `None` leaves a switch to detection from the provider and base URL.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCompat {
    /// `supportsStore`: whether the request may carry `store: false`.
    pub supports_store: Option<bool>,
    /// `supportsDeveloperRole`: a reasoning model's system prompt as role `developer`.
    pub supports_developer_role: Option<bool>,
    /// `supportsUsageInStreaming`: whether to send `stream_options`.
    pub supports_usage_in_streaming: Option<bool>,
    /// `maxTokensField`: which field carries the output-token limit.
    pub max_tokens_field: Option<MaxTokensField>,
    /// `supportsStrictMode` (OpenAI APIs): tools may be declared strict.
    pub supports_strict_mode: Option<bool>,
    /// `supportsStrictTools` (Anthropic Messages): tools may be declared strict.
    pub supports_strict_tools: Option<bool>,
    /// Every other switch, as written (`thinkingFormat`, `forceAdaptiveThinking`, …).
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

impl ModelCompat {
    /// These switches over `base`: each one set here wins.
    pub fn over(self, base: ModelCompat) -> ModelCompat {
        ModelCompat {
            supports_store: self.supports_store.or(base.supports_store),
            supports_developer_role: self.supports_developer_role.or(base.supports_developer_role),
            supports_usage_in_streaming: self.supports_usage_in_streaming.or(base.supports_usage_in_streaming),
            max_tokens_field: self.max_tokens_field.or(base.max_tokens_field),
            supports_strict_mode: self.supports_strict_mode.or(base.supports_strict_mode),
            supports_strict_tools: self.supports_strict_tools.or(base.supports_strict_tools),
            other: {
                let mut other = base.other;
                other.extend(self.other);
                other
            },
        }
    }
}

/// The values of `maxTokensField`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `"max_tokens"`.
    MaxTokens,
    /// `"max_completion_tokens"`.
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// The value as written in `models.json` (also the request field's name).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MaxTokens => "max_tokens",
            Self::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// A provider the binary knows without configuration.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinProvider {
    /// Provider ID.
    pub id: &'static str,
    /// Wire API.
    pub api: &'static str,
    /// Base URL.
    pub base_url: &'static str,
    /// Environment variable holding the key.
    pub env_key: &'static str,
    /// (model id, reasoning, image input, context window, max output tokens).
    pub models: &'static [(&'static str, bool, bool, u64, u64)],
}

const BUILTINS: &[BuiltinProvider] = &[
    BuiltinProvider {
        id: "anthropic",
        api: "anthropic-messages",
        base_url: "https://api.anthropic.com",
        env_key: "ANTHROPIC_API_KEY",
        models: &[
            ("claude-sonnet-4-5", true, true, 200_000, 64_000),
            ("claude-opus-4-1", true, true, 200_000, 32_000),
            ("claude-haiku-4-5", true, true, 200_000, 64_000),
        ],
    },
    BuiltinProvider {
        id: "openai",
        api: "openai-responses",
        base_url: "https://api.openai.com/v1",
        env_key: "OPENAI_API_KEY",
        models: &[
            ("gpt-5", true, true, 400_000, 128_000),
            ("gpt-5-mini", true, true, 400_000, 128_000),
            ("gpt-4.1", false, true, 1_047_576, 32_768),
            ("gpt-4o", false, true, 128_000, 16_384),
            ("gpt-4o-mini", false, true, 128_000, 16_384),
        ],
    },
];

/// Default context window of a configured model.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Default output limit of a configured model.
pub const DEFAULT_MAX_TOKENS: u64 = 16_384;

/// The built-in catalogue as entries.
pub fn builtin_models() -> Vec<ModelEntry> {
    BUILTINS
        .iter()
        .flat_map(|p| {
            p.models.iter().map(move |(id, reasoning, image, ctx, max)| ModelEntry {
                provider: p.id.to_string(),
                id: id.to_string(),
                name: id.to_string(),
                api: p.api.to_string(),
                base_url: p.base_url.to_string(),
                api_key: None,
                env_key: Some(p.env_key.to_string()),
                headers: BTreeMap::new(),
                auth_header: false,
                reasoning: *reasoning,
                input: if *image { vec!["text".into(), "image".into()] } else { vec!["text".into()] },
                context_window: *ctx,
                max_tokens: *max,
                compat: ModelCompat::default(),
                thinking_level_map: BTreeMap::new(),
            })
        })
        .collect()
}

/// The parsed shape of `models.json`.
#[derive(Debug, Default, Deserialize)]
pub struct ModelsFile {
    /// Providers by ID.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
}

/// One provider of `models.json`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    base_url: Option<String>,
    api_key: Option<String>,
    api: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    auth_header: bool,
    #[serde(default)]
    compat: ModelCompat,
    #[serde(default)]
    models: Vec<ModelConfig>,
    #[serde(default)]
    model_overrides: BTreeMap<String, ModelOverride>,
}

/// One `modelOverrides` entry: `compat` checked, the rest read loosely.
#[derive(Debug, Default, Deserialize)]
struct ModelOverride {
    #[serde(default)]
    compat: ModelCompat,
    #[serde(flatten)]
    fields: BTreeMap<String, Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelConfig {
    id: String,
    name: Option<String>,
    api: Option<String>,
    base_url: Option<String>,
    reasoning: Option<bool>,
    input: Option<Vec<String>>,
    context_window: Option<u64>,
    max_tokens: Option<u64>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    compat: ModelCompat,
    #[serde(default)]
    thinking_level_map: BTreeMap<String, Option<String>>,
}

fn apply_override(m: &mut ModelEntry, over: &ModelOverride) {
    m.compat = over.compat.clone().over(std::mem::take(&mut m.compat));
    let o = &over.fields;
    if let Some(v) = o.get("name").and_then(Value::as_str) {
        m.name = v.to_string();
    }
    if let Some(v) = o.get("reasoning").and_then(Value::as_bool) {
        m.reasoning = v;
    }
    if let Some(v) = o.get("contextWindow").and_then(Value::as_u64) {
        m.context_window = v;
    }
    if let Some(v) = o.get("maxTokens").and_then(Value::as_u64) {
        m.max_tokens = v;
    }
    if let Some(v) = o.get("input").and_then(Value::as_array) {
        m.input = v.iter().filter_map(|x| x.as_str().map(String::from)).collect();
    }
}

/// Every model: the built-ins changed and extended by `<agent_dir>/models.json`
/// (a missing file is fine; an unreadable or invalid one is an error).
pub fn load_models(agent_dir: &Path) -> Result<Vec<ModelEntry>, ConfigError> {
    let path = agent_dir.join("models.json");
    let mut models = builtin_models();
    let text = match crate::files::read_config_text(&path) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(models),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    let text = text.as_str();
    let file: ModelsFile =
        serde_json::from_str(text).map_err(|e| ConfigError::Invalid { path: path.clone(), message: e.to_string() })?;
    for (pid, p) in file.providers {
        for m in models.iter_mut().filter(|m| m.provider == pid) {
            if let Some(u) = &p.base_url {
                m.base_url = u.clone();
            }
            if let Some(k) = &p.api_key {
                m.api_key = Some(k.clone());
            }
            m.headers.extend(p.headers.clone());
            m.compat = p.compat.clone().over(std::mem::take(&mut m.compat));
        }
        for mc in p.models {
            let api = mc.api.or_else(|| p.api.clone());
            let base = mc.base_url.or_else(|| p.base_url.clone());
            let (Some(api), Some(base_url)) = (api, base) else {
                return Err(ConfigError::Invalid {
                    path: path.clone(),
                    message: format!("model \"{}\" of provider \"{pid}\" needs \"baseUrl\" and \"api\"", mc.id),
                });
            };
            let mut headers = p.headers.clone();
            headers.extend(mc.headers);
            let entry = ModelEntry {
                provider: pid.clone(),
                name: mc.name.unwrap_or_else(|| mc.id.clone()),
                id: mc.id,
                api,
                base_url,
                api_key: p.api_key.clone(),
                env_key: None,
                headers,
                auth_header: p.auth_header,
                reasoning: mc.reasoning.unwrap_or(false),
                input: mc.input.unwrap_or_else(|| vec!["text".into()]),
                context_window: mc.context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW),
                max_tokens: mc.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
                compat: mc.compat.over(p.compat.clone()),
                thinking_level_map: mc.thinking_level_map,
            };
            models.retain(|m| !(m.provider == entry.provider && m.id == entry.id));
            models.push(entry);
        }
        // As in the reference, overrides come last: they patch custom models too.
        for m in models.iter_mut().filter(|m| m.provider == pid) {
            if let Some(o) = p.model_overrides.get(&m.id) {
                apply_override(m, o);
            }
        }
    }
    Ok(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_provider_and_builtin_base_url() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("models.json"),
            r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"x","models":[{"id":"mock-1"}]},
               "anthropic":{"baseUrl":"https://proxy.example/v1"}}}"#,
        )
        .unwrap();
        let models = load_models(dir.path()).unwrap();
        let mock = models.iter().find(|m| m.provider == "mock").unwrap();
        assert_eq!((mock.id.as_str(), mock.api.as_str(), mock.max_tokens), ("mock-1", "openai-completions", 16384));
        assert_eq!(mock.api_key.as_deref(), Some("x"));
        assert!(models.iter().filter(|m| m.provider == "anthropic").all(|m| m.base_url == "https://proxy.example/v1"));
    }

    #[test]
    fn missing_file_is_fine_and_bad_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!load_models(dir.path()).unwrap().is_empty());
        std::fs::write(dir.path().join("models.json"), "{nope").unwrap();
        let e = load_models(dir.path()).unwrap_err().to_string();
        assert!(e.starts_with("Invalid ") && e.contains("models.json"), "{e}");
        std::fs::write(dir.path().join("models.json"), r#"{"providers":{"x":{"models":[{"id":"m"}]}}}"#).unwrap();
        assert!(load_models(dir.path()).unwrap_err().to_string().contains("needs \"baseUrl\" and \"api\""));
    }

    #[test]
    fn compat_merges_provider_model_and_override() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("models.json"),
            r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions",
                 "compat":{"supportsStore":false,"maxTokensField":"max_tokens","thinkingFormat":"qwen"},
                 "models":[{"id":"a","compat":{"supportsStore":true,"other":{"x":1},"supportsStrictTools":true}},{"id":"b"}],
                 "modelOverrides":{"b":{"name":"B","compat":{"supportsUsageInStreaming":false}}}}}}"#,
        )
        .unwrap();
        let models = load_models(dir.path()).unwrap();
        let get = |id: &str| models.iter().find(|m| m.provider == "mock" && m.id == id).unwrap();
        let a = get("a").compat.clone();
        assert_eq!((a.supports_store, a.max_tokens_field), (Some(true), Some(MaxTokensField::MaxTokens)));
        assert_eq!(a.supports_usage_in_streaming, None);
        assert_eq!((a.supports_strict_tools, a.supports_strict_mode), (Some(true), None));
        let b = get("b");
        assert_eq!(b.name, "B");
        assert_eq!(
            b.compat,
            ModelCompat {
                supports_store: Some(false),
                supports_developer_role: None,
                supports_usage_in_streaming: Some(false),
                max_tokens_field: Some(MaxTokensField::MaxTokens),
                supports_strict_mode: None,
                supports_strict_tools: None,
                other: serde_json::json!({"thinkingFormat": "qwen"}).as_object().cloned().unwrap_or_default(),
            }
        );
        assert_eq!(a.other.get("other"), Some(&serde_json::json!({"x": 1})), "unknown switches are kept");
        assert_eq!(a.other.get("thinkingFormat"), Some(&serde_json::json!("qwen")), "the provider's too");
        assert!(builtin_models().iter().all(|m| m.compat == ModelCompat::default()));
        assert_eq!(MaxTokensField::MaxCompletionTokens.as_str(), "max_completion_tokens");
    }

    #[test]
    fn a_bad_compat_value_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        for compat in [r#"{"maxTokensField":"bogus"}"#, r#"{"supportsStore":"no"}"#, "5"] {
            let text = format!(
                r#"{{"providers":{{"mock":{{"baseUrl":"u","api":"openai-completions","models":[{{"id":"m","compat":{compat}}}]}}}}}}"#
            );
            std::fs::write(dir.path().join("models.json"), text).unwrap();
            assert!(load_models(dir.path()).unwrap_err().to_string().starts_with("Invalid "), "{compat}");
        }
    }
}
