//! The system prompt, assembled from the active tools' snippets and guidelines
//! (requirement T11), context files, `SYSTEM.md`/`APPEND_SYSTEM.md` and the
//! command-line texts, with the working folder (no date, as the reference). The general wording
//! is our own; the per-tool lines are the tools' data.

use std::path::Path;

use pi_config::ContextFile;

use crate::tool::{Exposure, ToolDef};

/// Everything the prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptInputs<'a> {
    /// Replaces the default prompt (`SYSTEM.md` or `--system-prompt`).
    pub custom: Option<&'a str>,
    /// Appended texts (`APPEND_SYSTEM.md`, `--append-system-prompt`).
    pub append: Vec<&'a str>,
    /// Context files, in load order.
    pub context_files: &'a [ContextFile],
    /// The session folder.
    pub cwd: &'a Path,
    /// The sandbox's section (beyond.md B5), when commands run sandboxed;
    /// kept with a custom prompt too, so the model always knows its limits.
    pub sandbox: Option<&'a str>,
    /// The loaded skills (listed for the model when a reader is there).
    pub skills: &'a [pi_config::resources::Skill],
    /// The active tools' names, hidden declarations included (empty: the
    /// declared tools are all the active ones).
    pub active: &'a [String],
    /// The `<mcp_servers>` section: MCP servers whose tools are not declared.
    pub mcp_servers: Option<&'a str>,
    /// Where pi's own documentation is (the folder holding `README.md` and
    /// `docs/`): the default prompt's `<docs>` section points there.
    pub docs_root: Option<&'a Path>,
}

const PREAMBLE: &str = "You are pi, a coding agent working in the user's project. You look at files, run commands and change code through the tools listed below, and you report clearly what you did.";
const NO_TOOLS: &str = "(none)";
const GENERAL_RULES: &[&str] =
    &["Keep answers short and to the point.", "Name the files you look at or change by their paths."];
const BASH_FOR_FILES: &str = "Without grep, find or ls tools, use bash (rg, find, ls) to explore files.";
/// The `<docs>` section's lead line.
const DOCS_LEAD: &str = "pi's own documentation, for questions about pi itself (not the user's project):";
/// Which file of `docs/` answers which question.
const DOCS_TOPICS: &[(&str, &str)] = &[
    ("extensions (writing, loading, the API)", "extensions.md"),
    ("skills and prompt templates", "skills.md"),
    ("packages", "packages.md"),
    ("MCP servers", "mcp.md"),
    ("codemode scripts and tool_search", "codemode.md"),
    ("settings and project trust", "settings.md, trust.md"),
    ("the command sandbox", "sandbox.md"),
    ("sessions, compaction and export", "sessions.md"),
    ("the terminal UI, themes and keys", "tui.md"),
    ("models and providers", "providers.md"),
    ("the RPC protocol", "rpc.md"),
];
/// The `<docs>` section's closing rule.
const DOCS_RULE: &str = "Read the relevant file in full before changing pi's configuration or writing an extension; read none of it for ordinary work on the project.";

impl Default for PromptInputs<'_> {
    fn default() -> Self {
        PromptInputs {
            custom: None,
            append: Vec::new(),
            context_files: &[],
            cwd: Path::new("/"),
            sandbox: None,
            skills: &[],
            active: &[],
            mcp_servers: None,
            docs_root: None,
        }
    }
}

/// The system prompt as named sections, in order; the prompt is their texts
/// joined by blank lines. Sessions record the sections (a system message),
/// so a change is recorded as the sections that changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptSections(pub Vec<(String, String)>);

impl PromptSections {
    /// The prompt text.
    pub fn text(&self) -> String {
        self.0.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n\n")
    }

    fn push(&mut self, name: &str, text: String) {
        self.0.push((name.to_string(), text));
    }
}

/// The `<tools>` list and the `<rules>` of the declared tools.
fn tools_and_rules(tools: &[&ToolDef]) -> (String, String) {
    let mut list = String::from("<tools>\n");
    let listed: Vec<&&ToolDef> = tools.iter().filter(|t| t.exposure != Exposure::Hidden).collect();
    // Only tools with a snippet are listed (a tool without one is still declared).
    let with_snippet: Vec<(&str, &str)> = listed
        .iter()
        .filter_map(|t| t.prompt_snippet.as_deref().filter(|s| !s.is_empty()).map(|s| (t.name.as_str(), s)))
        .collect();
    if with_snippet.is_empty() {
        list.push_str(NO_TOOLS);
        list.push('\n');
    }
    for (name, snippet) in with_snippet {
        list.push_str(&format!("- {name}: {snippet}\n"));
    }
    list.push_str("</tools>");
    let mut rules = String::from("<rules>\n");
    let has = |n: &str| listed.iter().any(|t| t.name == n);
    if has("bash") && !has("grep") && !has("find") && !has("ls") {
        rules.push_str(&format!("- {BASH_FOR_FILES}\n"));
    }
    let mut seen: Vec<&str> = Vec::new();
    for g in listed.iter().flat_map(|t| t.prompt_guidelines.iter()) {
        if !seen.contains(&g.as_str()) {
            seen.push(g);
            rules.push_str(&format!("- {g}\n"));
        }
    }
    for r in GENERAL_RULES {
        rules.push_str(&format!("- {r}\n"));
    }
    rules.push_str("</rules>");
    (list, rules)
}

