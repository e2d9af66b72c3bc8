//! Checking a coerced value against a schema: every violation with its path
//! and the reference's message.

use serde_json::{Map, Value};

use super::{MAX_DEPTH, is_type, passes, required, types_of};
use crate::jsnum::{js_json, js_number};
use crate::text::args as msg;

/// One schema violation: a dotted path (`edits.0.oldText`, `root` for the
/// whole value) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Dotted path of the offending value.
    pub path: String,
    /// What is wrong (`missing`, `expected number, got string`).
    pub message: String,
    /// Length of the path as a JSON pointer (ranks union branches).
    depth: usize,
}

/// Every violation of `schema` by `value`, in schema order.
pub fn check(schema: &Value, value: &Value) -> Vec<Issue> {
    let mut issues = Vec::new();
    walk(schema, value, &[], &mut issues, 0);
    issues
}

fn issue(path: &[String], message: String) -> Issue {
    let dotted = if path.is_empty() { msg::ROOT_PATH.to_string() } else { path.join(".") };
    Issue { path: dotted, message, depth: path.iter().map(|s| s.len() + 1).sum() }
}

fn with(path: &[String], key: &str) -> Vec<String> {
    let mut p = path.to_vec();
    p.push(key.to_string());
    p
}

/// The reference's name of a value's type (`integer` for whole numbers).
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub(super) fn walk(node: &Value, v: &Value, path: &[String], out: &mut Vec<Issue>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = node;
    let node = match node {
        Value::Bool(false) => {
            out.push(issue(path, msg::NOTHING_ALLOWED.to_string()));
            return;
        }
        Value::Object(o) => o,
        _ => return,
    };
    let types = types_of(schema);
    if !types.is_empty() && !types.iter().any(|t| is_type(v, t)) {
        out.push(issue(path, msg::expected_got(&types.join(" or "), type_name(v))));
        return;
    }
    if let Some(Value::Array(values)) = node.get("enum")
        && !values.contains(v)
    {
        out.push(issue(path, msg::expected_one_of(&list_values(values))));
    }
    if let Some(c) = node.get("const")
        && c != v
    {
        out.push(issue(path, msg::expected_value(&js_json(c))));
    }
    match v {
        Value::String(s) => string_bounds(node, s, path, out),
        Value::Number(n) => number_bounds(node, n.as_f64().unwrap_or(0.0), path, out),
        Value::Object(map) => object(schema, map, path, out, depth),
        Value::Array(items) => array(node, items, path, out, depth),
        _ => {}
    }
    if let Some(Value::Array(all)) = node.get("allOf") {
        for s in all {
            walk(s, v, path, out, depth + 1);
        }
    }
    if let Some(Value::Array(branches)) = node.get("anyOf") {
        union(branches, v, path, out, false, depth);
    }
    if let Some(Value::Array(branches)) = node.get("oneOf") {
        union(branches, v, path, out, true, depth);
    }
    if let Some(not) = node.get("not")
        && passes(not, v)
    {
        out.push(issue(path, msg::MUST_NOT_MATCH.to_string()));
    }
}

fn bound(node: &Map<String, Value>, key: &str) -> Option<f64> {
    node.get(key).and_then(Value::as_f64)
}

fn string_bounds(node: &Map<String, Value>, s: &str, path: &[String], out: &mut Vec<Issue>) {
    let n = s.chars().count() as f64;
    if let Some(min) = bound(node, "minLength")
        && n < min
    {
        out.push(issue(path, msg::at_least(&js_number(min), "characters")));
    }
    if let Some(max) = bound(node, "maxLength")
        && n > max
    {
        out.push(issue(path, msg::at_most(&js_number(max), "characters")));
    }
    if let Some(Value::String(p)) = node.get("pattern")
        && let Ok(re) = regex::Regex::new(p)
        && !re.is_match(s)
    {
        out.push(issue(path, msg::expected_to_match(p)));
    }
}

fn number_bounds(node: &Map<String, Value>, x: f64, path: &[String], out: &mut Vec<Issue>) {
    type Fails = fn(f64, f64) -> bool;
    let checks: [(&str, &str, Fails); 4] = [
        ("minimum", ">=", |x, b| x < b),
        ("maximum", "<=", |x, b| x > b),
        ("exclusiveMinimum", ">", |x, b| x <= b),
        ("exclusiveMaximum", "<", |x, b| x >= b),
    ];
    for (key, op, fails) in checks {
        if let Some(b) = bound(node, key)
            && fails(x, b)
        {
            out.push(issue(path, msg::expected_compared(op, &js_number(b))));
        }
    }
    if let Some(m) = bound(node, "multipleOf")
        && m > 0.0
    {
        let q = x / m;
        if (q - q.round()).abs() > 1e-9 {
            out.push(issue(path, msg::expected_multiple_of(&js_number(m))));
        }
    }
}

