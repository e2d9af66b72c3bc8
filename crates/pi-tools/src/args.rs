//! From what the model sent to what a handler runs: preparation (the `edit`
//! compatibility shim), lenient coercion and schema validation, with the
//! reference's messages.
//!
//! Coercion follows the reference: `null` optional properties are dropped,
//! numbers and booleans become strings where a string is expected, numeric
//! strings become numbers, `"true"`/`"false"` become booleans, and a lone value
//! where an array is expected is wrapped in an array. Validation then checks the
//! schema subset the tools use (`type`, `properties`, `required`, `items`).

use std::fmt;

use serde_json::{Map, Value};

use crate::text::args as msg;

/// One schema violation: a dotted path (`edits.0.oldText`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Dotted path of the offending value.
    pub path: String,
    /// What is wrong (`missing`, `expected number, got string`).
    pub message: String,
}

/// Arguments that failed the schema; `Display` is the model-visible text.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    /// The tool's name.
    pub tool: String,
    /// Every violation found, in schema order.
    pub issues: Vec<Issue>,
    /// The arguments as the model sent them (before coercion).
    pub received: Value,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.issues.iter().map(|i| msg::issue_line(&i.path, &i.message)).collect();
        let received = serde_json::to_string_pretty(&self.received).unwrap_or_default();
        f.write_str(&msg::validation_failed(&self.tool, &lines.join("\n"), &received))
    }
}

impl std::error::Error for ValidationError {}

/// Parse the raw argument text of a tool call. Failure gives the reference's
/// `Invalid arguments for tool "<name>": …` message.
pub fn parse_raw(tool: &str, raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(raw).map_err(|e| msg::invalid_arguments(tool, &e.to_string(), raw))
}

/// The `edit` tool's compatibility shim, run before validation: `edits` given
/// as a JSON string is parsed, a single edit object is wrapped in an array, and
/// legacy top-level `oldText`/`newText` become the last edit.
pub fn prepare_edit_arguments(args: Value) -> Value {
    let Value::Object(mut map) = args else { return args };
    if let Some(Value::String(s)) = map.get("edits")
        && let Ok(parsed) = serde_json::from_str::<Value>(s)
        && (parsed.is_array() || parsed.is_object())
    {
        map.insert("edits".into(), parsed);
    }
    // Keys keep their places (the reference edits the object in place), so
    // `shift_remove`, never `remove` (which swaps the last key in).
    if let Some(slot) = map.get_mut("edits")
        && slot.is_object()
    {
        let single = slot.take();
        *slot = Value::Array(vec![single]);
    }
    if let (Some(Value::String(_)), Some(Value::String(_))) = (map.get("oldText"), map.get("newText")) {
        let old = map.shift_remove("oldText").unwrap_or(Value::Null);
        let new = map.shift_remove("newText").unwrap_or(Value::Null);
        let mut edit = Map::new();
        edit.insert("oldText".into(), old);
        edit.insert("newText".into(), new);
        match map.get_mut("edits") {
            Some(Value::Array(list)) => list.push(Value::Object(edit)),
            _ => {
                map.insert("edits".into(), Value::Array(vec![Value::Object(edit)]));
            }
        }
    }
    Value::Object(map)
}

/// Coerce `value` towards `schema` (see the module doc), then validate it.
/// Returns the coerced value, or a [`ValidationError`] carrying `value` as received.
pub fn validate(tool: &str, schema: &Value, value: &Value) -> Result<Value, ValidationError> {
    let coerced = coerce(schema, value.clone());
    let mut issues = Vec::new();
    check(schema, &coerced, "", &mut issues);
    if issues.is_empty() {
        Ok(coerced)
    } else {
        Err(ValidationError { tool: tool.to_string(), issues, received: value.clone() })
    }
}

fn schema_type(schema: &Value) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn numeric_string(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let ok = t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
    if !ok {
        return None;
    }
    t.parse::<f64>().ok().filter(|n| n.is_finite())
}

fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null)
    }
}

/// JavaScript's `String(number)` for the common cases.
fn js_number_string(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i64),
        _ => n.to_string(),
    }
}

