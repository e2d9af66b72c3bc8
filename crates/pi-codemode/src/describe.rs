//! What the model reads about codemode: its description (the script API,
//! then the callable tools' declarations grouped by namespace within the
//! inline budget), and on declared tools the note on calling them from
//! scripts. `prepareLoadout` (requirement X7) puts both in place.

use std::collections::BTreeMap;

use pi_agent::{AgentTool, Exposure, Loadout, LoadoutChanges, Namespace};
use serde_json::{Value, json};

use crate::declare::{self, resolve_ref};
use crate::identifier::to_identifier;
use crate::js;
use crate::text::{self, CHARS_PER_TOKEN, CODEMODE};

/// How codemode presents the other tools (`codemode.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Declared tools stay declared, with a note on calling them from scripts.
    #[default]
    On,
    /// Active direct tools are hidden; codemode lists every callable tool.
    Only,
}

/// The schema of tools that resolve to their text.
pub(crate) fn text_schema() -> Value {
    json!({"type": "string"})
}

/// A tool as a script sees it: its description followed by its prompt
/// guidelines (the system prompt only has them for declared tools).
pub(crate) fn script_description(description: &str, guidelines: &[String]) -> String {
    let bullets: Vec<String> =
        guidelines.iter().map(|g| js::trim(g)).filter(|g| !g.is_empty()).map(|g| format!("- {g}")).collect();
    if bullets.is_empty() {
        description.to_string()
    } else {
        format!("{}\n\n{}", js::trim(description), bullets.join("\n"))
    }
}

/// A tool's sample (description, guidelines, declaration): the codemode
/// listing, `ALL_TOOLS` and `describeTool()` show it.
pub(crate) fn tool_sample(tool: &dyn AgentTool, guidelines: &[String]) -> String {
    let def = tool.def();
    let text = text_schema();
    let output = tool.output_schema().unwrap_or(&text);
    declare::sample(&script_description(&def.description, guidelines), &def.name, &def.parameters, Some(output))
}

/// `### \`id\` (\`name\`)` and the sample.
fn section(tool: &dyn AgentTool, guidelines: &[String]) -> String {
    let name = &tool.def().name;
    let id = to_identifier(name);
    let heading = if &id == name { format!("### `{id}`") } else { format!("### `{id}` (`{name}`)") };
    format!("{heading}\n{}", js::trim(&tool_sample(tool, guidelines)))
}

struct Entry {
    name: String,
    section: String,
    cost: f64,
}

struct Group {
    namespace: Option<Namespace>,
    entries: Vec<Entry>,
}

/// The sections that fit `budget`: in each round every group (tools without
/// a namespace first, then namespaces by name) places its cheapest remaining
/// tool; a group whose next tool does not fit drops out.
fn select(groups: &[Group], budget: f64) -> Vec<String> {
    let mut queues: Vec<Vec<&Entry>> = groups
        .iter()
        .map(|g| {
            let mut q: Vec<&Entry> = g.entries.iter().collect();
            q.sort_by(|a, b| a.cost.total_cmp(&b.cost));
            q.reverse();
            q
        })
        .filter(|q| !q.is_empty())
        .collect();
    let mut shown = Vec::new();
    let mut remaining = budget;
    while !queues.is_empty() {
        queues.retain_mut(|q| {
            let Some(next) = q.last() else { return false };
            if next.cost > remaining {
                return false;
            }
            remaining -= next.cost;
            shown.push(next.name.clone());
            q.pop();
            !q.is_empty()
        });
    }
    shown
}

fn collator() -> Option<icu_collator::CollatorBorrowed<'static>> {
    icu_collator::CollatorBorrowed::try_new(Default::default(), Default::default()).ok()
}

/// What a listing needs to know of one tool.
pub(crate) struct Listed<'a> {
    pub tool: &'a dyn AgentTool,
    pub namespace: Option<Namespace>,
    pub guidelines: Vec<String>,
    pub deferred: bool,
}

/// The codemode description listing `tools` within `budget` estimated tokens.
pub(crate) fn description(tools: &[Listed<'_>], budget: f64, docs_path: &str) -> String {
    let mut sections = vec![
        text::DESCRIPTION_INTRO.to_string(),
        format!("{}\n{}", text::DESCRIPTION_GLOBALS, text::description_models(docs_path)),
    ];
    let listed: Vec<&Listed> = tools.iter().filter(|t| t.tool.def().name != CODEMODE && !t.deferred).collect();
    if listed.is_empty() {
        return sections.join("\n\n");
    }
    let mut groups: Vec<Group> = vec![Group { namespace: None, entries: vec![] }];
    for t in &listed {
        let s = section(t.tool, &t.guidelines);
        let cost = js::len16(&s).div_ceil(CHARS_PER_TOKEN) as f64;
        let entry = Entry { name: t.tool.def().name.clone(), section: s, cost };
        let at = match &t.namespace {
            None => Some(0),
            Some(ns) => groups.iter().position(|g| g.namespace.as_ref().is_some_and(|n| n.name == ns.name)),
        };
        match at {
            Some(i) => groups[i].entries.push(entry),
            None => groups.push(Group { namespace: t.namespace.clone(), entries: vec![entry] }),
        }
    }
    let unnamed = groups.remove(0);
    if let Some(c) = collator() {
        groups.sort_by(|a, b| {
            let (x, y) = (a.namespace.as_ref().map(|n| n.name.as_str()), b.namespace.as_ref().map(|n| n.name.as_str()));
            c.compare(x.unwrap_or(""), y.unwrap_or(""))
        });
    }
    groups.insert(0, unnamed);
    let shown = select(&groups, budget);
    let mut out = vec![text::NESTED_TOOLS.to_string()];
    for g in &groups {
        let visible: Vec<&Entry> = g.entries.iter().filter(|e| shown.contains(&e.name)).collect();
        if let Some(ns) = &g.namespace {
            let listing = if visible.len() == g.entries.len() {
                ""
            } else if visible.is_empty() {
                text::TOOLS_NOT_LISTED
            } else {
                text::SOME_TOOLS_NOT_LISTED
            };
            let desc = ns.description.as_deref().map(js::trim).filter(|d| !d.is_empty());
            out.push(format!("## {}{listing}{}", ns.name, desc.map(|d| format!("\n{d}")).unwrap_or_default()));
        }
        out.extend(visible.iter().map(|e| e.section.clone()));
    }
    sections.push(out.join("\n\n"));
    sections.join("\n\n")
}

/// Follow a chain of local `$ref`s from `schema` (stops at cycles and misses).
fn follow<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut seen: Vec<*const Value> = Vec::new();
    let mut current = schema;
    while let Some(Value::String(r)) = current.get("$ref") {
        if seen.contains(&(current as *const Value)) {
            break;
        }
        let Some(target) = resolve_ref(r, root) else { break };
        seen.push(current);
        current = target;
    }
    current
}

