//! JSON Schema coercion and checking for tool arguments, with the
//! reference's semantics and messages (its validator coerces, then checks).
//!
//! Supported keywords: `type` (one or a list), `const`, `enum`, `anyOf`,
//! `oneOf`, `allOf`, `not`, `properties`, `required`, `additionalProperties`,
//! `items`, the string, number, array and object bounds. `$ref`, `if`,
//! `patternProperties`, tuples and formats are not interpreted (values under
//! them pass unchecked).

mod check;
mod coerce;

pub use check::{Issue, check};
pub use coerce::coerce;

use serde_json::Value;

/// The `type` keyword as a list (empty when absent).
fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether `value` is of JSON Schema type `ty`.
fn is_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "number" => value.as_f64().is_some_and(f64::is_finite),
        "integer" => value.as_f64().is_some_and(|n| n.is_finite() && n.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// The names in `required`.
fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Whether `value` passes `schema`.
fn passes(schema: &Value, value: &Value) -> bool {
    let mut issues = Vec::new();
    check::walk(schema, value, &[], &mut issues, 0);
    issues.is_empty()
}

/// Deepest schema nesting walked; deeper parts pass unchecked (a guard, not a limit models meet).
const MAX_DEPTH: usize = 64;
