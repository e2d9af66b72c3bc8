//! JSON shapes crossing the engine boundary: results, nested-call outcomes,
//! tool descriptions.

use pi_agent::{AgentTool, Exposure, Loadout, LoadoutChanges, NestedOutcome, Reach};
use pi_tools::{Content, ToolResult};
use serde_json::{Map, Value, json};

/// Content blocks from an extension (`text` and `image`; others are dropped).
pub(crate) fn content(v: Option<&Value>) -> Vec<Content> {
    let Some(items) = v.and_then(Value::as_array) else { return Vec::new() };
    items
        .iter()
        .filter_map(|b| match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                Some(Content::Text { text: b.get("text").and_then(Value::as_str).unwrap_or("").to_string() })
            }
            Some("image") => Some(Content::Image {
                data: b.get("data").and_then(Value::as_str).unwrap_or("").to_string(),
                mime_type: b.get("mimeType").and_then(Value::as_str).unwrap_or("").to_string(),
            }),
            _ => None,
        })
        .collect()
}

/// A result an extension tool returned (`{content, details, isError, structuredContent}`).
pub(crate) fn tool_result(v: &Value) -> ToolResult {
    ToolResult {
        content: content(v.get("content")),
        details: v.get("details").cloned(),
        is_error: v.get("isError").and_then(Value::as_bool).unwrap_or(false),
        structured: v.get("structuredContent").cloned(),
        usage: v.get("usage").filter(|u| u.is_object()).cloned(),
    }
}

/// A result as extensions see it: `{content, details?, structuredContent?}`.
/// An error without details carries `details: {}`, as the reference's error results do.
pub(crate) fn result_json(r: &ToolResult) -> Value {
    let mut m = Map::new();
    m.insert("content".into(), serde_json::to_value(&r.content).unwrap_or(Value::Array(vec![])));
    match (&r.details, r.is_error) {
        (Some(d), _) => {
            m.insert("details".into(), d.clone());
        }
        (None, true) => {
            m.insert("details".into(), json!({}));
        }
        (None, false) => {}
    }
    if let Some(s) = &r.structured {
        m.insert("structuredContent".into(), s.clone());
    }
    Value::Object(m)
}

/// What `ctx.executeTool()` resolves to.
pub(crate) fn outcome_json(o: &NestedOutcome) -> Value {
    let mut m = Map::new();
    m.insert("toolCall".into(), json!({"type": "toolCall", "id": o.id, "name": o.name, "arguments": o.arguments}));
    m.insert("result".into(), result_json(&o.result));
    m.insert("isError".into(), Value::Bool(o.is_error));
    if let Some(ms) = o.duration_ms {
        m.insert("durationMs".into(), json!(ms));
    }
    Value::Object(m)
}

fn exposure_name(e: Exposure) -> &'static str {
    match e {
        Exposure::Direct => "direct",
        Exposure::ModelOnly => "model-only",
        Exposure::Codemode => "codemode",
        Exposure::Deferred => "deferred",
        Exposure::Hidden => "hidden",
    }
}

/// A tool as `pi.getAllTools()` lists it.
pub(crate) fn tool_info(t: &dyn AgentTool) -> Value {
    let d = t.def();
    let mut m = Map::new();
    m.insert("name".into(), json!(d.name));
    m.insert("description".into(), json!(d.description));
    m.insert("parameters".into(), d.parameters.clone());
    if !d.prompt_guidelines.is_empty() {
        m.insert("promptGuidelines".into(), json!(d.prompt_guidelines));
    }
    m.insert("exposure".into(), json!(exposure_name(d.exposure)));
    if let Some(ns) = &d.namespace {
        m.insert("namespace".into(), serde_json::to_value(ns).unwrap_or(Value::Null));
    }
    let annotations = serde_json::to_value(&d.annotations).unwrap_or(Value::Null);
    if annotations.as_object().is_some_and(|o| !o.is_empty()) {
        m.insert("annotations".into(), annotations);
    }
    if t.has_reaches_tools() {
        // The glue turns the marker into a function calling the tool's `reachesTools`.
        m.insert("reachesTools".into(), Value::Bool(true));
    }
    let source = if t.source_path().is_some() { "extension" } else { "builtin" };
    let source = json!({"path": t.source_info_path(), "source": source, "scope": "temporary", "origin": "top-level"});
    m.insert("sourceInfo".into(), source);
    Value::Object(m)
}

