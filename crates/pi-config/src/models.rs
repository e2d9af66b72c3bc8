//! The models pi can use: the built-in catalogue ([`crate::catalog`]) changed
//! and extended by `models.json`.
//!
//! Each key under `providers` is a provider ID. A built-in ID changes that
//! provider (its `baseUrl`, `apiKey`, `headers`, `compat` apply to its built-in
//! models); any other ID adds a provider, which needs `baseUrl` and an `api` at
//! provider or model level. A `models` entry adds or replaces a model with the
//! same `id`; `modelOverrides` then patches the provider's models (built-in or
//! custom; unknown IDs are ignored). Object fields (`compat`, `cost`,
//! `headers`, `thinkingLevelMap`) merge key by key: the model's over the
//! provider's, an override's over both.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::ConfigError;
use crate::catalog::{CatalogModel, CatalogProvider, builtin_providers};
use crate::compat::{ModelCompat, merge_object};
use crate::models_file::{ModelConfig, ModelOverride, ModelsFile, ProviderConfig};

/// The provider, id, name and API of [`ModelEntry::unknown`].
pub const UNKNOWN_MODEL: &str = "unknown";

/// One usable model, with its connection facts still unresolved (`apiKey` and
/// header values may be `$NAME` or `!command`, see [`crate::resolve_value`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelEntry {
    /// Provider ID (a built-in one, or a `models.json` key).
    pub provider: String,
    /// Model ID sent to the API.
    pub id: String,
    /// Display name (also matched by `--model`).
    pub name: String,
    /// Wire API: `openai-completions`, `openai-responses`, `anthropic-messages`, …
    pub api: String,
    /// API base URL (a built-in one may hold `{NAME}` placeholders, see
    /// [`crate::env_auth::fill_base_url`]).
    pub base_url: String,
    /// Raw `apiKey` from `models.json`, if any.
    pub api_key: Option<String>,
    /// The first environment variable that holds the key of a built-in provider.
    pub env_key: Option<String>,
    /// Raw request headers (the catalogue's, then `models.json`'s).
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
    /// The checked `compat` switches `models.json` sets (provider's, then the
    /// model's, then `modelOverrides`'); [`ModelEntry::compat_object`] is the
    /// whole merged object, the catalogue's included.
    pub compat: ModelCompat,
    /// Every `compat` key `models.json` sets, merged as [`ModelEntry::compat`].
    pub compat_layers: Map<String, Value>,
    /// Prices in dollars per million tokens.
    pub cost: ModelCost,
    /// The provider value for each thinking level.
    pub thinking_level_map: ThinkingLevelMap,
    /// The catalogue's facts, for a built-in model.
    pub builtin: Option<&'static CatalogModel>,
}

impl ModelEntry {
    /// The stand-in the reference runs with when no model can be chosen:
    /// every name `unknown`, no base URL, no limits (a prompt is then
    /// refused with "No API key found for the selected model").
    pub fn unknown() -> ModelEntry {
        ModelEntry {
            provider: UNKNOWN_MODEL.to_string(),
            id: UNKNOWN_MODEL.to_string(),
            name: UNKNOWN_MODEL.to_string(),
            api: UNKNOWN_MODEL.to_string(),
            base_url: String::new(),
            api_key: None,
            env_key: None,
            headers: BTreeMap::new(),
            auth_header: false,
            reasoning: false,
            input: Vec::new(),
            context_window: 0,
            max_tokens: 0,
            compat: ModelCompat::default(),
            compat_layers: Map::new(),
            cost: ModelCost::default(),
            thinking_level_map: ThinkingLevelMap::default(),
            builtin: None,
        }
    }

    /// Whether this is the [`ModelEntry::unknown`] stand-in.
    pub fn is_unknown(&self) -> bool {
        self.provider == UNKNOWN_MODEL && self.id == UNKNOWN_MODEL && self.api == UNKNOWN_MODEL
    }

    /// The whole `compat` object: the catalogue's, then `models.json`'s keys over it.
    pub fn compat_object(&self) -> Map<String, Value> {
        let mut object = match self.builtin.map(|m| m.compat).filter(|t| !t.is_empty()) {
            Some(text) => serde_json::from_str(text).unwrap_or_default(),
            None => Map::new(),
        };
        merge_object(&mut object, &self.compat_layers);
        object
    }

