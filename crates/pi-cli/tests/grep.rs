//! `pi tool grep` with a changed `PATH`: beyond.md B1 (no `rg` needed).
//! What `grep` does is tested in-process in crates/pi-agent/tests/tools/grep.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;

use serde_json::{Value, json};

use crate::common;

use common::{Out, write};

fn run_env(dir: &Path, args: Value, path_env: Option<&str>) -> Out {
    common::run_tool("grep", dir, &args, path_env)
}

#[test]
fn works_without_rg_on_path() {
    // B1: no rg binary is needed (or spawned).
    let d = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    write(d.path(), "a.txt", "needle\n");
    let o = run_env(d.path(), json!({"pattern": "needle"}), Some(empty.path().to_str().unwrap()));
    assert_eq!((o.text.as_str(), o.is_error), ("a.txt:1: needle", false));
    let o = run_env(d.path(), json!({"pattern": "needle"}), Some(""));
    assert_eq!((o.text.as_str(), o.is_error), ("a.txt:1: needle", false));
}
