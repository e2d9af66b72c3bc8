//! Changes to the session's tool set asked for from outside the loop
//! (extensions' `setActiveTools` and late `registerTool`), applied by the
//! agent before its next model request, plus a view of the current set for
//! readers that must not wait on the loop. Applying them to a
//! [`crate::Registry`] (`ToolChanges::apply`) is written with the registry,
//! so this handle stays below it.

use std::sync::{Arc, Mutex};

use crate::tool::AgentTool;

#[derive(Default)]
struct Inner {
    set_active: Option<Vec<String>>,
    register: Vec<Arc<dyn AgentTool>>,
    all: Vec<Arc<dyn AgentTool>>,
    active: Vec<String>,
}

/// A shared handle: cheap to clone, safe to use from any thread.
#[derive(Clone, Default)]
pub struct ToolChanges(Arc<Mutex<Inner>>);

impl ToolChanges {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }

    /// Every registered tool, as of the last refresh (plus pending registrations).
    pub fn all(&self) -> Vec<Arc<dyn AgentTool>> {
        let all = self.with(|i| i.all.clone());
        self.all_with(&all)
    }

    /// `registered` with the pending registrations applied.
    pub fn all_with(&self, registered: &[Arc<dyn AgentTool>]) -> Vec<Arc<dyn AgentTool>> {
        self.with(|i| {
            let mut all = registered.to_vec();
            for t in &i.register {
                match all.iter().position(|k| k.def().name == t.def().name) {
                    Some(at) => all[at] = t.clone(),
                    None => all.push(t.clone()),
                }
            }
            all
        })
    }

    /// The active names (a requested change shows at once).
    pub fn active(&self) -> Vec<String> {
        self.with(|i| i.set_active.clone().unwrap_or_else(|| i.active.clone()))
    }

    /// Ask for a new active set (applied before the next request).
    pub fn set_active(&self, names: &[String]) {
        self.with(|i| i.set_active = Some(names.to_vec()));
    }

    /// Ask for a tool to be registered (applied before the next request).
    pub fn register(&self, tool: Arc<dyn AgentTool>) {
        self.with(|i| i.register.push(tool));
    }

    /// The newest registration of `name` not yet applied, so a tool an
    /// extension registers in a `tool_call` handler (after `reachesTools`) is
    /// reachable by the nested calls of the call it prepared.
    pub fn pending(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        self.with(|i| i.register.iter().rev().find(|t| t.def().name == name).cloned())
    }

    /// Take the changes asked for since the last call: the registrations
    /// and the new active set (applied by `ToolChanges::apply`, with the registry).
    pub(crate) fn take_requests(&self) -> (Vec<Arc<dyn AgentTool>>, Option<Vec<String>>) {
        self.with(|i| (std::mem::take(&mut i.register), i.set_active.take()))
    }

    /// Refresh the view: every registered tool and the active names.
    pub(crate) fn refresh(&self, all: Vec<Arc<dyn AgentTool>>, active: Vec<String>) {
        self.with(|i| {
            i.all = all;
            i.active = active;
        });
    }
}
