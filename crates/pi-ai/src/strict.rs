//! Constrained sampling of a tool's arguments (a tool's `constrainedSampling`):
//! whether a tool is declared in a provider's strict JSON-schema mode, and the
//! strict form of its schema.
//!
//! A provider that supports strict tools (`compat.supportsStrictMode` on the
//! OpenAI APIs, `compat.supportsStrictTools` on Anthropic's) gets, for a tool
//! that asks for it, a schema where every object lists all its properties as
//! required (an optional one may be `null` instead), forbids others, and uses
//! only keywords strict mode accepts. A tool that *prefers* strict sampling
//! falls back to its plain schema when that is not possible; one that
//! *requires* it makes the request fail with the reason. Behaviour measured
//! against the reference (Pi 1.6.0).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

/// How strongly a tool asks for strict JSON-schema sampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StrictMode {
    /// Strict when the provider and the schema allow it, plain otherwise.
    Prefer,
    /// Strict, or the request fails.
    Require,
}

/// A tool's `constrainedSampling`.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstrainedSampling {
    /// `false`: never constrained.
    Off,
    /// `{"type": "json_schema", "strict": …}`.
    JsonSchema(StrictMode),
    /// `{"type": "grammar", "variants": {…}}` (no provider of pi's sends
    /// grammar tools; they are declared as plain functions).
    Grammar(Map<String, Value>),
}

impl ConstrainedSampling {
    /// What the built-in `read`, `bash`, `powershell`, `edit` and `write` ask for.
    pub const PREFER_STRICT: ConstrainedSampling = ConstrainedSampling::JsonSchema(StrictMode::Prefer);

    /// The value as JSON.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Off => Value::Bool(false),
            Self::JsonSchema(m) => json!({"type": "json_schema", "strict": m}),
            Self::Grammar(v) => json!({"type": "grammar", "variants": v}),
        }
    }

    /// Read a `constrainedSampling` value; `None` for anything else.
    pub fn from_json(v: &Value) -> Option<Self> {
        match v {
            Value::Bool(false) => Some(Self::Off),
            Value::Object(o) => match o.get("type").and_then(Value::as_str)? {
                "json_schema" => serde_json::from_value(o.get("strict")?.clone()).ok().map(Self::JsonSchema),
                "grammar" => Some(Self::Grammar(o.get("variants")?.as_object()?.clone())),
                _ => None,
            },
            _ => None,
        }
    }
}

impl Serialize for ConstrainedSampling {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ConstrainedSampling {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Self::from_json(&v).ok_or_else(|| D::Error::custom("not a constrainedSampling value"))
    }
}

/// A provider's own rule on top of the common ones: true when its strict
/// mode refuses `key` with `value`.
pub(crate) type KeywordCheck = fn(&str, &Value) -> bool;

/// Keywords no provider's strict mode accepts.
const UNSUPPORTED: &[&str] = &[
    "patternProperties",
    "$defs",
    "definitions",
    "$ref",
    "not",
    "oneOf",
    "allOf",
    "prefixItems",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "dependentSchemas",
    "contains",
];

use crate::text::strict as reason;

/// Why a schema has no strict form (each completes [`StrictRequired`]'s sentence).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum Unsupported {
    /// The parameters are not an object schema.
    #[error("{}", reason::ROOT_NOT_OBJECT)]
    RootNotObject,
    /// `true`/`false` in place of a schema.
    #[error("{}", reason::BOOLEAN)]
    Boolean,
    /// A keyword strict mode never accepts.
    #[error("{}", reason::keyword(.0))]
    Keyword(String),
    /// A keyword and value the provider's strict mode refuses.
    #[error("{}", reason::value(.key, .value))]
    Value {
        /// The keyword.
        key: String,
        /// Its value.
        value: Value,
    },
    /// A schema with no `type`, `anyOf` or `enum`.
    #[error("{}", reason::UNTYPED)]
    Untyped,
    /// An `anyOf` with an object or array variant.
    #[error("{}", reason::COMPOSITE_UNION)]
    CompositeUnion,
    /// `properties` beside a `type` other than `"object"`.
    #[error("{}", reason::PROPERTIES_NOT_OBJECT)]
    PropertiesNotObject,
    /// `items` as an array.
    #[error("{}", reason::TUPLE)]
    Tuple,
    /// An object whose `additionalProperties` is not `false`.
    #[error("{}", reason::OPEN_OBJECT)]
    OpenObject,
    /// `required` names a property `properties` lacks.
    #[error("{}", reason::UNKNOWN_REQUIRED)]
    UnknownRequired,
    /// The provider has no strict mode.
    #[error("{}", reason::NO_STRICT_TOOLS)]
    NoStrictTools,
}

