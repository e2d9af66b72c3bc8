//! What `pi config` shows and changes: each configured package's resources
//! (extensions, skills, prompt templates, themes) and pi's built-in
//! extensions, on or off. A change is written as the reference writes it:
//! a package entry becomes its object form and its list for the kind gets
//! `-<path>` (off) or `+<path>` (on, replacing the other); a built-in gets
//! `-builtin:<name>` or `+builtin:<name>` in the `extensions` list. In the
//! project's settings a resource is inherited, `-` (project unload) or `+`
//! (project load); a package's project entry is `autoload: false`, which
//! narrows the user's entry.

use std::path::{Path, PathBuf};

use pi_config::packages::{self, PackageSource};
use pi_config::settings::Scope;
use pi_config::{Settings, SettingsError};
use serde_json::{Value, json};

/// The kinds of a package's resources, as settings name them, and as shown.
pub(crate) const KINDS: [(&str, &str); 4] =
    [("extensions", "Extensions"), ("skills", "Skills"), ("prompts", "Prompts"), ("themes", "Themes")];

/// pi's built-in extensions, as shown (and named in `builtin:<name>`).
pub(crate) const BUILTINS: [&str; 4] = ["codemode", "llama.cpp", "mcp", "tool-search"];

/// One resource that can be switched.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    /// The package's source as written (`None`: a built-in extension).
    pub source: Option<String>,
    /// The settings list it is in (`extensions`, `skills`, …).
    pub kind: &'static str,
    /// The path inside the package (`extensions/cmd.ts`), or `builtin:<name>`.
    pub pattern: String,
    /// What is shown (`cmd.ts`, a skill's name, a built-in's name).
    pub label: String,
    /// Whether it loads now.
    pub enabled: bool,
}

/// A group of items: a package (`source (scope)`) or the built-ins.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Group {
    /// Its heading.
    pub title: String,
    /// Its items by kind, in [`KINDS`] order.
    pub kinds: Vec<(&'static str, Vec<Item>)>,
}

fn label(kind: &str, file: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = |p: &Path| p.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match kind {
        "extensions" => name(file),
        "skills" if name(file) == "SKILL.md" => file.parent().map(name).unwrap_or_default(),
        _ => stem(file),
    }
}

/// The groups of the user's packages (installed ones) and the built-ins.
pub(crate) fn groups(settings: &Settings, agent_dir: &Path, cwd: &Path) -> Vec<Group> {
    let mut out = Vec::new();
    for entry in packages::entries(settings, Scope::User) {
        let root = packages::install_path(&PackageSource::parse(&entry.source), Scope::User, agent_dir, cwd);
        let (Some(all), enabled) = (
            packages::collect_package(&root, None),
            packages::collect_package(&root, entry.filters.as_ref()).unwrap_or_default(),
        ) else {
            continue;
        };
        let mut kinds = Vec::new();
        for (i, (kind, _)) in KINDS.iter().enumerate() {
            let items: Vec<Item> = all[i]
                .iter()
                .map(|f: &PathBuf| Item {
                    source: Some(entry.source.clone()),
                    kind,
                    pattern: f.strip_prefix(&root).unwrap_or(f).to_string_lossy().into_owned(),
                    label: label(kind, f),
                    enabled: enabled[i].contains(f),
                })
                .collect();
            if !items.is_empty() {
                kinds.push((*kind, items));
            }
        }
        out.push(Group { title: format!("{} (user)", entry.source), kinds });
    }
    let disabled = builtin_marks(settings);
    let items = BUILTINS
        .iter()
        .map(|b| Item {
            source: None,
            kind: "extensions",
            pattern: format!("builtin:{b}"),
            label: b.to_string(),
            enabled: disabled.iter().rev().find(|(n, _)| n == b).is_none_or(|(_, on)| *on),
        })
        .collect();
    out.push(Group { title: "Built-in".into(), kinds: vec![("extensions", items)] });
    out
}

/// The user settings' `+builtin:`/`-builtin:` entries, in order: `(name, on)`.
fn builtin_marks(settings: &Settings) -> Vec<(String, bool)> {
    let list = settings.layer(Scope::User).get("extensions").and_then(Value::as_array).cloned().unwrap_or_default();
    list.iter()
        .filter_map(Value::as_str)
        .filter_map(|e| {
            let on = !e.starts_with('-');
            e.trim_start_matches(['+', '-']).strip_prefix("builtin:").map(|n| (n.to_string(), on))
        })
        .collect()
}

/// `list` without the entries for `pattern` (`+`, `-`, `!` or none), then `mark`.
fn remark(list: &mut Vec<Value>, pattern: &str, mark: char) {
    unmark(list, pattern);
    list.push(json!(format!("{mark}{pattern}")));
}

/// `list` without the entries for `pattern`.
fn unmark(list: &mut Vec<Value>, pattern: &str) {
    list.retain(|v| v.as_str().is_none_or(|s| s.trim_start_matches(['+', '-', '!']) != pattern));
}

/// The mark of `pattern` in `list`: `Some(true)` `+`, `Some(false)` `-`.
fn mark_in(list: &[Value], pattern: &str) -> Option<bool> {
    list.iter()
        .filter_map(Value::as_str)
        .rfind(|e| e.trim_start_matches(['+', '-', '!']) == pattern)
        .map(|e| !e.starts_with(['-', '!']))
}

