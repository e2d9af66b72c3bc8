//! Pi packages (the reference's docs/packages.md): the `packages` entries
//! of the settings files, where an installed package lives, and which of its
//! extensions, skills, prompt templates and themes load.
//!
//! - An entry is a source string or an object `{source, extensions?,
//!   skills?, prompts?, themes?, autoload?}` whose lists narrow what loads.
//! - npm packages install under `<agent-dir>/npm/node_modules/<name>` (user)
//!   or `<cwd>/.pi/npm/node_modules/<name>` (project); git packages under
//!   `<agent-dir>/git/<host>/<path>` or `<cwd>/.pi/git/<host>/<path>`; a
//!   local path is used where it is, resolved from the folder of the
//!   settings file that names it.
//! - Project entries are read only for a trusted project (they are in
//!   `.pi/settings.json`, which asks for trust). Project entries come first
//!   and replace a user entry of the same package (same npm name, same git
//!   host and path, same resolved local path), except that a project entry
//!   with `autoload: false` narrows the user's entry instead.
//!
//! This crate only reads: installing runs `git` and `npm` in `pi-cli`.

mod collect;
mod source;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use collect::{PackageResource, PackageResources, collect_package};
pub use source::{PackageSource, normalize, relative, resolve_path};

use crate::Settings;
use crate::settings::Scope;

/// The four resource lists of a package.
pub const RESOURCE_KINDS: [&str; 4] = ["extensions", "skills", "prompts", "themes"];

/// One entry of a `packages` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageEntry {
    /// The source as written.
    pub source: String,
    /// The settings file it is in.
    pub scope: Scope,
    /// The object form's lists, by kind (`None`: the string form).
    pub filters: Option<Filters>,
}

/// The object form of an entry: a list per kind, when given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// `extensions`, `skills`, `prompts`, `themes` (`None`: not given).
    pub lists: [Option<Vec<String>>; 4],
    /// `autoload: false`: a project entry that narrows the user's entry.
    pub autoload_off: bool,
}

impl Filters {
    fn from_object(v: &Value) -> Filters {
        let list = |k: &str| -> Option<Vec<String>> {
            v.get(k)?.as_array().map(|a| a.iter().filter_map(|e| e.as_str().map(String::from)).collect())
        };
        Filters {
            lists: RESOURCE_KINDS.map(list),
            autoload_off: v.get("autoload").and_then(Value::as_bool) == Some(false),
        }
    }
}

/// The folder relative sources of a settings file resolve from: the agent
/// dir for the user's, `<cwd>/.pi` for the project's.
pub fn base_dir(scope: Scope, agent_dir: &Path, cwd: &Path) -> PathBuf {
    match scope {
        Scope::User => agent_dir.to_path_buf(),
        Scope::Project => cwd.join(".pi"),
    }
}

/// The `packages` entries of one settings layer, in order (an untrusted
/// project's layer is empty).
pub fn entries(settings: &Settings, scope: Scope) -> Vec<PackageEntry> {
    let Some(list) = settings.layer(scope).get("packages").and_then(Value::as_array) else { return Vec::new() };
    list.iter()
        .filter_map(|v| match v {
            Value::String(s) => Some(PackageEntry { source: s.clone(), scope, filters: None }),
            Value::Object(_) => v.get("source").and_then(Value::as_str).map(|s| PackageEntry {
                source: s.to_string(),
                scope,
                filters: Some(Filters::from_object(v)),
            }),
            _ => None,
        })
        .collect()
}

/// What makes two sources the same package: the npm name, the git host and
/// path, or the resolved local path (from `base`).
pub fn identity(source: &str, base: &Path) -> String {
    match PackageSource::parse(source) {
        PackageSource::Npm { name, .. } => format!("npm:{name}"),
        PackageSource::Git { host, path, .. } => format!("git:{host}/{path}"),
        PackageSource::Local { path } => format!("local:{}", resolve_path(&path, base).display()),
    }
}

/// Where pi keeps an installed npm or git package of `scope`; a local
/// source's resolved path (from the settings file's folder). Parsing has
/// already refused git hosts and paths that could leave the install folder.
pub fn install_path(source: &PackageSource, scope: Scope, agent_dir: &Path, cwd: &Path) -> PathBuf {
    let base = base_dir(scope, agent_dir, cwd);
    match source {
        PackageSource::Npm { name, .. } => base.join("npm").join("node_modules").join(name),
        PackageSource::Git { host, path, .. } => base.join("git").join(host).join(path),
        PackageSource::Local { path } => resolve_path(path, &base),
    }
}