/// A tool requires strict sampling and cannot have it: the request fails.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}", crate::text::strict_required(.tool, &.why.to_string()))]
pub(crate) struct StrictRequired {
    /// The tool's name.
    pub tool: String,
    /// Why its schema cannot be sent strict.
    pub why: Unsupported,
}

impl From<StrictRequired> for crate::error::ProviderError {
    fn from(e: StrictRequired) -> Self {
        crate::error::ProviderError::failed(e.to_string())
    }
}

/// The strict form of a tool's parameter schema, or why there is none.
pub(crate) fn make_strict(schema: &Value, check: Option<KeywordCheck>) -> Result<Value, Unsupported> {
    let type_ok = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    if schema.is_object() && schema.get("anyOf").is_none() && !type_ok {
        return Err(Unsupported::RootNotObject);
    }
    node(schema, check)
}

/// One schema node, checked then transformed.
fn node(schema: &Value, check: Option<KeywordCheck>) -> Result<Value, Unsupported> {
    let Value::Object(obj) = schema else {
        return Err(Unsupported::Boolean);
    };
    for (k, v) in obj {
        if UNSUPPORTED.contains(&k.as_str()) {
            return Err(Unsupported::Keyword(k.clone()));
        }
        if let Some(refuses) = check
            && refuses(k, v)
        {
            return Err(Unsupported::Value { key: k.clone(), value: v.clone() });
        }
    }
    let ty = obj.get("type");
    if let Some(variants) = obj.get("anyOf") {
        let variants = variants.as_array().ok_or(Unsupported::Untyped)?;
        if variants.iter().any(|v| has_type(v, "object") || has_type(v, "array")) {
            return Err(Unsupported::CompositeUnion);
        }
    } else if ty.is_none() && !obj.contains_key("enum") {
        return Err(Unsupported::Untyped);
    }
    let is_object = ty.and_then(Value::as_str) == Some("object");
    if obj.contains_key("properties") && !is_object {
        return Err(Unsupported::PropertiesNotObject);
    }
    let mut out = Map::new();
    for (k, v) in obj {
        let v = match k.as_str() {
            "anyOf" => {
                Value::Array(v.as_array().into_iter().flatten().map(|s| node(s, check)).collect::<Result<Vec<_>, _>>()?)
            }
            "items" => match v {
                Value::Array(_) => return Err(Unsupported::Tuple),
                other => node(other, check)?,
            },
            "additionalProperties" if is_object && v != &Value::Bool(false) => {
                return Err(Unsupported::OpenObject);
            }
            "properties" if is_object => properties(obj, v, check)?,
            "required" if is_object => all_required(obj),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    if is_object {
        let names: Vec<&str> =
            obj.get("properties").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k.as_str()).collect();
        let required = obj.get("required").and_then(Value::as_array);
        if required.into_iter().flatten().any(|r| !r.as_str().is_some_and(|r| names.contains(&r))) {
            return Err(Unsupported::UnknownRequired);
        }
        out.entry("required").or_insert_with(|| all_required(obj));
        out.entry("additionalProperties").or_insert(Value::Bool(false));
    }
    Ok(Value::Object(out))
}

/// An object's properties made strict: an optional one may also be `null`.
fn properties(obj: &Map<String, Value>, props: &Value, check: Option<KeywordCheck>) -> Result<Value, Unsupported> {
    let Value::Object(props) = props else { return Ok(props.clone()) };
    let required: Vec<&str> =
        obj.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut out = Map::new();
    for (name, schema) in props {
        let strict = node(schema, check)?;
        let strict = if required.contains(&name.as_str()) || nullable(&strict) {
            strict
        } else {
            json!({"anyOf": [strict, {"type": "null"}]})
        };
        out.insert(name.clone(), strict);
    }
    Ok(Value::Object(out))
}

/// Every property name, as the new `required`.
fn all_required(obj: &Map<String, Value>) -> Value {
    let names =
        obj.get("properties").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| Value::from(k.as_str()));
    Value::Array(names.collect())
}

fn has_type(schema: &Value, name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == name),
        _ => false,
    }
}

