//! Constraint tags of a property that its TypeScript type cannot express,
//! shown in its `//` comment: `@integer @minimum 1 @maximum 100 @default 20`.

use serde_json::{Map, Value};

use crate::js;
use crate::text::{MAX_TAG_CHARS, TAG_KEYWORDS};

/// Keywords whose values all hold at once: only the largest lower bound counts.
const LOWER_BOUNDS: &[&str] = &["minimum", "exclusiveMinimum", "minLength", "minItems"];
/// …and the smallest upper bound.
const UPPER_BOUNDS: &[&str] = &["maximum", "exclusiveMaximum", "maxLength", "maxItems"];

/// A branch with draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum`
/// turned into the numeric form.
fn normalized(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut s = schema.clone();
    for (flag, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        if s.get(flag) == Some(&Value::Bool(true)) {
            let value = s.remove(bound).unwrap_or(Value::Null);
            s.insert(flag.into(), value);
        }
    }
    s
}

fn is_integer(t: Option<&Value>) -> bool {
    match t {
        Some(Value::String(s)) => s == "integer",
        Some(Value::Array(a)) => a.iter().any(|v| v == "integer"),
        _ => false,
    }
}

/// The property's own schema plus, for an optional field (`T | null`), the
/// one non-null branch of its `anyOf`/`oneOf`.
fn branches(property: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let variants = match property.get("anyOf") {
        Some(v @ Value::Array(_)) => Some(v),
        _ => property.get("oneOf"),
    };
    let non_null: Vec<&Value> = match variants {
        Some(Value::Array(a)) => a.iter().filter(|v| v.get("type") != Some(&Value::String("null".into()))).collect(),
        _ => Vec::new(),
    };
    let mut out = vec![normalized(property)];
    if let [Value::Object(branch)] = non_null.as_slice() {
        out.push(normalized(branch));
    }
    out
}

fn keyword_tags(schemas: &[Map<String, Value>], tags: &mut Vec<String>) {
    for keyword in TAG_KEYWORDS {
        let values: Vec<&Value> = schemas.iter().filter_map(|s| s.get(*keyword)).collect();
        let lower = LOWER_BOUNDS.contains(keyword);
        if lower || UPPER_BOUNDS.contains(keyword) {
            let numbers = values.iter().filter_map(|v| v.as_f64());
            let bound = if lower {
                numbers.fold(None, |m: Option<f64>, n| Some(m.map_or(n, |m| m.max(n))))
            } else {
                numbers.fold(None, |m: Option<f64>, n| Some(m.map_or(n, |m| m.min(n))))
            };
            if let Some(b) = bound {
                tags.push(format!("@{keyword} {}", js::number(b)));
            }
            continue;
        }
        let mut seen: Vec<String> = Vec::new();
        for v in values {
            let shown = match v {
                Value::Number(n) => n.as_f64().map(js::number),
                Value::String(s) => Some(s.clone()),
                _ => None,
            };
            if let Some(s) = shown
                && !seen.contains(&s)
            {
                tags.push(format!("@{keyword} {s}"));
                seen.push(s);
            }
        }
    }
}

/// Line terminators inside a tag become `\uXXXX`, so the comment stays one line.
fn escape_line_terminators(tag: &str) -> String {
    let mut out = String::with_capacity(tag.len());
    for c in tag.chars() {
        match c {
            '\r' | '\n' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The tags of `property`, space separated; empty when there are none.
pub fn constraint_tags(property: &Value) -> String {
    let Value::Object(prop) = property else { return String::new() };
    let schemas = branches(prop);
    let mut tags = Vec::new();
    if schemas.iter().any(|s| is_integer(s.get("type"))) {
        tags.push("@integer".to_string());
    }
    keyword_tags(&schemas, &mut tags);
    if schemas.iter().any(|s| s.get("uniqueItems") == Some(&Value::Bool(true))) {
        tags.push("@uniqueItems".into());
    }
    if let Some(d) = prop.get("default").filter(|d| !d.is_null()) {
        tags.push(format!("@default {}", js::stringify(d)));
    }
    if prop.get("deprecated") == Some(&Value::Bool(true)) {
        tags.push("@deprecated".into());
    }
    let kept: Vec<String> =
        tags.into_iter().filter(|t| js::len16(t) <= MAX_TAG_CHARS).map(|t| escape_line_terminators(&t)).collect();
    kept.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tags_of_bounds_defaults_and_optional_fields() {
        assert_eq!(
            constraint_tags(&json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 20})),
            "@integer @minimum 1 @maximum 100 @default 20"
        );
        assert_eq!(
            constraint_tags(&json!({"anyOf": [{"type": "integer", "minimum": 3}, {"type": "null"}], "minimum": 1})),
            "@integer @minimum 3"
        );
        assert_eq!(constraint_tags(&json!({"minimum": 2, "exclusiveMinimum": true})), "@exclusiveMinimum 2");
        assert_eq!(constraint_tags(&json!({"pattern": "a\nb", "deprecated": true})), "@pattern a\\u000ab @deprecated");
        assert_eq!(constraint_tags(&json!({"default": "x".repeat(90)})), "");
        assert_eq!(constraint_tags(&json!({"description": "x"})), "");
    }
}
