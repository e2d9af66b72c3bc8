//! Pruning: by age, by the store's size (oldest sessions first, never the
//! session running, never one younger than the grace), and on its own at
//! most once a day.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::time::Duration;

use pi_checkpoints::{Kind, Record, Store};

/// A file of `bytes` that does not compress (git would pack a repeated one to nothing).
fn noise(dir: &Path, name: &str, bytes: usize, seed: u64) {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let data: Vec<u8> = (0..bytes)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(dir.join(name), data).unwrap();
}

fn store_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| if e.file_type().unwrap().is_dir() { store_bytes(&e.path()) } else { e.metadata().unwrap().len() })
        .sum()
}

#[test]
fn a_store_over_its_cap_drops_its_oldest_sessions_first_but_never_the_running_one() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    for (i, session) in ["first", "second", "third"].iter().enumerate() {
        // Each session holds a megabyte no other holds.
        for f in std::fs::read_dir(work.path()).unwrap().flatten() {
            std::fs::remove_file(f.path()).unwrap();
        }
        noise(work.path(), &format!("{session}.bin"), 1 << 20, i as u64 + 1);
        store.snapshot(Record::new(Kind::Before, session)).unwrap();
        std::thread::sleep(Duration::from_millis(1100)); // whole seconds tell them apart
    }
    let full = store_bytes(store.dir());
    assert!(full > 3 << 20, "{full}");
    assert!(store.prune_to_size(full, "third", Duration::ZERO).unwrap().is_empty(), "under the cap: nothing goes");
    // A cap the store fits into once one session's megabyte is gone.
    let cap = full - (1 << 20) + (256 << 10);
    assert_eq!(store.prune_to_size(cap, "third", Duration::ZERO).unwrap(), ["first"]);
    assert!(store_bytes(store.dir()) <= cap);
    assert_eq!(store.sessions().unwrap(), ["third", "second"]);
    // A cap nothing fits under: every session but the running one goes.
    assert_eq!(store.prune_to_size(1, "third", Duration::ZERO).unwrap(), ["second"]);
    assert_eq!(store.sessions().unwrap(), ["third"]);
    assert_eq!(store.history("third").unwrap().len(), 1);
    // Sessions younger than the grace are never dropped by size.
    store.snapshot(Record::new(Kind::Before, "fourth")).unwrap();
    assert!(store.prune_to_size(1, "third", Duration::from_secs(3600)).unwrap().is_empty());
}

#[test]
fn pruning_on_its_own_happens_once_a_day_and_keeps_the_running_session() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(work.path().join("a.txt"), "alpha\n").unwrap();
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    store.snapshot(Record::new(Kind::Before, "running")).unwrap();
    store.snapshot(Record::new(Kind::Before, "other")).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    // keepDays 0: everything older than now goes, but the running session stays.
    assert_eq!(store.auto_prune(0, 2048, "running").unwrap(), ["other"]);
    assert_eq!(store.sessions().unwrap(), ["running"]);
    // Not again within the day.
    store.snapshot(Record::new(Kind::Before, "later")).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    assert!(store.auto_prune(0, 2048, "running").unwrap().is_empty());
    assert_eq!(store.sessions().unwrap().len(), 2);
}

#[test]
fn an_index_naming_pruned_objects_starts_again() {
    let (agent, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(work.path().join("a.txt"), "alpha\n").unwrap();
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    // Staged for a turn that changed nothing: in the index, in no checkpoint.
    store.stage_tree("s1").unwrap();
    store.snapshot(Record::new(Kind::Before, "s2")).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    store.prune_older_than_with_grace(Duration::ZERO, Duration::ZERO).unwrap();
    // s1's index names a blob git has removed: its next snapshot still works.
    let snap = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    std::fs::write(work.path().join("a.txt"), "changed\n").unwrap();
    let after = store.snapshot(Record { of: Some(snap.id.clone()), ..Record::new(Kind::After, "s1") }).unwrap();
    assert_eq!(store.changes(&snap.id, &after.id).unwrap(), ["a.txt"]);
    pi_checkpoints::undo(&store, "s1", false).unwrap();
    assert_eq!(std::fs::read_to_string(work.path().join("a.txt")).unwrap(), "alpha\n");
}
