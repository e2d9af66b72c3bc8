//! The policy: a mode and what loosens or tightens it, from the `sandbox`
//! settings (user file, then a trusted project's, which may only make it
//! stricter) and the command-line flags.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::paths::expand;
use crate::{Mode, text};

/// The folder names that stay read-only inside every writable root unless
/// `allowWrite` names them: git's hooks and config, pi's project settings
/// and extensions, and agent skills.
pub const PROTECTED_NAMES: [&str; 3] = [".git", ".pi", ".agents"];

/// What commands (and pi's `write` and `edit`) may touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// The mode.
    pub mode: Mode,
    /// `network: true`: commands may open sockets.
    pub network: bool,
    /// More folders writable in `workspace-write` (absolute).
    pub writable_roots: Vec<PathBuf>,
    /// Protected names (of [`PROTECTED_NAMES`]) that become writable.
    pub allow_write: Vec<String>,
    /// More paths hidden (absolute).
    pub hidden: Vec<PathBuf>,
    /// Default-hidden paths shown after all (absolute).
    pub readable: Vec<PathBuf>,
    /// Environment variables kept although they look like secrets (globs).
    pub env_keep: Vec<String>,
    /// Environment variables removed besides the defaults (globs).
    pub env_remove: Vec<String>,
}

/// The command line's say: `--sandbox MODE` and `--sandbox-network`, which
/// act on the user's own layer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// `--sandbox MODE`.
    pub mode: Option<Mode>,
    /// `--sandbox-network`.
    pub network: bool,
}

/// One settings file's `sandbox` object and where its relative paths start.
#[derive(Debug, Clone, Copy)]
pub struct Layer<'a> {
    /// The `sandbox` value (absent when the file does not set it).
    pub value: Option<&'a Value>,
    /// The file, for messages.
    pub file: &'a Path,
}

/// Paths settings are expanded with.
#[derive(Debug, Clone, Copy)]
pub struct Base<'a> {
    /// `~`.
    pub home: Option<&'a Path>,
    /// Where relative paths start (the working folder).
    pub cwd: &'a Path,
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array().map(|a| a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect())
}

fn path_list(v: Option<&Value>, base: Base<'_>) -> Option<Vec<PathBuf>> {
    strings(v).map(|l| l.iter().map(|s| expand(s, base.home, base.cwd)).collect())
}

fn get<'a>(layer: &Layer<'a>, key: &str) -> Option<&'a Value> {
    layer.value?.get(key)
}

fn env_list(layer: &Layer<'_>, key: &str) -> Option<Vec<String>> {
    strings(layer.value?.get("environment")?.get(key))
}

/// `allowWrite` entries that are protected names; the others reported.
fn allow_list(layer: &Layer<'_>, warnings: &mut Vec<String>) -> Option<Vec<String>> {
    let list = strings(get(layer, "allowWrite"))?;
    let mut out = Vec::new();
    for name in list {
        if PROTECTED_NAMES.contains(&name.as_str()) {
            out.push(name);
        } else {
            warnings.push(text::unknown_protected_name(layer.file, &name));
        }
    }
    Some(out)
}

/// The project's list where it is a subset of the user's (the rest
/// reported); the user's list when the project sets none.
fn subset<T: PartialEq + Clone + std::fmt::Debug>(
    user: Vec<T>,
    project: Option<Vec<T>>,
    key: &str,
    file: &Path,
    show: impl Fn(&T) -> String,
    warnings: &mut Vec<String>,
) -> Vec<T> {
    let Some(project) = project else { return user };
    let mut out = Vec::new();
    for item in project {
        if user.contains(&item) {
            out.push(item);
        } else {
            warnings.push(text::project_looser(file, key, &format!("entry \"{}\"", show(&item))));
        }
    }
    out
}

fn union<T: PartialEq>(mut a: Vec<T>, b: Option<Vec<T>>) -> Vec<T> {
    for item in b.unwrap_or_default() {
        if !a.contains(&item) {
            a.push(item);
        }
    }
    a
}

/// The policy of the user's layer with the flags applied.
fn user_policy(user: &Layer<'_>, flags: Flags, base: Base<'_>, warnings: &mut Vec<String>) -> Policy {
    let mode = get(user, "mode").and_then(Value::as_str).and_then(Mode::parse).unwrap_or_default();
    let network = get(user, "network").and_then(Value::as_bool).unwrap_or(false);
    Policy {
        mode: flags.mode.unwrap_or(mode),
        network: network || flags.network,
        writable_roots: path_list(get(user, "writableRoots"), base).unwrap_or_default(),
        allow_write: allow_list(user, warnings).unwrap_or_default(),
        hidden: path_list(get(user, "hidden"), base).unwrap_or_default(),
        readable: path_list(get(user, "readable"), base).unwrap_or_default(),
        env_keep: env_list(user, "keep").unwrap_or_default(),
        env_remove: env_list(user, "remove").unwrap_or_default(),
    }
}

