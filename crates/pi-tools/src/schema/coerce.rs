//! Coercion of what a model sent towards what the schema most likely meant,
//! in three passes as the reference's validator does:
//!
//! 1. a `null` in an optional property whose schema rejects null is dropped;
//! 2. conversion by `const`, `enum`, unions, `allOf` and `type`: `null` becomes
//!    `"null"` for a string, `"3.5"` becomes 3 for an integer, a single value
//!    becomes a one-item array, a union takes the first branch whose
//!    conversion passes;
//! 3. primitive coercion by type (also type lists), e.g. `""` for `null`.
//!
//! A value that cannot be coerced is left as it is; the check reports it.

use serde_json::{Map, Value};

use super::{MAX_DEPTH, is_type, passes, required, types_of};
use crate::jsnum::{js_number, js_to_number, number_value};

/// `value` coerced towards `schema`.
pub fn coerce(schema: &Value, value: Value) -> Value {
    let value = drop_optional_nulls(schema, value, 0);
    let value = convert(schema, value, 0);
    coerce_types(schema, value, 0)
}

fn props(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// The schema of an object member: its property's, else `additionalProperties` when a schema.
fn member_schema<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    match props(schema).and_then(|p| p.get(key)) {
        Some(s) => Some(s),
        None => schema.get("additionalProperties").filter(|a| a.is_object()),
    }
}

/// The item schema of a (non-tuple) array.
fn item_schema(schema: &Value) -> Option<&Value> {
    schema.get("items").filter(|i| i.is_object() || i.is_boolean())
}

// ---------------------------------------------------------------- pass 1

fn drop_optional_nulls(schema: &Value, value: Value, depth: usize) -> Value {
    if depth > MAX_DEPTH || !schema.is_object() {
        return value;
    }
    match value {
        Value::Array(items) => match item_schema(schema) {
            Some(s) => Value::Array(items.into_iter().map(|v| drop_optional_nulls(s, v, depth + 1)).collect()),
            None => Value::Array(items),
        },
        Value::Object(map) => {
            let req = required(schema);
            let mut out = Map::new();
            for (k, v) in map {
                let prop = props(schema).and_then(|p| p.get(&k));
                if let Some(p) = prop
                    && v.is_null()
                    && !req.contains(&k.as_str())
                    && p.get("$ref").is_none()
                    && !passes(p, &Value::Null)
                {
                    continue;
                }
                let v = match member_schema(schema, &k) {
                    Some(s) => drop_optional_nulls(s, v, depth + 1),
                    None => v,
                };
                out.insert(k, v);
            }
            Value::Object(out)
        }
        other => other,
    }
}

// ---------------------------------------------------------------- pass 2

fn convert(node: &Value, value: Value, depth: usize) -> Value {
    if depth > MAX_DEPTH || !node.is_object() {
        return value;
    }
    if let Some(c) = node.get("const") {
        return convert_literal(c, value);
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        if values.contains(&value) {
            return value;
        }
        for member in values {
            let candidate = convert_literal(member, value.clone());
            if candidate != value && passes(node, &candidate) {
                return candidate;
            }
        }
        return value;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get(key) {
            if branches.iter().any(|b| passes(b, &value)) {
                return convert_members(node, value, depth);
            }
            for b in branches {
                let candidate = convert_members(node, convert(b, value.clone(), depth + 1), depth);
                if passes(node, &candidate) {
                    return candidate;
                }
            }
            return convert_members(node, value, depth);
        }
    }
    if let Some(Value::Array(all)) = node.get("allOf") {
        let mut next = value;
        for member in all {
            next = convert(member, next, depth + 1);
        }
        return convert_members(node, next, depth);
    }
    match node.get("type").and_then(Value::as_str) {
        Some("string") if value.is_string() => value,
        Some("string") => try_string(&value).unwrap_or(value),
        Some("number") => try_number(&value).map(number_value).unwrap_or(value),
        Some("integer") => try_number(&value).map(|n| number_value(n.trunc())).unwrap_or(value),
        Some("boolean") => try_boolean(&value).map(Value::Bool).unwrap_or(value),
        Some("null") => {
            if try_null(&value) {
                Value::Null
            } else {
                value
            }
        }
        Some("array") => convert_array(node, value, depth),
        Some("object") => convert_object(node, value, depth),
        None if node.get("properties").is_some() => convert_object(node, value, depth),
        None if node.get("items").is_some() => convert_array(node, value, depth),
        _ => value,
    }
}

/// The object members a union or intersection node declares itself.
fn convert_members(node: &Value, value: Value, depth: usize) -> Value {
    if node.get("properties").is_some() || node.get("additionalProperties").is_some() {
        convert_object(node, value, depth)
    } else {
        value
    }
}

fn convert_array(node: &Value, value: Value, depth: usize) -> Value {
    if node.get("items").is_some_and(Value::is_array) || node.get("prefixItems").is_some() {
        return value; // tuples are not converted
    }
    let item = item_schema(node);
    match (value, item) {
        (Value::Array(items), Some(s)) => Value::Array(items.into_iter().map(|v| convert(s, v, depth + 1)).collect()),
        (Value::Array(items), None) => Value::Array(items),
        (single, Some(s)) => Value::Array(vec![convert(s, single, depth + 1)]),
        (single, None) => Value::Array(vec![single]),
    }
}

