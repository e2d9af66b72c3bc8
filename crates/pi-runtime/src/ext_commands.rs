//! What the script extensions offer the front ends besides tools: their
//! commands (found by name, listed for RPC's `get_commands` with where each
//! came from, and for the terminal UI's menu with argument completion),
//! keyboard shortcuts and renderers of messages, entries and tools.

use std::path::Path;
use std::sync::Arc;

use pi_ext::LoadedExtensions;
use serde_json::{Value, json};

/// The command `/name args` names among the extensions' commands (with the
/// reference's `name:N` for a name several extensions registered).
pub fn find_command(scripts: &[Arc<LoadedExtensions>], text: &str) -> Option<(String, String, String)> {
    let rest = text.strip_prefix('/')?;
    let (called, args) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim_start()),
        None => (rest, ""),
    };
    let all: Vec<pi_ext::ExtCommand> = scripts.iter().flat_map(|l| l.commands()).collect();
    let names = pi_ext::command_names(&all);
    let at = names.iter().position(|n| n == called)?;
    Some((all[at].path.clone(), all[at].name.clone(), args.to_string()))
}

/// What tells where an extension came from: the agent dir, the session
/// folder and the packages' extension files.
pub struct Origins<'a> {
    /// The agent dir (user extensions live under it).
    pub agent_dir: &'a Path,
    /// The working folder (project extensions live under its `.pi`).
    pub cwd: &'a Path,
    /// The packages' extension files.
    pub packages: &'a [pi_config::packages::PackageResource],
}

/// Where an extension came from, as the reference's `sourceInfo` says it: a
/// package's file (its source as settings write it, `package`), the agent
/// dir's `extensions/` folder (`auto`, `user`), a project's
/// `.pi/extensions/` (`auto`, `project`), else the command line (`cli`,
/// `temporary`).
fn source_info(path: &str, origins: Option<&Origins>) -> Value {
    let p = Path::new(path);
    if let Some(o) = origins {
        if let Some(r) = o.packages.iter().find(|r| r.path == p) {
            return crate::expand::source_info(p, &pi_config::resources::SourceInfo::package(r));
        }
        for (base, folder, scope) in
            [(o.agent_dir.to_path_buf(), "extensions", "user"), (o.cwd.join(".pi"), "extensions", "project")]
        {
            if p.starts_with(base.join(folder)) {
                return json!({"path": path, "source": "auto", "scope": scope, "origin": "top-level",
                    "baseDir": base.to_string_lossy()});
            }
        }
    }
    json!({"path": path, "source": "cli", "scope": "temporary", "origin": "top-level"})
}

/// RPC `get_commands` entries of the extensions' commands, in load order.
pub fn extension_commands(scripts: &[Arc<LoadedExtensions>], origins: Option<&Origins>) -> Vec<Value> {
    let all: Vec<pi_ext::ExtCommand> = scripts.iter().flat_map(|l| l.commands()).collect();
    let names = pi_ext::command_names(&all);
    all.iter()
        .zip(names)
        .map(|(c, name)| {
            let mut v = json!({"name": name});
            if let Some(d) = &c.description {
                v["description"] = json!(d);
            }
            v["source"] = json!("extension");
            v["sourceInfo"] = source_info(&c.path, origins);
            v
        })
        .collect()
}

/// The extensions' keyboard shortcuts for the terminal UI: `(key,
/// description)`, in load order.
pub fn ui_shortcuts(scripts: &[Arc<LoadedExtensions>]) -> Vec<(String, String)> {
    scripts.iter().flat_map(|l| l.shortcuts()).map(|(key, description, _)| (key, description)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_registered_name_is_a_command() {
        // No extensions: nothing is a command, whatever the text.
        assert_eq!(find_command(&[], "/hello world"), None);
        assert_eq!(find_command(&[], "hello"), None);
        assert_eq!(find_command(&[], "/"), None);
        assert!(extension_commands(&[], None).is_empty());
    }

    #[test]
    fn source_info_names_where_an_extension_came_from() {
        let package = pi_config::packages::PackageResource {
            path: "/h/.pi/agent/npm/node_modules/pkg/index.ts".into(),
            source: "npm:pkg@1.0.0".into(),
            scope: "user".into(),
            package_root: "/h/.pi/agent/npm/node_modules/pkg".into(),
            changelog: None,
        };
        let packages = [package];
        let o = Origins { agent_dir: Path::new("/h/.pi/agent"), cwd: Path::new("/w"), packages: &packages };
        let user = source_info("/h/.pi/agent/extensions/a.ts", Some(&o));
        assert_eq!(
            (&user["source"], &user["scope"], &user["baseDir"]),
            (&json!("auto"), &json!("user"), &json!("/h/.pi/agent"))
        );
        let project = source_info("/w/.pi/extensions/b/index.ts", Some(&o));
        assert_eq!((&project["scope"], &project["baseDir"]), (&json!("project"), &json!("/w/.pi")));
        let cli = source_info("/w/x.ts", Some(&o));
        assert_eq!((&cli["source"], &cli["scope"]), (&json!("cli"), &json!("temporary")));
        assert!(cli.get("baseDir").is_none());
        // As the reference: a package's extension names the package.
        let from_package = source_info("/h/.pi/agent/npm/node_modules/pkg/index.ts", Some(&o));
        assert_eq!(
            from_package,
            json!({"path": "/h/.pi/agent/npm/node_modules/pkg/index.ts", "source": "npm:pkg@1.0.0", "scope": "user",
                "origin": "package", "baseDir": "/h/.pi/agent/npm/node_modules/pkg"})
        );
    }
}
