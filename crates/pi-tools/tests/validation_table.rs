//! Coercion and validation compared case by case with the reference's
//! validator: `tests/fixtures/validation_cases.json` holds, for each schema and
//! arguments, what Pi 1.6.0's `validateToolArguments` returned (the coerced
//! arguments, or the error text). Regenerate it with the script in
//! docs/side-by-side.md after changing the cases.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::Value;

#[test]
fn every_case_gives_the_references_answer() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/validation_cases.json")).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 80);
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let got = pi_tools::args::validate("t", &case["schema"], &case["args"]);
        let ok = match (&got, case.get("ok"), case.get("error")) {
            (Ok(v), Some(want), None) => v == want,
            (Err(e), None, Some(Value::String(want))) => e.to_string() == *want,
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "case {i}: schema {} args {}\n  want: {}\n  got:  {}",
                case["schema"],
                case["args"],
                case.get("ok").map(|v| format!("ok {v}")).unwrap_or_else(|| case["error"].to_string()),
                match &got {
                    Ok(v) => format!("ok {v}"),
                    Err(e) => format!("{:?}", e.to_string()),
                }
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
