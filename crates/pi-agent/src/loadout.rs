//! Loadouts: what the active tools' `prepareLoadout` hooks see and may change
//! (requirement X7, `pi-behaviour.md` §6.2). A hook replaces descriptions of
//! declared tools and hides declarations from requests; hidden tools stay
//! active and callable, and the system prompt leaves them out.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::tool::{AgentTool, Exposure, Namespace};

/// What a `prepareLoadout` hook sees.
pub struct Loadout {
    /// The active tools, in order.
    pub declared: Vec<Arc<dyn AgentTool>>,
    /// The tools nested calls may reach with this active set.
    pub callable: Vec<Arc<dyn AgentTool>>,
    /// Every registered tool.
    pub registered: Vec<Arc<dyn AgentTool>>,
}

impl Loadout {
    fn find(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.registered.iter().find(|t| t.def().name == name)
    }

    /// A registered tool's exposure (`direct` for unknown names, as the reference).
    pub fn exposure(&self, name: &str) -> Exposure {
        self.find(name).map(|t| t.def().exposure).unwrap_or_default()
    }

    /// A registered tool's namespace.
    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.find(name).and_then(|t| t.def().namespace.as_ref())
    }

    /// A registered tool's prompt guidelines (empty for unknown names).
    pub fn prompt_guidelines(&self, name: &str) -> &[String] {
        self.find(name).map(|t| t.def().prompt_guidelines.as_slice()).unwrap_or(&[])
    }
}

/// What a hook returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadoutChanges {
    /// Replacement descriptions of declared tools, by name.
    pub descriptions: BTreeMap<String, String>,
    /// Active tools whose declarations requests leave out.
    pub hidden_declarations: Vec<String>,
}

/// A hook that failed: reported as an extension error and ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadoutError {
    /// The tool's source (`sourceInfo.path`, or `builtin:<name>`).
    pub source: String,
    /// The error message.
    pub error: String,
}

/// The combined effect of every hook of one active set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Applied {
    /// Later hooks override earlier ones for the same tool.
    pub descriptions: BTreeMap<String, String>,
    /// The union of every hook's hidden declarations.
    pub hidden: BTreeSet<String>,
    /// Hooks that failed.
    pub errors: Vec<LoadoutError>,
}

/// Run the hooks of the active tools (in active order) on `loadout`.
pub(crate) async fn apply_hooks(loadout: &Loadout) -> Applied {
    let mut applied = Applied::default();
    for tool in loadout.declared.iter().filter(|t| t.has_prepare_loadout()) {
        match tool.prepare_loadout(loadout).await {
            Ok(changes) => {
                applied.descriptions.extend(changes.descriptions);
                applied.hidden.extend(changes.hidden_declarations);
            }
            Err(error) => applied.errors.push(LoadoutError { source: tool.source_info_path(), error }),
        }
    }
    applied
}
