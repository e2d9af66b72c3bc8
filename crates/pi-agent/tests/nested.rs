//! Nested calls (`NestedCaller::call`, requirement I5, pi-behaviour §6.3):
//! ids `<parent>/<n>` counting from 1 per caller, the same handlers and
//! events with the parent id, the per-caller reach (`NestedCaller::callable`),
//! the bounded `nestedCalls` record of the model-issued call, usage summed
//! over every depth, and sequential callees serialised without deadlocking
//! their callers.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Hook, Log, PATIENCE, StubBuilder, ToolEvents, ctx, dispatcher, req, stub};
use pi_agent::{
    Caller, Exposure, NESTED_MAX_ARGUMENT_BYTES_PER_CALL, NESTED_MAX_ARGUMENT_BYTES_TOTAL, NESTED_MAX_CALLS,
    NESTED_MAX_ERROR_CHARS, NestedCallEntry, NestedStatus, ToolCallDecision, ToolEvent,
};
use pi_ai::Usage;
use pi_tools::ToolResult;
use serde_json::{Value, json};

/// A tool that makes the nested calls listed in its input
/// (`{"calls": [{"name", "args"}]}`) one after the other and answers with
/// their outcomes in its details.
fn caller(name: &str) -> StubBuilder {
    stub(name).exec(|inv| {
        Box::pin(async move {
            let nested = inv.nested.as_ref().unwrap();
            let mut outcomes = Vec::new();
            for c in inv.args["calls"].as_array().cloned().unwrap_or_default() {
                let args = c.get("args").cloned().unwrap_or(json!({}));
                let o = nested.call(c["name"].as_str().unwrap(), args, None).await;
                outcomes.push(json!({
                    "id": o.id,
                    "name": o.name,
                    "text": o.result.text_content(),
                    "isError": o.is_error,
                    "ran": o.duration_ms.is_some(),
                }));
            }
            ToolResult::success("called").with_details(Value::Array(outcomes))
        })
    })
}

fn calls(names: &[&str]) -> Value {
    json!({"calls": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()})
}

/// A handler that writes `<hook> <id> parent=<parent>` for calls and results.
fn parents(log: &Log) -> Arc<dyn pi_agent::Interceptor> {
    let (a, b) = (log.clone(), log.clone());
    Hook::new("parents")
        .on_call(move |ev| {
            a.push(format!("call {} parent={}", ev.tool_call_id, ev.parent_tool_call_id.as_deref().unwrap_or("-")));
            Ok(None)
        })
        .on_result(move |ev| {
            b.push(format!("result {} parent={}", ev.tool_call_id, ev.parent_tool_call_id.as_deref().unwrap_or("-")));
            Ok(None)
        })
        .build()
}

#[tokio::test]
async fn nested_ids_count_from_one_per_caller_and_carry_their_parent() {
    let log = Log::default();
    let tools = vec![caller("outer").build(), caller("mid").build(), stub("leaf").build()];
    let d = dispatcher(tools, vec![parents(&log)]);
    let mid = json!({"name": "mid", "args": calls(&["leaf", "leaf"])});
    let m1 = json!({"calls": [{"name": "leaf"}, {"name": "leaf"}, mid]});
    let out = d.batch(vec![req("m1", "outer", m1), req("m2", "outer", calls(&["leaf"]))], &ctx()).await;

    let ids = |f: &pi_agent::Finished| -> Vec<String> {
        f.result
            .details
            .as_ref()
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().into())
            .collect()
    };
    assert_eq!(ids(&out[0]), ["m1/1", "m1/2", "m1/3"]);
    assert_eq!(ids(&out[1]), ["m2/1"], "each caller counts from 1");

    let lines = log.lines();
    let under = |p: &str| -> Vec<String> { lines.iter().filter(|l| l.contains(p)).cloned().collect() };
    assert_eq!(
        under(" m1"),
        [
            "call m1 parent=-",
            "call m1/1 parent=m1",
            "result m1/1 parent=m1",
            "call m1/2 parent=m1",
            "result m1/2 parent=m1",
            "call m1/3 parent=m1",
            "call m1/3/1 parent=m1/3",
            "result m1/3/1 parent=m1/3",
            "call m1/3/2 parent=m1/3",
            "result m1/3/2 parent=m1/3",
            "result m1/3 parent=m1",
            "result m1 parent=-",
        ]
    );
    assert_eq!(
        under(" m2"),
        ["call m2 parent=-", "call m2/1 parent=m2", "result m2/1 parent=m2", "result m2 parent=-"]
    );
}