/// The root npm packages of `scope` install into (`npm install --prefix`).
pub fn npm_root(scope: Scope, agent_dir: &Path, cwd: &Path) -> PathBuf {
    base_dir(scope, agent_dir, cwd).join("npm")
}

/// The root git packages of `scope` are cloned under.
pub fn git_root(scope: Scope, agent_dir: &Path, cwd: &Path) -> PathBuf {
    base_dir(scope, agent_dir, cwd).join("git")
}

/// The entries of both layers that load, in the reference's order: project
/// entries first, then user entries; a later entry of a package already
/// listed is dropped, except that a project entry replaces a user one, and
/// a project `autoload: false` entry keeps the user's entry (after it) and
/// narrows it.
pub fn configured(settings: &Settings, agent_dir: &Path, cwd: &Path) -> Vec<PackageEntry> {
    let mut out: Vec<(String, PackageEntry)> = Vec::new();
    for scope in [Scope::Project, Scope::User] {
        let base = base_dir(scope, agent_dir, cwd);
        for e in entries(settings, scope) {
            let id = identity(&e.source, &base);
            match out.iter().position(|(k, _)| k == &id) {
                None => out.push((id, e)),
                Some(i) => {
                    let existing = &out[i].1;
                    let delta = existing.filters.as_ref().is_some_and(|f| f.autoload_off);
                    if existing.scope == Scope::Project && e.scope == Scope::User {
                        if delta {
                            out.push((id, e));
                        }
                    } else if e.scope == Scope::Project {
                        out[i] = (id, e);
                    }
                }
            }
        }
    }
    out.into_iter().map(|(_, e)| e).collect()
}

/// Where a configured entry's files are: its install folder (npm, git) or
/// resolved path (local), with the scope it is installed for. A project
/// `autoload: false` entry uses the user's install of the same package.
pub fn location(entry: &PackageEntry, all: &[PackageEntry], agent_dir: &Path, cwd: &Path) -> (PathBuf, Scope) {
    let mut source = PackageSource::parse(&entry.source);
    let mut scope = entry.scope;
    if entry.scope == Scope::Project && entry.filters.as_ref().is_some_and(|f| f.autoload_off) {
        let id = identity(&entry.source, &base_dir(Scope::Project, agent_dir, cwd));
        let base = base_dir(Scope::User, agent_dir, cwd);
        if let Some(user) = all.iter().find(|e| e.scope == Scope::User && identity(&e.source, &base) == id) {
            source = PackageSource::parse(&user.source);
            scope = Scope::User;
        }
    }
    (install_path(&source, scope, agent_dir, cwd), scope)
}

/// The resources of the configured packages (see [`configured`]) that are
/// installed, in load order. A package that is not installed is skipped
/// (start-up installs missing ones first). A local file is one extension; a
/// local folder that offers nothing is one extension; an npm or git package
/// that offers nothing loads nothing, as in the reference.
pub fn resolve(settings: &Settings, agent_dir: &Path, cwd: &Path) -> PackageResources {
    let all = configured(settings, agent_dir, cwd);
    let mut out = PackageResources::default();
    for entry in &all {
        let (root, _) = location(entry, &all, agent_dir, cwd);
        let scope = match entry.scope {
            Scope::User => "user",
            Scope::Project => "project",
        };
        let Ok(meta) = std::fs::metadata(&root) else { continue };
        let changelog = if meta.is_dir() { collect::changelog_path(&root) } else { None };
        let item = |path: PathBuf| PackageResource {
            path,
            source: entry.source.clone(),
            scope: scope.to_string(),
            package_root: root.clone(),
            changelog: changelog.clone(),
        };
        if meta.is_file() {
            out.extensions.push(item(root.clone()));
            continue;
        }
        match collect_package(&root, entry.filters.as_ref()) {
            Some(kinds) => {
                for (kind, files) in kinds.into_iter().enumerate() {
                    let list = out.kind_mut(kind);
                    for f in files {
                        if !list.iter().any(|r| r.path == f) {
                            list.push(item(f));
                        }
                    }
                }
            }
            // A local folder that offers nothing is one extension; an
            // installed npm or git package without a manifest loads nothing.
            None if matches!(PackageSource::parse(&entry.source), PackageSource::Local { .. }) => {
                out.extensions.push(item(root.clone()))
            }
            None => {}
        }
    }
    out
}

