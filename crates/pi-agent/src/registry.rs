//! Registered tools, the active set, and the declared and callable sets
//! derived from them (requirements X1–X3, X7, S1).
//!
//! The active tools' `prepareLoadout` hooks may be asynchronous (an
//! extension's runs in its engine), so a change of the sets only marks the
//! loadout stale; [`Registry::refresh_loadout`] runs the hooks, and the
//! agent calls it before each request.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::loadout::{self, Applied, LoadoutError};
use crate::tool::{AgentTool, Exposure, Loadout};
use crate::tool_changes::ToolChanges;

/// The tools of a session and which of them are active. Lookups by name
/// are indexed: registering, activating and finding n tools takes time
/// linear in n (an MCP server may bring thousands).
#[derive(Default, Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn AgentTool>>,
    /// Position of each tool in `tools`, by name.
    index: HashMap<String, usize>,
    active: Vec<String>,
    /// The names in `active`.
    active_set: HashSet<String>,
    /// Registered tools with a `prepareLoadout` hook, by name.
    hooked: HashSet<String>,
    loadout: Applied,
    /// The sets changed since the hooks last ran.
    stale: bool,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a tool; a later registration of the same name replaces it.
    /// A `direct` or `model-only` tool activates unless `defaultActive` is
    /// false; a `hidden` one is withdrawn from the active set (X2, X3).
    pub fn register(&mut self, tool: Arc<dyn AgentTool>) {
        let def = tool.def().clone();
        if tool.has_prepare_loadout() {
            self.hooked.insert(def.name.clone());
        } else {
            self.hooked.remove(&def.name);
        }
        match self.index.get(&def.name) {
            Some(&i) => self.tools[i] = tool,
            None => {
                self.index.insert(def.name.clone(), self.tools.len());
                self.tools.push(tool);
            }
        }
        if def.exposure == Exposure::Hidden {
            if self.active_set.remove(&def.name) {
                self.active.retain(|n| *n != def.name);
            }
        } else if def.activates_on_registration() && self.active_set.insert(def.name.clone()) {
            self.active.push(def.name);
        }
        self.relayout();
    }

    /// Keep only the tools `keep` accepts (their names leave the active set
    /// too); for tools of extensions that are loaded again.
    pub fn retain(&mut self, keep: impl Fn(&dyn AgentTool) -> bool) {
        self.tools.retain(|t| keep(t.as_ref()));
        self.index = self.tools.iter().enumerate().map(|(i, t)| (t.def().name.clone(), i)).collect();
        self.hooked = self.tools.iter().filter(|t| t.has_prepare_loadout()).map(|t| t.def().name.clone()).collect();
        let index = &self.index;
        self.active.retain(|n| index.contains_key(n));
        self.active_set = self.active.iter().cloned().collect();
        self.relayout();
    }

    /// Every registered tool.
    pub fn all(&self) -> &[Arc<dyn AgentTool>] {
        &self.tools
    }

    /// A registered tool by name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.index.get(name).and_then(|&i| self.tools.get(i))
    }

    /// Change the active set as `setActiveTools` does: unknown and hidden
    /// names are ignored, tools that stay active keep their place and newly
    /// active ones are appended in the order given. Then the active tools'
    /// `prepareLoadout` hooks run.
    pub fn set_active(&mut self, names: &[String]) {
        let allowed = |n: &String| self.get(n).is_some_and(|t| t.def().exposure != Exposure::Hidden);
        let wanted: HashSet<&String> = names.iter().collect();
        let mut active: Vec<String> =
            self.active.iter().filter(|n| wanted.contains(n) && allowed(n)).cloned().collect();
        let mut set: HashSet<String> = active.iter().cloned().collect();
        for n in names {
            if allowed(n) && set.insert(n.clone()) {
                active.push(n.clone());
            }
        }
        self.active = active;
        self.active_set = set;
        self.relayout();
    }

    /// Replace the active set with exactly `names` in that order (start-up).
    pub fn reset_active(&mut self, names: &[String]) {
        self.active.clear();
        self.active_set.clear();
        self.set_active(names);
    }

    /// The active names, in order.
    pub fn active(&self) -> &[String] {
        &self.active
    }

    pub(crate) fn active_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        self.active.iter().filter_map(|n| self.get(n).cloned()).collect()
    }

    fn callable_now(&self) -> Vec<Arc<dyn AgentTool>> {
        let active = &self.active_set;
        self.tools.iter().filter(|t| callable(t.def().exposure, active.contains(&t.def().name))).cloned().collect()
    }

    /// The sets changed: without hooks among the active tools the loadout is
    /// empty at once; with some, it waits for [`Registry::refresh_loadout`].
    fn relayout(&mut self) {
        if self.hooked.iter().any(|n| self.active_set.contains(n)) {
            self.stale = true;
        } else {
            self.loadout = Applied::default();
            self.stale = false;
        }
    }

    /// Run the active tools' `prepareLoadout` hooks if the sets changed since
    /// they last ran. The errors kept for reporting are those of the latest
    /// run: a later run supersedes an earlier one not yet reported.
    pub async fn refresh_loadout(&mut self) {
        if !self.stale {
            return;
        }
        self.stale = false;
        let view =
            Loadout { declared: self.active_tools(), callable: self.callable_now(), registered: self.tools.clone() };
        self.loadout = loadout::apply_hooks(&view).await;
    }

    /// Errors of the latest run of the `prepareLoadout` hooks, once (to report).
    pub fn take_loadout_errors(&mut self) -> Vec<LoadoutError> {
        std::mem::take(&mut self.loadout.errors)
    }

    /// Active tools whose declarations `prepareLoadout` hooks hide from requests.
    pub fn hidden_declarations(&self) -> Vec<String> {
        self.active.iter().filter(|n| self.loadout.hidden.contains(*n)).cloned().collect()
    }

    /// Tools declared to the model: the active ones, minus hidden declarations.
    pub fn declared(&self) -> Vec<Arc<dyn AgentTool>> {
        self.active_tools().into_iter().filter(|t| !self.loadout.hidden.contains(&t.def().name)).collect()
    }

    /// The description a declared tool is sent with (a hook's replacement, or its own).
    pub fn declared_description<'a>(&'a self, tool: &'a dyn AgentTool) -> &'a str {
        self.loadout.descriptions.get(&tool.def().name).map(String::as_str).unwrap_or(&tool.def().description)
    }

    /// The tool a call from the model may reach: an active tool (hidden declarations included).
    pub fn model_callable(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        if !self.active_set.contains(name) {
            return None;
        }
        self.get(name).filter(|t| t.def().exposure != Exposure::Hidden).cloned()
    }

    /// The tool a nested call (`executeTool`) may reach: codemode/deferred
    /// tools and active direct tools.
    pub fn nested_callable(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        let t = self.get(name)?;
        callable(t.def().exposure, self.active_set.contains(name)).then(|| t.clone())
    }
}

