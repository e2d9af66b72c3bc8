//! The tree as JSON text: small random trees match a plain recursive build;
//! deep ones (chains with branches, as long as 100,000 entries) are written
//! without overflowing the stack, every node once, nested as deep as the chain.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use proptest::prelude::*;
use serde_json::{Value, json};

use super::Session;

/// A session whose entry `i` hangs under `parents[i]` (an earlier entry), or
/// is a root (`None`); labels on the entries in `labelled`.
fn session(parents: &[Option<usize>], labelled: &[usize]) -> (Session, Vec<String>) {
    let mut s = Session::in_memory();
    let mut ids: Vec<String> = Vec::new();
    for p in parents {
        let leaf = p.map(|p| ids[p].clone());
        s.set_leaf(leaf.as_deref()).unwrap();
        ids.push(s.append("custom", json!({"customType": "t", "data": ids.len()})).unwrap());
    }
    for &l in labelled {
        let leaf = ids.last().cloned();
        s.set_leaf(leaf.as_deref()).unwrap();
        s.append("label", json!({"targetId": ids[l], "label": format!("label {l}")})).unwrap();
    }
    (s, ids)
}

/// The tree built recursively from the entries (the expected shape).
fn expected(s: &Session) -> Value {
    let labels = s.labels();
    let known = |p: &str| s.get(p).is_some();
    fn node(s: &Session, i: usize, labels: &std::collections::HashMap<String, (String, String)>) -> Value {
        let e = &s.entries()[i];
        let kids: Vec<Value> = (0..s.entries().len())
            .filter(|&k| s.entries()[k].parent_id() == Some(e.id()))
            .map(|k| node(s, k, labels))
            .collect();
        let mut v = json!({"entry": e.value(), "children": kids});
        if let Some((l, at)) = labels.get(e.id()) {
            v["label"] = json!(l);
            v["labelTimestamp"] = json!(at);
        }
        v
    }
    let roots = (0..s.entries().len()).filter(|&i| !s.entries()[i].parent_id().is_some_and(known));
    Value::Array(roots.map(|i| node(s, i, &labels)).collect())
}

/// Nodes written and the deepest array nesting, read from the text.
fn shape(text: &str) -> (usize, usize) {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for c in text.chars() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') => in_string = false,
            (true, false, _) => {}
            (false, _, '"') => in_string = true,
            (false, _, '[') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, ']') => depth -= 1,
            _ => {}
        }
    }
    assert_eq!(depth, 0, "balanced");
    (text.matches("{\"entry\":").count(), deepest)
}

/// Parents: mostly the entry before (a chain), sometimes an earlier one
/// (a branch) or none (another root).
fn parents(max: usize) -> impl Strategy<Value = Vec<Option<usize>>> {
    prop::collection::vec((0u8..20, any::<prop::sample::Index>()), 1..max).prop_map(|picks| {
        picks
            .iter()
            .enumerate()
            .map(|(i, (kind, at))| match (i, kind) {
                (0, _) | (_, 0) => None,
                (_, 1..=3) => Some(at.index(i)),
                _ => Some(i - 1),
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn small_trees_match_a_recursive_build(parents in parents(40), labelled in prop::collection::vec(0usize..40, 0..4)) {
        let labelled: Vec<usize> = labelled.into_iter().filter(|&l| l < parents.len()).collect();
        let (s, _) = session(&parents, &labelled);
        let got: Value = serde_json::from_str(&s.tree_json()).unwrap();
        prop_assert_eq!(got, expected(&s));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn deep_trees_are_written_whole(parents in parents(20_000)) {
        let (s, _) = session(&parents, &[]);
        let (nodes, deepest) = shape(&s.tree_json());
        prop_assert_eq!(nodes, parents.len());
        // The deepest chain: each entry one level below its parent.
        let mut depth = vec![0usize; parents.len()];
        for (i, p) in parents.iter().enumerate() {
            depth[i] = p.map_or(1, |p| depth[p] + 1);
        }
        let want = depth.iter().max().copied().unwrap_or(0);
        // The roots' array, then one children array per level.
        prop_assert_eq!(deepest, want + 1);
    }
}

#[test]
fn a_chain_of_a_hundred_thousand_entries_is_written_without_recursion() {
    const N: usize = 100_000;
    let parents: Vec<Option<usize>> = (0..N).map(|i| i.checked_sub(1)).collect();
    let (s, ids) = session(&parents, &[N - 1]);
    let text = s.tree_json();
    // Every entry and the label entry under the last, each a level deeper.
    assert_eq!(shape(&text), (N + 1, N + 2));
    assert!(text.contains("\"label\":\"label 99999\""), "the last entry's label");
    assert!(text.starts_with("[{\"entry\":{") && text[..200].contains(&ids[0]), "{}", &text[..200]);
}
