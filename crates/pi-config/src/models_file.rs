//! The parsed shape of `models.json` (what [`crate::load_models`] merges).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::compat::CompatLayer;
use crate::models::ModelCost;

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
    pub(crate) base_url: Option<String>,
    pub(crate) api_key: Option<String>,
    pub(crate) api: Option<String>,
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) auth_header: bool,
    #[serde(default)]
    pub(crate) compat: CompatLayer,
    #[serde(default)]
    pub(crate) models: Vec<ModelConfig>,
    #[serde(default)]
    pub(crate) model_overrides: BTreeMap<String, ModelOverride>,
}

/// One `modelOverrides` entry: `compat` checked, the rest read loosely.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ModelOverride {
    #[serde(default)]
    pub(crate) compat: CompatLayer,
    #[serde(flatten)]
    pub(crate) fields: BTreeMap<String, Value>,
}

/// One `models` entry.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ModelConfig {
    pub(crate) id: String,
    pub(crate) name: Option<String>,
    pub(crate) api: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) reasoning: Option<bool>,
    pub(crate) input: Option<Vec<String>>,
    pub(crate) context_window: Option<u64>,
    pub(crate) max_tokens: Option<u64>,
    pub(crate) cost: Option<ModelCost>,
    pub(crate) thinking_level_map: Option<BTreeMap<String, Option<String>>>,
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) compat: CompatLayer,
}
