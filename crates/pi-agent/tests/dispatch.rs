//! One call through the dispatcher: lookup against the callable set of its
//! caller (X1), refusals before the tool runs (not found, malformed and
//! invalid arguments, blocked), `tool_call` handlers in order with in-place
//! mutation and no re-validation, a failing handler blocks (I2, I3), the
//! live definition and source handed to handlers, `tool_result` patches in
//! order with failing handlers reported, the `Start`/`Update`/`End` events,
//! and terminate requests reported per call.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::sync::{Arc, Mutex};

use common::{Hook, Log, ToolEvents, ctx, dispatcher, logged, req, stub, watcher};
use pi_agent::{Caller, Exposure, Finished, RawArgs, Refusal, ResultPatch, ToolCallDecision, ToolEvent};
use pi_tools::{Annotations, Content, ToolResult};
use serde_json::json;

fn text(f: &Finished) -> String {
    f.result.text_content()
}

/// A refused call: an error result whose whole text is `message`, empty
/// details, no duration.
fn assert_refused(f: &Finished, why: Refusal, message: &str) {
    assert_eq!(f.refusal, Some(why), "{}: {}", f.id, text(f));
    assert!(f.result.is_error);
    assert_eq!(text(f), message);
    assert_eq!(f.result.details, Some(json!({})), "refused calls carry empty details");
    assert_eq!(f.duration_ms, None, "refused calls have no duration");
}

fn assert_ran(f: &Finished) {
    assert_eq!(f.refusal, None, "{}: {}", f.id, text(f));
    assert!(!f.result.is_error, "{}: {}", f.id, text(f));
    assert!(f.duration_ms.is_some(), "a call whose tool ran has a duration");
}

// ------------------------------------------------------------------ lookup

fn every_exposure() -> Vec<Arc<dyn pi_agent::AgentTool>> {
    vec![
        stub("direct").build(),
        stub("idle").inactive().build(),
        stub("model_only").exposure(Exposure::ModelOnly).build(),
        stub("cm").exposure(Exposure::Codemode).build(),
        stub("deferred").exposure(Exposure::Deferred).build(),
        stub("hidden").exposure(Exposure::Hidden).build(),
    ]
}

#[tokio::test]
async fn each_caller_reaches_its_own_callable_set() {
    let d = dispatcher(every_exposure(), vec![]);
    // (tool, reached by the model, reached by a nested call)
    let table = [
        ("direct", true, true),
        ("idle", false, false),
        ("model_only", true, false),
        ("cm", false, true),
        ("deferred", false, true),
        ("hidden", false, false),
    ];
    for (name, by_model, by_tool) in table {
        for (caller, reaches) in [(Caller::Model, by_model), (Caller::Nested, by_tool)] {
            let f = d.call(req("c1", name, json!({})), caller, &ctx()).await;
            if reaches {
                assert_ran(&f);
                assert_eq!(text(&f), format!("{name} {{}}"), "{caller:?} {name}");
            } else {
                assert_refused(&f, Refusal::NotFound, &format!("Tool {name} not found"));
            }
        }
    }
}

