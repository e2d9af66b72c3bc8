//! The interactive mode: the terminal UI (`pi-tui`) wired to the agent. The
//! UI sends requests to a host that owns the agent ([`worker`]); the agent's
//! events, command output and extension UI calls flow back as updates.

mod attach;
mod commands;
mod components;
mod link;
mod login;
pub(crate) mod look;
pub(crate) mod menu;
mod queue_route;
pub(crate) mod router;
mod stderr;
mod text;
mod tree;
mod undo;
mod worker;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use pi_agent::Agent;
use pi_config::ModelEntry;
use pi_tui::host::{Controls, ModelInfo, UiHandle, Update};
use pi_tui::transcript::Level;
use tokio::sync::mpsc;

pub(crate) use link::Link;
pub(crate) use look::UiSettings;
pub(crate) use router::{TerminalApprover, TerminalUi, trust_prompt};

use pi_runtime::reload::ReloadState;

/// How long a run may take to stop after the UI quit.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// The models `--models` names (for ctrl+p), in the order given.
fn cycle_models(models: &[ModelEntry], patterns: Option<&[String]>) -> Vec<ModelInfo> {
    let mut out: Vec<ModelInfo> = Vec::new();
    for p in patterns.unwrap_or_default() {
        if let Some((m, _)) = pi_runtime::model_select::find(models, p, None) {
            let info = worker::model_info(m);
            if !out.contains(&info) {
                out.push(info);
            }
        }
    }
    out
}

/// The UI's start state.
fn options(
    agent: &Agent,
    initial: Vec<String>,
    models: &[ModelEntry],
    ui: &UiSettings,
    notice: Option<&str>,
    handle: UiHandle,
    route: pi_tui::host::QueueRoute,
) -> pi_tui::Options {
    let catalog = ui.catalog();
    let (theme, theme_name, theme_warnings) = ui.theme(&catalog);
    let (keys, key_warnings) = look::keys(&ui.agent_dir);
    let mut notices: Vec<(Level, String)> = catalog
        .diagnostics
        .iter()
        .chain(&theme_warnings)
        .chain(&key_warnings)
        .map(|w| (Level::Warning, pi_tui::text::warning_line(w)))
        .collect();
    if let Some(n) = notice {
        notices.push((Level::Warning, n.to_string()));
    }
    let available: Vec<ModelInfo> =
        pi_runtime::model_select::available(models).into_iter().map(worker::model_info).collect();
    let model = models
        .iter()
        .find(|m| m.provider == agent.model().provider && m.id == agent.model().id)
        .map(worker::model_info)
        .unwrap_or_else(|| ModelInfo {
            provider: agent.model().provider.clone(),
            id: agent.model().id.clone(),
            name: agent.model().name.clone(),
            reasoning: agent.model().reasoning,
            context_window: agent.model().context_window,
        });
    pi_tui::Options {
        mode: ui.mode,
        theme,
        theme_name,
        themes: catalog,
        truecolor: pi_tui::theme::truecolor_from_env(),
        keys,
        cwd: ui.cwd.clone(),
        home: std::env::var_os("HOME").map(Into::into),
        agent_dir: ui.agent_dir.clone(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        header_more: Vec::new(),
        models: available,
        cycle: cycle_models(models, ui.cycle.as_deref()),
        model,
        thinking: agent.thinking().map(String::from),
        controls: Controls {
            abort: agent.abort_handle(),
            steering: agent.steering().clone(),
            follow_ups: agent.follow_ups().clone(),
            route: Some(route),
        },
        commands: ui.commands.clone(),
        trusted: ui.trusted,
        notices,
        initial,
        hide_thinking: ui.hide_thinking,
        autocomplete_max_visible: ui.autocomplete_rows,
        auto_compact: agent.compaction_settings().enabled && agent.live().auto_compaction(),
        session_name: agent.session().lock().ok().and_then(|s| s.name()).or_else(|| ui.session_name.clone()),
        ui: handle,
        history: agent.messages().to_vec(),
    }
}

/// What the interactive mode runs with.
pub(crate) struct Start<'a> {
    /// The agent, its history loaded.
    pub agent: Agent,
    /// Messages given on the command line, sent first.
    pub initial: Vec<String>,
    /// What `/reload` rebuilds from.
    pub reload: ReloadState,
    /// Every configured model.
    pub models: Arc<[ModelEntry]>,
    /// What the UI needs from the command line and the settings.
    pub ui: UiSettings,
    /// The untrusted project's notice, if any.
    pub notice: Option<&'a str>,
    /// The extensions' side of the session.
    pub ext: Arc<pi_runtime::ext_session::ExtSession>,
    /// The UI's shared state, made in setup.
    pub link: Link,
}

/// Run the interactive mode until the user quits.
pub(crate) async fn run(start: Start<'_>) -> ExitCode {
    let Start { agent, initial, reload, models, mut ui, notice, ext, link } = start;
    // The extensions' commands come first in `/` completion (as the reference lists them).
    let mut commands = crate::tui::menu::extension_commands(&ext.scripts());
    commands.append(&mut ui.commands);
    ui.commands = commands;
    let (req_tx, req_rx) = mpsc::unbounded_channel();
    let (up_tx, up_rx) = mpsc::unbounded_channel();
    let handle = UiHandle::new(up_tx.clone());
    link.connect(up_tx.clone(), handle.clone());
    let _ = up_tx.send(Update::Shortcuts(pi_runtime::ext_commands::ui_shortcuts(&ext.scripts())));
    let _ = up_tx.send(Update::Renderers(crate::tui::menu::renderers(&ext.scripts(), false)));
    let _ = up_tx.send(Update::EntryRenderers(crate::tui::menu::renderers(&ext.scripts(), true)));
    let _ = up_tx.send(Update::ToolRenderers(crate::tui::menu::tool_renderers(&ext.scripts())));
    let (steering, follow_ups) = (agent.steering().clone(), agent.follow_ups().clone());
    let route = queue_route::route(ext.clone(), ui.cwd.clone(), steering, follow_ups);
    let opts = options(&agent, initial, &models, &ui, notice, handle, route);
    let abort = agent.abort_handle();
    stderr::capture(up_tx.clone());
    let previous = Arc::new(std::panic::take_hook());
    let inner = previous.clone();
    std::panic::set_hook(Box::new(move |info| {
        stderr::restore();
        inner(info);
    }));
    let host = worker::Host::new(pi_runtime::Runtime::new(agent, ext, reload), models, ui, up_tx);
    let tui = pi_tui::run(opts, req_tx, up_rx);
    let serve = host.serve(req_rx);
    tokio::pin!(tui, serve);
    let result = tokio::select! {
        r = &mut tui => {
            abort.abort();
            pi_tools::kill_running_commands();
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, &mut serve).await;
            r
        }
        _ = &mut serve => (&mut tui).await,
    };
    link.disconnect();
    stderr::restore();
    let _ = std::panic::take_hook();
    if let Ok(hook) = Arc::try_unwrap(previous) {
        std::panic::set_hook(hook);
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::from(1)
        }
    }
}
