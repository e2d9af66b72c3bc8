//! `pi tool find` with a changed `PATH`: beyond.md B1 (no `fd` needed).
//! What `find` does is tested in-process in crates/pi-agent/tests/tools/find.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;

use serde_json::{Value, json};

use crate::common;

use common::{Out, write};

fn run_env(dir: &Path, args: Value, path_env: Option<&str>) -> Out {
    common::run_tool("find", dir, &args, path_env)
}

#[test]
fn works_without_fd_on_path() {
    // B1: no fd binary is needed (or spawned).
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.txt", "");
    let o = run_env(d.path(), json!({"pattern": "*.txt"}), Some(""));
    assert_eq!((o.text.as_str(), o.is_error), ("a.txt", false));
}
