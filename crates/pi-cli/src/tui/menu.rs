//! What the terminal UI's menus and renderers are made of from the
//! session's resources: the commands of the extensions (with their argument
//! completions), of the skills and templates and of `/llama`, and the
//! extensions' renderers of messages, entries and tools.

use std::sync::Arc;

use pi_config::resources::Resources;
use pi_ext::LoadedExtensions;
use serde_json::Value;

/// The terminal UI's added commands: templates, then skills (unless
/// `enableSkillCommands` is `false`; a typed `/skill:name` still works).
pub(crate) fn resource_commands(resources: &Resources, skill_commands: bool) -> Vec<pi_tui::host::CommandInfo> {
    let templates = resources.templates.templates.iter().map(|t| pi_tui::host::CommandInfo {
        arguments: None,
        name: t.name.clone(),
        description: t.description.clone(),
        argument_hint: t.argument_hint.clone(),
        prompt: true,
    });
    let skills = resources.skills.skills.iter().filter(|_| skill_commands).map(|s| pi_tui::host::CommandInfo {
        arguments: None,
        name: format!("skill:{}", s.name),
        description: s.description.clone(),
        argument_hint: None,
        prompt: true,
    });
    templates.chain(skills).collect()
}

/// The terminal UI's entries for the extensions' commands (run as prompts:
/// `ext_input::submit` finds them).
pub(crate) fn extension_commands(scripts: &[Arc<LoadedExtensions>]) -> Vec<pi_tui::host::CommandInfo> {
    let all: Vec<(Arc<LoadedExtensions>, pi_ext::ExtCommand)> =
        scripts.iter().flat_map(|l| l.commands().into_iter().map(move |c| (l.clone(), c))).collect();
    let names = pi_ext::command_names(&all.iter().map(|(_, c)| c.clone()).collect::<Vec<_>>());
    all.into_iter()
        .zip(names)
        .map(|((loaded, c), name)| pi_tui::host::CommandInfo {
            name,
            description: c.description.clone().unwrap_or_default(),
            argument_hint: None,
            prompt: true,
            arguments: c.completions.then(|| argument_completer(loaded, c.path.clone(), c.name.clone())),
        })
        .collect()
}

/// The terminal UI's way to a command's `getArgumentCompletions`.
fn argument_completer(loaded: Arc<LoadedExtensions>, path: String, name: String) -> pi_tui::host::ArgumentCompleter {
    pi_tui::host::ArgumentCompleter(Arc::new(move |prefix: &str| {
        let items = loaded.argument_completions(&path, &name, prefix)?;
        Some(
            items
                .into_iter()
                .map(|(value, label, description)| pi_tui::complete::Item { value, label, description })
                .collect(),
        )
    }))
}

/// The terminal UI's renderers of the extensions' custom messages (or,
/// with `entries`, of their `custom` session entries), by `customType` (the
/// first extension that draws a type draws it).
pub(crate) fn renderers(
    scripts: &[Arc<LoadedExtensions>],
    entries: bool,
) -> std::collections::HashMap<String, pi_tui::host::MessageRenderer> {
    let mut out = std::collections::HashMap::new();
    for l in scripts {
        let types = if entries { l.entry_renderers() } else { l.message_renderers() };
        for (custom_type, path) in types {
            let loaded = l.clone();
            out.entry(custom_type).or_insert_with(|| {
                pi_tui::host::MessageRenderer(Arc::new(move |value: &Value, expanded: bool, width: u16| {
                    if entries {
                        loaded.render_entry(&path, value, expanded, width)
                    } else {
                        loaded.render_message(&path, value, expanded, width)
                    }
                }))
            });
        }
    }
    out
}

/// The terminal UI's renderers of the extensions' tools, by tool name (the
/// first extension that draws a tool draws it).
pub(crate) fn tool_renderers(
    scripts: &[Arc<LoadedExtensions>],
) -> std::collections::HashMap<String, pi_tui::host::ToolRenderer> {
    let mut out = std::collections::HashMap::new();
    for l in scripts {
        for (tool, path) in l.tool_renderers() {
            let (loaded, name) = (l.clone(), tool.clone());
            out.entry(tool).or_insert_with(|| {
                pi_tui::host::ToolRenderer(Arc::new(move |_slot: &str, request: &Value, width: u16| {
                    loaded.render_tool(&path, &name, request.clone(), width)
                }))
            });
        }
    }
    out
}

/// `/llama` as the terminal UI lists it.
pub(crate) fn llama_command() -> pi_tui::host::CommandInfo {
    pi_tui::host::CommandInfo {
        name: pi_runtime::text::LLAMA_COMMAND.to_string(),
        description: pi_runtime::text::LLAMA_DESCRIPTION.to_string(),
        argument_hint: None,
        prompt: false,
        arguments: None,
    }
}