/// The `<docs>` section for documentation under `root`.
fn docs_section(root: &Path) -> String {
    let docs = root.join("docs");
    let mut out = format!(
        "<docs>\n{DOCS_LEAD}\n- Overview: {}\n- Topics, in {}:\n",
        root.join("README.md").display(),
        docs.display()
    );
    for (topic, files) in DOCS_TOPICS {
        out.push_str(&format!("  - {topic}: {files}\n"));
    }
    out.push_str(&format!("- {DOCS_RULE}\n</docs>"));
    out
}

/// Build the system prompt's sections for the declared tools.
pub fn build_prompt_sections(tools: &[&ToolDef], inputs: &PromptInputs<'_>) -> PromptSections {
    let mut out = PromptSections::default();
    match inputs.custom {
        Some(custom) => out.push("custom", custom.to_string()),
        None => {
            out.push("preamble", PREAMBLE.to_string());
            let (list, rules) = tools_and_rules(tools);
            out.push("tools", list);
            out.push("rules", rules);
            if let Some(root) = inputs.docs_root {
                out.push("docs", docs_section(root));
            }
        }
    }
    for (i, a) in inputs.append.iter().enumerate() {
        let name = if i == 0 { "append".to_string() } else { format!("append{}", i + 1) };
        out.push(&name, a.to_string());
    }
    if let Some(sandbox) = inputs.sandbox {
        out.push("sandbox", sandbox.to_string());
    }
    if !inputs.context_files.is_empty() {
        let mut ctx = String::from("<project_context>\n");
        for f in inputs.context_files {
            ctx.push_str(&format!("<file path=\"{}\">\n{}\n</file>\n", f.path.display(), f.content.trim_end()));
        }
        ctx.push_str("</project_context>");
        out.push("context", ctx);
    }
    let declared: Vec<&str> =
        tools.iter().filter(|t| t.exposure != Exposure::Hidden).map(|t| t.name.as_str()).collect();
    let active: Vec<&str> =
        if inputs.active.is_empty() { declared.clone() } else { inputs.active.iter().map(String::as_str).collect() };
    if let Some(reader) = crate::prompt_skills::reader(&declared, &active)
        && let Some(section) = crate::prompt_skills::skills_section(inputs.skills, reader)
    {
        out.push("skills", section);
    }
    // As the reference (Pi 1.6.0): the folder, no date.
    out.push("cwd", format!("<cwd>\n{}\n</cwd>", inputs.cwd.display()));
    if let Some(mcp) = inputs.mcp_servers {
        out.push("mcp_servers", mcp.to_string());
    }
    out
}

