//! The registry stage: which tools the session has and which are active
//! (reference §5.3), as a pure function of the selection and the tools.

use std::sync::Arc;

use pi_agent::{AgentTool, BuiltinTool, Exposure, Registry};
use pi_config::tool_selection::{NoTools, Selection, SelectionInput, name_matches};

use crate::cli_args::CliArgs;

/// The selection the command line and the `defaultTools` setting make.
pub(crate) fn selection_input(args: &CliArgs, default_tools: Option<Vec<String>>) -> SelectionInput {
    SelectionInput {
        default_tools,
        tools: args.tools.as_ref().map(|(_, t)| t.clone()),
        exclude: args.exclude_tools.clone(),
        no_tools: if args.no_tools {
            Some(NoTools::All)
        } else if args.no_builtin_tools {
            Some(NoTools::Builtin)
        } else {
            None
        },
    }
}

/// The tools of the session, in registration order: the built-ins the
/// selection registers, the script extensions' tools (one with a built-in's
/// name replaces it; the host already kept the first registration of a name
/// across extensions), then the tools of the built-in extensions
/// (`codemode`, `tool_search`) unless a script extension registered the name.
/// With an allowlist, the active set is its exact names in its order, then
/// the tools its patterns match in registration order (direct and
/// model-only tools only); otherwise the selection's initial set plus the
/// extension tools that activate on registration.
pub(crate) fn build(
    input: &SelectionInput,
    ext_tools: &[Arc<dyn AgentTool>],
    builtin_ext_tools: &[Arc<dyn AgentTool>],
) -> Registry {
    let selection = Selection::compute(input);
    let mut registry = Registry::new();
    for tool in BuiltinTool::all() {
        if selection.registers(&tool.def().name, false) {
            registry.register(tool);
        }
    }
    let script_names: Vec<&str> = ext_tools.iter().map(|t| t.def().name.as_str()).collect();
    let builtin_ext = builtin_ext_tools.iter().filter(|t| !script_names.contains(&t.def().name.as_str()));
    let mut activate_on_registration = Vec::new();
    for tool in ext_tools.iter().chain(builtin_ext) {
        let def = tool.def();
        if selection.registers(&def.name, false) {
            registry.register(tool.clone());
            if def.activates_on_registration() {
                activate_on_registration.push(def.name.clone());
            }
        }
    }
    let active: Vec<String> = match selection.allowlist() {
        Some(list) => allowlist_order(&registry, list),
        None => {
            let mut names = selection.initial_active.clone();
            for n in activate_on_registration {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            names
        }
    };
    registry.reset_active(&active);
    registry
}

/// The tools an allowlist activates, in the reference's order: its exact
/// names first, in its order (any exposure but hidden), then the `direct`
/// and `model-only` tools its patterns match, in registration order.
fn allowlist_order(registry: &Registry, list: &[String]) -> Vec<String> {
    let activates = |name: &str| {
        registry.get(name).is_some_and(|t| matches!(t.def().exposure, Exposure::Direct | Exposure::ModelOnly))
    };
    let mut names: Vec<String> = Vec::new();
    for entry in list.iter().filter(|e| !e.contains('*')) {
        let named = registry.get(entry).is_some_and(|t| t.def().exposure != Exposure::Hidden);
        if named && !names.contains(entry) {
            names.push(entry.clone());
        }
    }
    let patterns: Vec<&String> = list.iter().filter(|e| e.contains('*')).collect();
    for t in registry.all() {
        let n = &t.def().name;
        if patterns.iter().any(|p| name_matches(p, n)) && activates(n) && !names.contains(n) {
            names.push(n.clone());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::future::BoxFuture;
    use pi_agent::{ExecutionMode, Exposure, Invocation, ToolDef};
    use pi_tools::ToolResult;

    struct Stub(ToolDef);

    impl AgentTool for Stub {
        fn def(&self) -> &ToolDef {
            &self.0
        }
        fn execute<'a>(&'a self, _inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
            Box::pin(async { ToolResult::success("") })
        }
    }

    fn ext(name: &str, exposure: Exposure, default_active: bool) -> Arc<dyn AgentTool> {
        Arc::new(Stub(ToolDef {
            constrained_sampling: None,
            name: name.into(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}),
            prompt_snippet: None,
            prompt_guidelines: vec![],
            annotations: Default::default(),
            exposure,
            default_active,
            execution_mode: ExecutionMode::Parallel,
            namespace: None,
        }))
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn input(tools: Option<&[&str]>, default_tools: Option<&[&str]>) -> SelectionInput {
        SelectionInput {
            default_tools: default_tools.map(strings),
            tools: tools.map(strings),
            exclude: None,
            no_tools: None,
        }
    }

    fn names(r: &Registry) -> Vec<String> {
        r.all().iter().map(|t| t.def().name.clone()).collect()
    }

    #[test]
    fn defaults_register_every_builtin_and_activate_the_coding_set_plus_extension_tools() {
        let tools = [ext("deploy", Exposure::Direct, true), ext("later", Exposure::Direct, false)];
        let r = build(&input(None, None), &tools, &[]);
        assert_eq!(names(&r).len(), 10);
        assert_eq!(r.active(), strings(&["read", "bash", "edit", "write", "deploy"]));
    }

    #[test]
    fn an_allowlist_activates_its_names_then_its_pattern_matches() {
        let tools = [ext("grep", Exposure::Direct, true), ext("deploy", Exposure::Codemode, true)];
        let r = build(&input(Some(&["ls", "g*", "deploy"]), None), &tools, &[]);
        assert_eq!(r.active(), strings(&["ls", "deploy", "grep"]), "exact names first, then pattern matches");
        assert!(r.get("grep").unwrap().def().description.is_empty(), "the extension's grep replaced the built-in");
        assert!(r.get("read").is_none(), "an allowlist registers only what it names");
    }

    #[test]
    fn modifiers_and_no_tools() {
        let r = build(&input(Some(&["-bash", "+ls"]), None), &[], &[]);
        assert_eq!(r.active(), strings(&["read", "edit", "write", "ls"]));
        let r = build(&input(Some(&["+grep"]), Some(&["read", "ls"])), &[], &[]);
        assert_eq!(r.active(), strings(&["read", "ls", "grep"]), "modifiers edit the defaultTools setting");
        let none = SelectionInput { no_tools: Some(NoTools::All), ..input(None, None) };
        let r = build(&none, &[ext("deploy", Exposure::Direct, true)], &[]);
        assert!(r.active().is_empty() && r.all().is_empty());
        let builtin_off = SelectionInput { no_tools: Some(NoTools::Builtin), ..input(None, None) };
        let r = build(&builtin_off, &[ext("deploy", Exposure::Direct, true)], &[]);
        assert_eq!(r.active(), strings(&["deploy"]));
    }
}