impl ToolChanges {
    /// Apply pending changes to `registry` and refresh the view. True when
    /// there was anything to apply.
    pub fn apply(&self, registry: &mut Registry) -> bool {
        let (register, set_active) = self.take_requests();
        let changed = !register.is_empty() || set_active.is_some();
        for t in register {
            registry.register(t);
        }
        if let Some(names) = set_active {
            registry.set_active(&names);
        }
        self.refresh(registry.all().to_vec(), registry.active().to_vec());
        changed
    }
}

/// Whether a tool of `exposure` is callable from other tools.
pub(crate) fn callable(exposure: Exposure, active: bool) -> bool {
    match exposure {
        Exposure::Codemode | Exposure::Deferred => true,
        Exposure::Direct => active,
        Exposure::ModelOnly | Exposure::Hidden => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{ExecutionMode, Invocation, LoadoutChanges, ToolDef};
    use futures::future::BoxFuture;
    use pi_tools::ToolResult;
    use serde_json::json;

    /// A tool with a fixed exposure and an optional loadout hook.
    struct Probe {
        def: ToolDef,
        hook: Option<Result<LoadoutChanges, crate::HandlerError>>,
    }

    fn probe(
        name: &str,
        exposure: Exposure,
        hook: Option<Result<LoadoutChanges, crate::HandlerError>>,
    ) -> Arc<dyn AgentTool> {
        Arc::new(Probe {
            def: ToolDef {
                constrained_sampling: None,
                name: name.into(),
                description: format!("{name} itself"),
                parameters: json!({"type": "object"}),
                prompt_snippet: None,
                prompt_guidelines: vec![],
                annotations: Default::default(),
                exposure,
                default_active: true,
                execution_mode: ExecutionMode::Parallel,
                namespace: None,
            },
            hook,
        })
    }

    impl AgentTool for Probe {
        fn def(&self) -> &ToolDef {
            &self.def
        }
        fn execute<'a>(&'a self, _inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
            Box::pin(async { ToolResult::success("") })
        }
        fn has_prepare_loadout(&self) -> bool {
            self.hook.is_some()
        }
        fn prepare_loadout<'a>(
            &'a self,
            loadout: &'a Loadout,
        ) -> BoxFuture<'a, Result<LoadoutChanges, crate::HandlerError>> {
            assert!(loadout.declared.iter().any(|t| t.def().name == self.def.name));
            Box::pin(std::future::ready(self.hook.clone().unwrap_or_else(|| Ok(Default::default()))))
        }
    }

    fn names(tools: &[Arc<dyn AgentTool>]) -> Vec<String> {
        tools.iter().map(|t| t.def().name.clone()).collect()
    }

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn set_active_keeps_the_order_of_tools_that_stay_and_ignores_hidden_and_unknown() {
        let mut r = Registry::new();
        for (n, e) in
            [("a", Exposure::Direct), ("b", Exposure::Direct), ("c", Exposure::Codemode), ("h", Exposure::Hidden)]
        {
            r.register(probe(n, e, None));
        }
        assert_eq!(r.active(), strings(&["a", "b"]));
        r.set_active(&strings(&["c", "b", "a", "h", "zz", "b"]));
        assert_eq!(r.active(), strings(&["a", "b", "c"]), "kept in place, new appended, codemode may be activated");
        assert!(r.model_callable("c").is_some(), "an activated codemode tool is declared and callable by the model");
        r.reset_active(&strings(&["b", "a"]));
        assert_eq!(r.active(), strings(&["b", "a"]));
        // Re-registering as hidden withdraws it.
        r.register(probe("a", Exposure::Hidden, None));
        assert_eq!(r.active(), strings(&["b"]));
        assert!(r.model_callable("a").is_none() && r.nested_callable("a").is_none());
    }

    #[test]
    fn loadout_hooks_rename_and_hide_declarations_which_stay_callable() {
        let mut r = Registry::new();
        r.register(probe("echo", Exposure::Direct, None));
        let changes = LoadoutChanges {
            descriptions: [("orch".to_string(), "lists echo".to_string())].into(),
            hidden_declarations: strings(&["echo", "not-active"]),
        };
        r.register(probe("orch", Exposure::ModelOnly, Some(Ok(changes))));
        assert_eq!(names(&r.declared()), strings(&["echo", "orch"]), "the hooks have not run yet");
        futures::executor::block_on(r.refresh_loadout());
        assert_eq!(names(&r.declared()), strings(&["orch"]));
        assert_eq!(r.hidden_declarations(), strings(&["echo"]));
        let orch = r.get("orch").unwrap().clone();
        assert_eq!(r.declared_description(orch.as_ref()), "lists echo");
        assert!(r.model_callable("echo").is_some() && r.nested_callable("echo").is_some());
        assert!(r.nested_callable("orch").is_none(), "model-only is never callable by tools");
        // Deactivating the hook's tool lifts its effect.
        r.set_active(&strings(&["echo"]));
        futures::executor::block_on(r.refresh_loadout());
        assert_eq!(names(&r.declared()), strings(&["echo"]));
        assert!(r.take_loadout_errors().is_empty());
    }

    #[test]
    fn a_failing_hook_is_reported_and_ignored() {
        let mut r = Registry::new();
        r.register(probe("echo", Exposure::Direct, None));
        r.register(probe("bad", Exposure::Direct, Some(Err("boom".into()))));
        futures::executor::block_on(r.refresh_loadout());
        assert_eq!(names(&r.declared()), strings(&["echo", "bad"]));
        let errors = r.take_loadout_errors();
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].source.as_str(), errors[0].error.as_str()), ("builtin:bad", "boom"));
        assert!(r.take_loadout_errors().is_empty(), "reported once");
    }
}