fn object(schema: &Value, map: &Map<String, Value>, path: &[String], out: &mut Vec<Issue>, depth: usize) {
    let Some(node) = schema.as_object() else { return };
    let empty = Map::new();
    let props = node.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    for key in required(schema) {
        if !map.contains_key(key) {
            out.push(issue(&with(path, key), msg::MISSING.to_string()));
        }
    }
    for (key, prop) in props {
        if let Some(v) = map.get(key) {
            walk(prop, v, &with(path, key), out, depth + 1);
        }
    }
    if let Some(additional) = node.get("additionalProperties") {
        for (key, v) in map.iter().filter(|(k, _)| !props.contains_key(*k)) {
            match additional {
                Value::Bool(false) => out.push(issue(&with(path, key), msg::UNKNOWN_FIELD.to_string())),
                s => walk(s, v, &with(path, key), out, depth + 1),
            }
        }
    }
    let count = map.len() as f64;
    if let Some(min) = bound(node, "minProperties")
        && count < min
    {
        out.push(issue(path, msg::at_least(&js_number(min), "properties")));
    }
    if let Some(max) = bound(node, "maxProperties")
        && count > max
    {
        out.push(issue(path, msg::at_most(&js_number(max), "properties")));
    }
}

fn array(node: &Map<String, Value>, items: &[Value], path: &[String], out: &mut Vec<Issue>, depth: usize) {
    if let Some(item_schema) = node.get("items").filter(|s| !s.is_array()) {
        for (i, v) in items.iter().enumerate() {
            walk(item_schema, v, &with(path, &i.to_string()), out, depth + 1);
        }
    }
    let n = items.len() as f64;
    if let Some(min) = bound(node, "minItems")
        && n < min
    {
        out.push(issue(path, msg::at_least(&js_number(min), "items")));
    }
    if let Some(max) = bound(node, "maxItems")
        && n > max
    {
        out.push(issue(path, msg::at_most(&js_number(max), "items")));
    }
    if node.get("uniqueItems") == Some(&Value::Bool(true))
        && items.iter().enumerate().any(|(i, a)| items[..i].contains(a))
    {
        out.push(issue(path, msg::UNIQUE_ITEMS.to_string()));
    }
}

/// `anyOf` (`exactly_one` false) or `oneOf`: a tagged union reports the branch
/// its tag selects; otherwise the branch that declares most of an object's
/// keys, then the one whose first error is deepest.
fn union(branches: &[Value], v: &Value, path: &[String], out: &mut Vec<Issue>, exactly_one: bool, depth: usize) {
    let matches = branches.iter().filter(|b| passes(b, v)).count();
    if matches == 1 || (!exactly_one && matches > 0) {
        return;
    }
    if matches > 1 {
        out.push(issue(path, msg::MORE_THAN_ONE_ALTERNATIVE.to_string()));
        return;
    }
    if let (Some((key, values)), Value::Object(map)) = (tag_of(branches), v) {
        match values.iter().position(|t| Some(t) == map.get(&key)) {
            None => out.push(issue(&with(path, &key), msg::expected_one_of(&list_values(&values)))),
            Some(i) => walk(&branches[i], v, path, out, depth + 1),
        }
        return;
    }
    let mut best: Option<(Vec<Issue>, usize)> = None;
    for b in branches {
        let mut errors = Vec::new();
        walk(b, v, path, &mut errors, depth + 1);
        if errors.is_empty() {
            continue;
        }
        let declared = match v {
            Value::Object(map) => {
                let props = b.get("properties").and_then(Value::as_object);
                map.keys().filter(|k| props.is_some_and(|p| p.contains_key(*k))).count()
            }
            _ => 0,
        };
        let better = match &best {
            None => true,
            Some((e, d)) => declared > *d || (declared == *d && errors[0].depth > e[0].depth),
        };
        if better {
            best = Some((errors, declared));
        }
    }
    match best {
        Some((errors, _)) => out.extend(errors),
        None => out.push(issue(path, msg::NO_ALTERNATIVE.to_string())),
    }
}

/// The property whose `const` tells the branches apart, with each branch's value.
fn tag_of(branches: &[Value]) -> Option<(String, Vec<Value>)> {
    let first = branches.first()?.get("properties")?.as_object()?;
    for key in first.keys() {
        let values: Vec<Option<&Value>> = branches
            .iter()
            .map(|b| b.get("properties").and_then(|p| p.get(key)).and_then(|t| t.get("const")))
            .collect();
        let primitive = values.iter().all(|x| x.is_some_and(|x| !x.is_array() && !x.is_object()));
        if !primitive {
            continue;
        }
        let values: Vec<Value> = values.into_iter().flatten().cloned().collect();
        let distinct = values.iter().enumerate().all(|(i, a)| !values[..i].contains(a));
        if distinct {
            return Some((key.clone(), values));
        }
    }
    None
}

/// Allowed values as JSON, the first 20 then how many more.
fn list_values(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().take(msg::LISTED_VALUES).map(js_json).collect();
    if values.len() <= msg::LISTED_VALUES {
        format!("[{}]", shown.join(","))
    } else {
        format!("[{}, ... and {} more]", shown.join(","), values.len() - msg::LISTED_VALUES)
    }
}
