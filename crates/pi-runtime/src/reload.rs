//! `/reload` (interactive and RPC): read the settings and context files again
//! without re-deciding trust, activate tools newly added to `defaultTools`
//! (never re-enabling one removed with `-name`), re-apply the command line's
//! `+name`/`-name` modifiers, and rebuild the system prompt (reference §5.4, S7).
//! Also moving a session to another folder ([`move_to`]): the same rebuild
//! for that folder, with its trust decided again.

use std::path::PathBuf;

use pi_agent::Agent;
use pi_config::Settings;
use pi_config::tool_selection::{apply_modifiers, is_modifier};

use crate::prompt_source::PromptSource;
use crate::text;

/// What `/reload` needs to remember between reloads.
#[derive(Debug, Clone)]
pub struct ReloadState {
    /// How to rebuild the system prompt.
    pub prompt: PromptSource,
    /// The agent dir.
    pub agent_dir: PathBuf,
    /// `--tools` entries, when given.
    pub cli_tools: Option<Vec<String>>,
    /// Whether `defaultTools` drives the active set (no allowlist, no `--no-tools`).
    pub uses_default_tools: bool,
    /// The resolved `defaultTools` at the last (re)load.
    pub last_default: Vec<String>,
    /// `codemode.*` as the codemode tool reads them.
    pub codemode: pi_codemode::Settings,
    /// `--skill`, `--no-skills`, `--prompt-template`, `--no-prompt-templates`.
    pub resource_flags: crate::expand::ResourceFlags,
    /// The skills and templates as last loaded (commands of the UI).
    pub resources: std::sync::Arc<pi_config::resources::Resources>,
    /// The session's MCP servers (`/mcp`, and stopped when pi exits).
    pub mcp: Option<std::sync::Arc<pi_mcp::McpManager>>,
    /// `builtin:mcp` is loaded: `/mcp` is a command even with no server configured.
    pub mcp_on: bool,
    /// `builtin:llama.cpp` is loaded: `/llama` is a command.
    pub llama_on: bool,
    /// `--approve` / `--no-approve`: trust of a folder the session moves to.
    pub approve: Option<bool>,
    /// How the script extensions were loaded (loaded again on `/reload`).
    pub extensions: Option<std::sync::Arc<crate::ext_reload::ExtPlan>>,
}

impl ReloadState {
    /// The commands of the skills and templates as loaded now, `/llama`
    /// and `/mcp` first when on (RPC's `get_commands` entries).
    pub fn commands(&self) -> Vec<serde_json::Value> {
        let mut c = crate::expand::rpc_commands(&self.resources);
        if self.mcp_on {
            c.insert(0, crate::mcp::rpc_command());
        }
        if self.llama_on {
            c.insert(0, crate::llama::rpc_command());
        }
        c
    }
}

/// Run the agent in `cwd` from now on: a session switched to (RPC
/// `switch_session`, `/resume`) runs in the folder it was made in, as the
/// reference runs it (tools, context files, the prompt's folder, project
/// settings and resources follow; see [`reload_collect`]). Extensions and
/// MCP servers already loaded stay. Returns the warnings.
pub async fn move_to(agent: &mut Agent, state: &mut ReloadState, cwd: PathBuf) -> Vec<String> {
    agent.tool_ctx_mut().cwd = cwd;
    rebuild(agent, state, false, None).await.1
}

/// When the agent now runs in another folder than the prompt was built
/// for: decide trust there without a question (the run's
/// `--approve`/`--no-approve`, the saved decision, then
/// `defaultProjectTrust`) and build for that folder from now on. `None`:
/// the folder is the same.
fn follow_folder(agent: &Agent, state: &mut ReloadState) -> Option<Vec<String>> {
    use pi_config::{TrustStore, resolve_trust, trust::TrustInput};
    let cwd = agent.tool_ctx().cwd.clone();
    if cwd == state.prompt.cwd {
        return None;
    }
    let (global, _) = Settings::load(&state.agent_dir, &cwd, false);
    let mut input = TrustInput::new(&cwd, TrustStore::new(&state.agent_dir));
    input.cli_override = state.approve;
    input.default_trust = global.default_project_trust();
    let mut warnings = Vec::new();
    state.prompt.trusted = match resolve_trust(input) {
        Ok(trust) => {
            warnings.extend(trust.warnings);
            trust.trusted
        }
        Err(e) => {
            warnings.push(e.to_string());
            false
        }
    };
    state.prompt.cwd = cwd;
    Some(warnings)
}

