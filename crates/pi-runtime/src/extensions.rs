//! Which extensions a run loads and how: `-e PATH|builtin:<name>` (explicit,
//! first), then unless `--no-extensions` the agent dir's `extensions/` folder,
//! the `extensions` setting, and (trusted projects only) `.pi/extensions/`.
//! Built-ins are the shipped policies of `pi-policies`; scripts run in
//! `pi-ext`. A load failure stops start-up with
//! `Failed to load extension "<path>": <error>` (exit 1).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_ext::{ExtensionHost, HostOptions, LoadedExtensions};

use pi_agent::Interceptor;
use pi_policies::{Approver, PolicyOptions};

use crate::text;

/// Built-in extensions that load unless disabled (`-builtin:<name>`,
/// `--no-extensions`): `codemode` and `tool_search` (pi-codemode), `mcp`
/// (pi-mcp, the servers of `mcp.json`) and `llama.cpp` (crate::llama).
pub const DEFAULT_BUILTINS: &[&str] = &["codemode", "tool-search", pi_mcp::BUILTIN, crate::llama::BUILTIN];

/// Script extensions found in a folder (`<agent-dir>/extensions`,
/// `.pi/extensions`): `*.ts`, `*.js`, `*.mjs` files and sub-folders with an
/// `index.ts`/`index.js`/`package.json`, in file-name order.
pub fn discover(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![] };
    let mut out: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            if p.is_dir() {
                ["index.ts", "index.js", "index.mjs", "package.json"].iter().any(|f| p.join(f).is_file())
            } else {
                p.extension().is_some_and(|x| x == "ts" || x == "js" || x == "mjs")
            }
        })
        .collect();
    out.sort();
    out
}

/// Load script extensions (not `builtin:` specs) with the host options of the run.
pub async fn load_scripts(paths: &[PathBuf], opts: HostOptions) -> Result<Option<LoadedExtensions>, pi_ext::ExtError> {
    if paths.is_empty() {
        return Ok(None);
    }
    ExtensionHost::load(paths, opts).await.map(Some)
}

/// `resources_discover` of every loaded group with `reason` (`startup`,
/// `reload`): the paths the extensions add, and their failures as lines.
pub async fn discover_resources(
    scripts: &[Arc<LoadedExtensions>],
    cwd: &Path,
    reason: &str,
) -> (pi_ext::DiscoveredResources, Vec<String>) {
    let mut found = pi_ext::DiscoveredResources::default();
    let mut errors = Vec::new();
    for l in scripts {
        let (f, e) = l.discover_resources(cwd, reason).await;
        found.skill_paths.extend(f.skill_paths);
        found.prompt_paths.extend(f.prompt_paths);
        found.added_by.extend(f.added_by);
        errors.extend(e.iter().map(|e| e.to_string()));
    }
    (found, errors)
}

/// A `builtin:<name>` that names no built-in extension: start-up stops
/// with the reference's load error.
#[derive(Debug, thiserror::Error)]
#[error("{}", text::extension_load_failed(&format!("builtin:{}", .0), &text::unknown_builtin(.0)))]
pub struct UnknownBuiltin(pub String);

/// Build the interceptors of the built-in extensions `names` (`builtin:<name>`:
/// the shipped policies; the tool built-ins are [`builtin_tools`]); `Err`
/// stops start-up, naming the unknown built-in.
pub fn load_builtins(
    names: &[String],
    cwd: &std::path::Path,
    ui: Option<Arc<dyn Approver>>,
) -> Result<Vec<Arc<dyn Interceptor>>, UnknownBuiltin> {
    let mut out = Vec::new();
    for name in names {
        let mut opts = PolicyOptions::new(cwd);
        if let Some(ui) = &ui {
            opts = opts.with_ui(ui.clone());
        }
        match pi_policies::builtin(name, opts) {
            Some(i) => out.push(i),
            // Built-ins that register tools (pi-codemode), not handlers.
            None if pi_codemode::BUILTINS.contains(&name.as_str()) => {}
            // builtin:mcp registers tools and its own handler (crate::mcp).
            None if name == pi_mcp::BUILTIN => {}
            // builtin:llama.cpp adds a provider and /llama (crate::llama).
            None if name == crate::llama::BUILTIN => {}
            None => {
                return Err(UnknownBuiltin(name.clone()));
            }
        }
    }
    Ok(out)
}

/// The tools of the built-in extensions `names` that register tools
/// (`builtin:codemode`, `builtin:tool-search`), in order.
pub fn builtin_tools(names: &[String], options: &pi_codemode::CodemodeOptions) -> Vec<Arc<dyn pi_agent::AgentTool>> {
    names.iter().filter_map(|n| pi_codemode::builtin(n, options)).collect()
}

/// The session's tools as extensions see them (`pi.getAllTools()`,
/// `setActiveTools()`, late `registerTool()`): changes reach the agent before
/// its next model request.
pub struct ToolsView(pub pi_agent::ToolChanges);

impl pi_ext::ToolsApi for ToolsView {
    fn all_tools(&self) -> Vec<Arc<dyn pi_agent::AgentTool>> {
        self.0.all()
    }
    fn active_tools(&self) -> Vec<String> {
        self.0.active()
    }
    fn set_active_tools(&self, names: &[String]) {
        self.0.set_active(names);
    }
    fn register_tool(&self, tool: Arc<dyn pi_agent::AgentTool>) {
        self.0.register(tool);
    }
}