fn convert_object(node: &Value, value: Value, depth: usize) -> Value {
    let Value::Object(map) = value else { return value };
    Value::Object(
        map.into_iter()
            .map(|(k, v)| {
                let v = match member_schema(node, &k) {
                    Some(s) => convert(s, v, depth + 1),
                    None => v,
                };
                (k, v)
            })
            .collect(),
    )
}

/// A literal (`const`, an enum value) from a value of another type that converts to exactly it.
fn convert_literal(literal: &Value, value: Value) -> Value {
    if *literal == value {
        return value;
    }
    let converted = match literal {
        Value::String(_) => try_string(&value),
        Value::Number(_) => try_number(&value).map(number_value),
        Value::Bool(_) => try_boolean(&value).map(Value::Bool),
        _ => None,
    };
    match converted {
        Some(c) if c == *literal => c,
        _ => value,
    }
}

fn try_string(v: &Value) -> Option<Value> {
    match v {
        Value::Bool(b) => Some(Value::String(b.to_string())),
        Value::Number(n) => Some(Value::String(n.as_f64().map(js_number).unwrap_or_else(|| n.to_string()))),
        Value::Null => Some(Value::String("null".into())),
        Value::String(_) => Some(v.clone()),
        _ => None,
    }
}

fn try_number(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n.as_f64(),
        Value::Null => Some(0.0),
        Value::String(s) => js_to_number(s).or_else(|| match s.to_lowercase().as_str() {
            "false" => Some(0.0),
            "true" => Some(1.0),
            _ => big_int_string(s),
        }),
        _ => None,
    }
}

/// `12n`, `12.5` (truncated) or `12` as TypeBox reads big integers.
fn big_int_string(s: &str) -> Option<f64> {
    let body = s.strip_suffix('n').unwrap_or(s);
    let int = body.split_once('.').map(|(i, _)| i).unwrap_or(body);
    let digits = int.strip_prefix('-').unwrap_or(int);
    let ok =
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    let frac_ok = body.split_once('.').is_none_or(|(_, f)| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    let suffix_ok = !s.ends_with('n') || !body.contains('.');
    if !(ok && frac_ok && suffix_ok) {
        return None;
    }
    int.parse::<f64>().ok().filter(|n| n.abs() <= 9_007_199_254_740_991.0)
}

fn try_boolean(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Some(false),
            Some(1.0) => Some(true),
            _ => None,
        },
        Value::Null => Some(false),
        Value::String(s) => match s.to_lowercase().as_str() {
            "false" | "0" => Some(false),
            "true" | "1" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

fn try_null(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Null => true,
        Value::String(s) => matches!(s.to_lowercase().as_str(), "undefined" | "null" | "" | "0"),
        _ => false,
    }
}

// ---------------------------------------------------------------- pass 3

fn coerce_types(schema: &Value, value: Value, depth: usize) -> Value {
    if depth > MAX_DEPTH || !schema.is_object() {
        return value;
    }
    let mut next = value;
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for member in all {
            next = coerce_types(member, next, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key)
            && !branches.iter().any(|b| passes(b, &next))
        {
            for b in branches {
                let coerced = coerce_types(b, next.clone(), depth + 1);
                if passes(b, &coerced) {
                    next = coerced;
                    break;
                }
            }
        }
    }
    let types = types_of(schema);
    let matches_member = types.len() > 1 && types.iter().any(|t| is_type(&next, t));
    if !types.is_empty() && !matches_member {
        for t in &types {
            let candidate = coerce_primitive(&next, t);
            if let Some(c) = candidate.filter(|c| *c != next) {
                next = c;
                break;
            }
        }
    }
    if types.contains(&"object")
        && let Value::Object(map) = next
    {
        next = Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let v = match member_schema(schema, &k) {
                        Some(s) => coerce_types(s, v, depth + 1),
                        None => v,
                    };
                    (k, v)
                })
                .collect(),
        );
    }
    if types.contains(&"array")
        && let Value::Array(items) = next
    {
        next = match item_schema(schema) {
            Some(s) if !schema.get("items").is_some_and(Value::is_array) => {
                Value::Array(items.into_iter().map(|v| coerce_types(s, v, depth + 1)).collect())
            }
            _ => Value::Array(items),
        };
    }
    next
}

fn coerce_primitive(v: &Value, ty: &str) -> Option<Value> {
    match (ty, v) {
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("number" | "integer", Value::String(s)) if !s.trim().is_empty() => {
            js_to_number(s).filter(|n| ty == "number" || n.fract() == 0.0).map(number_value)
        }
        ("number" | "integer", Value::Bool(b)) => Some(Value::from(*b as i64)),
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("boolean", Value::String(s)) if s == "true" => Some(Value::Bool(true)),
        ("boolean", Value::String(s)) if s == "false" => Some(Value::Bool(false)),
        ("boolean", Value::Number(n)) if n.as_f64() == Some(1.0) => Some(Value::Bool(true)),
        ("boolean", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Bool(false)),
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("string", Value::Number(n)) => Some(Value::String(n.as_f64().map(js_number).unwrap_or_default())),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        ("null", Value::String(s)) if s.is_empty() => Some(Value::Null),
        ("null", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Null),
        ("null", Value::Bool(false)) => Some(Value::Null),
        _ => None,
    }
}