    /// The checked switches of [`ModelEntry::compat_object`].
    pub fn compat_switches(&self) -> ModelCompat {
        ModelCompat::of_object(&self.compat_object())
    }
}

/// Prices in dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelCost {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
}

/// The provider value sent for each thinking level (`thinkingLevelMap`): a
/// level mapped to `null` is unsupported; an unmapped one takes the provider's
/// default value (through `high`; `xhigh` and `max` need a mapping).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThinkingLevelMap {
    builtin: &'static [(&'static str, Option<&'static str>)],
    set: BTreeMap<String, Option<String>>,
}

impl ThinkingLevelMap {
    /// `None`: not mapped; `Some(None)`: unsupported; `Some(Some(v))`: sent as `v`.
    pub fn get(&self, level: &str) -> Option<Option<&str>> {
        if let Some(v) = self.set.get(level) {
            return Some(v.as_deref());
        }
        self.builtin.iter().find(|(l, _)| *l == level).map(|(_, v)| *v)
    }

    /// Every mapped level.
    pub fn entries(&self) -> BTreeMap<String, Option<String>> {
        let mut all: BTreeMap<String, Option<String>> =
            self.builtin.iter().map(|(l, v)| (l.to_string(), v.map(String::from))).collect();
        all.extend(self.set.clone());
        all
    }

    /// `levels` set over the current mapping.
    pub fn extend(&mut self, levels: BTreeMap<String, Option<String>>) {
        self.set.extend(levels);
    }

    /// No level is mapped.
    pub fn is_empty(&self) -> bool {
        self.builtin.is_empty() && self.set.is_empty()
    }
}

/// Default context window of a configured model.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Default output limit of a configured model.
pub const DEFAULT_MAX_TOKENS: u64 = 16_384;

fn builtin_entry(p: &'static CatalogProvider, m: &'static CatalogModel) -> ModelEntry {
    let base_url = if m.base_url.is_empty() { p.base_url } else { m.base_url };
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in p.headers.iter().chain(m.headers) {
        headers.insert(k.to_string(), v.to_string());
    }
    ModelEntry {
        provider: p.id.to_string(),
        id: m.id.to_string(),
        name: m.name.to_string(),
        api: m.api.to_string(),
        base_url: base_url.to_string(),
        api_key: None,
        env_key: p.key_env.first().map(|k| k.to_string()),
        headers,
        auth_header: false,
        reasoning: m.reasoning,
        input: m.input.iter().map(|i| i.to_string()).collect(),
        context_window: m.context_window,
        max_tokens: m.max_tokens,
        compat: ModelCompat::default(),
        compat_layers: Map::new(),
        cost: ModelCost {
            input: m.cost.input,
            output: m.cost.output,
            cache_read: m.cost.cache_read,
            cache_write: m.cost.cache_write,
        },
        thinking_level_map: ThinkingLevelMap { builtin: m.thinking_level_map, set: BTreeMap::new() },
        builtin: Some(m),
    }
}

/// The built-in catalogue as entries, provider by provider.
pub fn builtin_models() -> Vec<ModelEntry> {
    builtin_providers().iter().flat_map(|p| p.models().iter().map(move |m| builtin_entry(p, m))).collect()
}

fn invalid(path: &Path, message: String) -> ConfigError {
    ConfigError::Invalid { path: path.to_path_buf(), message }
}

/// A `models` entry of provider `pid` as a model; `existing` are the
/// provider's models before it (the defaults of a built-in provider).
pub(crate) fn custom_entry(
    path: &Path,
    pid: &str,
    p: &ProviderConfig,
    mc: ModelConfig,
    existing: Option<&ModelEntry>,
) -> Result<ModelEntry, ConfigError> {
    let builtin_base = crate::catalog::builtin_provider(pid).map(|b| b.base_url).filter(|u| !u.is_empty());
    let api = mc.api.or_else(|| p.api.clone()).or_else(|| existing.map(|m| m.api.clone()));
    let base = mc
        .base_url
        .or_else(|| p.base_url.clone())
        .or_else(|| builtin_base.map(String::from))
        .or_else(|| existing.map(|m| m.base_url.clone()));
    let (Some(api), Some(base_url)) = (api, base) else {
        return Err(invalid(path, format!("model \"{}\" of provider \"{pid}\" needs \"baseUrl\" and \"api\"", mc.id)));
    };
    let mut headers = p.headers.clone();
    headers.extend(mc.headers);
    let mut compat_layers = p.compat.object.clone();
    merge_object(&mut compat_layers, &mc.compat.object);
    let mut thinking_level_map = ThinkingLevelMap::default();
    thinking_level_map.extend(mc.thinking_level_map.unwrap_or_default());
    Ok(ModelEntry {
        provider: pid.to_string(),
        name: mc.name.unwrap_or_else(|| mc.id.clone()),
        id: mc.id,
        api,
        base_url,
        api_key: p.api_key.clone(),
        env_key: existing.and_then(|m| m.env_key.clone()),
        headers,
        auth_header: p.auth_header,
        reasoning: mc.reasoning.unwrap_or(false),
        input: mc.input.unwrap_or_else(|| vec!["text".into()]),
        context_window: mc.context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW),
        max_tokens: mc.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        compat: mc.compat.switches.over(p.compat.switches),
        compat_layers,
        cost: mc.cost.unwrap_or_default(),
        thinking_level_map,
        builtin: None,
    })
}

