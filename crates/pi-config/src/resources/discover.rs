//! The run's skills and templates, in the reference's order (see the
//! module documentation of [`super`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use globset::Glob;

use super::walk::{SkillDirMode, markdown_files, skill_files};
use super::{LoadedSkills, LoadedTemplates, ResourceDiagnostic, load_skills, load_templates};
use crate::settings::{ResourceKind, Scope};
use crate::{Settings, text};

/// What decides the run's skills and templates.
#[derive(Debug, Clone, Copy)]
pub struct ResourceOptions<'a> {
    /// The agent dir.
    pub agent_dir: &'a Path,
    /// The working folder.
    pub cwd: &'a Path,
    /// The home folder (`~/.agents/skills`).
    pub home: Option<&'a Path>,
    /// Whether the project is trusted.
    pub trusted: bool,
    /// The settings (the project layer only when trusted).
    pub settings: &'a Settings,
    /// `--skill` paths.
    pub skill_paths: &'a [String],
    /// `--no-skills`.
    pub no_skills: bool,
    /// `--prompt-template` paths.
    pub template_paths: &'a [String],
    /// `--no-prompt-templates`.
    pub no_templates: bool,
}

/// The run's skills and templates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    /// Skills.
    pub skills: LoadedSkills,
    /// Prompt templates (the first of a name kept).
    pub templates: LoadedTemplates,
}

/// `-path`, `!glob` and `+path` entries of one settings file.
struct Overrides {
    base: PathBuf,
    entries: Vec<String>,
}

impl Overrides {
    fn of(settings: &Settings, kind: ResourceKind, scope: Scope) -> (Vec<PathBuf>, Overrides) {
        let base = match scope {
            Scope::User => settings.user_path().parent().map(Path::to_path_buf).unwrap_or_default(),
            Scope::Project => settings.project_path().parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        let mut plain = Vec::new();
        let mut entries = Vec::new();
        for e in settings.resources(kind).into_iter().filter(|e| e.scope == scope) {
            if e.entry.starts_with(['-', '!', '+']) {
                entries.push(e.entry);
            } else {
                plain.push(resolve(&e.entry, &base));
            }
        }
        (plain, Overrides { base, entries })
    }

    fn exact(&self, prefix: char, path: &Path) -> bool {
        self.entries.iter().filter_map(|e| e.strip_prefix(prefix)).any(|p| resolve(p, &self.base) == path)
    }

    fn glob(&self, path: &Path) -> bool {
        let rel = path.strip_prefix(&self.base).unwrap_or(path);
        self.entries.iter().filter_map(|e| e.strip_prefix('!')).any(|g| match Glob::new(g) {
            Ok(g) => {
                let m = g.compile_matcher();
                m.is_match(rel) || m.is_match(path) || path.file_name().is_some_and(|n| m.is_match(n))
            }
            Err(_) => false,
        })
    }

    /// Whether a found file stays on.
    fn enabled(&self, path: &Path) -> bool {
        let on = !self.glob(path) || self.exact('+', path);
        on && !self.exact('-', path)
    }
}

/// A path as a settings file or the command line gives it: `~` expanded,
/// relative ones from `base`.
fn resolve(entry: &str, base: &Path) -> PathBuf {
    let p = crate::expand_tilde(entry.trim());
    if p.is_relative() { base.join(p) } else { p }
}

fn git_root(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// `.agents/skills` of `cwd` and its ancestors, up to the repository root.
fn ancestor_agents_dirs(cwd: &Path) -> Vec<PathBuf> {
    let root = git_root(cwd);
    let mut out = Vec::new();
    for dir in cwd.ancestors() {
        out.push(dir.join(".agents").join("skills"));
        if root.as_deref() == Some(dir) {
            break;
        }
    }
    out
}

/// Files of plain settings entries: a folder's skill files (pi's rule) or
/// Markdown files (all depths, for templates); a file itself.
fn entry_files(paths: &[PathBuf], kind: ResourceKind) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => out.push(p.clone()),
            Ok(m) if m.is_dir() && kind == ResourceKind::Skills => out.extend(skill_files(p, SkillDirMode::Pi)),
            Ok(m) if m.is_dir() => out.extend(nested_markdown(p, 0)),
            _ => {}
        }
    }
    out
}

