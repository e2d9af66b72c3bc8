//! `pi tool ls …` as a process: `~` with a changed `HOME`, and folders read
//! as another user. What `ls` does is tested in-process in
//! crates/pi-agent/tests/tools/ls.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common;

use common::{Raw, pi, run_raw, unprivileged_pi};

fn run_with(cmd: &mut Command, args: &Value, cwd: &Path) -> Raw {
    run_raw(cmd, "ls", args, cwd)
}

fn ok_text(args: Value, cwd: &Path) -> String {
    common::ok_text("ls", args, cwd)
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn touch(dir: &Path, names: &[&str]) {
    for n in names {
        std::fs::write(dir.join(n), "").unwrap();
    }
}

#[test]
fn paths_default_empty_at_prefix_and_tilde() {
    let d = dir();
    let home = dir();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    touch(&d.path().join("sub"), &["inner"]);
    touch(home.path(), &["in-home"]);
    assert_eq!(ok_text(json!({}), d.path()), "sub/");
    assert_eq!(ok_text(json!({"path": ""}), d.path()), "sub/");
    assert_eq!(ok_text(json!({"path": "@sub"}), d.path()), "inner");
    assert_eq!(ok_text(json!({"path": "./sub/../sub/"}), d.path()), "inner");
    assert_eq!(ok_text(json!({"path": d.path().join("sub").to_str().unwrap()}), home.path()), "inner");
    let out = run_with(pi().env("HOME", home.path()), &json!({"path": "~"}), d.path());
    assert_eq!(out.text(), "in-home");
}

#[test]
fn unreadable_folders() {
    // Permission bits do not bind root: as root this runs `pi` as `nobody`
    // through setpriv, and skips when that is impossible.
    use std::os::unix::fs::PermissionsExt;
    let _nobody = common::nobody_shared();
    let Some(mut cmd) = unprivileged_pi() else {
        eprintln!("skipped: running as root and setpriv cannot drop privileges here");
        return;
    };
    let d = dir();
    let root = d.path().canonicalize().unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
    for (name, mode) in [("closed", 0o000), ("nolist", 0o311), ("nosearch", 0o444)] {
        let p = root.join(name);
        std::fs::create_dir(&p).unwrap();
        touch(&p, &["a", "b"]);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let abs = |n: &str| root.join(n).display().to_string();
    let out = run_with(&mut cmd, &json!({"path": "closed"}), &root);
    assert_eq!(out.text(), format!("Cannot read directory: EACCES: permission denied, scandir '{}'", abs("closed")));
    let Some(mut cmd) = unprivileged_pi() else { return };
    let out = run_with(&mut cmd, &json!({"path": "nolist"}), &root);
    assert_eq!(out.text(), format!("Cannot read directory: EACCES: permission denied, scandir '{}'", abs("nolist")));
    // Names can be read but not stat'ed: every entry is left out.
    let Some(mut cmd) = unprivileged_pi() else { return };
    let out = run_with(&mut cmd, &json!({"path": "nosearch"}), &root);
    assert_eq!(out.text(), "(empty directory)");
    let Some(mut cmd) = unprivileged_pi() else { return };
    let out = run_with(&mut cmd, &json!({"path": "closed/inner"}), &root);
    assert_eq!(out.text(), format!("Path not found: {}", abs("closed/inner")));
    for name in ["closed", "nolist", "nosearch"] {
        std::fs::set_permissions(root.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
