//! TypeScript declarations of tools, generated from their JSON schemas, as
//! the codemode description, `ALL_TOOLS`, and `describeTool()` show them:
//!
//! ```text
//! declare const tools: { read(args: {
//!   // Path to the file to read (relative or absolute)
//!   path: string;
//! }): Promise<string>; };
//! ```
//!
//! Objects render on one line with properties sorted by name, or one
//! property per line with `//` comments when a property has a description or
//! constraints; local `$ref`s resolve (recursion and remote references are
//! `unknown`); an input type longer than its budget loses its tags, then
//! becomes `unknown`.

mod tags;

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::identifier::{is_identifier, to_identifier};
use crate::js;
use crate::text::{INPUT_TYPE_MAX_CHARS, MAX_REF_EXPANSIONS};

pub use tags::constraint_tags;

const INDENT: &str = "  ";

struct Render<'a> {
    root: &'a Value,
    resolving: BTreeSet<String>,
    expansions: usize,
    tags: bool,
}

fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = segment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The subschema a local `$ref` (`#`, `#/$defs/Item`) names in `root`;
/// `None` for remote references, references that name nothing, and
/// malformed escapes.
pub fn resolve_ref<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let path = if reference == "#" { "" } else { reference.strip_prefix("#/")? };
    let mut current = root;
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let key = percent_decode(segment)?.replace("~1", "/").replace("~0", "~");
        current = current.as_object()?.get(&key)?;
    }
    matches!(current, Value::Bool(_) | Value::Object(_)).then_some(current)
}

fn union(types: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for t in types {
        if !unique.contains(&t) {
            unique.push(t);
        }
    }
    if unique.iter().any(|t| t == "unknown") {
        return "unknown".into();
    }
    if unique.is_empty() { "never".into() } else { unique.join(" | ") }
}

fn lines_of(text: &str) -> Vec<&str> {
    text.split(['\r', '\n', '\u{2028}', '\u{2029}']).map(js::trim).filter(|l| !l.is_empty()).collect()
}