fn nested_markdown(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let mut out = markdown_files(dir);
    if depth >= super::MAX_SKILL_DEPTH {
        return out;
    }
    let Ok(read) = std::fs::read_dir(dir) else { return out };
    let mut subs: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.') && e.file_name() != "node_modules")
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subs.sort();
    for s in subs {
        out.extend(nested_markdown(&s, depth + 1));
    }
    out
}

/// The ordered paths of one kind, before the command line's.
fn configured(o: &ResourceOptions<'_>, kind: ResourceKind) -> Vec<PathBuf> {
    let (project_plain, project_over) = Overrides::of(o.settings, kind, Scope::Project);
    let (user_plain, user_over) = Overrides::of(o.settings, kind, Scope::User);
    let mut list: Vec<PathBuf> = Vec::new();
    let mut add = |files: Vec<PathBuf>, over: &Overrides| {
        list.extend(files.into_iter().filter(|f| over.enabled(f)));
    };
    let user_agents = o.home.map(|h| h.join(".agents").join("skills"));
    if o.trusted {
        add(entry_files(&project_plain, kind), &project_over);
        if kind == ResourceKind::Skills {
            add(skill_files(&o.cwd.join(".pi").join("skills"), SkillDirMode::Pi), &project_over);
            for dir in ancestor_agents_dirs(o.cwd) {
                if Some(&dir) != user_agents.as_ref() {
                    add(skill_files(&dir, SkillDirMode::Agents), &project_over);
                }
            }
        } else {
            add(markdown_files(&o.cwd.join(".pi").join("prompts")), &project_over);
        }
    }
    add(entry_files(&user_plain, kind), &user_over);
    if kind == ResourceKind::Skills {
        add(skill_files(&o.agent_dir.join("skills"), SkillDirMode::Pi), &user_over);
        if let Some(dir) = &user_agents {
            add(skill_files(dir, SkillDirMode::Agents), &user_over);
        }
    } else {
        add(markdown_files(&o.agent_dir.join("prompts")), &user_over);
    }
    // The same file found twice counts once (the first place wins).
    let mut seen = HashSet::new();
    list.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    list
}

/// Find and load the run's skills and templates.
pub fn load_resources(o: &ResourceOptions<'_>) -> Resources {
    let cli = |paths: &[String]| -> Vec<PathBuf> { paths.iter().map(|p| resolve(p, o.cwd)).collect() };
    let mut skill_paths = if o.no_skills { Vec::new() } else { configured(o, ResourceKind::Skills) };
    skill_paths.extend(cli(o.skill_paths));
    let skills = load_skills(&skill_paths);
    let mut template_paths = if o.no_templates { Vec::new() } else { configured(o, ResourceKind::Prompts) };
    let cli_templates = cli(o.template_paths);
    template_paths.extend(cli_templates.iter().cloned());
    let mut loaded = load_templates(&template_paths);
    for p in cli_templates.iter().filter(|p| !p.exists()) {
        if !loaded.diagnostics.iter().any(|d| &d.path == p) {
            loaded.diagnostics.push(ResourceDiagnostic::warning(text::TEMPLATE_PATH_MISSING.to_string(), p));
        }
    }
    let mut templates = LoadedTemplates { templates: Vec::new(), diagnostics: loaded.diagnostics };
    for t in loaded.templates {
        match templates.templates.iter().find(|k| k.name == t.name) {
            Some(k) => templates.diagnostics.push(ResourceDiagnostic::collision(
                text::template_collision(&t.name),
                &t.file_path,
                &k.file_path,
            )),
            None => templates.templates.push(t),
        }
    }
    Resources { skills, templates }
}
