//! Built-in extensions a script replaces, as the reference decides: a
//! replaceable built-in (`codemode`, `tool-search`, `mcp`) is not loaded when
//! a script extension registers one of its names (a tool, a command), with a
//! warning saying which extension did and how to get the built-in back.
//! And the reference's warning for a package that depends on a package pi
//! provides to extensions (it should be a `*` peer dependency).

use std::sync::Arc;

use super::agent::Loaded;
use crate::text;

/// A replaceable built-in and the names it registers (`tool:…`, `command:…`).
const REPLACEABLE: &[(&str, &[&str])] =
    &[("codemode", &["tool:codemode"]), ("tool-search", &["tool:tool_search"]), (pi_mcp::BUILTIN, &["command:mcp"])];

/// Every `tool:`/`command:` name the scripts register, with the extension
/// that registers it (the last one, as the reference's map keeps).
async fn taken(scripts: &[Arc<pi_ext::LoadedExtensions>]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in scripts {
        for t in &l.tools {
            out.push((format!("tool:{}", t.def().name), t.source_path().unwrap_or_default().to_string()));
        }
        for c in l.commands() {
            out.push((format!("command:{}", c.name), c.path.clone()));
        }
    }
    out
}

/// Leave out of `loaded.builtins` the replaceable built-ins a script
/// replaces; the warnings to print.
pub(crate) async fn omit_replaced(loaded: &mut Loaded) -> Vec<String> {
    let taken = taken(&loaded.scripts).await;
    let mut warnings = Vec::new();
    loaded.builtins.retain(|builtin| {
        let Some((_, names)) = REPLACEABLE.iter().find(|(b, _)| b == builtin) else { return true };
        let hit = names.iter().find_map(|n| taken.iter().rev().find(|(t, _)| t == n));
        match hit {
            Some((name, path)) => {
                warnings.push(text::builtin_replaced(builtin, path, name));
                false
            }
            None => true,
        }
    });
    warnings
}

/// The packages pi provides to extensions: a package should name them as
/// `*` peer dependencies, not install its own copies.
const HOST_PROVIDED: &[&str] = &[
    "@earendil-works/pi-agent-core",
    "@earendil-works/pi-ai",
    "@earendil-works/pi-coding-agent",
    "@earendil-works/pi-tui",
    "@mariozechner/pi-agent-core",
    "@mariozechner/pi-ai",
    "@mariozechner/pi-coding-agent",
    "@mariozechner/pi-tui",
    "@sinclair/typebox",
    "typebox",
];

/// The warnings for the packages of `extensions` (package extension files
/// this run loads) whose `dependencies` name a package pi provides.
pub(crate) fn host_dependency_warnings(extensions: &[pi_config::packages::PackageResource]) -> Vec<String> {
    let mut roots: Vec<&std::path::Path> = Vec::new();
    for r in extensions {
        if !roots.contains(&r.package_root.as_path()) {
            roots.push(&r.package_root);
        }
    }
    let mut out = Vec::new();
    for root in roots {
        let manifest = root.join("package.json");
        let Some(doc) =
            std::fs::read_to_string(&manifest).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        else {
            continue;
        };
        let Some(deps) = doc.get("dependencies").and_then(serde_json::Value::as_object) else { continue };
        let mut named: Vec<&str> = deps.keys().map(String::as_str).filter(|d| HOST_PROVIDED.contains(d)).collect();
        named.sort_unstable();
        if !named.is_empty() {
            out.push(text::host_provided_dependencies(&manifest.to_string_lossy(), &named.join(", ")));
        }
    }
    out
}
