//! The run's skills and templates, in the reference's order (see the
//! module documentation of [`super`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use globset::Glob;

use super::walk::{SkillDirMode, markdown_files, skill_files};
use super::{LoadedSkills, LoadedTemplates, ResourceDiagnostic, SourceInfo, load_skills, load_templates};
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

/// The ordered paths of one kind, before the command line's, with where
/// each came from: settings entries before found files, project before user,
/// packages last.
fn configured(o: &ResourceOptions<'_>, kind: ResourceKind) -> Vec<(PathBuf, SourceInfo)> {
    let (project_plain, project_over) = Overrides::of(o.settings, kind, Scope::Project);
    let (user_plain, user_over) = Overrides::of(o.settings, kind, Scope::User);
    let project_base = o.cwd.join(".pi");
    let mut list: Vec<(PathBuf, SourceInfo)> = Vec::new();
    let mut add = |files: Vec<PathBuf>, over: &Overrides, info: SourceInfo| {
        list.extend(files.into_iter().filter(|f| over.enabled(f)).map(|f| (f, info.clone())));
    };
    let user_agents = o.home.map(|h| h.join(".agents").join("skills"));
    if o.trusted {
        add(entry_files(&project_plain, kind), &project_over, SourceInfo::new("local", "project", &project_base));
        let auto = SourceInfo::new("auto", "project", &project_base);
        if kind == ResourceKind::Skills {
            add(skill_files(&project_base.join("skills"), SkillDirMode::Pi), &project_over, auto);
            for dir in ancestor_agents_dirs(o.cwd) {
                if Some(&dir) != user_agents.as_ref() {
                    let info = SourceInfo::new("auto", "project", dir.parent().unwrap_or(&dir));
                    add(skill_files(&dir, SkillDirMode::Agents), &project_over, info);
                }
            }
        } else {
            add(markdown_files(&project_base.join("prompts")), &project_over, auto);
        }
    }
    add(entry_files(&user_plain, kind), &user_over, SourceInfo::new("local", "user", o.agent_dir));
    let auto = SourceInfo::new("auto", "user", o.agent_dir);
    if kind == ResourceKind::Skills {
        add(skill_files(&o.agent_dir.join("skills"), SkillDirMode::Pi), &user_over, auto);
        if let Some(dir) = &user_agents {
            let info = SourceInfo::new("auto", "user", dir.parent().unwrap_or(dir));
            add(skill_files(dir, SkillDirMode::Agents), &user_over, info);
        }
    } else {
        add(markdown_files(&o.agent_dir.join("prompts")), &user_over, auto);
    }
    // Then the packages' (project packages first; see `crate::packages`).
    let packages = crate::packages::resolve(o.settings, o.agent_dir, o.cwd);
    let found = if kind == ResourceKind::Skills { packages.skills } else { packages.prompts };
    list.extend(found.into_iter().map(|r| (r.path.clone(), SourceInfo::package(&r))));
    // The same file found twice counts once (the first place wins).
    let mut seen = HashSet::new();
    list.retain(|(p, _)| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    list
}

/// Where a command-line path's resource came from: a path inside the user's
/// or the project's conventional folder counts as that scope.
fn cli_source(file: &Path, folders: [(&Path, &str); 2], fallback: &SourceInfo, base_is_folder: bool) -> SourceInfo {
    for (folder, scope) in folders {
        if file.starts_with(folder) {
            let base = if base_is_folder { folder } else { fallback.base_dir.as_path() };
            return SourceInfo::new("local", scope, base);
        }
    }
    fallback.clone()
}

/// Find and load the run's skills and templates.
pub fn load_resources(o: &ResourceOptions<'_>) -> Resources {
    let cli = |paths: &[String]| -> Vec<PathBuf> { paths.iter().map(|p| resolve(p, o.cwd)).collect() };
    let skill_found = if o.no_skills { Vec::new() } else { configured(o, ResourceKind::Skills) };
    let mut skill_paths: Vec<PathBuf> = skill_found.iter().map(|(p, _)| p.clone()).collect();
    skill_paths.extend(cli(o.skill_paths));
    let mut skills = load_skills(&skill_paths);
    let skill_dirs = [(&*o.agent_dir.join("skills"), "user"), (&*o.cwd.join(".pi").join("skills"), "project")];
    for s in &mut skills.skills {
        s.source = match skill_found.iter().find(|(p, _)| p == &s.file_path) {
            Some((_, info)) => info.clone(),
            None => cli_source(&s.file_path, skill_dirs, &s.source, false),
        };
    }
    let template_found = if o.no_templates { Vec::new() } else { configured(o, ResourceKind::Prompts) };
    let mut template_paths: Vec<PathBuf> = template_found.iter().map(|(p, _)| p.clone()).collect();
    let cli_templates = cli(o.template_paths);
    template_paths.extend(cli_templates.iter().cloned());
    let mut loaded = load_templates(&template_paths);
    let prompt_dirs = [(&*o.agent_dir.join("prompts"), "user"), (&*o.cwd.join(".pi").join("prompts"), "project")];
    for t in &mut loaded.templates {
        t.source = match template_found.iter().find(|(p, _)| p == &t.file_path) {
            Some((_, info)) => info.clone(),
            None => cli_source(&t.file_path, prompt_dirs, &t.source, true),
        };
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(path: &Path, name: &str) {
        std::fs::create_dir_all(path).unwrap();
        std::fs::write(path.join("SKILL.md"), format!("---\nname: {name}\ndescription: d {name}\n---\nbody")).unwrap();
    }

    fn names(o: &ResourceOptions<'_>) -> Vec<String> {
        load_resources(o).skills.skills.iter().map(|s| s.name.clone()).collect()
    }

    #[test]
    fn project_skills_only_when_trusted_and_in_the_reference_order() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, agent) = (tmp.path().join("home"), tmp.path().join("home/.pi/agent"));
        let repo = tmp.path().join("repo");
        let cwd = repo.join("sub");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        skill(&agent.join("skills/u"), "user-pi");
        skill(&home.join(".agents/skills/a"), "user-agents");
        skill(&cwd.join(".pi/skills/p"), "project-pi");
        skill(&cwd.join(".agents/skills/c"), "cwd-agents");
        skill(&repo.join(".agents/skills/r"), "repo-agents");
        skill(&tmp.path().join(".agents/skills/o"), "outside-repo");
        std::fs::create_dir_all(cwd.join(".pi/prompts")).unwrap();
        std::fs::write(cwd.join(".pi/prompts/t.md"), "hello").unwrap();
        let (settings, _) = Settings::load(&agent, &cwd, true);
        let cli = vec![tmp.path().join("repo/sub/.pi/skills/p").display().to_string()];
        let mut o = ResourceOptions {
            agent_dir: &agent,
            cwd: &cwd,
            home: Some(&home),
            trusted: true,
            settings: &settings,
            skill_paths: &cli,
            no_skills: false,
            template_paths: &[],
            no_templates: false,
        };
        assert_eq!(names(&o), ["project-pi", "cwd-agents", "repo-agents", "user-pi", "user-agents"]);
        let loaded = load_resources(&o);
        assert_eq!(loaded.templates.templates.len(), 1);
        assert_eq!(loaded.skills.skills[0].source, SourceInfo::new("auto", "project", &cwd.join(".pi")));
        assert_eq!(loaded.skills.skills[1].source, SourceInfo::new("auto", "project", &cwd.join(".agents")));
        o.trusted = false;
        assert_eq!(names(&o), ["user-pi", "user-agents", "project-pi"], "an explicit path still loads");
        assert!(load_resources(&o).templates.templates.is_empty());
        o.no_skills = true;
        assert_eq!(names(&o), ["project-pi"]);
        o.skill_paths = &[];
        assert!(names(&o).is_empty());
    }
}