#[tokio::test]
async fn nested_calls_take_the_whole_pipeline() {
    let gate = Hook::new("gate")
        .on_call(|ev| {
            Ok((ev.parent_tool_call_id.is_some() && ev.input["deny"] == json!(true))
                .then(|| ToolCallDecision::block("denied for nested calls")))
        })
        .build();
    let schema = json!({"type": "object", "properties": {"n": {"type": "number"}}});
    let streaming = stub("streaming")
        .exec(|inv| {
            Box::pin(async move {
                (inv.ctx.on_update.clone().unwrap())(&ToolResult::success("partial"));
                ToolResult::success("full")
            })
        })
        .build();
    let tools = vec![caller("outer").build(), stub("leaf").params(schema).build(), streaming];
    let mut d = dispatcher(tools, vec![gate]);
    let events = ToolEvents::attach(&mut d);
    let input = json!({"calls": [
        {"name": "leaf", "args": {"n": 1}},
        {"name": "leaf", "args": {"deny": true}},
        {"name": "leaf", "args": {"n": "x"}},
        {"name": "nope"},
        {"name": "streaming"},
    ]});
    let f = d.call(req("m", "outer", input), Caller::Model, &ctx()).await;
    let outcomes = f.result.details.clone().unwrap();
    let brief: Vec<(String, bool, bool)> = outcomes
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["text"].as_str().unwrap().to_string(), o["isError"] == json!(true), o["ran"] == json!(true)))
        .collect();
    assert_eq!(brief[0], ("leaf {\"n\":1}".to_string(), false, true));
    assert_eq!(brief[1], ("denied for nested calls".to_string(), true, false), "handlers see nested calls");
    assert!(brief[2].0.starts_with("Validation failed for tool \"leaf\":"), "{:?}", brief[2]);
    assert_eq!((brief[2].1, brief[2].2), (true, false));
    assert_eq!(brief[3], ("Tool nope not found".to_string(), true, false));
    assert_eq!(brief[4], ("full".to_string(), false, true));

    // Every nested call has its events, with the parent id.
    let with_parent: Vec<String> = events
        .all()
        .iter()
        .filter_map(|e| match e {
            ToolEvent::Start { id, parent, .. } => Some(format!("start {id} {parent:?}")),
            ToolEvent::Update { id, parent, partial, .. } => {
                Some(format!("update {id} {parent:?} {}", partial.text_content()))
            }
            ToolEvent::End { id, parent, .. } => Some(format!("end {id} {parent:?}")),
            ToolEvent::HandlerError { .. } => None,
        })
        .collect();
    let p = "Some(\"m\")";
    let expected: Vec<String> = [
        "start m None".to_string(),
        format!("start m/1 {p}"),
        format!("end m/1 {p}"),
        format!("start m/2 {p}"),
        format!("end m/2 {p}"),
        format!("start m/3 {p}"),
        format!("end m/3 {p}"),
        format!("start m/4 {p}"),
        format!("end m/4 {p}"),
        format!("start m/5 {p}"),
        format!("update m/5 {p} partial"),
        format!("end m/5 {p}"),
        "end m None".to_string(),
    ]
    .into();
    assert_eq!(with_parent, expected);
}

#[tokio::test]
async fn a_nested_caller_gets_its_partial_results() {
    let streaming = stub("streaming")
        .exec(|inv| {
            Box::pin(async move {
                (inv.ctx.on_update.clone().unwrap())(&ToolResult::success("halfway"));
                ToolResult::success("full")
            })
        })
        .build();
    let got = Log::default();
    let g = got.clone();
    let outer = stub("outer")
        .exec(move |inv| {
            let g = g.clone();
            Box::pin(async move {
                let on_update: pi_tools::UpdateFn = Arc::new(move |r: &ToolResult| g.push(r.text_content()));
                let o = inv.nested.as_ref().unwrap().call("streaming", json!({}), Some(on_update)).await;
                o.result
            })
        })
        .build();
    let d = dispatcher(vec![outer, streaming], vec![]);
    let f = d.call(req("m", "outer", json!({})), Caller::Model, &ctx()).await;
    assert_eq!(f.result.text_content(), "full");
    assert_eq!(got.lines(), ["halfway"]);
}

