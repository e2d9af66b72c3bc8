//! Skills (the Agent Skills format): a `SKILL.md` with `name` and
//! `description` in its frontmatter, or a standalone Markdown file with a
//! description. Validation follows the reference: a bad name or an overlong
//! description is a warning and the skill still loads; a missing description
//! or unparsable frontmatter keeps it out; a second skill of the same name is
//! a collision (the first one wins).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::walk::{SkillDirMode, skill_files};
use super::{ResourceDiagnostic, frontmatter, read_resource};
use crate::text;

/// A skill's longest name (Agent Skills specification).
pub const MAX_SKILL_NAME_LENGTH: usize = 64;
/// A skill's longest description (Agent Skills specification).
pub const MAX_SKILL_DESCRIPTION_LENGTH: usize = 1024;

/// A loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (frontmatter `name`, else the folder's name).
    pub name: String,
    /// Its description.
    pub description: String,
    /// The skill file.
    pub file_path: PathBuf,
    /// The folder relative references resolve from.
    pub base_dir: PathBuf,
    /// `disable-model-invocation: true`: only `/skill:name` uses it.
    pub disable_model_invocation: bool,
    /// Where it came from.
    pub source: super::SourceInfo,
}

/// Skills and what was wrong on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedSkills {
    /// The skills, in discovery order.
    pub skills: Vec<Skill>,
    /// Warnings, then collisions.
    pub diagnostics: Vec<ResourceDiagnostic>,
}

fn name_problems(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let len = name.encode_utf16().count();
    if len > MAX_SKILL_NAME_LENGTH {
        out.push(text::skill_name_too_long(MAX_SKILL_NAME_LENGTH, len));
    }
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        out.push(text::SKILL_NAME_INVALID_CHARACTERS.to_string());
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push(text::SKILL_NAME_HYPHEN_EDGES.to_string());
    }
    if name.contains("--") {
        out.push(text::SKILL_NAME_CONSECUTIVE_HYPHENS.to_string());
    }
    out
}

fn base_dir_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// Load one skill file; `None` when it does not qualify.
pub fn load_skill_file(path: &Path) -> (Option<Skill>, Vec<ResourceDiagnostic>) {
    let declared = path.file_name().is_some_and(|n| n == "SKILL.md");
    let mut diags = Vec::new();
    let content = match read_resource(path) {
        Ok(c) => c,
        Err(e) => return (None, vec![ResourceDiagnostic::warning(e.to_string(), path)]),
    };
    let fm = match frontmatter::parse(&content) {
        Ok(f) => f,
        Err(e) => {
            if declared {
                diags.push(ResourceDiagnostic::warning(e.to_string(), path));
            }
            return (None, diags);
        }
    };
    let description = fm.str("description").filter(|d| !d.trim().is_empty());
    if !declared && description.is_none() {
        return (None, diags);
    }
    match description {
        None => diags.push(ResourceDiagnostic::warning(text::SKILL_DESCRIPTION_REQUIRED.to_string(), path)),
        Some(d) if d.encode_utf16().count() > MAX_SKILL_DESCRIPTION_LENGTH => diags.push(ResourceDiagnostic::warning(
            text::skill_description_too_long(MAX_SKILL_DESCRIPTION_LENGTH, d.encode_utf16().count()),
            path,
        )),
        Some(_) => {}
    }
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let folder = base_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = fm.str("name").filter(|n| !n.is_empty()).map(str::to_string).unwrap_or(folder);
    diags.extend(name_problems(&name).into_iter().map(|m| ResourceDiagnostic::warning(m, path)));
    let Some(description) = description else { return (None, diags) };
    let skill = Skill {
        name,
        description: description.to_string(),
        file_path: path.to_path_buf(),
        base_dir,
        disable_model_invocation: fm.is_true("disable-model-invocation"),
        source: super::SourceInfo::new("local", "temporary", &base_dir_of(path)),
    };
    (Some(skill), diags)
}

