//! Which files of a package load, by kind (the reference's rules):
//!
//! - With an object entry's lists, each given list narrows what the package
//!   offers (`[]`: none; `pattern` keeps matches; `!pattern` drops matches;
//!   `+path` adds one exact path back; `-path` drops one exact path); a
//!   kind not given loads what the package offers.
//! - What a package offers: the `pi` manifest's lists in `package.json`
//!   (paths or globs relative to the package root, the same `!`/`+`/`-`
//!   entries) when it has any; otherwise the conventional folders
//!   `extensions/`, `skills/`, `prompts/`, `themes/`.
//! - Folders: skills as pi's skill folders are searched; prompts (`.md`)
//!   and themes (`.json`) at any depth; extensions are the folder's own
//!   entry (manifest `extensions` or `index.ts`/`index.js`) or its `.ts`/`.js`
//!   files and sub-folders with an entry. Names starting with `.` and
//!   `node_modules` are skipped, and `.gitignore`/`.ignore`/`.fdignore` rules
//!   honoured.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

use super::{Filters, RESOURCE_KINDS};
use crate::resources::{SkillDirMode, skill_files};

/// One file a package makes load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageResource {
    /// The file.
    pub path: PathBuf,
    /// The package's source as written in settings.
    pub source: String,
    /// `user` or `project`.
    pub scope: String,
    /// The package's folder.
    pub package_root: PathBuf,
    /// The package's change log ([`changelog_path`]).
    pub changelog: Option<PathBuf>,
}

/// The default change log of a package (`pi.changelogPath` names another).
pub const DEFAULT_CHANGELOG: &str = "CHANGELOG.md";

/// A package's change log, as the reference finds it: `pi.changelogPath` of
/// its `package.json` (default `CHANGELOG.md`, an empty value none), a file
/// inside the package's folder.
pub fn changelog_path(root: &Path) -> Option<PathBuf> {
    let manifest = crate::files::read_config_text(&root.join("package.json")).ok().flatten();
    let doc: Option<Value> = manifest.and_then(|t| serde_json::from_str(&t).ok());
    let named = doc.as_ref().and_then(|d| d.get("pi")?.get("changelogPath")?.as_str().map(String::from));
    let name = named.unwrap_or_else(|| DEFAULT_CHANGELOG.to_string());
    if name.is_empty() {
        return None;
    }
    let path = root.join(&name);
    let (real_root, real) = (std::fs::canonicalize(root).ok()?, std::fs::canonicalize(&path).ok()?);
    (real != real_root && real.starts_with(&real_root) && real.is_file()).then_some(path)
}

/// The files of the configured packages, by kind, in load order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageResources {
    /// Extension entry files.
    pub extensions: Vec<PackageResource>,
    /// Skill files.
    pub skills: Vec<PackageResource>,
    /// Prompt template files.
    pub prompts: Vec<PackageResource>,
    /// Theme files.
    pub themes: Vec<PackageResource>,
}

impl PackageResources {
    /// The list of one kind (an index into [`RESOURCE_KINDS`]).
    pub fn kind_mut(&mut self, kind: usize) -> &mut Vec<PackageResource> {
        match kind {
            0 => &mut self.extensions,
            1 => &mut self.skills,
            2 => &mut self.prompts,
            _ => &mut self.themes,
        }
    }
}

/// The `pi` lists of `<root>/package.json` (a list counts only when every
/// item is a string); `None` without a readable manifest with a `pi` object.
pub fn read_manifest(root: &Path) -> Option<[Option<Vec<String>>; 4]> {
    let text = crate::files::read_config_text(&root.join("package.json")).ok()??;
    let doc: Value = serde_json::from_str(&text).ok()?;
    let pi = doc.get("pi")?.as_object()?;
    Some(RESOURCE_KINDS.map(|k| {
        let a = pi.get(k)?.as_array()?;
        a.iter().map(|e| e.as_str().map(String::from)).collect::<Option<Vec<String>>>()
    }))
}

fn is_override(s: &str) -> bool {
    s.starts_with(['!', '+', '-'])
}

