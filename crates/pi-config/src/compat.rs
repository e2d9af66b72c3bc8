//! A model's `compat` object: the switches pi checks when `models.json` is
//! read ([`ModelCompat`]), and the whole object as written ([`CompatLayer`]),
//! which layers merge key by key and the provider layer reads as it needs.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The switches of a `compat` object whose values pi checks when
/// `models.json` is read (a wrong type makes the file invalid); every other
/// key is kept as written and passed on.
/// `None` leaves a switch to detection from the provider and base URL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
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
        }
    }

    /// The checked switches of a whole `compat` object (others ignored; a
    /// switch of the wrong type is left unset).
    pub fn of_object(object: &Map<String, Value>) -> ModelCompat {
        let flag = |k: &str| object.get(k).and_then(Value::as_bool);
        ModelCompat {
            supports_store: flag("supportsStore"),
            supports_developer_role: flag("supportsDeveloperRole"),
            supports_usage_in_streaming: flag("supportsUsageInStreaming"),
            max_tokens_field: object.get("maxTokensField").and_then(Value::as_str).and_then(MaxTokensField::from_name),
            supports_strict_mode: flag("supportsStrictMode"),
            supports_strict_tools: flag("supportsStrictTools"),
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

    /// The value written `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::MaxTokens, Self::MaxCompletionTokens].into_iter().find(|f| f.as_str() == name)
    }
}

/// One `compat` object of `models.json` (a provider's, a model's or an
/// override's): the checked switches and the object as written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompatLayer {
    /// The checked switches.
    pub switches: ModelCompat,
    /// Every key, as written.
    pub object: Map<String, Value>,
}

impl<'de> Deserialize<'de> for CompatLayer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        let switches = ModelCompat::deserialize(Value::Object(object.clone())).map_err(serde::de::Error::custom)?;
        Ok(CompatLayer { switches, object })
    }
}

/// `over`'s keys set on `base` (each key of `over` wins).
pub fn merge_object(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (k, v) in over {
        base.insert(k.clone(), v.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_keeps_every_key_and_checks_the_switches() {
        let layer: CompatLayer =
            serde_json::from_str(r#"{"supportsStore":false,"thinkingFormat":"qwen","x":{"y":1}}"#).unwrap();
        assert_eq!(layer.switches.supports_store, Some(false));
        assert_eq!(layer.object.len(), 3);
        assert_eq!(ModelCompat::of_object(&layer.object), layer.switches);
        for bad in [r#"{"supportsStore":"no"}"#, r#"{"maxTokensField":"bogus"}"#, "5", "[]"] {
            assert!(serde_json::from_str::<CompatLayer>(bad).is_err(), "{bad}");
        }
        let mut base = layer.object.clone();
        let over: CompatLayer = serde_json::from_str(r#"{"supportsStore":true}"#).unwrap();
        merge_object(&mut base, &over.object);
        assert_eq!(ModelCompat::of_object(&base).supports_store, Some(true));
        assert_eq!(base.get("thinkingFormat"), Some(&Value::from("qwen")));
        assert_eq!(MaxTokensField::from_name("max_tokens"), Some(MaxTokensField::MaxTokens));
        assert_eq!(MaxTokensField::from_name("nope"), None);
    }
}
