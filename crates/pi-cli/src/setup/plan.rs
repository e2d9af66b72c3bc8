//! Which extensions a run loads, decided once.
//!
//! Before trust: the command line's `-e` entries, then (unless
//! `--no-extensions`) the user settings' `extensions` entries, the agent
//! dir's `extensions/` folder and the user's packages' extensions. After
//! trust, for a trusted project only: the project's `.pi/extensions/`
//! folder, its settings' entries and its packages' extensions. A settings
//! entry `-<spec>` disables `<spec>` wherever it comes from (except `-e`);
//! `+<spec>` is `<spec>`. Relative paths in a settings file resolve from the
//! folder of that file; on the command line, from the working folder.

use std::path::{Path, PathBuf};

use pi_config::Settings;
use pi_config::settings::{ResourceEntry, ResourceKind, Scope};

use pi_runtime::extensions::discover;

/// The extensions of a run, as decided so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ExtensionPlan {
    /// Script extensions that load before trust, in load order.
    pub before_trust: Vec<PathBuf>,
    /// Script extensions of the trusted project, in load order.
    pub after_trust: Vec<PathBuf>,
    /// Built-in extensions (`builtin:<name>`), in order.
    pub builtins: Vec<String>,
    /// `-<spec>` entries of the settings.
    disabled: Vec<String>,
    /// Warnings for `-e npm:…`/`git:…` packages that cannot load.
    pub warnings: Vec<String>,
    /// Built-ins named with `-e` (settings cannot disable them).
    explicit_builtins: Vec<String>,
    no_extensions: bool,
}

fn builtin_name(spec: &str) -> Option<&str> {
    spec.strip_prefix("builtin:")
}

impl ExtensionPlan {
    /// The plan before trust: `-e` entries (`explicit`), then the user
    /// settings' entries and the agent dir's folder.
    pub(crate) fn new(
        explicit: &[String],
        no_extensions: bool,
        settings: &Settings,
        agent_dir: &Path,
        offline: bool,
    ) -> Self {
        let mut plan = ExtensionPlan { no_extensions, ..Default::default() };
        for spec in explicit {
            if crate::packages::temporary::is_remote(spec) && builtin_name(spec).is_none() {
                plan.add_temporary(spec, settings, agent_dir, offline);
                continue;
            }
            plan.add(spec, None);
        }
        plan.explicit_builtins = plan.builtins.clone();
        if no_extensions {
            return plan;
        }
        let user = settings_entries(settings, Scope::User);
        plan.disabled = disabled(&user);
        for entry in &user {
            plan.add_setting(entry, false);
        }
        let discovered = discover(&agent_dir.join("extensions"));
        plan.push_scripts(discovered, false);
        plan.push_scripts(package_extensions(settings, "user"), false);
        // The built-ins that load by default (unless a `-builtin:<name>` entry disables them).
        for name in pi_runtime::extensions::DEFAULT_BUILTINS {
            let spec = format!("builtin:{name}");
            if !plan.disabled.contains(&spec) && !plan.builtins.iter().any(|b| b == name) {
                plan.builtins.push(name.to_string());
            }
        }
        plan
    }

    /// Only the command line's entries (`pi tool -e …`): no settings, no folders.
    pub(crate) fn explicit(explicit: &[String]) -> Self {
        let mut plan = ExtensionPlan { no_extensions: true, ..Default::default() };
        for spec in explicit {
            plan.add(spec, None);
        }
        plan.explicit_builtins = plan.builtins.clone();
        plan
    }

    /// Add what a trusted project brings (`settings` read with the project
    /// layer); returns the scripts to load now. Nothing for an untrusted project.
    pub(crate) fn trust_project(&mut self, settings: &Settings, cwd: &Path, trusted: bool) -> Vec<PathBuf> {
        if self.no_extensions || !trusted {
            return Vec::new();
        }
        let project = settings_entries(settings, Scope::Project);
        self.disabled.extend(disabled(&project));
        self.push_scripts(discover(&cwd.join(".pi").join("extensions")), true);
        for entry in &project {
            self.add_setting(entry, true);
        }
        self.push_scripts(package_extensions(settings, "project"), true);
        let (disabled, explicit) = (&self.disabled, &self.explicit_builtins);
        self.builtins.retain(|b| explicit.contains(b) || !disabled.iter().any(|d| d == &format!("builtin:{b}")));
        self.after_trust.clone()
    }

    fn add(&mut self, spec: &str, base: Option<&Path>) {
        match builtin_name(spec) {
            Some(name) => {
                if !self.builtins.iter().any(|b| b == name) {
                    self.builtins.push(name.to_string());
                }
            }
            None => {
                let path = pi_config::expand_tilde(spec);
                let path = match base {
                    Some(b) if path.is_relative() => b.join(path),
                    _ => path,
                };
                self.push_scripts(vec![path], false);
            }
        }
    }

