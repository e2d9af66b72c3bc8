//! Loading the script extensions again (`/reload`, `ctx.reload()`), as the
//! reference replaces its extension runtime: the running extensions hear
//! `session_shutdown`, fresh engines load the same files, their handlers
//! and tools take the old ones' places in the agent (a built-in an old tool
//! had replaced comes back unless a new one replaces it again), they are
//! bound to the session, and hear `session_start`.

use std::path::PathBuf;
use std::sync::Arc;

use pi_agent::{Agent, AgentTool, Interceptor};
use pi_ext::{ExtensionHost, HostOptions, LoadedExtensions};
use serde_json::Value;

use crate::session_event::SessionEvent;

use crate::ext_session::ExtSession;

/// How the run's script extensions were loaded, to load them again.
pub struct ExtPlan {
    /// The groups in load order (before trust, then the project's), each
    /// with its host options.
    pub groups: Vec<(Vec<PathBuf>, HostOptions)>,
    /// The session's trust decision (`ctx.isProjectTrusted()`).
    pub trusted: bool,
    /// The extensions' flags as the command line gave them.
    pub flag_values: serde_json::Map<String, Value>,
    /// The built-in tools (an extension tool may replace one).
    pub base_tools: Vec<Arc<dyn AgentTool>>,
    /// The agent's channel for tool changes extensions make.
    pub tool_changes: pi_agent::ToolChanges,
    /// The session's side of the extensions.
    pub ext: Arc<ExtSession>,
}

impl std::fmt::Debug for ExtPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let paths: Vec<&PathBuf> = self.groups.iter().flat_map(|(p, _)| p).collect();
        f.debug_struct("ExtPlan").field("paths", &paths).field("trusted", &self.trusted).finish()
    }
}

/// The same address (a handler or tool of this very extension).
fn same<T: ?Sized>(a: &Arc<T>, b: &Arc<T>) -> bool {
    std::ptr::eq(Arc::as_ptr(a) as *const (), Arc::as_ptr(b) as *const ())
}

/// The script extensions loaded again, not yet in the agent.
pub struct Renewed {
    old: Vec<Arc<LoadedExtensions>>,
    fresh: Vec<Arc<LoadedExtensions>>,
    /// What to report: the old ones' shutdown failures, load failures (such
    /// an extension is left out), the new ones' start failures.
    pub report: Vec<String>,
}

impl std::fmt::Debug for Renewed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Renewed({} -> {})", self.old.len(), self.fresh.len())
    }
}

/// The `session_shutdown`/`session_start` reason of `/reload` (the one
/// replacement of the extensions that evaluates their modules afresh).
pub const RELOAD_REASON: &str = "reload";

/// Load the script extensions again: the running ones hear
/// `session_shutdown` of `reason` (with `shutdown`'s fields, as
/// `targetSessionFile`), the same files load again (for `/reload` in fresh
/// engines; for a session replacement in the engines they ran in, their
/// factories run again in the modules already evaluated) and are bound to
/// the session (its tools through `plan.tool_changes`, trust, flags), then
/// hear `session_start` (with `start`'s fields, as `previousSessionFile`).
/// The agent still has the old handlers and tools: [`install`] swaps them.
pub async fn renew(plan: &ExtPlan, reason: &'static str, target: Option<String>, previous: Option<String>) -> Renewed {
    let mut report: Vec<String> = Vec::new();
    let old = plan.ext.scripts();
    let shutdown = SessionEvent::SessionShutdown { reason, target_session_file: target };
    for l in &old {
        report.extend(l.emit(shutdown.kind(), shutdown.to_value()).await.iter().map(|e| e.to_string()));
    }
    let mut fresh: Vec<Arc<LoadedExtensions>> = Vec::new();
    let groups: Vec<_> = plan.groups.iter().filter(|(p, _)| !p.is_empty()).collect();
    // A session replacement runs the factories again in the modules already
    // evaluated (module-level state carries over, as in the reference);
    // `/reload` evaluates them afresh.
    let reuse = reason != RELOAD_REASON && old.len() == groups.len();
    for (i, (paths, opts)) in groups.into_iter().enumerate() {
        let loaded = match old.get(i).filter(|_| reuse) {
            Some(previous) => ExtensionHost::load_again(previous, paths, opts.clone()).await,
            None => ExtensionHost::load(paths, opts.clone()).await,
        };
        match loaded {
            Ok(l) => match pi_ext::check_conflicts(&fresh, &l) {
                Ok(()) => fresh.push(Arc::new(l)),
                Err(e) => report.push(crate::text::with_extensions_hint(&e.to_string())),
            },
            Err(e) => report.push(crate::text::with_extensions_hint(&e.to_string())),
        }
    }
    plan.ext.bind(&fresh);
    for l in &fresh {
        l.bind_tools(Arc::new(crate::extensions::ToolsView(plan.tool_changes.clone()))).await;
        l.set_project_trusted(plan.trusted).await;
        l.set_flag_values(&plan.flag_values).await;
    }
    let start = SessionEvent::SessionStart { reason, previous_session_file: previous }.to_value();
    for l in &fresh {
        report.extend(l.emit("session_start", start.clone()).await.iter().map(|e| e.to_string()));
    }
    Renewed { old, fresh, report }
}