#[tokio::test]
async fn an_unknown_tool_is_not_found_and_no_handler_sees_it() {
    let log = Log::default();
    let mut d = dispatcher(vec![logged("echo", &log).build()], vec![watcher("w", &log)]);
    let events = ToolEvents::attach(&mut d);
    let f = d.call(req("c1", "nope", json!({"a": 1})), Caller::Model, &ctx()).await;
    assert_refused(&f, Refusal::NotFound, "Tool nope not found");
    assert_eq!((f.id.as_str(), f.name.as_str()), ("c1", "nope"));
    assert!(log.lines().is_empty(), "neither a handler nor a tool ran: {:?}", log.lines());
    assert_eq!(events.summary(), ["start c1", "end c1"]);
    match &events.all()[1] {
        ToolEvent::End { duration_ms, result, .. } => {
            assert_eq!(*duration_ms, None);
            assert_eq!(result.text_content(), "Tool nope not found");
        }
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------ arguments

#[tokio::test]
async fn arguments_that_did_not_parse_are_refused_before_the_handlers() {
    let log = Log::default();
    let mut d = dispatcher(vec![logged("echo", &log).build()], vec![watcher("w", &log)]);
    let events = ToolEvents::attach(&mut d);
    let detail = "Unexpected end of JSON input\n\nReceived arguments:\n{\"a\":";
    let call = pi_agent::CallRequest {
        id: "c1".into(),
        name: "echo".into(),
        args: RawArgs::Invalid { detail: detail.into() },
        parent: None,
    };
    let f = d.call(call, Caller::Model, &ctx()).await;
    assert_refused(&f, Refusal::InvalidArguments, &format!("Invalid arguments for tool \"echo\": {detail}"));
    assert!(log.lines().is_empty(), "{:?}", log.lines());
    match &events.all()[0] {
        ToolEvent::Start { args, .. } => assert_eq!(args, &json!({}), "unparsed arguments show as {{}}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn arguments_are_coerced_and_validated_before_the_handlers() {
    let log = Log::default();
    let schema = json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]});
    let d = dispatcher(vec![logged("count", &log).params(schema).build()], vec![watcher("w", &log)]);

    let f = d.call(req("c1", "count", json!({"n": "abc"})), Caller::Model, &ctx()).await;
    assert_eq!(f.refusal, Some(Refusal::InvalidArguments));
    assert!(text(&f).starts_with("Validation failed for tool \"count\":"), "{}", text(&f));
    assert!(text(&f).contains("Received arguments:"), "{}", text(&f));
    assert_eq!(f.duration_ms, None);
    let f = d.call(req("c2", "count", json!({})), Caller::Model, &ctx()).await;
    assert_eq!(f.refusal, Some(Refusal::InvalidArguments), "a missing required field: {}", text(&f));
    assert!(log.lines().is_empty(), "no handler saw an invalid call: {:?}", log.lines());

    // A string that reads as a number is coerced; handlers and the tool get the number.
    let f = d.call(req("c3", "count", json!({"n": "5"})), Caller::Model, &ctx()).await;
    assert_ran(&f);
    assert_eq!(log.lines(), ["w call c3", "count ran {\"n\":5}", "w result c3"]);
}

// ------------------------------------------------------------------ tool_call handlers

#[tokio::test]
async fn handlers_run_in_order_and_see_earlier_mutations_without_revalidation() {
    let log = Log::default();
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    let (la, lb) = (log.clone(), log.clone());
    let first = Hook::new("first")
        .on_call(move |ev| {
            la.push(format!("first saw {}", ev.input));
            ev.input["path"] = json!("from-first");
            Ok(None)
        })
        .build();
    let second = Hook::new("second")
        .on_call(move |ev| {
            lb.push(format!("second saw {}", ev.input));
            // Not a string: the schema would refuse it, but nothing validates again.
            ev.input["path"] = json!(7);
            Ok(Some(ToolCallDecision::default()))
        })
        .build();
    let d = dispatcher(vec![logged("open", &log).params(schema).build()], vec![first, second]);
    let f = d.call(req("c1", "open", json!({"path": "orig"})), Caller::Model, &ctx()).await;
    assert_ran(&f);
    assert_eq!(text(&f), "open {\"path\":7}");
    assert_eq!(
        log.lines(),
        ["first saw {\"path\":\"orig\"}", "second saw {\"path\":\"from-first\"}", "open ran {\"path\":7}"]
    );
}

#[tokio::test]
async fn a_block_refuses_the_call_with_its_reason_and_stops_the_chain() {
    let log = Log::default();
    let blocker = Hook::new("gate")
        .on_call(|ev| Ok((ev.tool_name == "rm").then(|| ToolCallDecision::block("rm is not allowed here"))))
        .build();
    let mut d =
        dispatcher(vec![logged("rm", &log).build(), logged("ls", &log).build()], vec![blocker, watcher("later", &log)]);
    let events = ToolEvents::attach(&mut d);
    let f = d.call(req("c1", "rm", json!({"path": "/"})), Caller::Model, &ctx()).await;
    assert_refused(&f, Refusal::Blocked, "rm is not allowed here");
    assert!(!f.terminate);
    assert!(log.lines().is_empty(), "later handlers and the tool did not run: {:?}", log.lines());
    assert_eq!(events.summary(), ["start c1", "end c1"]);

    let f = d.call(req("c2", "ls", json!({})), Caller::Model, &ctx()).await;
    assert_ran(&f);
    assert_eq!(log.lines(), ["later call c2", "ls ran {}", "later result c2"]);
}

#[tokio::test]
async fn a_block_without_a_reason_says_the_call_was_blocked() {
    let log = Log::default();
    let blocker =
        Hook::new("gate").on_call(|_| Ok(Some(ToolCallDecision { block: true, ..Default::default() }))).build();
    let d = dispatcher(vec![logged("echo", &log).build()], vec![blocker]);
    let f = d.call(req("c1", "echo", json!({})), Caller::Model, &ctx()).await;
    assert_refused(&f, Refusal::Blocked, "Tool execution was blocked");
    assert!(log.lines().is_empty());
}

#[tokio::test]
async fn a_failing_handler_blocks_with_its_message() {
    let log = Log::default();
    let broken = Hook::new("broken").on_call(|_| Err("cannot read property 'x' of undefined".into())).build();
    let d = dispatcher(vec![logged("echo", &log).build()], vec![broken, watcher("later", &log)]);
    let f = d.call(req("c1", "echo", json!({})), Caller::Model, &ctx()).await;
    assert_refused(&f, Refusal::Blocked, "cannot read property 'x' of undefined");
    assert!(log.lines().is_empty(), "fail-safe: neither the later handler nor the tool ran: {:?}", log.lines());
}

/// What a handler read: tool, `readOnlyHint`, exposure, source, parent id.
type Seen = (String, Option<bool>, Exposure, String, Option<String>);

#[tokio::test]
async fn handlers_see_the_live_definition_and_the_source() {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let s = seen.clone();
    let spy = Hook::new("spy")
        .on_call(move |ev| {
            s.lock().unwrap().push((
                ev.tool_name.clone(),
                ev.definition.annotations.read_only_hint,
                ev.definition.exposure,
                ev.source.clone(),
                ev.parent_tool_call_id.clone(),
            ));
            Ok(None)
        })
        .build();
    let reader = |hint: bool| {
        stub("peek")
            .exposure(Exposure::ModelOnly)
            .annotations(Annotations { read_only_hint: Some(hint), ..Default::default() })
            .source("/ext/peek.ts")
            .build()
    };
    let mut d = dispatcher(vec![reader(true), stub("plain").build()], vec![spy]);
    d.call(req("c1", "peek", json!({})), Caller::Model, &ctx()).await;
    d.call(req("c2", "plain", json!({})), Caller::Model, &ctx()).await;
    // Registered again with other hints after start-up: handlers read the new ones.
    d.registry.register(reader(false));
    d.call(req("c3", "peek", json!({})), Caller::Model, &ctx()).await;
    let src = |s: &str| s.to_string();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (src("peek"), Some(true), Exposure::ModelOnly, src("/ext/peek.ts"), None),
            (src("plain"), None, Exposure::Direct, src("builtin:plain"), None),
            (src("peek"), Some(false), Exposure::ModelOnly, src("/ext/peek.ts"), None),
        ]
    );
}

