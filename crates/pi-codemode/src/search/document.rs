//! The search text of a tool: its description, its schema's property names
//! and descriptions (recursively, through local `$ref`s, `items`, `anyOf`,
//! `oneOf`, `allOf`), and apart from them its namespace's name, description
//! and instructions.

use serde_json::Value;

use crate::declare::resolve_ref;
use crate::js;

/// What the ranker reads of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDocument {
    /// The tool's name.
    pub name: String,
    /// Description and schema text.
    pub text: String,
    /// Namespace name, description and instructions.
    pub namespace_text: String,
}

fn schema_text<'a>(schema: &'a Value, root: &'a Value, parts: &mut Vec<&'a str>, seen: &mut Vec<*const Value>) {
    let Value::Object(obj) = schema else { return };
    if let Some(Value::String(r)) = obj.get("$ref")
        && let Some(target) = resolve_ref(r, root).filter(|t| t.is_object())
        && !seen.contains(&(target as *const Value))
    {
        seen.push(target);
        schema_text(target, root, parts, seen);
    }
    if let Some(Value::String(d)) = obj.get("description") {
        parts.push(d);
    }
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (name, prop) in props {
            parts.push(name);
            schema_text(prop, root, parts, seen);
        }
    }
    if let Some(items) = obj.get("items") {
        schema_text(items, root, parts, seen);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(variants)) = obj.get(key) {
            for v in variants {
                schema_text(v, root, parts, seen);
            }
        }
    }
}

/// The document of a tool.
pub fn document(
    name: &str,
    description: &str,
    parameters: &Value,
    namespace: Option<&pi_agent::Namespace>,
) -> SearchDocument {
    let mut parts: Vec<&str> = vec![description];
    let mut seen = vec![parameters as *const Value];
    schema_text(parameters, parameters, &mut parts, &mut seen);
    let text: Vec<&str> = parts.into_iter().filter(|p| !js::trim(p).is_empty()).collect();
    let namespace_text = namespace
        .map(|n| {
            format!("{} {} {}", n.name, n.description.as_deref().unwrap_or(""), n.instructions.as_deref().unwrap_or(""))
        })
        .unwrap_or_default();
    SearchDocument { name: name.to_string(), text: text.join(" "), namespace_text }
}
