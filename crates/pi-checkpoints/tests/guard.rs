//! The guard as the agent drives it: the folder staged at a turn's start
//! becomes the turn's `before` checkpoint, a staged folder from an earlier
//! turn is never used (a change the user made since would count as the
//! turn's), the `after` snapshot is there once the run settles, and a guard
//! that cannot keep checkpoints says so once and lets the calls run.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::sync::{Arc, Mutex};

use pi_checkpoints::{Checkpoints, Kind, Store};
use pi_tools::{ChangeGuard, ToolContext};

fn ctx(work: &Path, session: &str) -> ToolContext {
    let mut c = ToolContext::new(work);
    c.session.session_id = Some(session.to_string());
    c
}

fn guard(agent: &Path) -> (Checkpoints, Arc<Mutex<Vec<String>>>) {
    let told = Arc::new(Mutex::new(Vec::new()));
    let sink = told.clone();
    (Checkpoints::new(agent.to_path_buf(), 10, Arc::new(move |m: String| sink.lock().unwrap().push(m))), told)
}

/// Let the turn's background staging run.
async fn staged(_g: &Checkpoints) {
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_staged_at_its_start_is_checkpointed_and_undone() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(work.path().join("a.txt"), "alpha\n").unwrap();
    let (g, told) = guard(agent.path());
    let c = ctx(work.path(), "s1");
    g.turn_started(&c, true);
    staged(&g).await;
    g.before_change(&c).await;
    std::fs::write(work.path().join("a.txt"), "changed\n").unwrap();
    std::fs::write(work.path().join("b.txt"), "new\n").unwrap();
    g.before_change(&c).await; // a second call of the turn: no second checkpoint
    g.turn_ended(&c, Some("entry1")).await;
    g.settle().await;
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    let history = store.history("s1").unwrap();
    let kinds: Vec<Kind> = history.iter().map(|s| s.record.kind).collect();
    assert_eq!(kinds, [Kind::Before, Kind::After]);
    assert_eq!(history[1].record.entry.as_deref(), Some("entry1"));
    assert_eq!(store.changes(&history[0].id, &history[1].id).unwrap(), ["a.txt", "b.txt"]);
    pi_checkpoints::undo(&store, "s1", false).unwrap();
    assert_eq!(std::fs::read_to_string(work.path().join("a.txt")).unwrap(), "alpha\n");
    assert!(!work.path().join("b.txt").exists());
    assert!(told.lock().unwrap().is_empty(), "{:?}", told.lock().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_staged_for_an_earlier_turn_is_not_this_turns_before() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(work.path().join("a.txt"), "alpha\n").unwrap();
    let (g, _) = guard(agent.path());
    let c = ctx(work.path(), "s1");
    g.turn_started(&c, true); // a turn that changes nothing: staged, never used
    staged(&g).await;
    g.turn_ended(&c, None).await;
    std::fs::write(work.path().join("mine.txt"), "the user's\n").unwrap();
    g.turn_started(&c, true);
    g.before_change(&c).await; // at once: its own turn's staging or a snapshot of its own
    std::fs::write(work.path().join("a.txt"), "changed\n").unwrap();
    g.turn_ended(&c, None).await;
    g.settle().await;
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    let history = store.history("s1").unwrap();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(store.changes(&history[0].id, &history[1].id).unwrap(), ["a.txt"], "the user's file is not the turn's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guard_that_cannot_keep_checkpoints_says_so_once() {
    let agent = tempfile::tempdir().unwrap();
    let (g, told) = guard(agent.path());
    let c = ctx(Path::new("/"), "s1");
    for _ in 0..3 {
        g.turn_started(&c, true);
        g.before_change(&c).await;
        g.turn_ended(&c, None).await;
    }
    g.settle().await;
    let told = told.lock().unwrap();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("Checkpoints are off in /"), "{told:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_that_cannot_change_files_stage_nothing() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(work.path().join("a.txt"), "alpha\n").unwrap();
    let (g, _) = guard(agent.path());
    let c = ctx(work.path(), "s1");
    for _ in 0..3 {
        g.turn_started(&c, false);
        g.turn_ended(&c, None).await;
    }
    staged(&g).await;
    assert!(!agent.path().join("checkpoints").exists(), "no store was even opened");
}

/// A first run in `work`: one turn that changes `a.txt` (alpha → one), settled.
async fn first_run(g: &Checkpoints, c: &ToolContext, work: &Path) {
    std::fs::write(work.join("a.txt"), "alpha\n").unwrap();
    g.turn_started(c, true);
    g.before_change(c).await;
    std::fs::write(work.join("a.txt"), "one\n").unwrap();
    g.turn_ended(c, Some("e1")).await;
    g.settle().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_continuing_its_run_starts_from_the_last_turns_after() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (g, told) = guard(agent.path());
    let c = ctx(work.path(), "s1");
    first_run(&g, &c, work.path()).await;
    // Written between the turns (a moment, in a real run): seen only by a
    // walk of the folder, which a continuing turn does not make.
    std::fs::write(work.path().join("gap.txt"), "between\n").unwrap();
    g.turn_continued(&c, true); // the tool results go back at once: no walk of its own
    g.before_change(&c).await;
    std::fs::write(work.path().join("b.txt"), "two\n").unwrap();
    g.turn_ended(&c, Some("e2")).await;
    g.settle().await;
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    let history = store.history("s1").unwrap();
    let kinds: Vec<Kind> = history.iter().map(|s| s.record.kind).collect();
    assert_eq!(kinds, [Kind::Before, Kind::After, Kind::Before, Kind::After]);
    let tree = |id: &str| {
        let out = std::process::Command::new("git")
            .args(["--git-dir", store.dir().to_str().unwrap(), "rev-parse", &format!("{id}^{{tree}}")])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(tree(&history[1].id), tree(&history[2].id), "the second turn's before is the first's after");
    assert_eq!(store.changes(&history[2].id, &history[3].id).unwrap(), ["b.txt", "gap.txt"]);
    pi_checkpoints::undo(&store, "s1", false).unwrap();
    assert!(!work.path().join("b.txt").exists());
    assert_eq!(std::fs::read_to_string(work.path().join("a.txt")).unwrap(), "one\n");
    assert!(told.lock().unwrap().is_empty(), "{:?}", told.lock().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_run_does_not_start_from_the_last_runs_after() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (g, _) = guard(agent.path());
    let c = ctx(work.path(), "s1");
    first_run(&g, &c, work.path()).await;
    // Between runs the user writes a file of their own.
    std::fs::write(work.path().join("mine.txt"), "the user's\n").unwrap();
    g.turn_started(&c, true);
    g.before_change(&c).await; // at once, before its own staging may be done
    std::fs::write(work.path().join("b.txt"), "two\n").unwrap();
    g.turn_ended(&c, Some("e2")).await;
    g.settle().await;
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    let history = store.history("s1").unwrap();
    assert_eq!(history.len(), 4, "{history:?}");
    assert_eq!(store.changes(&history[2].id, &history[3].id).unwrap(), ["b.txt"], "the user's file is not the turn's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_prunes_the_store_when_it_first_uses_it() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(work.path().join("a.txt"), "alpha\n").unwrap();
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    store.snapshot(pi_checkpoints::Record::new(Kind::Before, "stale")).unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (g, told) = guard(agent.path());
    let g = g.pruning(0, 2048); // keepDays 0: anything older than now goes
    let c = ctx(work.path(), "s1");
    g.turn_started(&c, true);
    g.before_change(&c).await;
    g.turn_ended(&c, None).await;
    g.settle().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while store.sessions().unwrap().contains(&"stale".to_string()) && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(store.sessions().unwrap(), ["s1"], "the stale session went, the running one stayed");
    assert!(told.lock().unwrap().is_empty(), "{:?}", told.lock().unwrap());
}
