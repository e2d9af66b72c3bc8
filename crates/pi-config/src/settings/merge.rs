//! Layer merging and migrations of old setting names (reference §9).

use serde_json::{Map, Value};

/// Deep merge `over` onto `base`: objects merge recursively at every depth;
/// arrays, primitives and `null` from `over` replace.
pub(crate) fn deep_merge(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => deep_merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Rename old settings in one layer, in memory (the file is not rewritten).
/// Only values of the right type move; anything else stays for validation to
/// report under its own name.
/// - `queueMode` → `steeringMode`;
/// - boolean `websockets` → `transport` (`"websocket"` / `"sse"`);
/// - `skills: {customDirectories, enableSkillCommands}` → `skills: [...]` and
///   top-level `enableSkillCommands`;
/// - `retry.maxDelayMs` → `retry.provider.maxRetryDelayMs`.
pub(crate) fn migrate(layer: &mut Map<String, Value>) {
    if layer.get("queueMode").is_some_and(|v| matches!(v.as_str(), Some("all" | "one-at-a-time"))) {
        let v = layer.shift_remove("queueMode").unwrap_or(Value::Null);
        if !layer.contains_key("steeringMode") {
            layer.insert("steeringMode".into(), v);
        }
    }
    if let Some(b) = layer.get("websockets").and_then(Value::as_bool) {
        layer.shift_remove("websockets");
        if !layer.contains_key("transport") {
            layer.insert("transport".into(), Value::String(if b { "websocket" } else { "sse" }.into()));
        }
    }
    if let Some(Value::Object(old)) = layer.get("skills").cloned() {
        let dirs = old.get("customDirectories").filter(|v| v.is_array()).cloned().unwrap_or(Value::Array(vec![]));
        layer.insert("skills".into(), dirs);
        if let Some(b) = old.get("enableSkillCommands").filter(|v| v.is_boolean())
            && !layer.contains_key("enableSkillCommands")
        {
            layer.insert("enableSkillCommands".into(), b.clone());
        }
    }
    if let Some(Value::Object(retry)) = layer.get_mut("retry")
        && retry.get("maxDelayMs").is_some_and(Value::is_number)
        && retry.get("provider").is_none_or(Value::is_object)
    {
        let v = retry.shift_remove("maxDelayMs").unwrap_or(Value::Null);
        let provider = retry.entry("provider").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(p) = provider
            && !p.contains_key("maxRetryDelayMs")
        {
            p.insert("maxRetryDelayMs".into(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn merge_is_deep_and_arrays_replace() {
        let mut base = obj(json!({"a": {"b": {"c": 1, "d": 2}, "e": [1, 2]}, "f": 1}));
        deep_merge(&mut base, &obj(json!({"a": {"b": {"c": 3}, "e": [9]}, "f": {"x": 1}, "g": null})));
        assert_eq!(Value::Object(base), json!({"a": {"b": {"c": 3, "d": 2}, "e": [9]}, "f": {"x": 1}, "g": null}));
    }

    #[test]
    fn migrations() {
        let mut l = obj(json!({
            "queueMode": "all", "websockets": true,
            "skills": {"customDirectories": ["~/s"], "enableSkillCommands": false},
            "retry": {"maxDelayMs": 5}
        }));
        migrate(&mut l);
        assert_eq!(
            Value::Object(l),
            json!({"skills": ["~/s"], "retry": {"provider": {"maxRetryDelayMs": 5}},
                   "steeringMode": "all", "transport": "websocket", "enableSkillCommands": false})
        );
        let mut l = obj(json!({"queueMode": 3, "steeringMode": "all", "websockets": false, "transport": "auto"}));
        migrate(&mut l);
        assert_eq!(Value::Object(l), json!({"queueMode": 3, "steeringMode": "all", "transport": "auto"}));
    }
}
