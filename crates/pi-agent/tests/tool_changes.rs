//! Changes to the tool set made while a run is in progress (`ToolChanges`,
//! pi-behaviour §6.2): registrations and `set_active` apply before the next
//! model request of the same run, the system prompt is rebuilt by
//! `Agent::prompt_builder` only when the set changed, nested calls reach
//! pending registrations at once, and asynchronous `prepareLoadout` hooks
//! hide declarations from requests (and from the prompt) while the tools
//! stay callable; a failing hook is reported and ignored.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{agent, agent_with, calls, ctx, declared, dispatcher, req, says, stub, tool_results};
use pi_agent::{AgentEvent, AgentTool, Caller, Exposure, LoadoutChanges, PromptBuilder, Refusal, ToolChanges};
use pi_tools::ToolResult;
use serde_json::json;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A tool `setup` that, when called, does `change` to the dispatcher's tool changes.
fn setup(changes: &ToolChanges, change: impl Fn(&ToolChanges) + Send + Sync + 'static) -> Arc<dyn AgentTool> {
    let changes = changes.clone();
    let change = Arc::new(change);
    stub("setup")
        .exec(move |_| {
            change(&changes);
            Box::pin(async { ToolResult::success("changed") })
        })
        .build()
}

/// A prompt builder listing the declared tools, and how often it ran.
fn listing_prompt() -> (PromptBuilder, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let build: PromptBuilder = Arc::new(move |reg| {
        r.fetch_add(1, Ordering::SeqCst);
        let declared: Vec<String> = reg.declared().iter().map(|t| t.def().name.clone()).collect();
        pi_agent::PromptSections(vec![("custom".into(), format!("tools: {}", declared.join(",")))])
    });
    (build, runs)
}

#[tokio::test]
async fn registrations_and_active_set_changes_apply_before_the_next_request() {
    let mut d = dispatcher(vec![stub("echo").build()], vec![]);
    let tool = setup(&d.tool_changes, |c| {
        c.register(stub("late").build());
        c.set_active(&names(&["setup", "late"]));
        // A requested change shows at once to readers of the set.
        assert_eq!(c.active(), names(&["setup", "late"]));
    });
    d.registry.register(tool);
    let (build, runs) = listing_prompt();
    let (mut a, faux, _events) = agent_with("changes-apply", d, |b| b.prompt_builder(build));
    faux.set_responses(vec![
        calls(&[("c1", "setup", json!({}))]),
        calls(&[("c2", "late", json!({"x": 1}))]),
        calls(&[("c3", "echo", json!({}))]),
        says("done"),
    ]);
    let last = a.prompt("go").await.unwrap();
    assert_eq!(last.text(), "done");
    let reqs = faux.contexts();
    assert_eq!(reqs.len(), 4);
    assert_eq!(declared(&reqs[0]), ["echo", "setup"]);
    assert_eq!(declared(&reqs[1]), ["setup", "late"], "applied within the same run");
    assert_eq!(declared(&reqs[3]), ["setup", "late"]);
    assert_eq!(tool_results(&reqs[2])[1], "c2: late {\"x\":1}", "the model reaches the new tool");
    assert_eq!(tool_results(&reqs[3])[2], "c3: Tool echo not found", "deactivated for the model");

    // The prompt is rebuilt once, for the request after the change.
    let prompts: Vec<&str> = reqs.iter().map(|c| c.system_prompt.as_deref().unwrap()).collect();
    assert_eq!(prompts, ["system", "tools: setup,late", "tools: setup,late", "tools: setup,late"]);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "no rebuild when nothing changed");
    assert_eq!(a.system_prompt(), "tools: setup,late");
}

#[tokio::test]
async fn without_a_prompt_builder_the_prompt_stays() {
    let mut d = dispatcher(vec![], vec![]);
    let tool = setup(&d.tool_changes, |c| c.register(stub("late").build()));
    d.registry.register(tool);
    let (mut a, faux, _events) = agent("changes-no-builder", d);
    faux.set_responses(vec![calls(&[("c1", "setup", json!({}))]), says("done")]);
    a.prompt("go").await;
    let reqs = faux.contexts();
    assert_eq!(declared(&reqs[1]), ["setup", "late"]);
    assert_eq!(reqs[1].system_prompt.as_deref(), Some("system"));
}

#[tokio::test]
async fn registrations_made_before_the_agent_exists_are_applied_at_once() {
    let d = dispatcher(vec![], vec![]);
    d.tool_changes.register(stub("early").build());
    let (a, _faux, _events) = agent("changes-early", d);
    assert!(a.dispatcher().registry.get("early").is_some());
    assert_eq!(a.dispatcher().registry.active(), names(&["early"]));
    assert_eq!(a.dispatcher().tool_changes.all().len(), 1, "the extensions' view of the set is refreshed");
}

