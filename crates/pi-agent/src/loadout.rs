//! Loadouts: what the active tools' `prepareLoadout` hooks see and may change
//! (requirement X7, `pi-behaviour.md` §6.2). A hook replaces descriptions of
//! declared tools and hides declarations from requests; hidden tools stay
//! active and callable, and the system prompt leaves them out. What a hook
//! sees and returns ([`Loadout`], [`crate::LoadoutChanges`]) is defined with
//! the tool trait whose `prepare_loadout` takes it; here the hooks are run.

use std::collections::{BTreeMap, BTreeSet};

use crate::tool::Loadout;

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
            Err(e) => applied.errors.push(LoadoutError { source: tool.source_info_path(), error: e.message }),
        }
    }
    applied
}