fn has_glob(s: &str) -> bool {
    s.contains('*') || s.contains('?')
}

fn matcher(pattern: &str) -> Option<GlobMatcher> {
    GlobBuilder::new(pattern).literal_separator(true).build().ok().map(|g| g.compile_matcher())
}

/// Files (and folders) under `root` whose relative path matches `pattern`,
/// none inside a `.` folder, sorted.
fn expand_glob(pattern: &str, root: &Path) -> Vec<PathBuf> {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let Some(m) = matcher(pattern) else { return Vec::new() };
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut seen = HashSet::new();
    while let Some((dir, depth)) = stack.pop() {
        let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if depth > crate::resources::MAX_SKILL_DEPTH || !seen.insert(real) {
            continue;
        }
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.filter_map(Result::ok) {
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap_or(&path);
            if m.is_match(rel) {
                out.push(path.clone());
            }
            if path.is_dir() {
                stack.push((path, depth + 1));
            }
        }
    }
    out.sort();
    out
}

fn walk_files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut b = ignore::WalkBuilder::new(dir);
    b.standard_filters(false)
        .hidden(true)
        .ignore(true)
        .git_ignore(true)
        .require_git(false)
        .add_custom_ignore_filename(".fdignore")
        .follow_links(true)
        .sort_by_file_name(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()))
        .filter_entry(|e| e.file_name() != "node_modules");
    b.build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()) || e.path().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect()
}

/// A folder's own extension entry: the manifest's `extensions` (those that
/// exist), else `index.ts`, else `index.js`.
fn extension_entry(dir: &Path) -> Option<Vec<PathBuf>> {
    if let Some(Some(list)) = read_manifest(dir).map(|m| m[0].clone()) {
        let found: Vec<PathBuf> = list.iter().map(|e| super::normalize(&dir.join(e))).filter(|p| p.exists()).collect();
        if !found.is_empty() {
            return Some(found);
        }
    }
    ["index.ts", "index.js"].iter().map(|n| dir.join(n)).find(|p| p.exists()).map(|p| vec![p])
}

fn extension_files(dir: &Path) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    if let Some(own) = extension_entry(dir) {
        return own;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut list: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            !n.starts_with('.') && n != "node_modules"
        })
        .map(|e| e.path())
        .collect();
    list.sort();
    let mut out = Vec::new();
    for p in list {
        if p.is_file() && p.extension().is_some_and(|x| x == "ts" || x == "js") {
            out.push(p);
        } else if p.is_dir()
            && let Some(own) = extension_entry(&p)
        {
            out.extend(own);
        }
    }
    out
}

/// The files of one kind in a folder.
fn folder_files(dir: &Path, kind: usize) -> Vec<PathBuf> {
    match kind {
        0 => extension_files(dir),
        1 => skill_files(dir, SkillDirMode::Pi),
        2 => walk_files(dir, "md"),
        _ => walk_files(dir, "json"),
    }
}

fn files_of_paths(paths: &[PathBuf], kind: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => out.push(p.clone()),
            Ok(m) if m.is_dir() => out.extend(folder_files(p, kind)),
            _ => {}
        }
    }
    out
}

