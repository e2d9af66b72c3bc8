//! Skills and prompt templates: where they are found, what they are, and
//! what `/skill:name` and `/name` expand to.
//!
//! Discovery follows the reference. Skills: the project's settings entries
//! and `.pi/skills`, then `.agents/skills` of the working folder and each
//! ancestor up to the repository root (all three only for a trusted
//! project; `~/.agents/skills` is never a project folder), then the user's
//! settings entries, `<agent-dir>/skills` and `~/.agents/skills`, then the
//! `--skill` paths. `--no-skills` keeps only the `--skill` paths. Templates
//! likewise with `.pi/prompts`, `<agent-dir>/prompts` and
//! `--prompt-template`. A settings entry `-path` or `!glob` turns a found
//! file off; `+path` turns it back on.

mod discover;
mod expand;
pub mod frontmatter;
mod skills;
mod templates;
mod walk;

use std::path::{Path, PathBuf};

pub use crate::error::ResourceError;

pub use discover::{ResourceOptions, Resources, load_resources};
pub use expand::{
    SKILL_COMMAND_PREFIX, expand_prompt_template, expand_skill_command, parse_command_args, substitute_args,
};
pub use skills::{
    LoadedSkills, MAX_SKILL_DESCRIPTION_LENGTH, MAX_SKILL_NAME_LENGTH, Skill, load_skill_file, load_skills,
};
pub use templates::{LoadedTemplates, PromptTemplate, TEMPLATE_DESCRIPTION_CHARS, load_template_file, load_templates};
pub use walk::{MAX_SKILL_DEPTH, SkillDirMode, markdown_files, skill_files};

/// Where a skill or template came from, as RPC `get_commands` reports it
/// (`sourceInfo`: `source` `auto`/`local`, `scope` `user`/`project`/`temporary`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    /// `auto` (found in a conventional folder), `local` (a settings entry or
    /// a path), or a package's source as written in settings.
    pub source: String,
    /// `user`, `project` or `temporary` (the command line).
    pub scope: String,
    /// The folder the resource belongs to.
    pub base_dir: PathBuf,
    /// `top-level`, or `package` for a package's resource.
    pub origin: &'static str,
    /// A package's change log, when it has one.
    pub changelog: Option<PathBuf>,
}

/// [`SourceInfo::origin`] of a resource found on its own.
pub const ORIGIN_TOP_LEVEL: &str = "top-level";
/// [`SourceInfo::origin`] of a package's resource.
pub const ORIGIN_PACKAGE: &str = "package";

impl Default for SourceInfo {
    fn default() -> Self {
        SourceInfo::new("", "", Path::new(""))
    }
}

impl SourceInfo {
    fn new(source: &str, scope: &str, base_dir: &Path) -> Self {
        SourceInfo {
            source: source.into(),
            scope: scope.into(),
            base_dir: base_dir.to_path_buf(),
            origin: ORIGIN_TOP_LEVEL,
            changelog: None,
        }
    }

    /// A resource an extension added on `resources_discover`: source
    /// `extension:<file name without .ts/.js>`, scope `temporary`, the
    /// extension's folder.
    pub fn added_by_extension(extension: &Path) -> Self {
        let name = extension.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let stem = name.strip_suffix(".ts").or_else(|| name.strip_suffix(".js")).unwrap_or(&name);
        SourceInfo::new(&format!("extension:{stem}"), "temporary", extension.parent().unwrap_or(Path::new("/")))
    }

    /// A package's resource: its source as settings write it, its scope,
    /// folder and change log.
    pub fn package(r: &crate::packages::PackageResource) -> Self {
        SourceInfo {
            origin: ORIGIN_PACKAGE,
            changelog: r.changelog.clone(),
            ..SourceInfo::new(&r.source, &r.scope, &r.package_root)
        }
    }
}

/// How bad a resource problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// Reported; the resource may still load.
    Warning,
    /// A second resource of a name; the first one is kept.
    Collision,
}

/// A problem with a skill or template file, with the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceDiagnostic {
    /// What kind.
    pub kind: DiagnosticKind,
    /// What is wrong (the reference's words).
    pub message: String,
    /// The file or path concerned.
    pub path: PathBuf,
    /// For a collision: the file that was kept.
    pub winner: Option<PathBuf>,
}

impl ResourceDiagnostic {
    fn warning(message: String, path: &Path) -> Self {
        ResourceDiagnostic { kind: DiagnosticKind::Warning, message, path: path.to_path_buf(), winner: None }
    }

    fn collision(message: String, path: &Path, winner: &Path) -> Self {
        ResourceDiagnostic {
            kind: DiagnosticKind::Collision,
            message,
            path: path.to_path_buf(),
            winner: Some(winner.to_path_buf()),
        }
    }

    /// One line for standard error.
    pub fn line(&self) -> String {
        crate::text::resource_diagnostic_line(&self.path, &self.message, self.winner.as_deref())
    }
}

/// A resource file's text through the safe reader (a regular file within
/// the size limit); the error's text otherwise.
fn read_resource(path: &Path) -> Result<String, ResourceError> {
    match crate::files::read_config_text(path) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(ResourceError::Missing),
        Err(e) => Err(ResourceError::Unreadable(e)),
    }
}
