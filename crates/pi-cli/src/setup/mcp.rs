//! Starting the built-in extension `builtin:mcp`: reads `mcp.json` (the
//! project's only when trusted), starts the servers in the background, and
//! hands their tools to the session as the tool selection admits them
//! (`pi-behaviour.md` §0 item 17: an allowlist without `mcp__` entries
//! registers MCP tools but activates none; `--exclude-tools` patterns remove
//! them).

use std::path::PathBuf;
use std::sync::Arc;

use pi_agent::{AgentTool, ToolChanges};
use pi_config::tool_selection::{Selection, SelectionInput, any_matches};
use pi_mcp::{Admit, LogFile, McpConfig, McpManager, Registrar};

use super::Env;

/// Tools of the servers go to the session's pending tool changes.
struct Changes(ToolChanges);

impl Registrar for Changes {
    fn register(&self, tools: Vec<Arc<dyn AgentTool>>) {
        for t in tools {
            self.0.register(t);
        }
    }
    fn tool(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        self.0.all().into_iter().find(|t| t.def().name == name)
    }
}

/// The home folder (`~/` in `cwd` entries).
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// The check of what extensions register (`pi.registerMcpServer`): as
/// `mcp.json` entries are checked.
pub(crate) fn registration_check() -> Arc<pi_ext::McpCheck> {
    Arc::new(|name: &str, value: &serde_json::Value| Ok(pi_mcp::config::check_entry(name, value)?))
}

/// Read the configuration of the run (with the servers an editor passed to
/// an ACP session, in the file `PI_MCP_EXTRA_CONFIG` names).
pub(crate) fn config(env: &Env, trusted: bool) -> McpConfig {
    let extra = std::env::var_os(pi_mcp::config::EXTRA_FILE_ENV).map(PathBuf::from);
    pi_mcp::config::load_with(&env.agent_dir, &env.cwd, trusted, home().as_deref(), extra.as_deref())
}

/// The MCP servers of the session, `None` when `builtin:mcp` is off
/// (`--no-mcp`, `-builtin:mcp`, `--no-extensions`) or none is configured.
pub(crate) fn manager(
    env: &Env,
    trusted: bool,
    input: &SelectionInput,
    scripts: &[Arc<pi_ext::LoadedExtensions>],
) -> Option<Arc<McpManager>> {
    let mut config = config(env, trusted);
    // Servers the extensions registered while loading connect with them.
    for (name, value, source) in scripts.iter().flat_map(|l| l.mcp_servers()) {
        pi_mcp::config::add_registered(&mut config, &name, &value, std::path::Path::new(&source), home().as_deref());
    }
    if config.servers.is_empty() && config.problems.is_empty() {
        return None;
    }
    let selection = Selection::compute(input);
    let admit: pi_mcp::AdmitFn = Arc::new(move |name: &str| {
        if !selection.registers(name, true) {
            return Admit::Skip;
        }
        let activate = selection.allowlist().is_none_or(|list| any_matches(list, name));
        Admit::Register { activate }
    });
    let manager = McpManager::new(config, LogFile(Some(env.agent_dir.join("mcp.log"))), admit)
        .with_tool_cache(env.agent_dir.join(pi_mcp::CACHE_FILE));
    Some(Arc::new(manager))
}

/// Send the servers' tools to the agent's tool set.
pub(crate) fn bind(manager: &McpManager, changes: &ToolChanges) {
    manager.bind(Arc::new(Changes(changes.clone())));
}

/// Whether `builtin:mcp` is loaded (not `--no-mcp`, `-builtin:mcp` or
/// `--no-extensions`): it answers `/mcp` even with no server configured.
pub(crate) fn enabled(args: &crate::cli_args::CliArgs, loaded: &super::Loaded) -> bool {
    !args.no_mcp && loaded.builtins.iter().any(|b| b == pi_mcp::BUILTIN)
}

/// Start `builtin:mcp` for the session: report bad entries, connect in the
/// background, and switch codemode / tool_search on as the servers' exposure
/// asks (codemode unless `autoEnableCodemode: false`).
pub(crate) fn start(
    env: &Env,
    args: &crate::cli_args::CliArgs,
    trusted: bool,
    loaded: &super::Loaded,
    input: &SelectionInput,
    registry: &mut pi_agent::Registry,
    report: &mut super::Report,
) -> Option<Arc<McpManager>> {
    if !enabled(args, loaded) {
        return None;
    }
    let m = manager(env, trusted, input, &loaded.scripts)?;
    for p in m.problems() {
        report.warn(p);
    }
    m.start();
    let (codemode, search) = m.activation();
    let mut active = registry.active().to_vec();
    for (on, name) in [(codemode, "codemode"), (search, "tool_search")] {
        if on && registry.get(name).is_some() && !active.iter().any(|n| n == name) {
            active.push(name.to_string());
        }
    }
    registry.set_active(&active);
    let reachable = ["codemode", "tool_search"].iter().any(|n| registry.active().iter().any(|a| a == n));
    if m.has_indirect() && !reachable {
        report.warn(pi_mcp::text::UNREACHABLE_WARNING);
    }
    Some(m)
}
