//! The calls of one assistant message (`Dispatcher::batch`): `tool_call`
//! handlers see them in call order before any runs, the tools run in
//! parallel and the results come back in call order (refused calls keep
//! their place), and one sequential tool makes the whole batch run one call
//! at a time.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Hook, Log, PATIENCE, StubBuilder, ToolEvents, ctx, dispatcher, logged, req, stub, watcher};
use pi_agent::{Refusal, ToolCallDecision};
use pi_tools::ToolResult;
use serde_json::json;
use tokio::sync::{Barrier, Notify};

#[tokio::test]
async fn handlers_see_every_call_in_order_before_any_tool_runs() {
    let log = Log::default();
    let mut d = dispatcher(
        vec![logged("a", &log).build(), logged("b", &log).build(), logged("c", &log).build()],
        vec![watcher("h", &log)],
    );
    let events = ToolEvents::attach(&mut d);
    let out = d.batch(vec![req("1", "c", json!({})), req("2", "a", json!({})), req("3", "b", json!({}))], &ctx()).await;
    let lines = log.lines();
    assert_eq!(lines[..3], ["h call 1", "h call 2", "h call 3"], "{lines:?}");
    assert!(lines[3..].iter().all(|l| !l.contains(" call ")), "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.contains(" ran ")).count(), 3);
    assert_eq!(events.summary()[..3], ["start 1", "start 2", "start 3"]);
    let ids: Vec<&str> = out.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3"]);
}

/// A tool that waits (at most [`PATIENCE`]) until its sibling has started too.
fn meets(name: &str, barrier: &Arc<Barrier>, after: Option<Arc<Notify>>, done: Arc<Notify>, log: &Log) -> StubBuilder {
    let (barrier, log, n) = (barrier.clone(), log.clone(), name.to_string());
    stub(name).exec(move |_| {
        let (barrier, after, done, log, n) = (barrier.clone(), after.clone(), done.clone(), log.clone(), n.clone());
        Box::pin(async move {
            if tokio::time::timeout(PATIENCE, barrier.wait()).await.is_err() {
                return ToolResult::error(format!("{n}: the sibling never started (calls ran one at a time)"));
            }
            if let Some(after) = after
                && tokio::time::timeout(PATIENCE, after.notified()).await.is_err()
            {
                return ToolResult::error(format!("{n}: the sibling never finished"));
            }
            log.push(format!("{n} finished"));
            done.notify_one();
            ToolResult::success(format!("{n} ok"))
        })
    })
}

#[tokio::test]
async fn siblings_run_in_parallel_and_answer_in_call_order() {
    let log = Log::default();
    let barrier = Arc::new(Barrier::new(2));
    let (second_done, unused) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    // The first call waits for the second to start and then to finish: it
    // finishes last but is answered first.
    let first = meets("first", &barrier, Some(second_done.clone()), unused, &log).build();
    let second = meets("second", &barrier, None, second_done, &log).build();
    let d = dispatcher(vec![first, second], vec![]);
    let out = d.batch(vec![req("1", "first", json!({})), req("2", "second", json!({}))], &ctx()).await;
    let answers: Vec<(String, String, bool)> =
        out.iter().map(|f| (f.id.clone(), f.result.text_content(), f.result.is_error)).collect();
    assert_eq!(answers, [("1".into(), "first ok".into(), false), ("2".into(), "second ok".into(), false)]);
    assert_eq!(log.lines(), ["second finished", "first finished"], "they finished in the other order");
}

#[tokio::test]
async fn refused_calls_keep_their_place_among_the_results() {
    let log = Log::default();
    let gate =
        Hook::new("gate").on_call(|ev| Ok((ev.tool_name == "guarded").then(|| ToolCallDecision::block("no")))).build();
    let d = dispatcher(vec![logged("ok", &log).build(), logged("guarded", &log).build()], vec![gate]);
    let out = d
        .batch(
            vec![
                req("1", "ok", json!({"n": 1})),
                req("2", "missing", json!({})),
                req("3", "guarded", json!({})),
                req("4", "ok", json!({"n": 4})),
            ],
            &ctx(),
        )
        .await;
    let got: Vec<(&str, Option<Refusal>, String)> =
        out.iter().map(|f| (f.id.as_str(), f.refusal, f.result.text_content())).collect();
    assert_eq!(
        got,
        [
            ("1", None, "ok {\"n\":1}".to_string()),
            ("2", Some(Refusal::NotFound), "Tool missing not found".to_string()),
            ("3", Some(Refusal::Blocked), "no".to_string()),
            ("4", None, "ok {\"n\":4}".to_string()),
        ]
    );
}

/// Tools that count how many of them run at once.
#[derive(Clone, Default)]
struct Overlap {
    now: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl Overlap {
    fn tool(&self, name: &str, log: &Log) -> StubBuilder {
        let (o, log, n) = (self.clone(), log.clone(), name.to_string());
        stub(name).exec(move |_| {
            let (o, log, n) = (o.clone(), log.clone(), n.clone());
            Box::pin(async move {
                let now = o.now.fetch_add(1, Ordering::SeqCst) + 1;
                o.most.fetch_max(now, Ordering::SeqCst);
                log.push(format!("{n} started"));
                // Long enough for every sibling running beside it to start.
                tokio::time::sleep(Duration::from_millis(20)).await;
                o.now.fetch_sub(1, Ordering::SeqCst);
                log.push(format!("{n} ended"));
                ToolResult::success(n)
            })
        })
    }
    fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}

#[tokio::test]
async fn one_sequential_tool_makes_the_batch_run_one_call_at_a_time() {
    let log = Log::default();
    let o = Overlap::default();
    let d = dispatcher(
        vec![o.tool("p1", &log).build(), o.tool("seq", &log).sequential().build(), o.tool("p2", &log).build()],
        vec![],
    );
    let out =
        d.batch(vec![req("1", "p1", json!({})), req("2", "seq", json!({})), req("3", "p2", json!({}))], &ctx()).await;
    assert_eq!(o.most(), 1, "one call at a time: {:?}", log.lines());
    assert_eq!(log.lines(), ["p1 started", "p1 ended", "seq started", "seq ended", "p2 started", "p2 ended"]);
    let texts: Vec<String> = out.iter().map(|f| f.result.text_content()).collect();
    assert_eq!(texts, ["p1", "seq", "p2"]);

    // The same parallel tools without the sequential one overlap (the counter works).
    let log = Log::default();
    let o = Overlap::default();
    let d = dispatcher(vec![o.tool("p1", &log).build(), o.tool("p2", &log).build()], vec![]);
    d.batch(vec![req("1", "p1", json!({})), req("2", "p2", json!({}))], &ctx()).await;
    assert_eq!(o.most(), 2, "{:?}", log.lines());
}