fn apply_override(m: &mut ModelEntry, over: &ModelOverride) {
    m.compat = over.compat.switches.over(m.compat);
    merge_object(&mut m.compat_layers, &over.compat.object);
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
    if let Some(cost) = o.get("cost").and_then(Value::as_object) {
        let price = |k: &str, old: f64| cost.get(k).and_then(Value::as_f64).unwrap_or(old);
        m.cost = ModelCost {
            input: price("input", m.cost.input),
            output: price("output", m.cost.output),
            cache_read: price("cacheRead", m.cost.cache_read),
            cache_write: price("cacheWrite", m.cost.cache_write),
        };
    }
    if let Some(map) = o.get("thinkingLevelMap").and_then(Value::as_object) {
        let levels = map.iter().filter(|(_, v)| v.is_null() || v.is_string());
        m.thinking_level_map.extend(levels.map(|(k, v)| (k.clone(), v.as_str().map(String::from))).collect());
    }
    if let Some(headers) = o.get("headers").and_then(Value::as_object) {
        for (k, v) in headers {
            if let Some(v) = v.as_str() {
                m.headers.insert(k.clone(), v.to_string());
            }
        }
    }
}

/// `p` (the `models.json` entry of provider `pid`) applied to `models`.
fn apply_provider(path: &Path, models: &mut Vec<ModelEntry>, pid: &str, p: ProviderConfig) -> Result<(), ConfigError> {
    for m in models.iter_mut().filter(|m| m.provider == pid) {
        if let Some(u) = &p.base_url {
            m.base_url = u.clone();
        }
        if let Some(k) = &p.api_key {
            m.api_key = Some(k.clone());
        }
        if p.auth_header {
            m.auth_header = true;
        }
        m.headers.extend(p.headers.clone());
        m.compat = p.compat.switches.over(m.compat);
        merge_object(&mut m.compat_layers, &p.compat.object);
    }
    let mut p = p;
    let configs = std::mem::take(&mut p.models);
    for mc in configs {
        let existing = models.iter().find(|m| m.provider == pid);
        let entry = custom_entry(path, pid, &p, mc, existing)?;
        match models.iter().position(|m| m.provider == entry.provider && m.id == entry.id) {
            Some(at) => models[at] = entry,
            None => models.push(entry),
        }
    }
    // As in the reference, overrides come last: they patch custom models too.
    for m in models.iter_mut().filter(|m| m.provider == pid) {
        if let Some(o) = p.model_overrides.get(&m.id) {
            apply_override(m, o);
        }
    }
    Ok(())
}

/// Every model: the built-ins (with the `llama.cpp` router's stored models,
/// see [`crate::llama`]) changed and extended by `<agent_dir>/models.json`
/// (a missing file is fine; an unreadable or invalid one is an error).
pub fn load_models(agent_dir: &Path) -> Result<Vec<ModelEntry>, ConfigError> {
    let path = agent_dir.join("models.json");
    let mut models = builtin_models();
    models.extend(crate::llama::stored_models(agent_dir));
    let text = match crate::files::read_config_text(&path) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(models),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    let file: ModelsFile = serde_json::from_str(&text).map_err(|e| invalid(&path, e.to_string()))?;
    for (pid, p) in file.providers {
        apply_provider(&path, &mut models, &pid, p)?;
    }
    Ok(models)
}

#[cfg(test)]
#[path = "models_tests.rs"]
mod tests;