// ------------------------------------------------------------------ tool_result handlers

#[tokio::test]
async fn tool_result_handlers_patch_the_result_in_order() {
    let seen = Log::default();
    let tool = stub("calc")
        .exec(|_| {
            Box::pin(async {
                ToolResult {
                    structured: Some(json!({"sum": 3})),
                    ..ToolResult::success("3").with_details(json!({"k": 1}))
                }
            })
        })
        .build();
    let (s1, s2, s3) = (seen.clone(), seen.clone(), seen.clone());
    let a = Hook::new("a")
        .on_result(move |ev| {
            s1.push(format!("a: {:?} {:?} {} input {}", ev.content, ev.details, ev.is_error, ev.input));
            Ok(Some(ResultPatch { content: Some(vec![Content::Text { text: "three".into() }]), ..Default::default() }))
        })
        .build();
    let b = Hook::new("b")
        .on_result(move |ev| {
            s2.push(format!("b: {:?}", ev.content));
            Ok(Some(ResultPatch { details: Some(Some(json!({"by": "b"}))), ..Default::default() }))
        })
        .build();
    let c = Hook::new("c")
        .on_result(move |ev| {
            s3.push(format!("c: {:?} {}", ev.details, ev.is_error));
            Ok(Some(ResultPatch { is_error: Some(true), ..Default::default() }))
        })
        .build();
    let d = dispatcher(vec![tool], vec![a, b, c]);
    let f = d.call(req("c1", "calc", json!({"x": 1})), Caller::Model, &ctx()).await;
    assert_eq!(
        seen.lines(),
        [
            "a: [Text { text: \"3\" }] Some(Object {\"k\": Number(1)}) false input {\"x\":1}",
            "b: [Text { text: \"three\" }]",
            "c: Some(Object {\"by\": String(\"b\")}) false",
        ]
    );
    assert_eq!(f.result.content, vec![Content::Text { text: "three".into() }]);
    assert_eq!(f.result.details, Some(json!({"by": "b"})));
    assert!(f.result.is_error, "the last patch made it an error");
    assert_eq!(f.result.structured, None, "replaced content drops the structured output that matched the old one");
    assert!(f.duration_ms.is_some() && f.refusal.is_none());
}

