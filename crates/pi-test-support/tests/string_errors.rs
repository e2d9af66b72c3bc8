//! Errors as strings, accounted for: library crates return typed errors
//! (`thiserror`), and a `Result<_, String>` in non-test code (a file read up
//! to its first `#[cfg(test)]`; `*tests.rs` files left out) is allowed only
//! at a boundary where a string is the contract (a JavaScript exception's
//! text, an RPC response's `error`), with a `// String error:` comment
//! within the few lines above it saying so. At most [`CEILING`] of them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

/// At most this many `Result<_, String>` in the workspace's non-test code.
const CEILING: usize = 7;

/// How many lines above an occurrence its `// String error:` comment may be.
const COMMENT_REACH: usize = 4;

fn crates() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every occurrence: `(file under crates/, line number, whether a
/// `// String error:` comment is within reach above it)`.
fn occurrences() -> Vec<(String, usize, bool)> {
    let mut out = Vec::new();
    for (rel, code) in pi_test_support::sources::non_test_sources(&crates()) {
        let lines: Vec<&str> = code.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let n = string_results(line);
            if n == 0 {
                continue;
            }
            let from = i.saturating_sub(COMMENT_REACH);
            let said = lines[from..i].iter().any(|l| l.trim_start().starts_with("// String error:"));
            for _ in 0..n {
                out.push((rel.clone(), i + 1, said));
            }
        }
    }
    out.sort();
    out
}

/// How many `Result<…, String>` a line names (comments aside).
fn string_results(line: &str) -> usize {
    let code = line.split("//").next().unwrap_or_default();
    let mut count = 0;
    let mut rest = code;
    while let Some(at) = rest.find("Result<") {
        rest = &rest[at + "Result<".len()..];
        // The type's arguments: up to the `>` that closes this `Result<`.
        let mut depth = 1;
        let mut end = None;
        for (j, c) in rest.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let args = &rest[..end];
        // The last top-level argument is the error type.
        let mut depth = 0;
        let mut last = 0;
        for (j, c) in args.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => last = j + 1,
                _ => {}
            }
        }
        if last > 0 && args[last..].trim() == "String" {
            count += 1;
        }
    }
    count
}

#[test]
fn every_string_error_is_at_a_boundary_that_says_so() {
    let found = occurrences();
    let unexplained: Vec<_> = found.iter().filter(|o| !o.2).map(|o| format!("{}:{}", o.0, o.1)).collect();
    assert!(
        unexplained.is_empty(),
        "Result<_, String> without a `// String error:` comment saying why a string is the contract \
         (use a typed error instead): {unexplained:?}"
    );
}

#[test]
fn string_errors_stay_under_their_ceiling() {
    let found = occurrences();
    println!("{} Result<_, String> in non-test code (ceiling {CEILING}):", found.len());
    for (file, line, _) in &found {
        println!("  {file}:{line}");
    }
    assert!(found.len() <= CEILING, "{} Result<_, String>, more than {CEILING}", found.len());
}

#[test]
fn the_error_type_is_read_as_rust_writes_it() {
    assert_eq!(string_results("fn f() -> Result<(), String> {"), 1);
    assert_eq!(string_results("fn f() -> Result<Vec<(String, u8)>, String> {"), 1);
    assert_eq!(string_results("fn f() -> Result<String, Error> {"), 0);
    assert_eq!(string_results("fn f() -> Result<HashMap<String, String>, E> {"), 0);
    assert_eq!(string_results("fn f(a: Result<u8, String>, b: Result<u8, String>)"), 2);
    assert_eq!(string_results("BoxFuture<'a, Result<Option<Value>, String>>"), 1);
    assert_eq!(string_results("// fn f() -> Result<(), String>"), 0);
    assert_eq!(string_results("type R = io::Result<String>;"), 0);
}