/// The renewed extensions' handlers and tools in the old ones' places in the agent.
pub fn install(agent: &mut Agent, plan: &ExtPlan, renewed: &Renewed) {
    swap_handlers(agent, &renewed.old, &renewed.fresh);
    swap_tools(agent, plan, &renewed.old, &renewed.fresh);
}

/// [`renew`] and [`install`] at once (`/reload`); what to report.
pub async fn reload_extensions(agent: &mut Agent, plan: &ExtPlan, reason: &'static str) -> Vec<String> {
    let renewed = renew(plan, reason, None, None).await;
    install(agent, plan, &renewed);
    renewed.report
}

/// The new extensions' handlers in the old ones' place (after the shipped policies).
fn swap_handlers(agent: &mut Agent, old: &[Arc<LoadedExtensions>], fresh: &[Arc<LoadedExtensions>]) {
    let old_handlers: Vec<Arc<dyn Interceptor>> = old.iter().flat_map(|l| l.interceptors.iter().cloned()).collect();
    let list = &mut agent.dispatcher_mut().interceptors;
    let at = list.iter().position(|h| old_handlers.iter().any(|o| same(o, h)));
    list.retain(|h| !old_handlers.iter().any(|o| same(o, h)));
    let at =
        at.unwrap_or_else(|| list.iter().position(|h| h.source().starts_with("builtin:mcp")).unwrap_or(list.len()));
    let new_handlers: Vec<Arc<dyn Interceptor>> = fresh.iter().flat_map(|l| l.interceptors.iter().cloned()).collect();
    list.splice(at..at, new_handlers);
}

/// The old extensions' tools out (a built-in they replaced back), the new ones in; the active set kept.
fn swap_tools(agent: &mut Agent, plan: &ExtPlan, old: &[Arc<LoadedExtensions>], fresh: &[Arc<LoadedExtensions>]) {
    let old_paths: Vec<String> = old.iter().flat_map(|l| l.paths()).map(str::to_string).collect();
    let registry = &mut agent.dispatcher_mut().registry;
    let mut active = registry.active().to_vec();
    let removed: Vec<String> = registry
        .all()
        .iter()
        .filter(|t| t.source_path().is_some_and(|p| old_paths.iter().any(|o| o == p)))
        .map(|t| t.def().name.clone())
        .collect();
    registry.retain(|t| !t.source_path().is_some_and(|p| old_paths.iter().any(|o| o == p)));
    for name in &removed {
        if registry.get(name).is_none()
            && let Some(base) = plan.base_tools.iter().find(|t| t.def().name == *name)
        {
            registry.register(base.clone());
        }
    }
    for t in fresh.iter().flat_map(|l| l.tools.iter()) {
        if t.def().activates_on_registration() && !active.contains(&t.def().name) {
            active.push(t.def().name.clone());
        }
        registry.register(t.clone());
    }
    registry.reset_active(&active);
}