#[tokio::test]
async fn nested_calls_reach_a_tool_registered_during_the_call() {
    let d = dispatcher(vec![], vec![]);
    let changes = d.tool_changes.clone();
    let installer = stub("installer")
        .exec(move |inv| {
            changes.register(stub("fresh").exposure(Exposure::Codemode).build());
            changes.register(stub("off").inactive().build());
            Box::pin(async move {
                let nested = inv.nested.as_ref().unwrap();
                let a = nested.call("fresh", json!({}), None).await.result.text_content();
                let b = nested.call("off", json!({}), None).await.result.text_content();
                ToolResult::success(format!("{a}|{b}"))
            })
        })
        .build();
    let mut d = d;
    d.registry.register(installer);
    let f = d.call(req("m", "installer", json!({})), Caller::Model, &ctx()).await;
    assert_eq!(f.result.text_content(), "fresh {}|Tool off not found", "an inactive direct tool stays out of reach");
    // The model reaches it only once the change is applied (before its next request).
    let f = d.call(req("m2", "fresh", json!({})), Caller::Model, &ctx()).await;
    assert_eq!(f.refusal, Some(Refusal::NotFound));
    assert!(d.tool_changes.apply(&mut d.registry));
    assert!(d.registry.get("fresh").is_some() && d.registry.get("off").is_some());
    assert!(!d.tool_changes.apply(&mut d.registry), "nothing left to apply");
}

// ------------------------------------------------------------------ prepareLoadout

#[tokio::test]
async fn prepare_loadout_hides_declarations_that_stay_callable() {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let s = seen.clone();
    let orch = stub("orch")
        .inactive()
        .loadout(move |l| {
            let s = s.clone();
            Box::pin(async move {
                // Asynchronous, as an extension's hook running in its engine.
                tokio::task::yield_now().await;
                let list = |ts: &[Arc<dyn AgentTool>]| ts.iter().map(|t| t.def().name.clone()).collect::<Vec<_>>();
                s.lock().unwrap().push(format!("declared {:?} callable {:?}", list(&l.declared), list(&l.callable)));
                Ok(LoadoutChanges {
                    descriptions: [("orch".to_string(), "Runs echo for you.".to_string())].into(),
                    hidden_declarations: names(&["echo"]),
                })
            })
        })
        .build();
    let mut d = dispatcher(vec![stub("echo").build(), orch], vec![]);
    let tool = setup(&d.tool_changes, |c| c.set_active(&names(&["echo", "setup", "orch"])));
    d.registry.register(tool);
    let (build, _runs) = listing_prompt();
    let (mut a, faux, _events) = agent_with("changes-loadout", d, |b| b.prompt_builder(build));
    faux.set_responses(vec![
        calls(&[("c1", "setup", json!({}))]),
        calls(&[("c2", "echo", json!({"still": "callable"}))]),
        says("done"),
    ]);
    a.prompt("go").await;
    let reqs = faux.contexts();
    assert_eq!(declared(&reqs[0]), ["echo", "setup"]);
    assert_eq!(declared(&reqs[1]), ["setup", "orch"], "echo's declaration is hidden");
    let orch_decl = reqs[1].tools.iter().find(|t| t.name == "orch").unwrap();
    assert_eq!(orch_decl.description, "Runs echo for you.");
    assert_eq!(reqs[1].system_prompt.as_deref(), Some("tools: setup,orch"), "the prompt leaves hidden tools out");
    assert_eq!(tool_results(&reqs[2])[1], "c2: echo {\"still\":\"callable\"}", "hidden, yet the model may call it");
    assert_eq!(
        *seen.lock().unwrap(),
        ["declared [\"echo\", \"setup\", \"orch\"] callable [\"echo\", \"orch\", \"setup\"]"],
        "the hook ran once, for the changed set"
    );
}

#[tokio::test]
async fn a_failing_prepare_loadout_is_reported_and_ignored() {
    let bad = stub("bad").source("/ext/bad.ts").loadout(|_| Box::pin(async { Err("loadout exploded".into()) })).build();
    let d = dispatcher(vec![stub("echo").build(), bad], vec![]);
    let (mut a, faux, events) = agent("changes-loadout-error", d);
    faux.set_responses(vec![says("done")]);
    a.prompt("go").await;
    assert_eq!(declared(&faux.contexts()[0]), ["echo", "bad"]);
    let errors: Vec<(String, String, String)> = events
        .all()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ExtensionError { extension_path, event, error } => Some((extension_path, event, error)),
            _ => None,
        })
        .collect();
    assert_eq!(errors, [("/ext/bad.ts".into(), "prepare_loadout".into(), "loadout exploded".into())]);
}
