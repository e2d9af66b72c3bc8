//! What a typed message becomes before it reaches the model, in every mode
//! (print, JSON, RPC `prompt`/`steer`/`follow_up`, the terminal UI):
//! `/skill:name args` first, then `/template args` (the reference's order),
//! and the commands the skills and templates add to `/` completion and to
//! RPC `get_commands`.

use std::sync::Arc;

use std::path::Path;

use pi_config::Settings;
use pi_config::resources::{ResourceOptions, Resources, expand_prompt_template, expand_skill_command, load_resources};
use serde_json::{Value, json};

/// The command line's say on skills and templates (kept for `/reload`).
#[derive(Debug, Clone, Default)]
pub struct ResourceFlags {
    /// `--skill` paths.
    pub skills: Vec<String>,
    /// `--no-skills`.
    pub no_skills: bool,
    /// `--prompt-template` paths.
    pub templates: Vec<String>,
    /// `--no-prompt-templates`.
    pub no_templates: bool,
    /// What extensions added on `resources_discover` (loaded as `--skill`
    /// and `--prompt-template` paths are).
    pub discovered: pi_ext::DiscoveredResources,
}

impl ResourceFlags {
    /// Find and load the skills and templates.
    pub fn load(&self, agent_dir: &Path, cwd: &Path, settings: &Settings, trusted: bool) -> Resources {
        let home = pi_config::trust::home_dir();
        let skills: Vec<String> = self.skills.iter().chain(&self.discovered.skill_paths).cloned().collect();
        let templates: Vec<String> = self.templates.iter().chain(&self.discovered.prompt_paths).cloned().collect();
        let mut loaded = load_resources(&ResourceOptions {
            agent_dir,
            cwd,
            home: home.as_deref(),
            trusted,
            settings,
            skill_paths: &skills,
            no_skills: self.no_skills,
            template_paths: &templates,
            no_templates: self.no_templates,
        });
        // What an extension added says so (as the reference's `sourceInfo`).
        let by = |file: &Path| {
            let added = self.discovered.added_by.iter().find(|(p, _)| file.starts_with(p));
            added.map(|(_, ext)| pi_config::resources::SourceInfo::added_by_extension(Path::new(ext)))
        };
        for s in &mut loaded.skills.skills {
            if let Some(info) = by(&s.file_path) {
                s.source = info;
            }
        }
        for t in &mut loaded.templates.templates {
            if let Some(info) = by(&t.file_path) {
                t.source = info;
            }
        }
        loaded
    }
}

/// The agent's input expander for these resources.
pub fn expander(resources: Arc<Resources>) -> pi_agent::InputExpander {
    Arc::new(move |text: &str| {
        let after_skill = match expand_skill_command(text, &resources.skills.skills) {
            Ok(Some(t)) => t,
            Ok(None) => text.to_string(),
            Err((path, error)) => return Err((path.to_string_lossy().into_owned(), error)),
        };
        Ok(expand_prompt_template(&after_skill, &resources.templates.templates))
    })
}

/// RPC `get_commands`' `sourceInfo` of the resource at `path` (a skill, a
/// template, a package's extension), as the reference writes it.
pub fn source_info(path: &std::path::Path, s: &pi_config::resources::SourceInfo) -> Value {
    let mut v = json!({"path": path.to_string_lossy(), "source": s.source, "scope": s.scope, "origin": s.origin,
        "baseDir": s.base_dir.to_string_lossy()});
    if let Some(c) = &s.changelog {
        v["changelogPath"] = json!(c.to_string_lossy());
    }
    v
}

/// RPC `get_commands` entries: templates, then skills (`skill:<name>`), as the
/// reference lists them after the extensions' commands.
pub fn rpc_commands(resources: &Resources) -> Vec<Value> {
    let templates = resources.templates.templates.iter().map(|t| {
        json!({"name": t.name, "description": t.description, "source": "prompt",
            "sourceInfo": source_info(&t.file_path, &t.source)})
    });
    let skills = resources.skills.skills.iter().map(|s| {
        json!({"name": format!("skill:{}", s.name), "description": s.description, "source": "skill",
            "sourceInfo": source_info(&s.file_path, &s.source)})
    });
    templates.chain(skills).collect()
}