/// Load the skills of `paths` in order: a folder is searched (see
/// [`skill_files`]), a `.md` file is loaded; a path that does not exist
/// or is something else is a warning. The same file reached twice (through a
/// symlink) counts once; a second skill of a name is a collision.
pub fn load_skills(paths: &[PathBuf]) -> LoadedSkills {
    let mut out = LoadedSkills::default();
    let mut collisions = Vec::new();
    let mut seen_files: HashSet<PathBuf> = HashSet::new();
    for path in paths {
        let files = match std::fs::metadata(path) {
            Err(_) => {
                out.diagnostics.push(ResourceDiagnostic::warning(text::SKILL_PATH_MISSING.to_string(), path));
                continue;
            }
            Ok(m) if m.is_dir() => skill_files(path, SkillDirMode::Pi),
            Ok(m) if m.is_file() && path.extension().is_some_and(|e| e == "md") => vec![path.clone()],
            Ok(_) => {
                out.diagnostics.push(ResourceDiagnostic::warning(text::SKILL_PATH_NOT_MARKDOWN.to_string(), path));
                continue;
            }
        };
        for file in files {
            let (skill, diags) = load_skill_file(&file);
            out.diagnostics.extend(diags);
            let Some(skill) = skill else { continue };
            let real = std::fs::canonicalize(&skill.file_path).unwrap_or_else(|_| skill.file_path.clone());
            if seen_files.contains(&real) {
                continue;
            }
            match out.skills.iter().find(|s| s.name == skill.name) {
                Some(winner) => collisions.push(ResourceDiagnostic::collision(
                    text::resource_collision(&skill.name),
                    &skill.file_path,
                    &winner.file_path,
                )),
                None => {
                    seen_files.insert(real);
                    out.skills.push(skill);
                }
            }
        }
    }
    out.diagnostics.extend(collisions);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, content: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    #[test]
    fn validates_as_the_reference() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(&root.join("good/SKILL.md"), "---\nname: good\ndescription: Good one\n---\nbody");
        write(&root.join("Bad_Name/SKILL.md"), "---\ndescription: still loads\n---\nbody");
        write(&root.join("nodesc/SKILL.md"), "---\nname: nodesc\n---\nbody");
        write(&root.join("broken/SKILL.md"), "---\nname: [x\n---\nbody");
        write(&root.join("hidden/SKILL.md"), "---\ndescription: d\ndisable-model-invocation: true\n---\n");
        let loaded = load_skills(&[root.to_path_buf()]);
        let names: Vec<&str> = loaded.skills.iter().map(|s| s.name.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, ["Bad_Name", "good", "hidden"]);
        assert!(loaded.skills.iter().any(|s| s.name == "hidden" && s.disable_model_invocation));
        let msgs: Vec<String> =
            loaded.diagnostics.iter().map(|d| format!("{}: {}", d.path.display(), d.message)).collect();
        assert!(msgs.iter().any(|m| m.contains("nodesc/SKILL.md: description is required")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("broken/SKILL.md")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("Bad_Name/SKILL.md: name contains invalid characters")), "{msgs:?}");
    }

    #[test]
    fn names_and_collisions() {
        assert_eq!(name_problems("a-b-1"), Vec::<String>::new());
        assert_eq!(name_problems("-a--b").len(), 2);
        assert_eq!(name_problems(&"a".repeat(65)).len(), 1);
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("one/x/SKILL.md"), "---\nname: same\ndescription: first\n---\n");
        write(&tmp.path().join("two/y/SKILL.md"), "---\nname: same\ndescription: second\n---\n");
        let loaded = load_skills(&[tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("none")]);
        assert_eq!(loaded.skills.len(), 1);
        assert_eq!(loaded.skills[0].description, "first");
        assert_eq!(loaded.diagnostics.len(), 2);
        assert_eq!(loaded.diagnostics[0].message, "skill path does not exist");
        assert_eq!(loaded.diagnostics[1].message, "name \"same\" collision");
    }
}