/// `{ output, truncated, full_output_path?, … }`: an object schema's field
/// names, `depth` levels deep, with `const` values.
fn fields(schema: &Value, root: &Value, depth: u32) -> Option<String> {
    let s = follow(schema, root);
    if s.get("type") != Some(&Value::String("object".into())) {
        return None;
    }
    let props = s.get("properties")?.as_object()?;
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let parts: Vec<String> = props
        .iter()
        .map(|(name, field)| {
            let nested = match follow(field, root).get("const") {
                Some(c) => Some(js::stringify(c)),
                None if depth > 0 => fields(field, root, depth - 1),
                None => None,
            };
            let optional = if required.contains(&name.as_str()) { "" } else { "?" };
            format!("{name}{optional}{}", nested.map(|n| format!(": {n}")).unwrap_or_default())
        })
        .collect();
    Some(format!("{{ {} }}", parts.join(", ")))
}

fn union_fields(schema: &Value, root: &Value) -> Option<String> {
    let s = follow(schema, root);
    let variants = s.get("anyOf").filter(|v| !v.is_null()).or_else(|| s.get("oneOf"))?.as_array()?;
    if variants.is_empty() {
        return None;
    }
    let described: Option<Vec<String>> = variants.iter().map(|v| fields(v, root, 0)).collect();
    described.map(|d| d.join(" | "))
}

/// What `tools.<name>()` resolves to, in one line.
fn resolves_to(name: &str, schema: &Value) -> String {
    let t = declare::output_type(Some(schema));
    if t == "string" {
        return "a string".into();
    }
    if let Some(f) = fields(schema, schema, 1).or_else(|| union_fields(schema, schema)) {
        return format!("`{f}`");
    }
    if !t.contains('\n') {
        return format!("`{t}`");
    }
    text::resolves_to_long_type(&js::stringify(&Value::String(name.into())))
}

/// A declared tool's description with the note on calling it from scripts.
pub(crate) fn script_call_note(tool: &dyn AgentTool) -> String {
    let def = tool.def();
    let text = text_schema();
    let schema = tool.output_schema().unwrap_or(&text);
    text::script_call_note(js::trim(&def.description), &to_identifier(&def.name), &resolves_to(&def.name, schema))
}

/// What codemode's `prepareLoadout` returns for `loadout`.
pub(crate) fn prepare(loadout: &Loadout, mode: Mode, budget: f64, docs_path: &str) -> LoadoutChanges {
    let callable: Vec<&dyn AgentTool> =
        loadout.callable.iter().map(|t| t.as_ref()).filter(|t| t.def().name != CODEMODE).collect();
    let is_direct = |t: &dyn AgentTool| loadout.exposure(&t.def().name) == Exposure::Direct;
    let declared = |t: &dyn AgentTool| loadout.declared.iter().any(|d| d.def().name == t.def().name);
    let mut descriptions = BTreeMap::new();
    if mode == Mode::On {
        for tool in &loadout.declared {
            if callable.iter().any(|c| c.def().name == tool.def().name) {
                descriptions.insert(tool.def().name.clone(), script_call_note(tool.as_ref()));
            }
        }
    }
    let listed: Vec<Listed> = callable
        .iter()
        .filter(|t| mode == Mode::Only || !is_direct(**t))
        .map(|t| Listed {
            tool: *t,
            namespace: loadout.namespace(&t.def().name).cloned(),
            guidelines: loadout.prompt_guidelines(&t.def().name).to_vec(),
            deferred: loadout.exposure(&t.def().name) == Exposure::Deferred,
        })
        .collect();
    descriptions.insert(CODEMODE.to_string(), description(&listed, budget, docs_path));
    let hidden_declarations = match mode {
        Mode::Only => {
            callable.iter().filter(|t| is_direct(**t) && declared(**t)).map(|t| t.def().name.clone()).collect()
        }
        Mode::On => Vec::new(),
    };
    LoadoutChanges { descriptions, hidden_declarations }
}
