//! Finding skill and template files in folders, as the reference does: names
//! in byte order (Node's `readdirSync` order), symlinks followed, names
//! starting with `.` and `node_modules` skipped, and `.gitignore`, `.ignore`
//! and `.fdignore` rules of the folders on the way honoured. A folder visited
//! twice (a symlink loop) is walked once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::read_resource;

/// The ignore files honoured in skill folders.
const IGNORE_FILE_NAMES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

/// How deep a skill folder is searched (a guard; real trees are shallow).
pub const MAX_SKILL_DEPTH: usize = 32;

/// Which Markdown files besides `SKILL.md` count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillDirMode {
    /// pi's folders (`skills/` of the agent dir or `.pi`): `.md` files at the root.
    Pi,
    /// `.agents/skills`: `.md` files below the root, not at it.
    Agents,
}

struct Walk {
    mode: SkillDirMode,
    visited: HashSet<PathBuf>,
    rules: Vec<Gitignore>,
    out: Vec<PathBuf>,
}

fn rules_of(dir: &Path) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(dir);
    let mut any = false;
    for name in IGNORE_FILE_NAMES {
        let path = dir.join(name);
        let Ok(text) = read_resource(&path) else { continue };
        for line in text.lines() {
            any |= builder.add_line(Some(path.clone()), line).is_ok();
        }
    }
    if !any {
        return None;
    }
    builder.build().ok()
}

/// The folder's entries in byte order, with what they point to.
fn entries(dir: &Path) -> Vec<(String, PathBuf, std::fs::Metadata)> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut list: Vec<(String, PathBuf, std::fs::Metadata)> = read
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            // Follows symlinks; a broken one is skipped.
            let meta = std::fs::metadata(&path).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), path, meta))
        })
        .collect();
    list.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    list
}

impl Walk {
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        for rules in self.rules.iter().rev() {
            let m = rules.matched(path, is_dir);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
        }
        false
    }

    fn dir(&mut self, dir: &Path, is_root: bool, depth: usize) {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if depth > MAX_SKILL_DEPTH || !self.visited.insert(real) {
            return;
        }
        let pushed = rules_of(dir).map(|r| self.rules.push(r)).is_some();
        let list = entries(dir);
        if let Some((_, path, _)) = list.iter().find(|(n, _, m)| n == "SKILL.md" && m.is_file())
            && !self.ignored(path, false)
        {
            self.out.push(path.clone());
            if pushed {
                self.rules.pop();
            }
            return;
        }
        for (name, path, meta) in &list {
            if name.starts_with('.') || name == "node_modules" || self.ignored(path, meta.is_dir()) {
                continue;
            }
            if meta.is_dir() {
                self.dir(path, false, depth + 1);
                continue;
            }
            let md_here = match self.mode {
                SkillDirMode::Pi => is_root,
                SkillDirMode::Agents => !is_root,
            };
            if meta.is_file() && md_here && name.ends_with(".md") {
                self.out.push(path.clone());
            }
        }
        if pushed {
            self.rules.pop();
        }
    }
}

/// The skill files of a folder: a folder holding `SKILL.md` is one skill
/// (not searched further); otherwise its sub-folders are searched, and
/// `.md` files count where `mode` says.
pub fn skill_files(dir: &Path, mode: SkillDirMode) -> Vec<PathBuf> {
    let mut walk = Walk { mode, visited: HashSet::new(), rules: Vec::new(), out: Vec::new() };
    walk.dir(dir, true, 0);
    walk.out
}

/// The `.md` files directly in `dir` (prompt templates), in byte order,
/// symlinks followed.
pub fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    entries(dir).into_iter().filter(|(n, _, m)| m.is_file() && n.ends_with(".md")).map(|(_, p, _)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }

    #[test]
    fn finds_skills_as_the_reference() {
        let tmp = tempfile::tempdir().unwrap();
        let r = tmp.path();
        for p in ["a/SKILL.md", "a/deeper/SKILL.md", "b/c/SKILL.md", "top.md", "b/loose.md", ".hidden/SKILL.md"] {
            touch(&r.join(p));
        }
        touch(&r.join("node_modules/x/SKILL.md"));
        touch(&r.join("ign/SKILL.md"));
        std::fs::write(r.join(".gitignore"), "ign/\n").unwrap();
        let rel = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter().map(|p| p.strip_prefix(r).unwrap().display().to_string()).collect()
        };
        assert_eq!(rel(skill_files(r, SkillDirMode::Pi)), ["a/SKILL.md", "b/c/SKILL.md", "top.md"]);
        assert_eq!(rel(skill_files(r, SkillDirMode::Agents)), ["a/SKILL.md", "b/c/SKILL.md", "b/loose.md"]);
    }

    #[test]
    fn a_symlink_loop_is_walked_once() {
        let tmp = tempfile::tempdir().unwrap();
        let r = tmp.path();
        touch(&r.join("s/x/SKILL.md"));
        std::os::unix::fs::symlink(r, r.join("s/loop")).unwrap();
        let found = skill_files(&r.join("s"), SkillDirMode::Pi);
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
