//! From what the model sent to what a handler runs: preparation (the `edit`
//! compatibility shim), lenient coercion and schema validation, with the
//! reference's messages.
//!
//! Coercion and checking are [`crate::schema`]'s: `null` optional properties
//! are dropped, numbers and booleans become strings where a string is
//! expected, numeric strings become numbers, `"true"`/`"false"` become
//! booleans, a lone value where an array is expected is wrapped in an array,
//! unions take the first branch that fits; then every keyword the tools and
//! extension schemas use is checked.

use std::fmt;

use serde_json::{Map, Value};

use crate::InvalidArguments;
use crate::text::args as msg;

pub use crate::schema::Issue;

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
pub fn parse_raw(tool: &str, raw: &str) -> Result<Value, InvalidArguments> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(raw).map_err(|source| InvalidArguments {
        tool: tool.to_string(),
        raw: raw.to_string(),
        source,
    })
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
    let coerced = crate::schema::coerce(schema, value.clone());
    let issues = crate::schema::check(schema, &coerced);
    if issues.is_empty() {
        Ok(coerced)
    } else {
        Err(ValidationError { tool: tool.to_string(), issues, received: value.clone() })
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
        let e = parse_raw("read", "{bad json").unwrap_err().to_string();
        assert!(e.starts_with("Invalid arguments for tool \"read\": "), "{e}");
        assert!(e.ends_with("\n\nReceived arguments:\n{bad json"), "{e}");
        assert_eq!(parse_raw("read", "").unwrap(), json!({}));
    }
}
