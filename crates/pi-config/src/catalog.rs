//! The built-in catalogue: every provider pi knows without configuration and
//! its chat models, with the facts the reference's catalogue lists.
//!
//! The data lives in `catalog/catalog.json` (refreshed from the reference's
//! published package by `scripts/refresh-catalog.mjs`); the build turns it into
//! the static arrays below, so start-up parses nothing. Nested facts that only a
//! request needs (`compat`, `inputLimits`, `promptCache`, price tiers, …) stay
//! JSON text until the model is used.

/// A built-in provider.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CatalogProvider {
    /// Provider ID (`anthropic`, `openrouter`, …).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The provider's base URL (empty when each model has its own, or when it
    /// comes from the user's configuration).
    pub base_url: &'static str,
    /// The wire APIs its models speak.
    pub apis: &'static [&'static str],
    /// Environment variables that hold its key, in the order they are tried.
    pub key_env: &'static [&'static str],
    /// Headers sent with every request to it.
    pub headers: &'static [(&'static str, &'static str)],
    first: usize,
    count: usize,
}

impl CatalogProvider {
    /// Its chat models, in the catalogue's order.
    pub fn models(&self) -> &'static [CatalogModel] {
        MODELS.get(self.first..self.first + self.count).unwrap_or_default()
    }
}

/// Prices in dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CatalogCost {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
}

/// A built-in chat model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CatalogModel {
    /// Model ID sent to the API.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Wire API.
    pub api: &'static str,
    /// API base URL (may hold `{NAME}` placeholders filled from the environment).
    pub base_url: &'static str,
    /// The model reasons (takes a thinking level).
    pub reasoning: bool,
    /// Input kinds (`text`, `image`).
    pub input: &'static [&'static str],
    /// Prices.
    pub cost: CatalogCost,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_tokens: u64,
    /// The provider value for each thinking level; `None` marks a level unsupported.
    pub thinking_level_map: &'static [(&'static str, Option<&'static str>)],
    /// The `compat` object as JSON text (empty: none).
    pub compat: &'static str,
    /// Headers sent with every request for this model.
    pub headers: &'static [(&'static str, &'static str)],
    /// The model's other facts as a JSON object's text (empty: none).
    pub facts: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/catalog_data.rs"));

/// Every built-in provider, in the catalogue's order (by ID).
pub fn builtin_providers() -> &'static [CatalogProvider] {
    PROVIDERS
}

/// The built-in provider `id`.
pub fn builtin_provider(id: &str) -> Option<&'static CatalogProvider> {
    PROVIDERS.iter().find(|p| p.id == id)
}

/// Each provider's default model, in the order a default is looked for when
/// no model is named: `(provider, model id)`.
pub fn default_models() -> &'static [(&'static str, &'static str)] {
    DEFAULT_MODELS
}

/// Where the catalogue's data comes from (package and version).
pub fn catalog_source() -> &'static str {
    SOURCE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_has_every_provider_and_its_models() {
        assert!(builtin_providers().len() >= 40, "{}", builtin_providers().len());
        assert!(catalog_source().starts_with("@earendil-works/pi-ai "));
        let total: usize = builtin_providers().iter().map(|p| p.models().len()).sum();
        assert_eq!(total, MODELS.len());
        let ids: Vec<&str> = builtin_providers().iter().map(|p| p.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted, "providers are unique and sorted");
        for p in builtin_providers() {
            for m in p.models() {
                assert!(!m.id.is_empty() && !m.api.is_empty(), "{}/{}", p.id, m.id);
                assert!(m.context_window > 0 && m.max_tokens > 0, "{}/{}", p.id, m.id);
                for text in [m.compat, m.facts].into_iter().filter(|t| !t.is_empty()) {
                    let v: serde_json::Value = serde_json::from_str(text).unwrap();
                    assert!(v.is_object(), "{}/{}", p.id, m.id);
                }
            }
        }
    }

    #[test]
    fn known_facts_survive_the_build() {
        let google = builtin_provider("google").unwrap();
        assert_eq!((google.name, google.key_env), ("Google", &["GEMINI_API_KEY"][..]));
        let flash = google.models().iter().find(|m| m.id == "gemini-2.5-flash").unwrap();
        assert_eq!(flash.api, "google-generative-ai");
        assert!(flash.reasoning && flash.input.contains(&"image"));
        let anthropic = builtin_provider("anthropic").unwrap();
        assert_eq!(anthropic.key_env, &["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]);
        let haiku = anthropic.models().iter().find(|m| m.id == "claude-haiku-4-5").unwrap();
        assert!(haiku.compat.contains("\"supportsStrictTools\":true"));
        assert!(haiku.cost.output > haiku.cost.input);
        let copilot = builtin_provider("github-copilot").unwrap();
        assert!(copilot.models().iter().all(|m| !m.headers.is_empty()));
        assert!(builtin_provider("nosuch").is_none());
        assert_eq!(default_models().first().map(|d| d.0), Some("amazon-bedrock"));
        for (provider, id) in default_models() {
            let p = builtin_provider(provider).unwrap();
            assert!(p.models().iter().any(|m| m.id == *id), "{provider}/{id}");
        }
    }
}
