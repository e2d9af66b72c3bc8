//! A turn's work follows what is new, not the history: the compaction check
//! before each request estimates only the messages after the last answer
//! that reported its usage, whether the conversation holds 20 turns or 400.
//! (One test in its own binary: the estimate counter is the process's.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::*;
use pi_agent::compaction::estimated_so_far;
use serde_json::json;

/// Messages estimated while ten more tool-call turns run after `history` of them.
async fn estimated_for_ten_turns_after(history: usize) -> u64 {
    let log = Log::default();
    let d = dispatcher(vec![logged("echo", &log).build()], vec![]);
    let (mut a, faux, _events) = agent(&format!("turn-cost-{history}"), d);
    let turns = |prefix: &str, n: usize| {
        let mut script: Vec<_> =
            (0..n).map(|i| calls(&[(format!("{prefix}{i}").as_str(), "echo", json!({"i": i}))])).collect();
        script.push(says("ok"));
        script
    };
    faux.set_responses(turns("h", history));
    a.prompt("build a history").await.unwrap();
    assert_eq!(a.messages().len(), 2 * history + 2);
    let before = estimated_so_far();
    faux.set_responses(turns("n", 10));
    a.prompt("ten more").await.unwrap();
    estimated_so_far() - before
}

#[tokio::test]
async fn the_compaction_check_of_a_turn_does_not_grow_with_the_history() {
    let short = estimated_for_ten_turns_after(20).await;
    let long = estimated_for_ten_turns_after(400).await;
    // Each check estimates the few messages after the last answer (the
    // prompt, a tool result), never the whole conversation again.
    assert!(short <= 40, "{short} messages estimated for 10 turns");
    assert_eq!(short, long, "the same work after 20 turns ({short}) as after 400 ({long})");
}
