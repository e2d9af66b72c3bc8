//! `before_agent_start`'s `systemPromptOptions`: the structured facts the
//! system prompt is built from, which handlers may change in place. pi
//! gives the active tools (`selectedTools`, their `toolSnippets` and
//! `toolGuidelines`), `cwd`, and empty `sections`, `promptGuidelines`,
//! `skills` and `contextFiles`; a section a handler adds to `sections`
//! (`{tag: text}`) is added to this run's prompt as `<tag>…</tag>`, after
//! pi's own, as the reference does.

use pi_agent::{Agent, PromptSections};
use serde_json::{Map, Value, json};

/// The options handlers start from.
pub fn options(agent: &Agent) -> Value {
    let registry = &agent.dispatcher().registry;
    let declared = registry.declared();
    let mut snippets = Map::new();
    let mut guidelines = Map::new();
    for t in &declared {
        let def = t.def();
        if let Some(s) = def.prompt_snippet.as_deref().filter(|s| !s.is_empty()) {
            snippets.insert(def.name.clone(), json!(s));
        }
        if !def.prompt_guidelines.is_empty() {
            guidelines.insert(def.name.clone(), json!(def.prompt_guidelines));
        }
    }
    let names: Vec<&str> = declared.iter().map(|t| t.def().name.as_str()).collect();
    json!({
        "selectedTools": names,
        "hiddenTools": [],
        "toolSnippets": snippets,
        "toolGuidelines": guidelines,
        "promptGuidelines": [],
        "sections": {},
        "cwd": agent.tool_ctx().cwd.to_string_lossy(),
        "contextFiles": [],
        "skills": [],
    })
}

/// The sections handlers added (`{tag: text}`, text not empty), as prompt
/// sections (`<tag>\ntext\n</tag>`), in the order they were added.
pub fn custom_sections(options: &Value) -> Vec<(String, String)> {
    let Some(sections) = options.get("sections").and_then(Value::as_object) else { return Vec::new() };
    sections
        .iter()
        .filter_map(|(tag, text)| {
            let text = text.as_str().map(str::trim).filter(|t| !t.is_empty())?;
            Some((tag.clone(), format!("<{tag}>\n{text}\n</{tag}>")))
        })
        .collect()
}

/// Use `extra` sections for this run (a section of pi's with the same name
/// is replaced); the prompt and sections to restore after it, `None` when
/// nothing changed. A prompt a handler replaced outright (`forced`) stays.
pub fn apply(
    agent: &mut Agent,
    extra: Vec<(String, String)>,
    forced: bool,
) -> Option<(String, Option<PromptSections>)> {
    if extra.is_empty() {
        return None;
    }
    let saved = (agent.system_prompt().to_string(), agent.system_sections().cloned());
    let mut sections = agent.system_sections().cloned().unwrap_or(PromptSections(Vec::new()));
    for (name, text) in extra {
        match sections.0.iter_mut().find(|(n, _)| *n == name) {
            Some(existing) => existing.1 = text,
            None => sections.0.push((name, text)),
        }
    }
    if !forced {
        agent.set_system_prompt(sections.text());
    }
    agent.set_system_sections(Some(sections));
    Some(saved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_sections_become_tagged_prompt_sections_and_empty_ones_do_not() {
        let options = json!({"sections": {"tool_guidance": "- Use read.\n", "empty": "  ", "odd": 5}});
        assert_eq!(
            custom_sections(&options),
            [("tool_guidance".to_string(), "<tool_guidance>\n- Use read.\n</tool_guidance>".to_string())]
        );
        assert!(custom_sections(&json!({})).is_empty());
        assert!(custom_sections(&json!({"sections": []})).is_empty());
    }
}
