//! The extensions' part in replacing the session (RPC `new_session`,
//! `switch_session`, `fork`, `clone`), as the reference: first
//! `session_before_switch` or `session_before_fork` (a handler may cancel),
//! then, once the session is replaced, the running extensions hear
//! `session_shutdown`, are loaded again and hear `session_start` (with
//! `previousSessionFile`) and `resources_discover` (`startup`).

use pi_agent::Agent;

use crate::ext_reload::{ExtPlan, Renewed};
use crate::ext_session::ExtSession;
use crate::reload::ReloadState;
use crate::session_event::SessionEvent;

/// How the session is being replaced.
#[derive(Debug, Clone, PartialEq)]
pub enum Replacement {
    /// A new, empty session.
    New,
    /// Another session file.
    Resume {
        /// Its path.
        target: String,
    },
    /// A copy of the branch (`fork`: before `entry`; `clone`: all of it).
    Fork {
        /// The user message the copy stops before, or the leaf for a clone.
        entry: Option<String>,
        /// A clone (the whole branch).
        clone: bool,
    },
}

impl Replacement {
    /// The cancellable event asked first.
    fn before(&self) -> SessionEvent {
        match self {
            Replacement::New => SessionEvent::SessionBeforeSwitch { reason: "new", target_session_file: None },
            Replacement::Resume { target } => {
                SessionEvent::SessionBeforeSwitch { reason: "resume", target_session_file: Some(target.clone()) }
            }
            Replacement::Fork { entry, clone } => SessionEvent::SessionBeforeFork {
                entry_id: entry.clone(),
                position: if *clone { "at" } else { "before" },
            },
        }
    }

    /// The reason `session_shutdown` and `session_start` carry.
    fn reason(&self) -> &'static str {
        match self {
            Replacement::New => "new",
            Replacement::Resume { .. } => "resume",
            Replacement::Fork { .. } => "fork",
        }
    }
}

/// Ask the extensions first: true when one cancels the replacement.
pub async fn cancelled(ext: &ExtSession, r: &Replacement) -> bool {
    let asked = r.before();
    let (event, payload) = (asked.kind(), asked.to_value());
    for l in ext.scripts() {
        let (cancel, errors) = l.gate(event, payload.clone()).await;
        ext.report(errors);
        if cancel {
            return true;
        }
    }
    false
}

/// After the replacement (`previous`: the session file before, `target`:
/// the one now): the extensions loaded again (not yet in the agent) and the
/// resource paths they add (`resources_discover`, reason `startup`).
pub async fn renew(
    plan: &ExtPlan,
    r: &Replacement,
    previous: Option<String>,
    target: Option<String>,
) -> (Renewed, pi_ext::DiscoveredResources) {
    let mut renewed = crate::ext_reload::renew(plan, r.reason(), target, previous).await;
    let cwd = plan.groups.first().map(|(_, o)| o.cwd.clone()).unwrap_or_default();
    let (found, errors) = crate::extensions::discover_resources(&plan.ext.scripts(), &cwd, "startup").await;
    renewed.report.extend(errors);
    (renewed, found)
}

/// Put renewed extensions and their resources into the agent; what to report.
pub async fn install(
    agent: &mut Agent,
    state: &mut ReloadState,
    renewed: (Renewed, pi_ext::DiscoveredResources),
) -> Vec<String> {
    let Some(plan) = state.extensions.clone() else { return renewed.0.report };
    let (renewed, found) = renewed;
    crate::ext_reload::install(agent, &plan, &renewed);
    state.resource_flags.discovered = found;
    let mut out = renewed.report;
    out.extend(crate::reload::rebuild(agent, state, false, None).await.1);
    plan.ext.set_resource_commands(state.commands());
    out
}

/// [`renew`] and [`install`] at once (RPC session commands); what to report.
pub async fn replaced(
    agent: &mut Agent,
    state: &mut ReloadState,
    r: &Replacement,
    previous: Option<String>,
) -> Vec<String> {
    let Some(plan) = state.extensions.clone() else { return Vec::new() };
    let renewed = renew(&plan, r, previous, current_file(agent)).await;
    install(agent, state, renewed).await
}

/// The session file the agent records into now.
pub fn current_file(agent: &Agent) -> Option<String> {
    agent.session().lock().ok().and_then(|s| s.path().map(|p| p.to_string_lossy().into_owned()))
}