/// A tool as `ctx.tools` lists it (the tools `ctx.executeTool()` can reach).
pub(crate) fn callable_info(t: &dyn AgentTool) -> Value {
    let d = t.def();
    json!({"name": d.name, "label": d.name, "description": d.description, "parameters": d.parameters})
}

/// What a `reachesTools` function returned: `"all"` or a list of words.
pub(crate) fn reach(v: &Value) -> Option<Reach> {
    match v {
        Value::String(s) if s == "all" => Some(Reach::All),
        Value::Array(words) => {
            Some(Reach::Words(words.iter().filter_map(|w| w.as_str().map(str::to_string)).collect()))
        }
        _ => None,
    }
}

/// The JSON form of a [`Reach`].
pub(crate) fn reach_json(r: &Reach) -> Value {
    match r {
        Reach::All => json!("all"),
        Reach::Words(w) => json!(w),
    }
}

/// The loadout a `prepareLoadout` hook sees; the glue adds `getExposure`,
/// `getNamespace` and `getPromptGuidelines` over `registered`.
pub(crate) fn loadout_json(l: &Loadout) -> Value {
    let list = |tools: &[std::sync::Arc<dyn AgentTool>]| -> Value {
        Value::Array(tools.iter().map(|t| tool_info(t.as_ref())).collect())
    };
    json!({"declared": list(&l.declared), "callable": list(&l.callable), "registered": list(&l.registered)})
}

/// What a `prepareLoadout` hook returned (anything else counts as no change).
pub(crate) fn loadout_changes(v: &Value) -> LoadoutChanges {
    let mut c = LoadoutChanges::default();
    if let Some(d) = v.get("descriptions").and_then(Value::as_object) {
        for (name, text) in d {
            if let Some(t) = text.as_str() {
                c.descriptions.insert(name.clone(), t.to_string());
            }
        }
    }
    if let Some(h) = v.get("hiddenDeclarations").and_then(Value::as_array) {
        c.hidden_declarations = h.iter().filter_map(|n| n.as_str().map(str::to_string)).collect();
    }
    c
}

/// `truncateHead`/`truncateTail` through pi's own truncation.
pub(crate) fn truncation(p: &Value) -> Value {
    use pi_tools::truncate::{Limits, truncate_head, truncate_tail};
    let content = p.get("content").and_then(Value::as_str).unwrap_or("");
    let mut limits = Limits::default();
    if let Some(n) = p.get("maxLines").and_then(Value::as_u64) {
        limits.max_lines = n as usize;
    }
    if let Some(n) = p.get("maxBytes").and_then(Value::as_u64) {
        limits.max_bytes = n as usize;
    }
    let t = if p.get("mode").and_then(Value::as_str) == Some("tail") {
        truncate_tail(content, limits)
    } else {
        truncate_head(content, limits)
    };
    let mut v = serde_json::to_value(&t).unwrap_or(json!({}));
    if let Some(o) = v.as_object_mut() {
        o.insert("content".into(), Value::String(t.content.clone()));
    }
    v
}

/// What the `user_bash` handlers answered: `{result, errors}`. An output
/// longer than bash's limits is cut to its tail, as a local run's is.
pub(crate) fn user_bash_answer(v: &Value) -> pi_agent::UserBashAnswer {
    let errors = v
        .get("errors")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let result = v.get("result").filter(|r| r.is_object()).map(|r| {
        let output = r.get("output").and_then(Value::as_str).unwrap_or("");
        let cut = pi_tools::truncate::truncate_tail(output, pi_tools::truncate::Limits::default());
        pi_tools::UserCommandResult {
            output: cut.content.clone(),
            exit_code: r.get("exitCode").and_then(Value::as_i64),
            cancelled: r.get("cancelled").and_then(Value::as_bool) == Some(true),
            truncated: r.get("truncated").and_then(Value::as_bool) == Some(true) || cut.truncated,
            full_output_path: r.get("fullOutputPath").and_then(Value::as_str).map(str::to_string),
        }
    });
    pi_agent::UserBashAnswer { result, errors }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_round_trip() {
        let v = json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}, {"type": "audio"}], "details": {"k": 1}, "isError": true});
        let r = tool_result(&v);
        assert_eq!(r.content.len(), 2);
        assert!(r.is_error);
        assert_eq!(
            result_json(&r),
            json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}], "details": {"k": 1}})
        );
        assert_eq!(
            result_json(&ToolResult::error("x")),
            json!({"content": [{"type": "text", "text": "x"}], "details": {}})
        );
    }
}
