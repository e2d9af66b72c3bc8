//! Random arguments for every built-in tool (wrong types, huge strings, NUL
//! bytes, deep nesting, extreme numbers) never panic and never hang: each
//! call is prepared, validated and run like a model's, in a scratch folder,
//! and must come back with a result or an error within a bound.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::time::Duration;

use pi_tools::{ToolContext, ToolName, ToolSpec, args, execute_validated, prepare_arguments};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// How long one call may take (generous: a loaded 2-core machine).
const CALL_BOUND: Duration = Duration::from_secs(20);

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        prop_oneof![Just(f64::MAX), Just(f64::MIN), Just(1e308), Just(-0.0), Just(5e-324), any::<f64>()]
            .prop_map(|f| serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)),
        ".{0,40}".prop_map(Value::String),
        Just(Value::String("a\u{0}b".into())),
        Just(Value::String("x".repeat(300_000))),
        Just(Value::String("../".repeat(2000))),
        Just(Value::String("**/".repeat(5000))),
        Just(Value::String("{a,{b,{c,{d,{e,{f}}}}}}".repeat(2000))),
        Just(Value::String("(((((((((((a)))))))))))*".repeat(500))),
        Just(Value::String("[[[[".into())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Nested arrays `depth` deep.
fn deep(depth: usize) -> Value {
    let mut v = json!([]);
    for _ in 0..depth {
        v = json!([v]);
    }
    v
}

/// An argument object with the tool's own keys set to random values (and
/// sometimes extra keys), so the calls get past the first type check.
fn arguments(tool: ToolName) -> impl Strategy<Value = Value> {
    let keys: Vec<String> = ToolSpec::of(tool).parameters["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    (prop::collection::vec(prop::option::of(value()), keys.len()), prop::option::of(value())).prop_map(
        move |(values, extra)| {
            let mut m = Map::new();
            for (k, v) in keys.iter().zip(values) {
                if let Some(v) = v {
                    m.insert(k.clone(), v);
                }
            }
            if let Some(e) = extra {
                m.insert("extra".into(), e);
            }
            Value::Object(m)
        },
    )
}

/// Run one call like a model's; it must end, without a panic, within the bound.
fn call(tool: ToolName, raw: Value) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ctx = ToolContext::new(dir.path());
    let outcome = rt.block_on(async {
        tokio::time::timeout(CALL_BOUND, async {
            let prepared = prepare_arguments(tool, raw.clone());
            match args::validate(tool.as_str(), &ToolSpec::of(tool).parameters, &prepared) {
                Ok(valid) => execute_validated(tool, valid, &ctx).await.map(|_| ()).map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            }
        })
        .await
    });
    assert!(outcome.is_ok(), "{tool:?} did not finish within {CALL_BOUND:?}: {}", truncate(&raw));
    rt.shutdown_timeout(Duration::from_secs(5));
}

fn truncate(v: &Value) -> String {
    v.to_string().chars().take(300).collect()
}

/// The tools whose calls cannot change anything outside the scratch folder
/// with random arguments (bash and powershell run commands: see below).
const SAFE: [ToolName; 6] =
    [ToolName::Read, ToolName::Edit, ToolName::Write, ToolName::Grep, ToolName::Find, ToolName::Ls];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_arguments_never_panic_or_hang(
        (tool, raw) in prop::sample::select(SAFE.to_vec()).prop_flat_map(|t| (Just(t), arguments(t)))
    ) {
        call(tool, raw);
    }

    #[test]
    fn bash_gets_random_types_and_extreme_timeouts(timeout in value(), other in value()) {
        // The command itself stays harmless (random text is only ever a
        // comment); everything around it is random.
        let typed = if other.is_string() { json!(["not", "a", "command"]) } else { other.clone() };
        for command in [json!("echo ok"), typed, json!(format!("# {}", truncate(&other)))] {
            call(ToolName::Bash, json!({"command": command, "timeout": timeout.clone()}));
        }
    }
}

#[test]
fn deep_nesting_and_huge_values_are_refused_cleanly() {
    for tool in SAFE {
        call(tool, json!({"path": deep(500), "pattern": deep(500), "edits": deep(500)}));
        call(tool, json!({"path": "a.txt", "pattern": "x".repeat(400_000), "content": "y".repeat(2_000_000)}));
        call(tool, json!({"path": "a.txt", "limit": 1e308, "offset": -1e308, "context": f64::MAX}));
    }
}