/// The candidate paths a file is matched by: relative, name, full; for a
/// `SKILL.md` also its folder's.
fn match_forms(file: &Path, base: &Path) -> Vec<String> {
    let rel = |p: &Path| super::relative(base, p);
    let mut forms = vec![rel(file), file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()];
    forms.push(file.display().to_string());
    if file.file_name().is_some_and(|n| n == "SKILL.md")
        && let Some(parent) = file.parent()
    {
        forms.push(rel(parent));
        forms.push(parent.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        forms.push(parent.display().to_string());
    }
    forms
}

fn matches_glob(file: &Path, patterns: &[&str], base: &Path) -> bool {
    let forms = match_forms(file, base);
    patterns
        .iter()
        .filter_map(|p| matcher(p.strip_prefix("./").unwrap_or(p)))
        .any(|m| forms.iter().any(|f| m.is_match(f)))
}

fn matches_exact(file: &Path, patterns: &[&str], base: &Path) -> bool {
    let rel = super::relative(base, file);
    let full = file.display().to_string();
    let is_skill = file.file_name().is_some_and(|n| n == "SKILL.md");
    let parent = file.parent().unwrap_or(file);
    patterns.iter().any(|p| {
        let p = p.strip_prefix("./").unwrap_or(p);
        let p = super::normalize(Path::new(p)).display().to_string();
        let p = p.as_str();
        p == rel || p == full || (is_skill && (p == super::relative(base, parent) || p == parent.display().to_string()))
    })
}

/// Narrow `all` by pattern entries (see the module documentation).
fn apply_patterns(all: &[PathBuf], patterns: &[String], base: &Path) -> Vec<PathBuf> {
    let strip = |prefix: char| -> Vec<&str> { patterns.iter().filter_map(|p| p.strip_prefix(prefix)).collect() };
    let (force_in, force_out, excludes) = (strip('+'), strip('-'), strip('!'));
    let includes: Vec<&str> = patterns.iter().filter(|p| !is_override(p)).map(String::as_str).collect();
    let mut result: Vec<PathBuf> = if includes.is_empty() {
        all.to_vec()
    } else {
        all.iter().filter(|f| matches_glob(f, &includes, base)).cloned().collect()
    };
    result.retain(|f| excludes.is_empty() || !matches_glob(f, &excludes, base));
    for f in all {
        if !result.contains(f) && matches_exact(f, &force_in, base) {
            result.push(f.clone());
        }
    }
    result.retain(|f| !matches_exact(f, &force_out, base));
    // In the package's order.
    all.iter().filter(|f| result.contains(f)).cloned().collect()
}

/// What the package offers of one kind. `strict` (no object entry): a
/// manifest with any list offers nothing of a kind it does not list.
fn offered(root: &Path, manifest: Option<&[Option<Vec<String>>; 4]>, kind: usize, strict: bool) -> Vec<PathBuf> {
    if let Some(Some(entries)) = manifest.map(|m| &m[kind])
        && !entries.is_empty()
    {
        let paths: Vec<PathBuf> = entries
            .iter()
            .filter(|e| !is_override(e))
            .flat_map(|e| if has_glob(e) { expand_glob(e, root) } else { vec![super::normalize(&root.join(e))] })
            .collect();
        let all = files_of_paths(&paths, kind);
        let overrides: Vec<String> = entries.iter().filter(|e| is_override(e)).cloned().collect();
        return apply_patterns(&all, &overrides, root);
    }
    let listed = |m: &[Option<Vec<String>>; 4]| if strict { m.iter().any(Option::is_some) } else { m[kind].is_some() };
    if manifest.is_some_and(listed) {
        return Vec::new();
    }
    let dir = root.join(RESOURCE_KINDS[kind]);
    if dir.exists() { folder_files(&dir, kind) } else { Vec::new() }
}

/// The files of a package folder, by kind (an index into
/// [`RESOURCE_KINDS`]), with an object entry's `filters`. `None` when the
/// folder offers nothing (no manifest lists, no conventional folder) and no
/// filters were given: a local folder like that is one extension.
pub fn collect_package(root: &Path, filters: Option<&Filters>) -> Option<[Vec<PathBuf>; 4]> {
    let manifest = read_manifest(root);
    let has_lists = manifest.as_ref().is_some_and(|m| m.iter().any(Option::is_some));
    if filters.is_none() && !has_lists && !RESOURCE_KINDS.iter().any(|k| root.join(k).exists()) {
        return None;
    }
    Some(std::array::from_fn(|kind| {
        let all = offered(root, manifest.as_ref(), kind, filters.is_none());
        match filters {
            None => all,
            Some(f) => match &f.lists[kind] {
                None if f.autoload_off => Vec::new(),
                None => all,
                Some(patterns) if f.autoload_off => {
                    // A delta: only what a pattern names, the last one deciding.
                    all.into_iter()
                        .filter(|file| {
                            let mut on = None;
                            for p in patterns {
                                let target = p.trim_start_matches(['+', '-', '!']);
                                let exact = p.starts_with(['+', '-']);
                                let hit = if exact {
                                    matches_exact(file, &[target], root)
                                } else {
                                    matches_glob(file, &[target], root)
                                };
                                if hit {
                                    on = Some(!p.starts_with(['-', '!']));
                                }
                            }
                            on == Some(true)
                        })
                        .collect()
                }
                Some(patterns) if patterns.is_empty() => Vec::new(),
                Some(patterns) => apply_patterns(&all, patterns, root),
            },
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn rel(root: &Path, v: &[PathBuf]) -> Vec<String> {
        v.iter().map(|p| p.strip_prefix(root).unwrap().display().to_string()).collect()
    }

    fn package(root: &Path) {
        write(&root.join("extensions/a.ts"), "");
        write(&root.join("extensions/legacy.ts"), "");
        write(&root.join("extensions/sub/index.ts"), "");
        write(&root.join("skills/s1/SKILL.md"), "");
        write(&root.join("skills/s2/SKILL.md"), "");
        write(&root.join("prompts/review.md"), "");
        write(&root.join("prompts/deep/fix.md"), "");
        write(&root.join("prompts/.hidden.md"), "");
        write(&root.join("themes/dark.json"), "");
    }

    #[test]
    fn conventional_folders_and_filters() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        package(root);
        let all = collect_package(root, None).unwrap();
        assert_eq!(rel(root, &all[0]), ["extensions/a.ts", "extensions/legacy.ts", "extensions/sub/index.ts"]);
        assert_eq!(rel(root, &all[1]), ["skills/s1/SKILL.md", "skills/s2/SKILL.md"]);
        assert_eq!(rel(root, &all[2]), ["prompts/deep/fix.md", "prompts/review.md"]);
        assert_eq!(rel(root, &all[3]), ["themes/dark.json"]);
        let filters = Filters {
            lists: [
                Some(vec!["extensions/*.ts".into(), "!extensions/legacy.ts".into()]),
                Some(vec![]),
                Some(vec!["prompts/review.md".into()]),
                None,
            ],
            autoload_off: false,
        };
        let some = collect_package(root, Some(&filters)).unwrap();
        assert_eq!(rel(root, &some[0]), ["extensions/a.ts"]);
        assert!(some[1].is_empty());
        assert_eq!(rel(root, &some[2]), ["prompts/review.md"]);
        assert_eq!(rel(root, &some[3]), ["themes/dark.json"]);
        let plus = Filters {
            lists: [Some(vec!["-extensions/a.ts".into()]), Some(vec!["s2".into(), "+skills/s1".into()]), None, None],
            autoload_off: false,
        };
        let p = collect_package(root, Some(&plus)).unwrap();
        assert_eq!(rel(root, &p[0]), ["extensions/legacy.ts", "extensions/sub/index.ts"]);
        assert_eq!(rel(root, &p[1]), ["skills/s1/SKILL.md", "skills/s2/SKILL.md"]);
    }

    #[test]
    fn a_manifest_decides_what_is_offered() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        package(root);
        write(&root.join("src/ext.ts"), "");
        write(&root.join("res/p/one.md"), "");
        write(&root.join("res/p/two.md"), "");
        write(
            &root.join("package.json"),
            r#"{"name": "x", "pi": {"extensions": ["./src/ext.ts"], "prompts": ["./res/p/*.md", "!res/p/two.md"]}}"#,
        );
        let got = collect_package(root, None).unwrap();
        assert_eq!(rel(root, &got[0]), ["src/ext.ts"]);
        assert!(got[1].is_empty(), "the manifest lists no skills: the conventional folder is not used");
        assert_eq!(rel(root, &got[2]), ["res/p/one.md"]);
        write(&root.join("package.json"), "{broken");
        assert_eq!(rel(root, &collect_package(root, None).unwrap()[1]).len(), 2, "a broken manifest: folders");
        let bare = t.path().join("bare");
        write(&bare.join("index.ts"), "");
        assert_eq!(collect_package(&bare, None), None);
    }
}
