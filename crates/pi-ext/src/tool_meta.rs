//! What `pi.registerTool` told the host about a tool: its definition and
//! which of the optional functions it has (the code stays in JavaScript).

use pi_agent::{ExecutionMode, Exposure, Namespace, ToolDef};
use pi_tools::Annotations;
use serde_json::{Value, json};

/// What `registerTool` told the host about a tool (the code stays in JavaScript).
#[derive(Debug, Clone)]
pub(crate) struct ToolMeta {
    pub def: ToolDef,
    pub has_prepare: bool,
    /// The definition has `reachesTools`.
    pub has_reaches: bool,
    /// The definition has `prepareLoadout`.
    pub has_loadout: bool,
    /// The JSON it came from.
    pub raw: Value,
}

impl ToolMeta {
    pub(crate) fn from_json(v: &Value, _source: &str) -> ToolMeta {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let exposure = match v.get("exposure").and_then(Value::as_str) {
            Some("model-only") => Exposure::ModelOnly,
            Some("codemode") => Exposure::Codemode,
            Some("deferred") => Exposure::Deferred,
            Some("hidden") => Exposure::Hidden,
            _ => Exposure::Direct,
        };
        let annotations = v.get("annotations").map(annotations).unwrap_or_default();
        let def = ToolDef {
            constrained_sampling: v.get("constrainedSampling").and_then(pi_agent::ConstrainedSampling::from_json),
            name: s("name").unwrap_or_default(),
            description: s("description").unwrap_or_default(),
            parameters: v.get("parameters").cloned().unwrap_or_else(|| json!({"type": "object", "properties": {}})),
            prompt_snippet: s("promptSnippet"),
            prompt_guidelines: v
                .get("promptGuidelines")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|g| g.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
            annotations,
            exposure,
            default_active: v.get("defaultActive").and_then(Value::as_bool) != Some(false),
            execution_mode: match v.get("executionMode").and_then(Value::as_str) {
                Some("sequential") => ExecutionMode::Sequential,
                _ => ExecutionMode::Parallel,
            },
            namespace: v.get("namespace").and_then(|n| serde_json::from_value::<Namespace>(n.clone()).ok()),
        };
        let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
        ToolMeta {
            def,
            has_prepare: flag("hasPrepareArguments"),
            has_reaches: flag("hasReachesTools"),
            has_loadout: flag("hasPrepareLoadout"),
            raw: v.clone(),
        }
    }
}

fn annotations(v: &Value) -> Annotations {
    let b = |k: &str| v.get(k).and_then(Value::as_bool);
    Annotations {
        read_only_hint: b("readOnlyHint"),
        destructive_hint: b("destructiveHint"),
        idempotent_hint: b("idempotentHint"),
        open_world_hint: b("openWorldHint"),
    }
}