/// Whether `null` is already a valid value.
fn nullable(schema: &Value) -> bool {
    has_type(schema, "null") || schema.get("anyOf").and_then(Value::as_array).is_some_and(|v| v.iter().any(nullable))
}

/// How one tool is declared to a provider.
#[derive(Debug, PartialEq)]
pub(crate) enum Declared {
    /// The provider has no strict mode: the plain schema, no `strict` key.
    Plain,
    /// The provider has one and the tool is not sent strict (`strict: false`).
    NotStrict,
    /// Strict, with this schema.
    Strict(Value),
}

/// Decide how `tool` is declared to a provider that does (`supported`) or
/// does not support strict tools; a tool that requires strict sampling and
/// cannot have it is an error with the reference's words.
pub(crate) fn declare(
    tool: &crate::Tool,
    supported: bool,
    check: Option<KeywordCheck>,
) -> Result<Declared, StrictRequired> {
    let mode = match &tool.constrained_sampling {
        Some(ConstrainedSampling::JsonSchema(m)) => Some(*m),
        _ => None,
    };
    let refused = |why: Unsupported| StrictRequired { tool: tool.name.clone(), why };
    if !supported {
        return match mode {
            Some(StrictMode::Require) => Err(refused(Unsupported::NoStrictTools)),
            _ => Ok(Declared::Plain),
        };
    }
    let Some(mode) = mode else { return Ok(Declared::NotStrict) };
    match (make_strict(&tool.parameters, check), mode) {
        (Ok(schema), _) => Ok(Declared::Strict(schema)),
        (Err(_), StrictMode::Prefer) => Ok(Declared::NotStrict),
        (Err(why), StrictMode::Require) => Err(refused(why)),
    }
}