// ------------------------------------------------------------------ reach

#[tokio::test]
async fn callable_is_what_a_nested_call_may_reach() {
    let listed = Arc::new(Mutex::new(Vec::<String>::new()));
    let l = listed.clone();
    let lister = stub("lister")
        .exec(move |inv| {
            let l = l.clone();
            Box::pin(async move {
                let nested = inv.nested.as_ref().unwrap();
                *l.lock().unwrap() = nested.callable().iter().map(|t| t.def().name.clone()).collect();
                let mut texts = Vec::new();
                for name in ["model_only", "hidden", "idle", "cm", "deferred", "direct", "late"] {
                    texts.push(nested.call(name, json!({}), None).await.result.text_content());
                }
                ToolResult::success(texts.join("|"))
            })
        })
        .build();
    let tools = vec![
        stub("direct").build(),
        stub("idle").inactive().build(),
        stub("model_only").exposure(Exposure::ModelOnly).build(),
        stub("cm").exposure(Exposure::Codemode).build(),
        stub("deferred").exposure(Exposure::Deferred).build(),
        stub("hidden").exposure(Exposure::Hidden).build(),
        lister,
    ];
    let d = dispatcher(tools, vec![]);
    // Registered but not yet applied to the registry: nested calls reach it already.
    d.tool_changes.register(stub("late").exposure(Exposure::Codemode).build());
    let f = d.call(req("m", "lister", json!({})), Caller::Model, &ctx()).await;
    assert_eq!(*listed.lock().unwrap(), ["direct", "cm", "deferred", "lister", "late"]);
    assert_eq!(
        f.result.text_content(),
        "Tool model_only not found|Tool hidden not found|Tool idle not found|cm {}|deferred {}|direct {}|late {}"
    );
}

#[tokio::test]
async fn a_model_only_tool_cannot_call_itself() {
    let d = dispatcher(vec![caller("run_tools").exposure(Exposure::ModelOnly).build()], vec![]);
    let f = d.call(req("m", "run_tools", calls(&["run_tools"])), Caller::Model, &ctx()).await;
    let o = &f.result.details.as_ref().unwrap()[0];
    assert_eq!(o["text"], "Tool run_tools not found");
    assert_eq!(o["isError"], true);
}

// ------------------------------------------------------------------ the record

#[tokio::test]
async fn the_record_names_every_nested_call_but_never_a_result() {
    let fails = stub("fails").exec(|_| Box::pin(async { ToolResult::error("it broke") })).build();
    let secret = stub("secret").exec(|_| Box::pin(async { ToolResult::success("the secret result") })).build();
    let d = dispatcher(vec![caller("outer").build(), caller("mid").build(), secret, fails], vec![]);

    let alone = d.call(req("m0", "outer", calls(&[])), Caller::Model, &ctx()).await;
    assert_eq!(alone.nested_calls, None, "no record without nested calls");

    let input = json!({"calls": [
        {"name": "secret", "args": {"q": 1}},
        {"name": "fails"},
        {"name": "mid", "args": calls(&["secret"])},
        {"name": "nope"},
    ]});
    let f = d.call(req("m", "outer", input), Caller::Model, &ctx()).await;
    let record = f.nested_calls.clone().unwrap();
    assert!(record.complete);
    let brief: Vec<_> = record
        .calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.status, c.arguments.as_ref(), c.error.as_deref()))
        .collect();
    let (q, empty, mid_args) = (json!({"q": 1}), json!({}), calls(&["secret"]));
    assert_eq!(
        brief,
        [
            ("m/1", "secret", NestedStatus::Ok, Some(&q), None),
            ("m/2", "fails", NestedStatus::Error, Some(&empty), Some("it broke")),
            ("m/3", "mid", NestedStatus::Ok, Some(&mid_args), None),
            ("m/3/1", "secret", NestedStatus::Ok, Some(&empty), None),
            ("m/4", "nope", NestedStatus::Error, Some(&empty), Some("Tool nope not found")),
        ]
    );
    assert!(record.calls.iter().all(|c| c.duration_ms.is_some()));
    let json = serde_json::to_string(&record).unwrap();
    assert!(!json.contains("the secret result"), "results are never recorded: {json}");
}

