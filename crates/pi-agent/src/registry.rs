//! Registered tools, the active set, and the declared and callable sets
//! derived from them (requirements X1–X3, S1).

use std::sync::Arc;

use crate::tool::{AgentTool, Exposure};

/// The tools of a session and which of them are active.
#[derive(Default, Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn AgentTool>>,
    active: Vec<String>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a tool; a later registration of the same name replaces it.
    pub fn register(&mut self, tool: Arc<dyn AgentTool>) {
        let name = tool.def().name.clone();
        match self.tools.iter().position(|t| t.def().name == name) {
            Some(i) => self.tools[i] = tool,
            None => self.tools.push(tool),
        }
        let def = self.tools.iter().find(|t| t.def().name == name).map(|t| t.def().clone());
        if let Some(def) = def {
            if def.exposure == Exposure::Hidden {
                self.active.retain(|n| *n != name);
            } else if def.default_active
                && matches!(def.exposure, Exposure::Direct | Exposure::ModelOnly)
                && !self.active.contains(&name)
            {
                self.active.push(name);
            }
        }
    }

    /// Every registered tool.
    pub fn all(&self) -> &[Arc<dyn AgentTool>] {
        &self.tools
    }

    /// A registered tool by name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.tools.iter().find(|t| t.def().name == name)
    }

    /// Set the active names in order: unknown, hidden, codemode and deferred
    /// names are ignored; duplicates dropped.
    pub fn set_active(&mut self, names: &[String]) {
        let mut active: Vec<String> = Vec::new();
        for n in names {
            let ok = self.get(n).is_some_and(|t| matches!(t.def().exposure, Exposure::Direct | Exposure::ModelOnly));
            if ok && !active.contains(n) {
                active.push(n.clone());
            }
        }
        self.active = active;
    }

    /// The active names, in order.
    pub fn active(&self) -> &[String] {
        &self.active
    }

    /// Tools declared to the model: the active ones.
    pub fn declared(&self) -> Vec<Arc<dyn AgentTool>> {
        self.active.iter().filter_map(|n| self.get(n).cloned()).collect()
    }

    /// The tool a call from the model may reach: an active direct or model-only tool.
    pub fn model_callable(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        if !self.active.iter().any(|n| n == name) {
            return None;
        }
        self.get(name).filter(|t| matches!(t.def().exposure, Exposure::Direct | Exposure::ModelOnly)).cloned()
    }

    /// The tool a nested call (`executeTool`) may reach: codemode/deferred
    /// tools and active direct tools.
    pub fn nested_callable(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        let t = self.get(name)?;
        match t.def().exposure {
            Exposure::Codemode | Exposure::Deferred => Some(t.clone()),
            Exposure::Direct if self.active.iter().any(|n| n == name) => Some(t.clone()),
            _ => None,
        }
    }
}
