use super::*;
use serde_json::json;

#[test]
fn built_in_shapes() {
    let read_in = json!({"type": "object", "required": ["path"], "properties": {
        "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
        "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
        "limit": {"type": "number", "description": "Maximum number of lines to read"}}});
    let read_out = json!({"anyOf": [{"type": "string"}, {"type": "object", "properties": {
        "type": {"const": "image", "type": "string"}, "data": {"type": "string"}, "mimeType": {"type": "string"},
        "note": {"type": "string"}}, "required": ["type", "data", "mimeType", "note"]}]});
    assert_eq!(
        signature("read", &read_in, Some(&read_out)),
        "read(args: {\n  // Maximum number of lines to read\n  limit?: number;\n  // Line number to start reading from (1-indexed)\n  offset?: number;\n  // Path to the file to read (relative or absolute)\n  path: string;\n}): Promise<string | { data: string; mimeType: string; note: string; type: \"image\"; }>;"
    );
    assert_eq!(
        schema_to_type(
            &json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            None
        ),
        "{ text: string; }"
    );
    assert_eq!(schema_to_type(&json!({"type": "object"}), None), "{ [key: string]: unknown; }");
    assert_eq!(schema_to_type(&json!({"type": "object", "properties": {}, "additionalProperties": false}), None), "{}");
    assert_eq!(output_type(None), "unknown");
}

#[test]
fn refs_unions_arrays_and_keys() {
    let s = json!({"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}},
        "type": "object", "properties": {"head": {"$ref": "#/$defs/N"}, "a-b": {"type": ["string", "null"]},
        "list": {"type": "array", "items": {"enum": ["x", 2]}}, "pair": {"prefixItems": [{"type": "string"}, true]},
        "both": {"allOf": [{"anyOf": [{"type": "string"}, {"type": "number"}]}, {"type": "object", "properties": {}, "additionalProperties": false}]}}});
    assert_eq!(
        schema_to_type(&s, None),
        "{ \"a-b\"?: string | null; both?: (string | number) & {}; head?: { next?: unknown; }; list?: Array<\"x\" | 2>; pair?: [string, unknown]; }"
    );
    assert_eq!(
        resolve_ref("#/a~1b/c%20d", &json!({"a/b": {"c d": {"type": "string"}}})),
        Some(&json!({"type": "string"}))
    );
    assert_eq!(resolve_ref("#/x/%zz", &json!({"x": {}})), None);
    assert_eq!(resolve_ref("other.json#/x", &json!({})), None);
}

#[test]
fn long_types_lose_tags_then_become_unknown() {
    let props: Map<String, Value> =
        (0..40).map(|i| (format!("p{i:02}"), json!({"type": "integer", "minimum": 1, "maximum": 100}))).collect();
    let s = json!({"type": "object", "properties": props});
    let full = schema_to_type(&s, None);
    assert!(full.contains("@integer @minimum 1 @maximum 100"));
    let short = schema_to_type(&s, Some(600));
    assert!(!short.contains("@integer") && short.starts_with("{ p00?: number;"), "{short}");
    assert_eq!(schema_to_type(&s, Some(10)), "unknown");
}