/// The configured npm and git packages that are not installed yet.
pub fn missing(settings: &Settings, agent_dir: &Path, cwd: &Path) -> Vec<PackageEntry> {
    let all = configured(settings, agent_dir, cwd);
    all.iter()
        .filter(|e| !matches!(PackageSource::parse(&e.source), PackageSource::Local { .. }))
        .filter(|e| !location(e, &all, agent_dir, cwd).0.exists())
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_entries_first_and_one_per_package() {
        let t = tempfile::tempdir().unwrap();
        let (agent, cwd) = (t.path().join("agent"), t.path().join("proj"));
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(cwd.join(".pi")).unwrap();
        std::fs::write(
            agent.join("settings.json"),
            r#"{"packages": ["npm:a@1", "../p", {"source": "git:h.com/u/r", "skills": []}]}"#,
        )
        .unwrap();
        std::fs::write(cwd.join(".pi/settings.json"), r#"{"packages": ["npm:a@2", "../../p"]}"#).unwrap();
        let (untrusted, _) = Settings::load(&agent, &cwd, false);
        let list: Vec<String> = configured(&untrusted, &agent, &cwd).into_iter().map(|e| e.source).collect();
        assert_eq!(list, ["npm:a@1", "../p", "git:h.com/u/r"], "an untrusted project's entries are not read");
        let (trusted, _) = Settings::load(&agent, &cwd, true);
        let list = configured(&trusted, &agent, &cwd);
        let names: Vec<(&str, Scope)> = list.iter().map(|e| (e.source.as_str(), e.scope)).collect();
        // `../../p` from `<cwd>/.pi` and `../p` from the agent dir are both `<tmp>/p`.
        assert_eq!(names, [("npm:a@2", Scope::Project), ("../../p", Scope::Project), ("git:h.com/u/r", Scope::User)]);
        assert_eq!(list[2].filters.as_ref().unwrap().lists[1], Some(vec![]));
    }

    #[test]
    fn install_folders() {
        let (a, c) = (Path::new("/h/.pi/agent"), Path::new("/w"));
        let npm = PackageSource::parse("npm:@s/n@1");
        assert_eq!(install_path(&npm, Scope::User, a, c), PathBuf::from("/h/.pi/agent/npm/node_modules/@s/n"));
        let git = PackageSource::parse("git:example.com/u/r@v1");
        assert_eq!(install_path(&git, Scope::Project, a, c), PathBuf::from("/w/.pi/git/example.com/u/r"));
        let local = PackageSource::parse("../x");
        assert_eq!(install_path(&local, Scope::User, a, c), PathBuf::from("/h/.pi/x"));
    }

    #[test]
    fn installed_packages_without_a_manifest_load_nothing_local_folders_load_as_one_extension() {
        let t = tempfile::tempdir().unwrap();
        let (agent, cwd) = (t.path().join("agent"), t.path().join("proj"));
        std::fs::create_dir_all(&cwd).unwrap();
        let plain = |dir: &Path| {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("package.json"), r#"{"name": "plain", "main": "index.js"}"#).unwrap();
            std::fs::write(dir.join("index.js"), "module.exports = () => {};").unwrap();
        };
        plain(&agent.join("npm/node_modules/plain"));
        plain(&agent.join("git/example.com/u/plain"));
        plain(&t.path().join("local"));
        let local = t.path().join("local").to_string_lossy().into_owned();
        std::fs::write(
            agent.join("settings.json"),
            serde_json::json!({"packages": ["npm:plain", "git:example.com/u/plain", local]}).to_string(),
        )
        .unwrap();
        let (settings, _) = Settings::load(&agent, &cwd, false);
        let found = resolve(&settings, &agent, &cwd);
        let paths: Vec<&Path> = found.extensions.iter().map(|r| r.path.as_path()).collect();
        assert_eq!(paths, [t.path().join("local").as_path()]);
    }
}