fn coerce(schema: &Value, value: Value) -> Value {
    match (schema_type(schema), value) {
        (Some("string"), Value::Number(n)) => Value::String(js_number_string(&n)),
        (Some("string"), Value::Bool(b)) => Value::String(b.to_string()),
        (Some("number" | "integer"), Value::String(s)) => match numeric_string(&s) {
            Some(n) => number_value(n),
            None => Value::String(s),
        },
        (Some("number" | "integer"), Value::Bool(b)) => Value::from(b as i64),
        (Some("boolean"), Value::String(s)) if s == "true" => Value::Bool(true),
        (Some("boolean"), Value::String(s)) if s == "false" => Value::Bool(false),
        (Some("array"), Value::Array(items)) => {
            let item_schema = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array(items.into_iter().map(|v| coerce(&item_schema, v)).collect())
        }
        (Some("array"), Value::Null) => Value::Null,
        (Some("array"), other) => coerce(schema, Value::Array(vec![other])),
        (Some("object"), Value::Object(map)) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let req = required(schema);
            let mut out = Map::new();
            for (k, v) in map {
                match props.and_then(|p| p.get(&k)) {
                    Some(_) if v.is_null() && !req.contains(&k.as_str()) => {}
                    Some(prop) => {
                        let c = coerce(prop, v);
                        out.insert(k, c);
                    }
                    None => {
                        out.insert(k, v);
                    }
                }
            }
            Value::Object(out)
        }
        (_, v) => v,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

fn check(schema: &Value, value: &Value, path: &str, issues: &mut Vec<Issue>) {
    let Some(ty) = schema_type(schema) else { return };
    let fits = match ty {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    };
    if !fits {
        let at = if path.is_empty() { msg::ROOT_PATH } else { path };
        issues.push(Issue { path: at.to_string(), message: msg::expected_got(ty, type_name(value)) });
        return;
    }
    match value {
        Value::Object(map) => {
            for key in required(schema) {
                if !map.contains_key(key) {
                    issues.push(Issue { path: join(path, key), message: msg::MISSING.to_string() });
                }
            }
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (key, prop) in props {
                    if let Some(v) = map.get(key) {
                        check(prop, v, &join(path, key), issues);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    check(item_schema, v, &join(path, &i.to_string()), issues);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolName, ToolSpec};
    use serde_json::json;

    fn run(tool: ToolName, v: Value) -> Result<Value, String> {
        let v = if tool == ToolName::Edit { prepare_edit_arguments(v) } else { v };
        validate(tool.as_str(), &ToolSpec::of(tool).parameters, &v).map_err(|e| e.to_string())
    }

    #[test]
    fn missing_required_is_reported_with_received_arguments() {
        let e = run(ToolName::Read, json!({})).unwrap_err();
        assert_eq!(e, "Validation failed for tool \"read\":\n  - path: missing\n\nReceived arguments:\n{}");
    }

    #[test]
    fn wrong_type_after_coercion() {
        let e = run(ToolName::Read, json!({"path": "f.txt", "offset": "abc"})).unwrap_err();
        assert_eq!(
            e,
            "Validation failed for tool \"read\":\n  - offset: expected number, got string\n\nReceived arguments:\n{\n  \"path\": \"f.txt\",\n  \"offset\": \"abc\"\n}"
        );
    }

    #[test]
    fn lenient_coercion() {
        assert_eq!(
            run(ToolName::Read, json!({"path": 5, "offset": "2", "limit": null})).unwrap(),
            json!({"path": "5", "offset": 2})
        );
        assert_eq!(
            run(ToolName::Write, json!({"path": "a", "content": 42})).unwrap(),
            json!({"path": "a", "content": "42"})
        );
        assert_eq!(
            run(ToolName::Grep, json!({"pattern": "a", "ignoreCase": "true"})).unwrap()["ignoreCase"],
            json!(true)
        );
        assert_eq!(run(ToolName::Bash, json!({"command": "x", "timeout": "2"})).unwrap()["timeout"], json!(2));
    }

    #[test]
    fn edits_as_a_non_json_string_is_wrapped_and_fails_as_the_reference_does() {
        let e = run(ToolName::Edit, json!({"path": "f", "edits": "notjson"})).unwrap_err();
        assert!(
            e.starts_with("Validation failed for tool \"edit\":\n  - edits.0: expected object, got string\n"),
            "{e}"
        );
    }

    #[test]
    fn edit_shim_forms() {
        let one = json!({"oldText": "a", "newText": "b"});
        let want = json!({"path": "f", "edits": [one.clone()]});
        assert_eq!(run(ToolName::Edit, json!({"path": "f", "edits": one.to_string()})).unwrap(), want);
        assert_eq!(run(ToolName::Edit, json!({"path": "f", "edits": one.clone()})).unwrap(), want);
        assert_eq!(run(ToolName::Edit, json!({"path": "f", "oldText": "a", "newText": "b"})).unwrap(), want);
        let two = run(
            ToolName::Edit,
            json!({"path": "f", "edits": [{"oldText": "x", "newText": "y"}], "oldText": "a", "newText": "b"}),
        )
        .unwrap();
        assert_eq!(two["edits"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn edit_shim_keeps_key_order_as_the_reference() {
        let order =
            |v: Value| -> Vec<String> { prepare_edit_arguments(v).as_object().unwrap().keys().cloned().collect() };
        assert_eq!(order(json!({"edits": {"oldText": "a", "newText": "b"}, "path": "f"})), ["edits", "path"]);
        assert_eq!(order(json!({"oldText": "a", "newText": "b", "path": "f", "edits": "x"})), ["path", "edits"]);
        assert_eq!(order(json!({"oldText": "a", "newText": "b", "path": "f"})), ["path", "edits"]);
        assert_eq!(
            prepare_edit_arguments(json!({"path": "f", "edits": "null", "oldText": "a"})),
            json!({"path": "f", "edits": "null", "oldText": "a"})
        );
        assert_eq!(
            prepare_edit_arguments(json!({"path": "f", "edits": 5, "oldText": "a", "newText": "b"})),
            json!({"path": "f", "edits": [{"oldText": "a", "newText": "b"}]})
        );
    }

    #[test]
    fn nested_missing_field() {
        let e = run(ToolName::Edit, json!({"path": "f", "edits": [{"oldText": "a"}]})).unwrap_err();
        assert!(e.contains("  - edits.0.newText: missing"), "{e}");
    }

    #[test]
    fn raw_json_parse_failure() {
        let e = parse_raw("read", "{bad json").unwrap_err();
        assert!(e.starts_with("Invalid arguments for tool \"read\": "), "{e}");
        assert!(e.ends_with("\n\nReceived arguments:\n{bad json"), "{e}");
        assert_eq!(parse_raw("read", "").unwrap(), json!({}));
    }
}
