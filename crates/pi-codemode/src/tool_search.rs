//! `tool_search` (requirement X10, `pi-behaviour.md` §6.5): ranks the tools
//! that are registered but not declared (exposure `codemode` or `deferred`,
//! not active) and activates the matches, so they are declared from the next
//! request on. The activation goes through the session's active set, so the
//! session records it and a resumed session keeps it.

use futures::future::BoxFuture;
use pi_agent::{AgentTool, ExecutionMode, Exposure, Invocation, Reach, ToolDef};
use pi_tools::ToolResult;
use serde_json::{Value, json};

use crate::js;
use crate::search::{document, rank};
use crate::text::{self, DEFAULT_SEARCH_LIMIT};

/// The `tool_search` tool.
pub struct ToolSearch {
    def: ToolDef,
}

impl Default for ToolSearch {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolSearch {
    /// The tool, registered inactive (`model-only`, `defaultActive: false`).
    pub fn new() -> Self {
        ToolSearch {
            def: ToolDef {
                constrained_sampling: None,
                name: text::TOOL_SEARCH.into(),
                description: text::TOOL_SEARCH_DESCRIPTION.into(),
                parameters: json!({
                    "type": "object",
                    "required": ["query"],
                    "properties": {
                        "query": {"type": "string", "description": text::QUERY_DESCRIPTION},
                        "limit": {"type": "number", "description": text::LIMIT_DESCRIPTION}
                    }
                }),
                prompt_snippet: Some(text::TOOL_SEARCH_SNIPPET.into()),
                prompt_guidelines: Vec::new(),
                annotations: Default::default(),
                exposure: Exposure::ModelOnly,
                default_active: false,
                execution_mode: ExecutionMode::Parallel,
                namespace: None,
            },
        }
    }
}

/// The limit asked for: a positive integer, 8 when absent; `None` when it is not one.
fn limit(args: &Value) -> Option<usize> {
    match args.get("limit").filter(|v| !v.is_null()) {
        None => Some(DEFAULT_SEARCH_LIMIT as usize),
        Some(v) => match v.as_f64() {
            Some(n) if n.fract() == 0.0 && n > 0.0 => {
                Some(if n >= usize::MAX as f64 { usize::MAX } else { n as usize })
            }
            _ => None,
        },
    }
}

fn first_line(description: &str) -> &str {
    js::trim(description).split('\n').next().map(|l| l.strip_suffix('\r').unwrap_or(l)).unwrap_or("")
}

impl AgentTool for ToolSearch {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn has_reaches_tools(&self) -> bool {
        true
    }

    fn reaches_tools(&self, _input: &Value) -> Option<Reach> {
        Some(Reach::All)
    }

    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let query = inv.args.get("query").and_then(Value::as_str).unwrap_or("");
            if js::trim(query).is_empty() {
                return ToolResult::thrown(text::QUERY_EMPTY);
            }
            let Some(max) = limit(&inv.args) else { return ToolResult::thrown(text::LIMIT_NOT_POSITIVE) };
            let mut loaded: Vec<(String, String)> = Vec::new();
            if let Some(changes) = inv.nested.as_ref().map(|n| n.tool_changes()) {
                let active = changes.active();
                let candidates: Vec<_> = changes
                    .all()
                    .into_iter()
                    .filter(|t| {
                        let d = t.def();
                        matches!(d.exposure, Exposure::Codemode | Exposure::Deferred) && !active.contains(&d.name)
                    })
                    .collect();
                let docs: Vec<_> = candidates
                    .iter()
                    .map(|t| {
                        let d = t.def();
                        document(&d.name, &d.description, &d.parameters, d.namespace.as_ref())
                    })
                    .collect();
                for name in rank(query, &docs, max) {
                    let description =
                        candidates.iter().find(|t| t.def().name == name).map(|t| t.def().description.clone());
                    loaded.push((name, description.unwrap_or_default()));
                }
                if !loaded.is_empty() {
                    let mut next = active.clone();
                    next.extend(loaded.iter().map(|(n, _)| n.clone()));
                    changes.set_active(&next);
                }
            }
            let text = if loaded.is_empty() {
                text::NO_MATCHING_TOOLS.to_string()
            } else {
                text::loaded_tools(&loaded.iter().map(|(n, d)| format!("- {n}: {}", first_line(d))).collect::<Vec<_>>())
            };
            let names: Vec<&String> = loaded.iter().map(|(n, _)| n).collect();
            ToolResult::success(text).with_details(json!({"loaded": names}))
        })
    }
}
