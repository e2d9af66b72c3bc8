//! Tests of the first-found walk: complete within the limit, `n` real hits
//! beyond it, never an ignored entry, sorted either way.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::*;
use crate::search::{Flavor, sorted_walk};

/// A tree of 240 files in nested folders, with ignore files at two levels.
fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for i in 0..240 {
        let ext = if i % 2 == 0 { "txt" } else { "rs" };
        let deep = if i % 4 == 0 { "/a/b/c" } else { "" };
        let p = d.path().join(format!("d{}/s{}{deep}/f{i:03}.{ext}", i % 9, i % 3));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "").unwrap();
    }
    std::fs::write(d.path().join(".fdignore"), "s2/\n").unwrap();
    std::fs::write(d.path().join("d1/.gitignore"), "*.rs\n").unwrap();
    d
}

fn spec(root: &Path) -> WalkSpec<'_> {
    WalkSpec { root, flavor: Flavor::Fd, overrides: None, require_git: false }
}

fn txt(e: &DirEntry) -> Option<()> {
    e.path().extension().is_some_and(|x| x == "txt").then_some(())
}

/// Every `.txt` entry the ignore rules keep, in path order (a sorted
/// single-threaded walk).
fn all_txt(root: &Path) -> Vec<PathBuf> {
    sorted_walk(spec(root)).flatten().filter(|e| e.depth() > 0 && txt(e).is_some()).map(|e| e.into_path()).collect()
}

fn paths(found: Vec<(PathBuf, ())>) -> Vec<PathBuf> {
    found.into_iter().map(|(p, ())| p).collect()
}

#[test]
fn within_the_limit_every_hit_is_found_in_path_order() {
    let d = tree();
    let all = all_txt(d.path());
    assert!(all.len() > 50, "{}", all.len());
    assert!(!all.iter().any(|p| p.components().any(|c| c.as_os_str() == "s2")), "the .fdignore rule applies");
    for n in [all.len(), all.len() + 1, 10_000] {
        let got = paths(first_found(spec(d.path()), n, &CancellationToken::new(), txt).unwrap());
        assert_eq!(got, all, "n = {n}");
    }
}

#[test]
fn beyond_the_limit_n_distinct_hits_that_the_rules_keep_sorted() {
    let d = tree();
    let all: HashSet<PathBuf> = all_txt(d.path()).into_iter().collect();
    for n in [1, 2, 7, 40] {
        // Which hits come first depends on the threads; what they are does not.
        for _ in 0..20 {
            let got = paths(first_found(spec(d.path()), n, &CancellationToken::new(), txt).unwrap());
            assert_eq!(got.len(), n);
            assert!(got.windows(2).all(|w| path_cmp(&w[0], &w[1]).is_lt()), "sorted and distinct: {got:?}");
            assert!(got.iter().all(|p| all.contains(p)), "only hits the rules keep: {got:?}");
        }
    }
}

#[test]
fn a_small_flat_folder_answers_with_the_entries_the_walk_meets_first() {
    // One thread lists the folder and meets its entries last listed first
    // (the order fd meets them in); the other has not started looking yet.
    let d = tempfile::tempdir().unwrap();
    for i in 0..12 {
        std::fs::write(d.path().join(format!("f{i}.txt")), "").unwrap();
    }
    let listed: Vec<PathBuf> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().path()).collect();
    let mut expected = listed[listed.len() - 3..].to_vec();
    expected.sort_by(|a, b| path_cmp(a, b));
    // A second thread may start in time to take the oldest entries; then the
    // answer holds other listed names. Of ten runs, one at least is fd's.
    let mut as_fd = 0;
    for _ in 0..10 {
        let got = paths(first_found(spec(d.path()), 3, &CancellationToken::new(), txt).unwrap());
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|p| listed.contains(p)), "{got:?}");
        as_fd += usize::from(got == expected);
    }
    assert!(as_fd > 0, "never the entries listed last: expected {expected:?}");
}

#[test]
fn an_aborted_walk_answers_nothing() {
    let d = tree();
    let t = CancellationToken::new();
    t.cancel();
    assert!(first_found(spec(d.path()), 3, &t, txt).is_none());
}