#[tokio::test]
async fn a_failing_tool_result_handler_is_reported_and_the_result_kept() {
    let seen = Log::default();
    let s = seen.clone();
    let failing = Hook::new("/ext/failing.ts").on_result(|_| Err("boom".into())).build();
    let half = Hook::new("/ext/half.ts")
        .on_result(|_| {
            Ok(Some(ResultPatch {
                content: Some(vec![Content::Text { text: "from half".into() }]),
                errors: vec!["second handler failed".into()],
                ..Default::default()
            }))
        })
        .build();
    let last = Hook::new("last")
        .on_result(move |ev| {
            s.push(format!("last saw {:?}", ev.content));
            Ok(None)
        })
        .build();
    let mut d = dispatcher(vec![stub("echo").build()], vec![failing, half, last]);
    let events = ToolEvents::attach(&mut d);
    let f = d.call(req("c1", "echo", json!({})), Caller::Model, &ctx()).await;
    assert_ran(&f);
    assert_eq!(text(&f), "from half", "the rest of a partly failing patch applies");
    assert_eq!(seen.lines(), ["last saw [Text { text: \"from half\" }]"], "handlers after a failing one still run");
    assert_eq!(events.summary(), ["start c1", "handler_error /ext/failing.ts", "handler_error /ext/half.ts", "end c1"]);
    let errors: Vec<(String, String, String)> = events
        .all()
        .into_iter()
        .filter_map(|e| match e {
            ToolEvent::HandlerError { source, event, error } => Some((source, event, error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        errors,
        [
            ("/ext/failing.ts".into(), "tool_result".into(), "boom".into()),
            ("/ext/half.ts".into(), "tool_result".into(), "second handler failed".into()),
        ]
    );
}

#[tokio::test]
async fn a_failing_tool_returns_its_error_to_the_model() {
    let d = dispatcher(vec![stub("bad").exec(|_| Box::pin(async { ToolResult::thrown("disk full") })).build()], vec![]);
    let f = d.call(req("c1", "bad", json!({})), Caller::Model, &ctx()).await;
    assert!(f.result.is_error);
    assert_eq!(text(&f), "disk full");
    assert_eq!(f.refusal, None, "the tool ran");
    assert!(f.duration_ms.is_some());
}

// ------------------------------------------------------------------ events

#[tokio::test]
async fn start_updates_and_end_are_emitted_in_order() {
    let tool = stub("stream")
        .exec(|inv| {
            Box::pin(async move {
                let update = inv.ctx.on_update.clone().unwrap();
                update(&ToolResult::success("one"));
                update(&ToolResult::success("two"));
                ToolResult::success("done")
            })
        })
        .build();
    let mut d = dispatcher(vec![tool], vec![]);
    let events = ToolEvents::attach(&mut d);
    let f = d.call(req("c1", "stream", json!({"q": 1})), Caller::Model, &ctx()).await;
    assert_ran(&f);
    let all = events.all();
    assert_eq!(events.summary(), ["start c1", "update c1", "update c1", "end c1"]);
    match &all[0] {
        ToolEvent::Start { id, name, args, parent } => {
            assert_eq!((id.as_str(), name.as_str(), args, parent), ("c1", "stream", &json!({"q": 1}), &None));
        }
        other => panic!("{other:?}"),
    }
    let partials: Vec<String> = all
        .iter()
        .filter_map(|e| match e {
            ToolEvent::Update { partial, args, .. } => Some(format!("{} {args}", partial.text_content())),
            _ => None,
        })
        .collect();
    assert_eq!(partials, ["one {\"q\":1}", "two {\"q\":1}"]);
    match &all[3] {
        ToolEvent::End { result, duration_ms, .. } => {
            assert_eq!(result.text_content(), "done");
            assert_eq!(*duration_ms, f.duration_ms);
            assert!(duration_ms.is_some());
        }
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------ terminate

#[tokio::test]
async fn terminate_requests_are_reported_on_each_call() {
    let terminate = |block: bool| ToolCallDecision { block, reason: None, terminate: true };
    let asks = Hook::new("asks")
        .on_call(move |ev| {
            Ok(match ev.tool_name.as_str() {
                "by_handler" => Some(terminate(false)),
                "blocked" => Some(terminate(true)),
                _ => None,
            })
        })
        .build();
    let by_tool = stub("by_tool")
        .exec(|inv| {
            Box::pin(async move {
                inv.terminate.unwrap().store(true, std::sync::atomic::Ordering::Relaxed);
                ToolResult::success("bye")
            })
        })
        .build();
    let tools = vec![stub("plain").build(), stub("by_handler").build(), stub("blocked").build(), by_tool];
    let d = dispatcher(tools, vec![asks]);
    let mut out: Vec<(String, bool)> = Vec::new();
    for name in ["plain", "by_handler", "blocked", "by_tool"] {
        let f = d.call(req(name, name, json!({})), Caller::Model, &ctx()).await;
        out.push((name.into(), f.terminate));
    }
    // As the reference: a handler's `terminate` counts only with a block.
    let expected: Vec<(String, bool)> = [("plain", false), ("by_handler", false), ("blocked", true), ("by_tool", true)]
        .iter()
        .map(|(n, t)| (n.to_string(), *t))
        .collect();
    assert_eq!(out, expected);
    let f = d.call(req("b", "blocked", json!({})), Caller::Model, &ctx()).await;
    assert_refused(&f, Refusal::Blocked, "Tool execution was blocked");
}
