//! What the system prompt is built from (files, flags, trust), kept so
//! `/reload` and tool-set changes can rebuild it.

use std::path::{Path, PathBuf};

use pi_agent::{PromptInputs, PromptSections, Registry, build_prompt_sections};

use crate::text;

/// A `--system-prompt`/`--append-system-prompt` value: a file's text when it
/// names a file, the text itself otherwise.
fn text_or_file(v: &str) -> String {
    let p = Path::new(v);
    if p.is_file() { read(p).unwrap_or_else(|| v.to_string()) } else { v.to_string() }
}

/// A prompt file's text (a regular file within the size limit; BOM stripped).
fn read(p: &Path) -> Option<String> {
    pi_config::files::read_config_text(p).ok().flatten()
}

/// The inputs of the system prompt.
#[derive(Debug, Clone)]
pub struct PromptSource {
    /// The agent dir (its context file, `SYSTEM.md`, `APPEND_SYSTEM.md`).
    pub agent_dir: PathBuf,
    /// The session folder.
    pub cwd: PathBuf,
    /// Whether the project's `.pi/SYSTEM.md` and `APPEND_SYSTEM.md` may load.
    pub trusted: bool,
    /// `--no-context-files`.
    pub no_context_files: bool,
    /// `--system-prompt`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`.
    pub append_system_prompt: Vec<String>,
    /// The sandbox's section of the prompt (mode `off`: none).
    pub sandbox: Option<String>,
    /// The loaded skills (the prompt lists those the model may invoke).
    pub skills: Vec<pi_config::resources::Skill>,
    /// The `<mcp_servers>` section (servers whose tools are not declared).
    pub mcp_servers: Option<String>,
}

impl PromptSource {
    /// Read the files and build the prompt for the registry's declared tools.
    pub fn build(&self, registry: &Registry) -> PromptSections {
        let (context_files, warnings) = if self.no_context_files {
            (vec![], vec![])
        } else {
            pi_config::load_context_files(&self.agent_dir, &self.cwd)
        };
        for (p, e) in warnings {
            eprintln!("Warning: {}", text::context_file_unreadable(&p, &e));
        }
        let project_file = |name: &str| self.trusted.then(|| self.cwd.join(".pi").join(name)).filter(|p| p.is_file());
        let prompt_file =
            |name: &str| project_file(name).or_else(|| Some(self.agent_dir.join(name)).filter(|p| p.is_file()));
        let read = |p: PathBuf| read(&p);
        let custom =
            self.system_prompt.as_deref().map(text_or_file).or_else(|| prompt_file("SYSTEM.md").and_then(read));
        let mut appended: Vec<String> = prompt_file("APPEND_SYSTEM.md").and_then(read).into_iter().collect();
        appended.extend(self.append_system_prompt.iter().map(|a| text_or_file(a)));
        let declared = registry.declared();
        let defs: Vec<&pi_agent::ToolDef> = declared.iter().map(|t| t.def()).collect();
        let active = registry.active().to_vec();
        build_prompt_sections(
            &defs,
            &PromptInputs {
                custom: custom.as_deref(),
                append: appended.iter().map(String::as_str).collect(),
                context_files: &context_files,
                cwd: &self.cwd,
                sandbox: self.sandbox.as_deref(),
                skills: &self.skills,
                active: &active,
                mcp_servers: self.mcp_servers.as_deref(),
                docs_root: crate::docs::root().as_deref(),
            },
        )
    }
}