#[tokio::test]
async fn the_record_keeps_to_its_limits() {
    // The calls, in order: one argument over the per-call limit, one failure
    // with a long message, arguments until the total budget is spent, then
    // small calls past the call limit.
    let big = "x".repeat(NESTED_MAX_ARGUMENT_BYTES_PER_CALL + 1);
    let chunk = "y".repeat(7000);
    let fits = NESTED_MAX_ARGUMENT_BYTES_TOTAL / (chunk.len() + 8);
    let many = stub("many")
        .exec(move |inv| {
            let (big, chunk) = (big.clone(), chunk.clone());
            Box::pin(async move {
                let nested = inv.nested.as_ref().unwrap();
                nested.call("leaf", json!({"s": big}), None).await;
                nested.call("fails", json!({}), None).await;
                for _ in 0..=fits {
                    nested.call("leaf", json!({"s": chunk}), None).await;
                }
                for _ in 0..NESTED_MAX_CALLS {
                    nested.call("leaf", json!({}), None).await;
                }
                ToolResult::success("done")
            })
        })
        .build();
    let fails = stub("fails").exec(|_| Box::pin(async { ToolResult::error("é".repeat(600)) })).build();
    let mut d = dispatcher(vec![many, stub("leaf").build(), fails], vec![]);
    let events = ToolEvents::attach(&mut d);
    let f = d.call(req("m", "many", json!({})), Caller::Model, &ctx()).await;
    assert_eq!(f.result.text_content(), "done");
    let record = f.nested_calls.unwrap();
    assert!(!record.complete);
    assert_eq!(record.calls.len(), NESTED_MAX_CALLS, "extra calls are dropped from the record");
    assert_eq!(record.calls.last().unwrap().id, format!("m/{NESTED_MAX_CALLS}"));
    let starts = events.summary().iter().filter(|s| s.starts_with("start m/")).count();
    assert_eq!(starts, 2 + fits + 1 + NESTED_MAX_CALLS, "every call still ran");

    let c: &[NestedCallEntry] = &record.calls;
    assert_eq!(c[0].arguments, None, "over the per-call limit");
    assert_eq!(c[0].arguments_bytes, Some(NESTED_MAX_ARGUMENT_BYTES_PER_CALL + 1 + 8));
    assert_eq!(c[1].status, NestedStatus::Error);
    assert_eq!(c[1].error.as_ref().unwrap().chars().count(), NESTED_MAX_ERROR_CHARS, "cut in characters");
    assert!(c[2..2 + fits].iter().all(|e| e.arguments.is_some()), "within the total budget");
    assert_eq!(c[2 + fits].arguments, None, "past the total budget");
    assert_eq!(c[2 + fits].arguments_bytes, Some(7008));
    assert!(c[3 + fits].arguments.is_some(), "small arguments still fit");
    assert!(c.iter().all(|e| e.status != NestedStatus::Unfinished));
}

// ------------------------------------------------------------------ usage

fn usage(tokens: u64) -> Value {
    serde_json::to_value(Usage { input: tokens, total_tokens: tokens, ..Default::default() }).unwrap()
}

/// The input and total tokens of a result's usage.
fn tokens(r: &ToolResult) -> Option<(u64, u64)> {
    let u: Usage = serde_json::from_value(r.usage.clone()?).unwrap();
    Some((u.input, u.total_tokens))
}

fn costs(name: &str, tokens: u64) -> StubBuilder {
    stub(name)
        .exec(move |_| Box::pin(async move { ToolResult { usage: Some(usage(tokens)), ..ToolResult::success("") } }))
}

#[tokio::test]
async fn usage_of_nested_results_is_summed_into_the_model_issued_call() {
    let mid = stub("mid")
        .exec(|inv| {
            Box::pin(async move {
                let o = inv.nested.as_ref().unwrap().call("leaf", json!({}), None).await;
                assert_eq!(tokens(&o.result), Some((100, 100)));
                ToolResult { usage: Some(usage(10)), ..ToolResult::success("") }
            })
        })
        .build();
    let outer = stub("outer")
        .exec(|inv| {
            Box::pin(async move {
                let o = inv.nested.as_ref().unwrap().call("mid", json!({}), None).await;
                assert_eq!(tokens(&o.result), Some((10, 10)), "a nested result reports only its own usage");
                ToolResult { usage: Some(usage(1)), ..ToolResult::success("") }
            })
        })
        .build();
    let d = dispatcher(vec![outer, mid, costs("leaf", 100).build()], vec![]);
    let f = d.call(req("m", "outer", json!({})), Caller::Model, &ctx()).await;
    assert_eq!(tokens(&f.result), Some((111, 111)), "1 + 10 + 100, each counted once");

    // A caller without usage of its own gets its nested calls' usage.
    let d = dispatcher(vec![caller("plain").build(), costs("leaf", 100).build()], vec![]);
    let f = d.call(req("m", "plain", calls(&["leaf", "leaf"])), Caller::Model, &ctx()).await;
    assert_eq!(tokens(&f.result), Some((200, 200)));
}

