//! The `codemode` tool (requirements X7, X9, `pi-behaviour.md` §6.4): a
//! `model-only` tool registered inactive whose one parameter is the script.
//! It is built from the exposure model's parts only: its `prepareLoadout`
//! lists the callable tools in its description (and hides active direct
//! tools in `only` mode), its `reachesTools` names the tools a script may
//! call, and its calls go through `executeTool` (the nested caller).

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use pi_agent::{
    AgentTool, ExecutionMode, Exposure, Invocation, Loadout, LoadoutChanges, Reach, SharedSession, ToolDef,
};
use pi_tools::ToolResult;
use serde_json::{Value, json};

use crate::describe::{self, Mode};
use crate::models::Models;
use crate::run::{self, Runtimes};
use crate::text::{self, DEFAULT_INLINE_BUDGET};

/// `codemode.mode` and `codemode.inlineBudget`, shared with whoever reloads
/// the settings (`/reload`); read whenever the loadout is prepared.
#[derive(Clone, Default)]
pub struct Settings(Arc<Mutex<(Mode, Option<f64>)>>);

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (mode, budget) = self.get();
        f.debug_struct("Settings").field("mode", &mode).field("inline_budget", &budget).finish()
    }
}

impl Settings {
    /// Settings with `mode` and an inline budget (`None`: the default,
    /// 3000 estimated tokens; a negative or non-finite one counts as `None`).
    pub fn new(mode: Mode, inline_budget: Option<f64>) -> Self {
        let s = Settings::default();
        s.set(mode, inline_budget);
        s
    }

    /// Change both.
    pub fn set(&self, mode: Mode, inline_budget: Option<f64>) {
        let budget = inline_budget.filter(|b| b.is_finite() && *b >= 0.0);
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = (mode, budget);
    }

    fn get(&self) -> (Mode, Option<f64>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What the tool needs from the session.
#[derive(Clone)]
pub struct CodemodeOptions {
    /// `codemode.*` settings.
    pub settings: Settings,
    /// The session: `store()` appends its writes, `load()` reads them on the current branch.
    pub store: SharedSession,
    /// The model catalogue of `models`.
    pub models: Arc<Models>,
    /// The script reference (`docs/codemode.md`) named in the description.
    pub docs_path: String,
    /// How many scripts may run at once, for every tool built from these options.
    pub runtimes: Runtimes,
}

/// The `codemode` tool.
pub struct Codemode {
    def: ToolDef,
    options: CodemodeOptions,
}

/// Script globals that list or look up tools, after which a script may call any tool.
const DISCOVERY: &[&str] = &["searchTools", "describeNamespace", "describeTool", "ALL_TOOLS"];

impl Codemode {
    /// The tool, registered inactive (`model-only`, `defaultActive: false`).
    pub fn new(options: CodemodeOptions) -> Self {
        let def = ToolDef {
            constrained_sampling: None,
            name: text::CODEMODE.into(),
            description: describe::description(&[], 0.0, &options.docs_path),
            parameters: json!({
                "type": "object",
                "required": ["code"],
                "properties": {"code": {"type": "string", "description": text::CODE_DESCRIPTION}}
            }),
            prompt_snippet: Some(text::CODEMODE_SNIPPET.into()),
            prompt_guidelines: vec![text::CODEMODE_GUIDELINE.into()],
            annotations: Default::default(),
            exposure: Exposure::ModelOnly,
            default_active: false,
            execution_mode: ExecutionMode::Parallel,
            namespace: None,
        };
        Codemode { def, options }
    }
}

/// The words of a script (`[A-Za-z0-9_]` runs), in order.
fn words(code: &str) -> Vec<String> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(String::from).collect()
}

impl AgentTool for Codemode {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn has_reaches_tools(&self) -> bool {
        true
    }

    /// Every tool when the script uses a discovery global, else the words of
    /// its source (`tools.mcp__docs__search` and `tools["mcp__docs__" + x]`
    /// both name the `mcp__docs` namespace).
    fn reaches_tools(&self, input: &Value) -> Option<Reach> {
        let Some(code) = input.get("code").and_then(Value::as_str) else { return Some(Reach::Words(Vec::new())) };
        let words = words(code);
        if words.iter().any(|w| DISCOVERY.contains(&w.as_str())) { Some(Reach::All) } else { Some(Reach::Words(words)) }
    }

    fn has_prepare_loadout(&self) -> bool {
        true
    }

    fn prepare_loadout<'a>(
        &'a self,
        loadout: &'a Loadout,
    ) -> BoxFuture<'a, Result<LoadoutChanges, pi_agent::HandlerError>> {
        let (mode, budget) = self.options.settings.get();
        let budget = budget.unwrap_or(DEFAULT_INLINE_BUDGET);
        Box::pin(std::future::ready(Ok(describe::prepare(loadout, mode, budget, &self.options.docs_path))))
    }

    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let env = run::Env {
                store: &self.options.store,
                models: &self.options.models,
                docs_path: &self.options.docs_path,
                runtimes: &self.options.runtimes,
            };
            run::execute(&env, inv).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_is_all_with_discovery_globals_else_the_words() {
        let t = Codemode::new(CodemodeOptions {
            settings: Settings::default(),
            store: std::sync::Arc::new(std::sync::Mutex::new(pi_agent::session::Session::in_memory())),
            models: Default::default(),
            docs_path: String::new(),
            runtimes: Runtimes::default(),
        });
        assert_eq!(t.reaches_tools(&json!({"code": "await searchTools('x')"})), Some(Reach::All));
        assert_eq!(
            t.reaches_tools(&json!({"code": "tools[\"mcp__docs__\" + n]({})"})),
            Some(Reach::Words(vec!["tools".into(), "mcp__docs__".into(), "n".into()]))
        );
        assert_eq!(t.reaches_tools(&json!({"code": 5})), Some(Reach::Words(vec![])));
        assert_eq!(t.def().exposure, Exposure::ModelOnly);
        assert!(!t.def().activates_on_registration());
    }
}