/// The policy from the user's `sandbox` settings (with the flags), tightened
/// by a trusted project's: a project may raise the mode, turn the network
/// off, narrow the lists that loosen (`writableRoots`, `allowWrite`,
/// `readable`, `environment.keep`) and extend the ones that tighten
/// (`hidden`, `environment.remove`). Every project value that would loosen
/// is reported and ignored.
pub fn from_settings(
    user: Layer<'_>,
    project: Option<Layer<'_>>,
    flags: Flags,
    base: Base<'_>,
) -> (Policy, Vec<String>) {
    let mut warnings = Vec::new();
    let mut p = user_policy(&user, flags, base, &mut warnings);
    let Some(project) = project.filter(|l| l.value.is_some()) else { return (p, warnings) };
    let file = project.file;
    if let Some(v) = get(&project, "mode").and_then(Value::as_str).and_then(Mode::parse) {
        if v >= p.mode {
            p.mode = v;
        } else {
            warnings.push(text::project_looser(file, "mode", &format!("\"{v}\"")));
        }
    }
    if let Some(v) = get(&project, "network").and_then(Value::as_bool) {
        if !v {
            p.network = false;
        } else if !p.network {
            warnings.push(text::project_looser(file, "network", "true"));
        }
    }
    let show_path = |p: &PathBuf| p.display().to_string();
    let show_str = |s: &String| s.clone();
    let roots = path_list(get(&project, "writableRoots"), base);
    p.writable_roots = subset(p.writable_roots, roots, "writableRoots", file, show_path, &mut warnings);
    let allow = allow_list(&project, &mut warnings);
    p.allow_write = subset(p.allow_write, allow, "allowWrite", file, show_str, &mut warnings);
    let readable = path_list(get(&project, "readable"), base);
    p.readable = subset(p.readable, readable, "readable", file, show_path, &mut warnings);
    let keep = env_list(&project, "keep");
    p.env_keep = subset(p.env_keep, keep, "environment.keep", file, show_str, &mut warnings);
    p.hidden = union(p.hidden, path_list(get(&project, "hidden"), base));
    p.env_remove = union(p.env_remove, env_list(&project, "remove"));
    (p, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(user: Value, project: Option<Value>, flags: Flags) -> (Policy, Vec<String>) {
        let base = Base { home: Some(Path::new("/h")), cwd: Path::new("/p") };
        let u = Layer { value: user.get("sandbox"), file: Path::new("/h/settings.json") };
        let pr = project.as_ref().map(|v| Layer { value: v.get("sandbox"), file: Path::new("/p/.pi/settings.json") });
        from_settings(u, pr, flags, base)
    }

    #[test]
    fn user_settings_and_flags() {
        let (p, w) = run(
            json!({"sandbox": {"mode": "workspace-write", "writableRoots": ["~/cache", "out"], "allowWrite": [".git", "x"],
                "environment": {"keep": ["GH_TOKEN"]}}}),
            None,
            Flags::default(),
        );
        assert_eq!(p.mode, Mode::WorkspaceWrite);
        assert_eq!(p.writable_roots, [PathBuf::from("/h/cache"), PathBuf::from("/p/out")]);
        assert_eq!(p.allow_write, [".git"]);
        assert_eq!(p.env_keep, ["GH_TOKEN"]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("\"x\""));
        let (p, _) = run(json!({}), None, Flags { mode: Some(Mode::ReadOnly), network: true });
        assert_eq!((p.mode, p.network), (Mode::ReadOnly, true));
        let (p, _) =
            run(json!({"sandbox": {"mode": "read-only"}}), None, Flags { mode: Some(Mode::Off), network: false });
        assert_eq!(p.mode, Mode::Off, "the flag is the user's own choice");
    }

    #[test]
    fn a_project_may_only_tighten() {
        let user = json!({"sandbox": {"mode": "workspace-write", "network": true, "writableRoots": ["/a", "/b"],
            "allowWrite": [".git"], "environment": {"keep": ["K1"], "remove": ["R1"]}}});
        let project = json!({"sandbox": {"mode": "off", "network": true, "writableRoots": ["/b", "/c"],
            "allowWrite": [".git", ".pi"], "hidden": ["secrets"], "environment": {"keep": ["K2"], "remove": ["R2"]}}});
        let (p, w) = run(user.clone(), Some(project), Flags::default());
        assert_eq!(p.mode, Mode::WorkspaceWrite);
        assert!(p.network, "true in both stays true");
        assert_eq!(p.writable_roots, [PathBuf::from("/b")]);
        assert_eq!(p.allow_write, [".git"]);
        assert_eq!(p.hidden, [PathBuf::from("/p/secrets")]);
        assert_eq!(p.env_keep, Vec::<String>::new());
        assert_eq!(p.env_remove, ["R1", "R2"]);
        assert_eq!(w.len(), 4, "{w:#?}");
        assert!(w[0].starts_with("/p/.pi/settings.json: \"sandbox.mode\" \"off\" would loosen"));
        let strict = json!({"sandbox": {"mode": "read-only", "network": false}});
        let (p, w) = run(user, Some(strict), Flags::default());
        assert_eq!((p.mode, p.network, w.len()), (Mode::ReadOnly, false, 0));
        let (p, w) = run(json!({}), Some(json!({"sandbox": {"network": true}})), Flags::default());
        assert_eq!((p.mode, p.network, w.len()), (Mode::Off, false, 1));
    }
}
