//! The rule for pi's own `write` and `edit`, through the crate's public API
//! on real folders: what each mode lets a write touch, protected folders,
//! hidden credential stores, symlinks followed, and a project's settings
//! that can only tighten the user's. (What a sandboxed command may touch is
//! read off the same view; running commands needs the `pi` binary as the
//! helper and is tested in pi-cli's sandbox suites.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

use pi_sandbox::{Base, Flags, Layer, Mode, Policy, Rule, Sandbox, from_settings};
use serde_json::json;

/// A home with a project folder and an outside folder, canonical paths,
/// away from the system's temporary folder (which workspace-write lets
/// writes reach).
struct Place {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    outside: PathBuf,
}

fn place() -> Place {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project, outside) = (root.join("home"), root.join("home/project"), root.join("elsewhere"));
    for d in [&project, &outside, &project.join(".git"), &home.join(".ssh")] {
        std::fs::create_dir_all(d).unwrap();
    }
    Place { _dir: dir, home, project, outside }
}

fn sandbox(p: &Place, policy: Policy) -> Sandbox {
    Sandbox::new(policy, Some(p.home.clone()), None)
}

fn rule(sb: &Sandbox, cwd: &Path, path: &Path) -> Option<Rule> {
    sb.check_write(cwd, path).err().map(|r| r.rule)
}

#[test]
fn off_lets_every_write_through() {
    let p = place();
    let sb = sandbox(&p, Policy::default());
    assert_eq!(sb.mode(), Mode::Off);
    for path in [p.project.join("a.txt"), p.outside.join("b.txt"), p.home.join(".ssh/id")] {
        assert_eq!(rule(&sb, &p.project, &path), None, "{}", path.display());
    }
}

#[test]
fn read_only_refuses_every_write_and_says_so() {
    let p = place();
    let sb = sandbox(&p, Policy { mode: Mode::ReadOnly, ..Policy::default() });
    let refusal = sb.check_write(&p.project, Path::new("a.txt")).unwrap_err();
    assert_eq!(refusal.rule, Rule::ReadOnly);
    assert_eq!(refusal.path, p.project.join("a.txt"), "relative paths start at the working folder");
    assert!(refusal.to_string().contains("read-only"), "{refusal}");
}

#[test]
fn workspace_write_keeps_writes_inside_the_roots() {
    let p = place();
    let sb = sandbox(&p, Policy { mode: Mode::WorkspaceWrite, ..Policy::default() });
    assert_eq!(rule(&sb, &p.project, Path::new("src/new.rs")), None, "inside the working folder");
    let temp = std::env::temp_dir().canonicalize().unwrap().join("pi-write-rule-scratch");
    assert_eq!(rule(&sb, &p.project, &temp), None, "temp is a writable root");
    assert_eq!(rule(&sb, &p.project, &p.outside.join("x")), Some(Rule::Outside));
    assert_eq!(rule(&sb, &p.project, Path::new("../../elsewhere/x")), Some(Rule::Outside), "dot-dot resolved");
    assert_eq!(rule(&sb, &p.project, Path::new(".git/config")), Some(Rule::Protected(".git".into())));
    assert_eq!(rule(&sb, &p.project, Path::new(".pi/settings.json")), Some(Rule::Protected(".pi".into())));
    assert_eq!(rule(&sb, &p.project, &p.home.join(".ssh/authorized_keys")), Some(Rule::Hidden));
}

#[test]
fn a_symlink_inside_is_judged_by_where_it_leads() {
    let p = place();
    std::os::unix::fs::symlink(&p.outside, p.project.join("door")).unwrap();
    let sb = sandbox(&p, Policy { mode: Mode::WorkspaceWrite, ..Policy::default() });
    let refusal = sb.check_write(&p.project, Path::new("door/escape.txt")).unwrap_err();
    assert_eq!(refusal.rule, Rule::Outside);
    assert_eq!(refusal.path, p.outside.join("escape.txt"), "the path as resolved");
}

#[test]
fn writable_roots_and_allow_write_loosen_by_name_only() {
    let p = place();
    let policy = Policy {
        mode: Mode::WorkspaceWrite,
        writable_roots: vec![p.outside.clone()],
        allow_write: vec![".git".into()],
        ..Policy::default()
    };
    let sb = sandbox(&p, policy);
    assert_eq!(rule(&sb, &p.project, &p.outside.join("x")), None);
    assert_eq!(rule(&sb, &p.project, Path::new(".git/hooks/pre-commit")), None);
    assert_eq!(rule(&sb, &p.project, Path::new(".pi/x")), Some(Rule::Protected(".pi".into())), "only what is named");
}

#[test]
fn a_project_can_tighten_the_users_settings_but_not_loosen_them() {
    let p = place();
    let user = json!({"sandbox": {"mode": "workspace-write", "network": true}});
    let project = json!({"sandbox": {"mode": "off", "network": false, "writableRoots": ["/"]}});
    let (policy, warnings) = from_settings(
        Layer { value: user.get("sandbox"), file: &p.home.join("settings.json") },
        Some(Layer { value: project.get("sandbox"), file: &p.project.join(".pi/settings.json") }),
        Flags::default(),
        Base { home: Some(&p.home), cwd: &p.project },
    );
    assert_eq!(policy.mode, Mode::WorkspaceWrite, "the project's \"off\" is ignored");
    assert!(!policy.network, "the project may turn the network off");
    assert!(policy.writable_roots.is_empty(), "nor may it add writable roots");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().all(|w| w.contains(".pi/settings.json")), "{warnings:?}");
    // The command line's mode acts on the user's layer.
    let flags = Flags { mode: Some(Mode::ReadOnly), network: false };
    let (policy, _) = from_settings(
        Layer { value: user.get("sandbox"), file: &p.home.join("settings.json") },
        None,
        flags,
        Base { home: Some(&p.home), cwd: &p.project },
    );
    assert_eq!(policy.mode, Mode::ReadOnly);
}