    /// `-e npm:…`/`git:…`: the package tried for this run (installed under
    /// the agent dir's `tmp/extensions`), its extensions loading as the
    /// command line's; a package that cannot be installed is a warning.
    fn add_temporary(&mut self, spec: &str, settings: &Settings, agent_dir: &Path, offline: bool) {
        let mut installer = crate::packages::install::Installer::new(settings, agent_dir, settings.cwd());
        installer.quiet = true;
        match crate::packages::temporary::prepare(spec, &installer, offline) {
            Ok(dir) => self.push_scripts(crate::packages::temporary::extensions(&dir), false),
            Err(warning) => self.warnings.push(warning.to_string()),
        }
    }

    fn add_setting(&mut self, entry: &ResourceEntry, after_trust: bool) {
        let spec = entry.entry.strip_prefix('+').unwrap_or(&entry.entry);
        if spec.starts_with('-') || spec.starts_with('!') || self.disabled.iter().any(|d| d == spec) {
            return;
        }
        if builtin_name(spec).is_none() && after_trust {
            let path = entry.base_dir.join(pi_config::expand_tilde(spec));
            self.push_scripts(vec![path], true);
        } else {
            self.add(spec, Some(&entry.base_dir));
        }
    }

    fn push_scripts(&mut self, paths: Vec<PathBuf>, after_trust: bool) {
        for p in paths {
            if self.before_trust.contains(&p) || self.after_trust.contains(&p) {
                continue;
            }
            if after_trust { self.after_trust.push(p) } else { self.before_trust.push(p) }
        }
    }
}

/// The extension files of the configured packages of one scope (`user`,
/// `project`), in load order (pi_config::packages).
fn package_extensions(settings: &Settings, scope: &str) -> Vec<PathBuf> {
    let found = pi_config::packages::resolve(settings, settings.agent_dir(), settings.cwd());
    found.extensions.into_iter().filter(|r| r.scope == scope).map(|r| r.path).collect()
}

fn settings_entries(settings: &Settings, scope: Scope) -> Vec<ResourceEntry> {
    settings.resources(ResourceKind::Extensions).into_iter().filter(|r| r.scope == scope).collect()
}

fn disabled(entries: &[ResourceEntry]) -> Vec<String> {
    entries.iter().filter_map(|e| e.entry.strip_prefix('-').map(String::from)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn settings_with(agent: &Path, cwd: &Path, user: &str, project: Option<&str>) -> Settings {
        std::fs::create_dir_all(agent).unwrap();
        std::fs::write(agent.join("settings.json"), user).unwrap();
        if let Some(p) = project {
            std::fs::create_dir_all(cwd.join(".pi")).unwrap();
            std::fs::write(cwd.join(".pi/settings.json"), p).unwrap();
        }
        Settings::load(agent, cwd, false).0
    }

    #[test]
    fn explicit_first_then_user_settings_minus_disabled_then_the_agent_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("proj"));
        std::fs::create_dir_all(agent.join("extensions")).unwrap();
        std::fs::write(agent.join("extensions/z.ts"), "").unwrap();
        let s = settings_with(
            &agent,
            &cwd,
            r#"{"extensions": ["builtin:protected-paths", "-builtin:mcp", "builtin:mcp", "+rel.ts"]}"#,
            None,
        );
        let plan = ExtensionPlan::new(&strings(&["builtin:approval", "a.ts"]), false, &s, &agent, true);
        assert_eq!(plan.builtins, strings(&["approval", "protected-paths", "codemode", "tool-search", "llama.cpp"]));
        assert_eq!(plan.before_trust, vec![PathBuf::from("a.ts"), agent.join("rel.ts"), agent.join("extensions/z.ts")]);
        let none = ExtensionPlan::new(&strings(&["a.ts"]), true, &s, &agent, true);
        assert_eq!((none.before_trust, none.builtins), (vec![PathBuf::from("a.ts")], vec![]));
    }

    #[test]
    fn a_trusted_project_adds_its_folder_and_entries_once_and_may_disable_builtins() {
        let tmp = tempfile::tempdir().unwrap();
        let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("proj"));
        let mut s = settings_with(
            &agent,
            &cwd,
            r#"{"extensions": ["builtin:approval", "-builtin:tool-search"]}"#,
            Some(
                r#"{"extensions": ["builtin:protected-paths", "-builtin:approval", "-builtin:codemode", "x.ts", "!y.ts"]}"#,
            ),
        );
        std::fs::create_dir_all(cwd.join(".pi/extensions")).unwrap();
        std::fs::write(cwd.join(".pi/extensions/b.ts"), "").unwrap();
        let mut plan = ExtensionPlan::new(&[], false, &s, &agent, true);
        assert_eq!(
            plan.builtins,
            strings(&["approval", "codemode", "mcp", "llama.cpp"]),
            "-builtin:tool-search disables a default built-in"
        );
        let untrusted = plan.clone().trust_project(&s, &cwd, false);
        assert!(untrusted.is_empty());
        s.trust_project();
        let scripts = plan.trust_project(&s, &cwd, true);
        assert_eq!(scripts, vec![cwd.join(".pi/extensions/b.ts"), cwd.join(".pi/x.ts")]);
        assert_eq!(
            plan.builtins,
            strings(&["mcp", "llama.cpp", "protected-paths"]),
            "the project's -builtin:approval and -builtin:codemode disable them"
        );
    }
}