/// Where `item`'s project entry is: the project's `extensions` list for a
/// built-in, else the project `packages` entry of its package (by identity).
struct ProjectPlace {
    packages: Vec<Value>,
    /// The package entry's index in `packages`.
    entry: Option<usize>,
}

fn project_place(settings: &Settings, item: &Item, agent_dir: &Path, cwd: &Path) -> ProjectPlace {
    let layer = settings.layer(Scope::Project);
    let packages: Vec<Value> = layer.get("packages").and_then(Value::as_array).cloned().unwrap_or_default();
    let entry = item.source.as_ref().and_then(|source| {
        let id = packages::identity(source, &packages::base_dir(Scope::User, agent_dir, cwd));
        let base = packages::base_dir(Scope::Project, agent_dir, cwd);
        packages.iter().position(|v| {
            v.as_str().or_else(|| v["source"].as_str()).is_some_and(|s| packages::identity(s, &base) == id)
        })
    });
    ProjectPlace { packages, entry }
}

/// `item`'s project entry: `Some(true)` load, `Some(false)` unload, `None` inherited.
pub(crate) fn project_mark(settings: &Settings, item: &Item, agent_dir: &Path, cwd: &Path) -> Option<bool> {
    if item.source.is_none() {
        let list = settings.layer(Scope::Project).get("extensions").and_then(Value::as_array).cloned();
        return mark_in(&list.unwrap_or_default(), &item.pattern);
    }
    let place = project_place(settings, item, agent_dir, cwd);
    let entry = &place.packages[place.entry?];
    mark_in(entry[item.kind].as_array().map(Vec::as_slice).unwrap_or_default(), &item.pattern)
}

/// Cycle `item`'s project entry: inherited, unload (`-`), load (`+`), inherited.
pub(crate) fn cycle_project(
    settings: &mut Settings,
    item: &Item,
    agent_dir: &Path,
    cwd: &Path,
) -> Result<(), SettingsError> {
    let next = match project_mark(settings, item, agent_dir, cwd) {
        None => Some('-'),
        Some(false) => Some('+'),
        Some(true) => None,
    };
    let apply = |list: &mut Vec<Value>| match next {
        Some(m) => remark(list, &item.pattern, m),
        None => unmark(list, &item.pattern),
    };
    let Some(source) = &item.source else {
        let list = settings.layer(Scope::Project).get("extensions").and_then(Value::as_array).cloned();
        let mut list = list.unwrap_or_default();
        apply(&mut list);
        return settings.write_project(&["extensions"], Some(Value::Array(list)));
    };
    let mut place = project_place(settings, item, agent_dir, cwd);
    let at = match place.entry {
        Some(at) => at,
        None => {
            // The user's package, written as the project's settings name it.
            let user_base = packages::base_dir(Scope::User, agent_dir, cwd);
            let written = match PackageSource::parse(source) {
                PackageSource::Local { path } => {
                    let base = packages::base_dir(Scope::Project, agent_dir, cwd);
                    packages::relative(&base, &packages::resolve_path(&path, &user_base))
                }
                _ => source.clone(),
            };
            place.packages.push(json!({"source": written, "autoload": false}));
            place.packages.len() - 1
        }
    };
    let entry = &mut place.packages[at];
    if entry.is_string() {
        *entry = json!({"source": entry.as_str().unwrap_or_default()});
    }
    let mut list = entry[item.kind].as_array().cloned().unwrap_or_default();
    apply(&mut list);
    entry[item.kind] = Value::Array(list);
    settings.write_project(&["packages"], Some(Value::Array(place.packages)))
}

/// Switch `item` to `on` in the user settings.
pub(crate) fn set(settings: &mut Settings, item: &Item, on: bool) -> Result<(), SettingsError> {
    let mark = if on { '+' } else { '-' };
    let Some(source) = &item.source else {
        let layer = settings.layer(Scope::User);
        let mut list = layer.get("extensions").and_then(Value::as_array).cloned().unwrap_or_default();
        remark(&mut list, &item.pattern, mark);
        return settings.write_user(&["extensions"], Some(Value::Array(list)));
    };
    let mut list = settings.layer(Scope::User).get("packages").and_then(Value::as_array).cloned().unwrap_or_default();
    let Some(entry) = list.iter_mut().find(|v| v.as_str().or_else(|| v["source"].as_str()) == Some(source.as_str()))
    else {
        return Ok(());
    };
    if entry.is_string() {
        *entry = json!({"source": source});
    }
    let mut kind_list = entry[item.kind].as_array().cloned().unwrap_or_default();
    remark(&mut kind_list, &item.pattern, mark);
    entry[item.kind] = Value::Array(kind_list);
    settings.write_user(&["packages"], Some(Value::Array(list)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_written_as_the_reference_writes_it() {
        let mut list = vec![json!("+extensions/a.ts"), json!("other")];
        remark(&mut list, "extensions/a.ts", '-');
        assert_eq!(list, vec![json!("other"), json!("-extensions/a.ts")]);
        remark(&mut list, "extensions/a.ts", '+');
        assert_eq!(list, vec![json!("other"), json!("+extensions/a.ts")]);
        assert_eq!(label("skills", Path::new("/p/skills/greet/SKILL.md")), "greet");
        assert_eq!(label("extensions", Path::new("/p/extensions/cmd.ts")), "cmd.ts");
        assert_eq!(label("prompts", Path::new("/p/prompts/review.md")), "review");
    }
}