/// Build the system prompt for the declared tools.
pub fn build_system_prompt(tools: &[&ToolDef], inputs: &PromptInputs<'_>) -> String {
    build_prompt_sections(tools, inputs).text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{AgentTool, BuiltinTool};
    use pi_tools::ToolName;

    fn defs(names: &[ToolName]) -> Vec<BuiltinTool> {
        names.iter().map(|n| BuiltinTool::new(*n)).collect()
    }

    /// The default prompt with the default tools, whole: any change to what
    /// the model reads shows in the snapshot's diff (`cargo insta review`).
    #[test]
    fn the_default_prompt_whole() {
        let tools = defs(&[ToolName::Read, ToolName::Bash, ToolName::Edit, ToolName::Write]);
        let refs: Vec<&ToolDef> = tools.iter().map(|t| t.def()).collect();
        let inputs = PromptInputs {
            cwd: Path::new("/work/project"),
            docs_root: Some(Path::new("/opt/pi")),
            ..Default::default()
        };
        insta::assert_snapshot!(build_system_prompt(&refs, &inputs));
    }

    #[test]
    fn lists_snippets_and_guidelines_of_declared_tools_only() {
        let tools = defs(&[ToolName::Read, ToolName::Grep]);
        let refs: Vec<&ToolDef> = tools.iter().map(|t| t.def()).collect();
        let p = build_system_prompt(&refs, &PromptInputs { cwd: Path::new("/p"), ..Default::default() });
        assert!(
            p.contains("- read: Read file contents\n- grep: Search file contents for patterns (respects .gitignore)\n")
        );
        assert!(p.contains("- Use read to examine files instead of cat or sed.\n"));
        assert!(!p.contains("bash"));
        // As Pi 1.6.0: the folder alone, no date before it.
        assert!(p.ends_with("\n\n<cwd>\n/p\n</cwd>"), "{p}");
        assert!(!p.contains("Today is"));
    }

    #[test]
    fn the_docs_section_points_at_the_documentation_in_the_default_prompt_only() {
        let root = Path::new("/opt/pi");
        let inputs = PromptInputs { cwd: Path::new("/p"), docs_root: Some(root), ..Default::default() };
        let sections = build_prompt_sections(&[], &inputs);
        let names: Vec<&str> = sections.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["preamble", "tools", "rules", "docs", "cwd"]);
        let docs = &sections.0[3].1;
        assert!(docs.starts_with("<docs>\n") && docs.ends_with("\n</docs>"), "{docs}");
        assert!(docs.contains("- Overview: /opt/pi/README.md\n- Topics, in /opt/pi/docs:\n"), "{docs}");
        assert!(docs.contains("  - extensions (writing, loading, the API): extensions.md\n"), "{docs}");
        let custom = build_prompt_sections(&[], &PromptInputs { custom: Some("C"), ..inputs.clone() });
        assert!(custom.0.iter().all(|(n, _)| n != "docs"));
        let none = build_prompt_sections(&[], &PromptInputs { docs_root: None, ..inputs });
        assert!(none.0.iter().all(|(n, _)| n != "docs"));
    }

    #[test]
    fn every_file_the_docs_section_names_exists() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
        for (_, files) in DOCS_TOPICS {
            for f in files.split(", ") {
                assert!(docs.join(f).is_file(), "docs/{f}");
            }
        }
    }

    #[test]
    fn empty_tool_list_says_none() {
        let p = build_system_prompt(&[], &PromptInputs { cwd: Path::new("/p"), ..Default::default() });
        assert!(p.contains("<tools>\n(none)\n</tools>"));
    }

    #[test]
    fn custom_prompt_replaces_but_context_files_stay() {
        let files = vec![ContextFile { path: "/p/AGENTS.md".into(), content: "be nice".into() }];
        let inputs = PromptInputs {
            custom: Some("CUSTOM"),
            append: vec!["APPENDED"],
            context_files: &files,
            cwd: Path::new("/p"),
            sandbox: Some("<sandbox mode=\"read-only\">\n…\n</sandbox>"),
            ..Default::default()
        };
        let p = build_system_prompt(&[], &inputs);
        assert!(
            p.starts_with("CUSTOM\n\nAPPENDED\n\n<sandbox mode=\"read-only\">"),
            "the sandbox stays with a custom prompt"
        );
        assert!(p.contains("be nice"));
        assert!(!p.contains("<tools>"));
    }

    #[test]
    fn a_tool_without_snippet_is_not_listed_and_skills_follow_the_readers() {
        let tools = defs(&[ToolName::Read, ToolName::Ls]);
        let mut custom = tools[0].def().clone();
        custom.name = "probe".into();
        custom.prompt_snippet = None;
        let mut refs: Vec<&ToolDef> = tools.iter().map(|t| t.def()).collect();
        refs.push(&custom);
        let skill = pi_config::resources::Skill {
            name: "s".into(),
            description: "d".into(),
            file_path: "/s/SKILL.md".into(),
            base_dir: "/s".into(),
            disable_model_invocation: false,
            source: Default::default(),
        };
        let skills = vec![skill];
        let inputs = PromptInputs { cwd: Path::new("/p"), skills: &skills, ..Default::default() };
        let p = build_system_prompt(&refs, &inputs);
        assert!(!p.contains("- probe:"), "{p}");
        assert!(p.contains("<skills>\nThe following skills") && p.contains("Use the read tool"), "{p}");
        assert!(p.find("<skills>") < p.find("<cwd>"));
        let ls_only = [refs[1]];
        assert!(!build_system_prompt(&ls_only, &inputs).contains("<skills>"), "no reader, no skills");
        let active = vec!["ls".to_string(), "bash".to_string()];
        let hidden_bash = PromptInputs { active: &active, custom: Some("CUSTOM"), ..inputs.clone() };
        let p = build_system_prompt(&ls_only, &hidden_bash);
        assert!(p.starts_with("CUSTOM") && p.contains("\nLoad a skill's file when"), "{p}");
    }
}