// ------------------------------------------------------------------ sequential callees

#[tokio::test]
async fn nested_calls_to_sequential_tools_wait_for_each_other_but_not_for_their_caller() {
    #[derive(Clone, Default)]
    struct Overlap(Arc<AtomicUsize>, Arc<AtomicUsize>);
    let overlap = |name: &str, o: &Overlap, then: Option<&'static str>| {
        let o = o.clone();
        stub(name).exec(move |inv| {
            let o = o.clone();
            Box::pin(async move {
                let now = o.0.fetch_add(1, Ordering::SeqCst) + 1;
                o.1.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                // A sequential tool's own nested call to another sequential tool.
                let inner = match then {
                    Some(name) => inv.nested.as_ref().unwrap().call(name, json!({}), None).await.result.text_content(),
                    None => String::new(),
                };
                o.0.fetch_sub(1, Ordering::SeqCst);
                ToolResult::success(format!("ok{inner}"))
            })
        })
    };
    let fan_out = |name: &str, target: &'static str| {
        stub(name).exec(move |inv| {
            Box::pin(async move {
                let nested = inv.nested.as_ref().unwrap();
                let (a, b) = futures::join!(nested.call(target, json!({}), None), nested.call(target, json!({}), None));
                ToolResult::success(format!("{} {}", a.result.text_content(), b.result.text_content()))
            })
        })
    };
    let (seq, par) = (Overlap::default(), Overlap::default());
    let tools = vec![
        fan_out("to_seq", "seq").build(),
        fan_out("to_par", "par").build(),
        overlap("seq", &seq, Some("seq_inner")).sequential().build(),
        overlap("seq_inner", &Overlap::default(), None).sequential().build(),
        overlap("par", &par, None).build(),
    ];
    let d = dispatcher(tools, vec![]);
    let run = async {
        let a = d.call(req("m1", "to_seq", json!({})), Caller::Model, &ctx()).await;
        let b = d.call(req("m2", "to_par", json!({})), Caller::Model, &ctx()).await;
        (a, b)
    };
    let (a, b) = tokio::time::timeout(PATIENCE, run).await.expect("a nested call deadlocked");
    assert_eq!(a.result.text_content(), "okok okok");
    assert_eq!(seq.1.load(Ordering::SeqCst), 1, "nested calls to a sequential tool run one at a time");
    assert_eq!(b.result.text_content(), "ok ok");
    assert_eq!(par.1.load(Ordering::SeqCst), 2, "nested calls to a parallel tool overlap");
}

#[tokio::test]
async fn the_record_and_the_summed_usage_travel_on_the_tool_result_message() {
    let d = dispatcher(vec![caller("outer").build(), costs("leaf", 100).build()], vec![]);
    let (mut a, faux, _events) = common::agent("nested-on-the-message", d);
    faux.set_responses(vec![common::calls(&[("m", "outer", calls(&["leaf"]))]), common::says("done")]);
    a.prompt("go").await;
    let message = a
        .messages()
        .iter()
        .find_map(|m| match m {
            pi_agent::AgentMessage::Llm(pi_ai::Message::ToolResult(r)) => Some(r.clone()),
            _ => None,
        })
        .unwrap();
    let record = message.nested_calls.unwrap();
    assert_eq!(record["complete"], true);
    assert_eq!(record["calls"][0]["id"], "m/1");
    assert_eq!(record["calls"][0]["status"], "ok");
    assert_eq!(message.usage.map(|u| u.input), Some(100));
    // Nested calls never reach the transcript: one tool result, the model-issued call's.
    assert_eq!(common::tool_results(&faux.contexts()[1]), ["m: called"]);
}