/// Anthropic's strict mode also refuses numeric and size bounds but
/// `minItems` of 0 or 1, and string formats outside its list.
pub(crate) fn anthropic_refuses(key: &str, value: &Value) -> bool {
    const FORMATS: &[&str] =
        &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];
    match key {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" | "minProperties"
        | "maxProperties" | "maxItems" | "uniqueItems" => true,
        "minItems" => !matches!(value.as_u64(), Some(0 | 1)),
        "format" => !value.as_str().is_some_and(|f| FORMATS.contains(&f)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(schema: Value) -> Result<Value, String> {
        make_strict(&schema, None).map_err(|e| e.to_string())
    }

    #[test]
    fn optional_properties_become_nullable_and_every_object_is_closed() {
        // The reference's read tool, as it sends it in strict mode.
        let read = json!({"type": "object", "required": ["path"], "properties": {
            "path": {"type": "string", "description": "p"},
            "offset": {"type": "number", "description": "o"}}});
        let out = strict(read).unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"type":"object","required":["path","offset"],"properties":{"path":{"type":"string","description":"p"},"offset":{"anyOf":[{"type":"number","description":"o"},{"type":"null"}]}},"additionalProperties":false}"#
        );
    }

    #[test]
    fn required_and_closing_are_appended_when_absent_and_nested_objects_follow() {
        let s = json!({"type": "object", "properties": {"a": {"type": "object",
            "properties": {"b": {"type": "string"}, "c": {"type": "integer"}}, "required": ["c"]}},
            "description": "d"});
        assert_eq!(
            serde_json::to_string(&strict(s).unwrap()).unwrap(),
            r#"{"type":"object","properties":{"a":{"anyOf":[{"type":"object","properties":{"b":{"anyOf":[{"type":"string"},{"type":"null"}]},"c":{"type":"integer"}},"required":["b","c"],"additionalProperties":false},{"type":"null"}]}},"description":"d","required":["a"],"additionalProperties":false}"#
        );
        assert_eq!(
            strict(json!({"type": "object"})).unwrap(),
            json!({"type": "object", "required": [], "additionalProperties": false})
        );
    }

    #[test]
    fn nullable_values_are_not_wrapped_again() {
        let s = json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"type": "null"}}});
        let out = strict(s).unwrap();
        assert_eq!(out["properties"]["a"], json!({"type": ["string", "null"]}));
        assert_eq!(out["properties"]["b"], json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));
        assert_eq!(out["properties"]["c"], json!({"type": "null"}));
    }

    #[test]
    fn what_strict_mode_cannot_express_is_refused_with_the_reason() {
        let cases = [
            (json!({"type": "string"}), "root schema must have type object"),
            (json!({"type": "object", "properties": {"a": {}}}), "schemas without a type are unsupported"),
            (json!({"type": "object", "properties": {"a": {"const": "x"}}}), "schemas without a type are unsupported"),
            (json!({"type": "object", "additionalProperties": true}), OPEN),
            (json!({"type": "object", "properties": {"a": {"type": "object", "additionalProperties": {}}}}), OPEN),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}, "$defs": {}}),
                "$defs schemas are unsupported",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "oneOf": []}}}),
                "oneOf schemas are unsupported",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "items": [{}]}}}),
                "tuple schemas are unsupported",
            ),
            (json!({"type": "object", "properties": {"a": true}}), "boolean schemas are unsupported"),
            (json!({"type": "object", "properties": {}, "required": ["x"]}), "required contains an unknown property"),
            (json!({"type": ["object"], "properties": {}}), "properties require type object"),
            (json!({"anyOf": [{"type": "object"}]}), "object and array unions are unsupported"),
            (
                json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "array"}, {"type": "null"}]}}}),
                "object and array unions are unsupported",
            ),
        ];
        for (schema, why) in cases {
            assert_eq!(strict(schema.clone()), Err(why.to_string()), "{schema}");
        }
    }
    const OPEN: &str = "schema-valued or true additionalProperties is unsupported";

    #[test]
    fn anthropic_refuses_bounds_and_unknown_formats() {
        let s = |p: Value| json!({"type": "object", "properties": {"a": p}});
        let check = Some(anthropic_refuses as KeywordCheck);
        assert_eq!(
            make_strict(&s(json!({"type": "number", "minimum": 1})), check).map_err(|e| e.to_string()),
            Err("minimum: 1 is unsupported".into())
        );
        assert_eq!(
            make_strict(&s(json!({"type": "string", "format": "made-up"})), check).map_err(|e| e.to_string()),
            Err("format: \"made-up\" is unsupported".into())
        );
        assert!(make_strict(&s(json!({"type": "array", "minItems": 1})), check).is_ok());
        assert!(make_strict(&s(json!({"type": "string", "minLength": 5, "format": "email"})), check).is_ok());
        assert!(make_strict(&s(json!({"type": "number", "minimum": 1})), None).is_ok());
    }

    fn tool(cs: Option<ConstrainedSampling>, parameters: Value) -> crate::Tool {
        crate::Tool { name: "t".into(), description: String::new(), parameters, constrained_sampling: cs }
    }

    #[test]
    fn prefer_falls_back_require_fails_and_others_are_not_strict() {
        let open = json!({"type": "object", "additionalProperties": true});
        let closed = json!({"type": "object", "properties": {}});
        let prefer = Some(ConstrainedSampling::PREFER_STRICT);
        let require = Some(ConstrainedSampling::JsonSchema(StrictMode::Require));
        assert_eq!(declare(&tool(prefer.clone(), open.clone()), true, None), Ok(Declared::NotStrict));
        assert!(matches!(declare(&tool(prefer.clone(), closed.clone()), true, None), Ok(Declared::Strict(_))));
        assert_eq!(declare(&tool(prefer, closed.clone()), false, None), Ok(Declared::Plain));
        assert_eq!(declare(&tool(None, closed.clone()), true, None), Ok(Declared::NotStrict));
        assert_eq!(declare(&tool(Some(ConstrainedSampling::Off), closed.clone()), true, None), Ok(Declared::NotStrict));
        assert_eq!(
            declare(&tool(require.clone(), open), true, None).map_err(|e| e.to_string()),
            Err(format!("Tool \"t\" requires JSON-schema constrained sampling, but {OPEN}."))
        );
        assert_eq!(
            declare(&tool(require, closed), false, None).map_err(|e| e.to_string()),
            Err("Tool \"t\" requires JSON-schema constrained sampling, but strict tools are unsupported.".into())
        );
    }

    #[test]
    fn the_json_forms_round_trip_and_odd_values_are_refused() {
        for v in [
            json!(false),
            json!({"type": "json_schema", "strict": "prefer"}),
            json!({"type": "json_schema", "strict": "require"}),
            json!({"type": "grammar", "variants": {"openai_regex": "a+"}}),
        ] {
            assert_eq!(ConstrainedSampling::from_json(&v).unwrap().to_json(), v);
        }
        for v in [json!(true), json!({"type": "json_schema", "strict": "maybe"}), json!({"type": "x"}), json!(3)] {
            assert_eq!(ConstrainedSampling::from_json(&v), None, "{v}");
        }
    }
}