/// Where a session opened from `file` runs: the folder stored in it, when
/// that is a folder other than `cwd`.
pub fn stored_folder(session: &pi_agent::session::Session, cwd: &std::path::Path) -> Option<PathBuf> {
    let stored = PathBuf::from(session.header()["cwd"].as_str().filter(|c| !c.is_empty())?);
    let same = match (stored.canonicalize(), cwd.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => stored == cwd,
    };
    (stored.is_dir() && !same).then_some(stored)
}

/// Reload and return the status line (warnings go to standard error).
pub async fn reload(agent: &mut Agent, state: &mut ReloadState) -> String {
    let (status, warnings) = reload_collect(agent, state).await;
    for w in warnings {
        eprintln!("Warning: {w}");
    }
    status
}

/// Reload; the status line and the settings' warnings (the terminal UI
/// shows them in its transcript).
pub async fn reload_collect(agent: &mut Agent, state: &mut ReloadState) -> (String, Vec<String>) {
    rebuild(agent, state, true, Some("reload")).await
}

/// [`reload_collect`]: the script extensions loaded again when
/// `extensions`; `resources_discover` asked with `discover` (else the paths
/// the extensions gave last stay).
pub async fn rebuild(
    agent: &mut Agent,
    state: &mut ReloadState,
    extensions: bool,
    discover: Option<&str>,
) -> (String, Vec<String>) {
    let moved = follow_folder(agent, state);
    let mut warnings = moved.clone().unwrap_or_default();
    if extensions && let Some(plan) = state.extensions.clone() {
        warnings.extend(crate::ext_reload::reload_extensions(agent, &plan, crate::ext_reload::RELOAD_REASON).await);
    }
    let (settings, diagnostics) = Settings::load(&state.agent_dir, &state.prompt.cwd, state.prompt.trusted);
    warnings.extend(diagnostics.iter().map(|d| d.to_string()));
    if state.uses_default_tools {
        let new_default = settings
            .resolved_default_tools()
            .unwrap_or_else(|| pi_config::tool_selection::DEFAULT_TOOL_NAMES.iter().map(|s| s.to_string()).collect());
        let mut active: Vec<String> = agent.dispatcher().registry.active().to_vec();
        if moved.is_some() {
            // Another folder: its `defaultTools` replace the last folder's.
            active.retain(|n| !state.last_default.contains(n) || new_default.contains(n));
        }
        for name in new_default.iter().filter(|n| !state.last_default.contains(n)) {
            if !active.contains(name) {
                active.push(name.clone());
            }
        }
        if let Some(mods) = state.cli_tools.as_ref().filter(|t| t.iter().all(|e| is_modifier(e)) && !t.is_empty()) {
            active = apply_modifiers(&active, mods);
        }
        agent.dispatcher_mut().registry.set_active(&active);
        state.last_default = new_default;
    }
    if let Some(reason) = discover {
        let scripts = state.extensions.as_ref().map(|p| p.ext.scripts()).unwrap_or_default();
        let (found, errors) = crate::extensions::discover_resources(&scripts, &state.prompt.cwd, reason).await;
        warnings.extend(errors);
        state.resource_flags.discovered = found;
    }
    let resources = state.resource_flags.load(&state.agent_dir, &state.prompt.cwd, &settings, state.prompt.trusted);
    warnings.extend(resources.skills.diagnostics.iter().chain(&resources.templates.diagnostics).map(|d| d.line()));
    state.prompt.skills = resources.skills.skills.clone();
    let resources = std::sync::Arc::new(resources);
    agent.set_expand_input(Some(crate::expand::expander(resources.clone())));
    state.resources = resources;
    let (mode, budget) = crate::codemode::settings(&settings);
    state.codemode.set(mode, budget);
    // The tools' loadout hooks run again with the new settings.
    let active = agent.dispatcher().registry.active().to_vec();
    agent.dispatcher_mut().registry.set_active(&active);
    agent.dispatcher_mut().registry.refresh_loadout().await;
    let sections = state.prompt.build(&agent.dispatcher().registry);
    agent.set_system_prompt(sections.text());
    agent.set_system_sections(Some(sections));
    (text::RELOADED.to_string(), warnings)
}
