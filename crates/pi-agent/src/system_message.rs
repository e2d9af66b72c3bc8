//! System messages: the reference records the system prompt (as named
//! sections) and the declared tools in the conversation. The first request
//! records them whole; a later change records only what changed (a section
//! set to its new text, `null` for a removed one; tools added or removed by
//! name). Replaying the system messages in order gives the current state.

use serde_json::{Map, Value, json};

use crate::messages::{AgentMessage, AgentOnly, SystemMessage};
use crate::prompt::PromptSections;

/// The sections and tools the conversation's system messages say, replayed.
#[derive(Debug, Default)]
struct Replayed {
    any: bool,
    sections: Map<String, Value>,
    tools: Vec<Value>,
}

/// Tool declarations in order, found by name: replaying n additions and
/// removals takes time linear in n (an MCP server may bring thousands).
#[derive(Default)]
struct ToolList {
    slots: Vec<Option<Value>>,
    by_name: std::collections::HashMap<String, usize>,
}

impl ToolList {
    fn name(tool: &Value) -> String {
        tool["name"].to_string()
    }
    fn remove(&mut self, tool: &Value) {
        if let Some(i) = self.by_name.remove(&Self::name(tool)) {
            self.slots[i] = None;
        }
    }
    /// Add at the end (a tool of the same name leaves its place).
    fn add(&mut self, tool: &Value) {
        self.remove(tool);
        self.by_name.insert(Self::name(tool), self.slots.len());
        self.slots.push(Some(tool.clone()));
    }
    fn into_vec(self) -> Vec<Value> {
        self.slots.into_iter().flatten().collect()
    }
}

fn replay(messages: &[AgentMessage]) -> Replayed {
    let mut r = Replayed::default();
    let mut tools = ToolList::default();
    for m in messages {
        let AgentMessage::Agent(AgentOnly::System(s)) = m else { continue };
        r.any = true;
        for (name, text) in s.sections.iter().flat_map(|m| m.iter()) {
            if text.is_null() {
                r.sections.remove(name);
            } else {
                r.sections.insert(name.clone(), text.clone());
            }
        }
        for removed in s.tools_removed.iter().flatten() {
            tools.remove(removed);
        }
        for added in s.tools_added.iter().flatten() {
            tools.add(added);
        }
    }
    r.tools = tools.into_vec();
    r
}

/// The whole prompt and tool state the conversation's system messages
/// record (a compaction's checkpoint); `None` when there is none.
pub(crate) fn checkpoint(messages: &[AgentMessage]) -> Option<SystemMessage> {
    let r = replay(messages);
    r.any.then(|| SystemMessage {
        content: json!(""),
        sections: Some(Box::new(r.sections)),
        tools_added: Some(r.tools),
        tools_removed: None,
        timestamp: pi_ai::now_ms(),
    })
}

/// The prompt and tool declarations a list's system messages give a
/// request, replayed: the sections joined by blank lines (or, without
/// sections, the last plain content), and the tools; `None` when the list
/// has no system message.
pub(crate) fn request_state(messages: &[AgentMessage]) -> Option<(String, Vec<Value>)> {
    let r = replay(messages);
    if !r.any {
        return None;
    }
    let prompt = if r.sections.is_empty() {
        messages
            .iter()
            .rev()
            .find_map(|m| match m {
                AgentMessage::Agent(AgentOnly::System(s)) => s.content.as_str().map(str::to_string),
                _ => None,
            })
            .unwrap_or_default()
    } else {
        r.sections.values().filter_map(Value::as_str).collect::<Vec<_>>().join("\n\n")
    };
    Some((prompt, r.tools))
}

/// The system message that brings the conversation's recorded state to
/// `sections` and `tools`; `None` when nothing changed.
pub(crate) fn patch(messages: &[AgentMessage], sections: &PromptSections, tools: &[Value]) -> Option<SystemMessage> {
    let now = pi_ai::now_ms();
    let r = replay(messages);
    let current: Map<String, Value> = sections.0.iter().map(|(n, t)| (n.clone(), json!(t))).collect();
    if !r.any {
        return Some(SystemMessage {
            content: json!(""),
            sections: Some(Box::new(current)),
            tools_added: Some(tools.to_vec()),
            tools_removed: None,
            timestamp: now,
        });
    }
    let mut changed = Map::new();
    for (name, text) in &current {
        if r.sections.get(name) != Some(text) {
            changed.insert(name.clone(), text.clone());
        }
    }
    for name in r.sections.keys() {
        if !current.contains_key(name) {
            changed.insert(name.clone(), Value::Null);
        }
    }
    // By name (names are unique in a replay), in linear time.
    let recorded: std::collections::HashMap<String, &Value> = r.tools.iter().map(|t| (ToolList::name(t), t)).collect();
    let added: Vec<Value> = tools.iter().filter(|t| recorded.get(&ToolList::name(t)) != Some(t)).cloned().collect();
    let names: std::collections::HashSet<String> = tools.iter().map(ToolList::name).collect();
    let removed: Vec<Value> = r
        .tools
        .iter()
        .filter(|old| !names.contains(&ToolList::name(old)))
        .map(|old| json!({"name": old["name"]}))
        .collect();
    if changed.is_empty() && added.is_empty() && removed.is_empty() {
        return None;
    }
    Some(SystemMessage {
        content: json!(""),
        sections: (!changed.is_empty()).then(|| Box::new(changed)),
        tools_added: (!added.is_empty()).then_some(added),
        tools_removed: (!removed.is_empty()).then_some(removed),
        timestamp: now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(list: &[(&str, &str)]) -> PromptSections {
        PromptSections(list.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect())
    }

    #[test]
    fn whole_first_then_only_the_changes_then_nothing() {
        let read = json!({"name": "read", "description": "r", "parameters": {}});
        let bash = json!({"name": "bash", "description": "b", "parameters": {}});
        let first = patch(&[], &sections(&[("preamble", "P"), ("cwd", "C")]), std::slice::from_ref(&read)).unwrap();
        assert_eq!(first.sections.as_ref().unwrap().len(), 2);
        assert_eq!(first.tools_added.as_ref().unwrap(), &vec![read.clone()]);
        let mut msgs = vec![AgentMessage::Agent(AgentOnly::System(first))];
        assert!(patch(&msgs, &sections(&[("preamble", "P"), ("cwd", "C")]), std::slice::from_ref(&read)).is_none());
        let second =
            patch(&msgs, &sections(&[("preamble", "P2"), ("skills", "S")]), std::slice::from_ref(&bash)).unwrap();
        let s = second.sections.as_ref().unwrap();
        assert_eq!(s["preamble"], "P2");
        assert_eq!(s["skills"], "S");
        assert_eq!(s["cwd"], Value::Null, "a removed section is null");
        assert_eq!(second.tools_added.as_ref().unwrap(), &vec![bash.clone()]);
        assert_eq!(second.tools_removed.as_ref().unwrap(), &vec![json!({"name": "read"})]);
        msgs.push(AgentMessage::Agent(AgentOnly::System(second)));
        assert!(patch(&msgs, &sections(&[("preamble", "P2"), ("skills", "S")]), &[bash]).is_none());
    }
}