impl Render<'_> {
    fn type_of(&mut self, schema: &Value) -> String {
        let obj = match schema {
            Value::Bool(true) => return "unknown".into(),
            Value::Bool(false) => return "never".into(),
            Value::Object(o) => o,
            _ => return "unknown".into(),
        };
        if let Some(Value::String(r)) = obj.get("$ref") {
            return self.reference(r);
        }
        if let Some(c) = obj.get("const") {
            return js::stringify(c);
        }
        if let Some(Value::Array(e)) = obj.get("enum") {
            return union(e.iter().map(js::stringify).collect());
        }
        let variants = match (obj.get("anyOf"), obj.get("oneOf")) {
            (Some(Value::Array(v)), _) | (_, Some(Value::Array(v))) => Some(v),
            _ => None,
        };
        if let Some(v) = variants {
            let types = v.iter().map(|s| self.type_of(s)).collect();
            return union(types);
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            let parts: Vec<String> = parts.iter().map(|p| self.type_of(p)).filter(|p| p != "unknown").collect();
            if parts.is_empty() {
                return "unknown".into();
            }
            let wrapped: Vec<String> =
                parts.into_iter().map(|p| if p.contains(" | ") { format!("({p})") } else { p }).collect();
            return wrapped.join(" & ");
        }
        match obj.get("type") {
            Some(Value::Array(types)) => {
                let mut out = Vec::new();
                for t in types {
                    let mut one = obj.clone();
                    one.insert("type".into(), t.clone());
                    out.push(self.type_of(&Value::Object(one)));
                }
                union(out)
            }
            Some(Value::String(t)) => match t.as_str() {
                "string" => "string".into(),
                "number" | "integer" => "number".into(),
                "boolean" => "boolean".into(),
                "null" => "null".into(),
                "array" => self.array(obj),
                "object" => self.object(obj),
                _ => "unknown".into(),
            },
            None => {
                if ["properties", "additionalProperties", "required"].iter().any(|k| obj.contains_key(*k)) {
                    self.object(obj)
                } else if obj.contains_key("items") || obj.contains_key("prefixItems") {
                    self.array(obj)
                } else {
                    "unknown".into()
                }
            }
            Some(_) => "unknown".into(),
        }
    }

    fn reference(&mut self, r: &str) -> String {
        if self.resolving.contains(r) || self.expansions >= MAX_REF_EXPANSIONS {
            return "unknown".into();
        }
        let Some(target) = resolve_ref(r, self.root) else { return "unknown".into() };
        self.expansions += 1;
        self.resolving.insert(r.to_string());
        let out = self.type_of(target);
        self.resolving.remove(r);
        out
    }

    fn array(&mut self, obj: &Map<String, Value>) -> String {
        if let Some(items) = obj.get("items").filter(|i| !i.is_array()) {
            return format!("Array<{}>", self.type_of(items));
        }
        let tuple = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(t)), _) | (_, Some(Value::Array(t))) => t.as_slice(),
            _ => &[],
        };
        if tuple.is_empty() {
            return "unknown[]".into();
        }
        let types: Vec<String> = tuple.iter().map(|t| self.type_of(t)).collect();
        format!("[{}]", types.join(", "))
    }

    fn object(&mut self, obj: &Map<String, Value>) -> String {
        let empty = Map::new();
        let properties = obj.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let required: Vec<&Value> =
            obj.get("required").and_then(Value::as_array).map(|r| r.iter().collect()).unwrap_or_default();
        let mut names: Vec<&String> = properties.keys().collect();
        names.sort_by(|a, b| js::cmp16(a, b));
        let mut members: Vec<String> = Vec::new();
        for name in &names {
            let key =
                if is_identifier(name) { name.to_string() } else { js::stringify(&Value::String(name.to_string())) };
            let optional = if required.iter().any(|r| r.as_str() == Some(name.as_str())) { "" } else { "?" };
            let t = self.type_of(&properties[name.as_str()]);
            members.push(format!("{key}{optional}: {t};"));
        }
        match obj.get("additionalProperties") {
            None if names.is_empty() => members.push("[key: string]: unknown;".into()),
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => members.push("[key: string]: unknown;".into()),
            Some(other) => {
                let t = self.type_of(other);
                members.push(format!("[key: string]: {t};"));
            }
        }
        if members.is_empty() {
            return "{}".into();
        }
        let comments: Vec<Vec<String>> = names
            .iter()
            .map(|n| {
                let prop = &properties[n.as_str()];
                let description = prop.get("description").and_then(Value::as_str).map(js::trim).unwrap_or("");
                let mut lines: Vec<String> = lines_of(description).into_iter().map(String::from).collect();
                let tags = if self.tags { constraint_tags(prop) } else { String::new() };
                if !tags.is_empty() {
                    lines.push(tags);
                }
                lines
            })
            .collect();
        if comments.iter().all(Vec::is_empty) {
            return format!("{{ {} }}", members.join(" "));
        }
        let mut out = vec!["{".to_string()];
        for (comment, member) in comments.iter().zip(&members) {
            out.extend(comment.iter().map(|l| format!("{INDENT}// {l}")));
            out.push(format!("{INDENT}{}", member.replace('\n', &format!("\n{INDENT}"))));
        }
        out.extend(members[names.len()..].iter().map(|m| format!("{INDENT}{m}")));
        out.push("}".into());
        out.join("\n")
    }
}

/// `schema` as a TypeScript type; over `max_chars` (UTF-16 units) it is
/// rendered again without tags, then `unknown`.
pub fn schema_to_type(schema: &Value, max_chars: Option<usize>) -> String {
    let render = |tags: bool| Render { root: schema, resolving: BTreeSet::new(), expansions: 0, tags }.type_of(schema);
    let tagged = render(true);
    let Some(max) = max_chars else { return tagged };
    if js::len16(&tagged) <= max {
        return tagged;
    }
    let plain = render(false);
    if js::len16(&plain) <= max { plain } else { "unknown".into() }
}

/// What a call resolves to: the output schema's type (`unknown` without one).
pub fn output_type(schema: Option<&Value>) -> String {
    schema.map(|s| schema_to_type(s, None)).unwrap_or_else(|| "unknown".into())
}

/// One tool as a member of `tools`: `id(args: T): Promise<R>;`.
pub fn signature(name: &str, input: &Value, output: Option<&Value>) -> String {
    let args = schema_to_type(input, Some(INPUT_TYPE_MAX_CHARS));
    format!("{}(args: {args}): Promise<{}>;", to_identifier(name), output_type(output))
}

/// A tool's sample: its description, then its declaration in a `ts` fence.
pub fn sample(description: &str, name: &str, input: &Value, output: Option<&Value>) -> String {
    format!(
        "{}\n\ncodemode tool declaration:\n```ts\ndeclare const tools: {{ {} }};\n```",
        js::trim(description),
        signature(name, input, output)
    )
}

#[cfg(test)]
mod tests;
