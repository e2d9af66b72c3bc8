//! `protected-paths` through the dispatcher (beyond.md B4): resolved like the
//! tools resolve, canonicalised through symlinks, compared by component;
//! nothing is written when a call is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{Asked, FakeUi, assert_blocked, assert_ran, call, dispatcher, nested};
use pi_agent::Dispatcher;
use pi_policies::{Approver, NotifyKind, PolicyOptions, builtin};
use serde_json::json;

fn guard(cwd: &Path, ui: Option<Arc<dyn Approver>>) -> Dispatcher {
    let opts = PolicyOptions { cwd: cwd.to_path_buf(), ui };
    dispatcher(builtin("protected-paths", opts).unwrap())
}

/// A project: `.env` (kept), `.git/config`, `node_modules/x`, `sub/`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join(".env"), "SECRET=1\n").unwrap();
    std::fs::create_dir_all(p.join(".git")).unwrap();
    std::fs::write(p.join(".git/config"), "[core]\n").unwrap();
    std::fs::create_dir_all(p.join("node_modules/x")).unwrap();
    std::fs::write(p.join("node_modules/x/index.js"), "1\n").unwrap();
    std::fs::create_dir_all(p.join("sub")).unwrap();
    dir
}

/// Every file below `dir` with its content, to prove nothing changed.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                out.push((rel + "/", Vec::new()));
                walk(base, &p, out);
            } else if meta.file_type().is_symlink() {
                out.push((rel + " ->", std::fs::read_link(&p).unwrap().to_string_lossy().into_owned().into_bytes()));
            } else {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

async fn expect_blocked(d: &Dispatcher, root: &Path, cwd: &Path, path: &str) {
    let before = snapshot(root);
    let f = call(d, cwd, "write", json!({ "path": path, "content": "pwned\n" })).await;
    assert_blocked(&f, &format!("Path \"{path}\" is protected"));
    let f =
        call(d, cwd, "edit", json!({ "path": path, "edits": [{ "oldText": "SECRET=1", "newText": "pwned" }] })).await;
    assert_blocked(&f, &format!("Path \"{path}\" is protected"));
    assert_eq!(snapshot(root), before, "{path}: something was written");
}

#[tokio::test]
async fn the_b4_cases() {
    let dir = project();
    let root = dir.path();
    let d = guard(root, None);
    for path in [
        ".env",
        "./.env",
        "sub/../.env",
        "@.env",
        ".ENV",
        ".Env.Local",
        "sub/.env.local",
        ".env.production",
        ".git/config",
        ".git",
        ".git/hooks/new-hook",
        "node_modules/x",
        "node_modules/x/index.js",
        "node_modules/new/file.js",
        "sub/node_modules/y.js",
    ] {
        expect_blocked(&d, root, root, path).await;
    }
    let abs = root.join(".env").to_string_lossy().into_owned();
    expect_blocked(&d, root, root, &abs).await;
    let url = format!("file://{}", root.join(".git/config").to_string_lossy());
    expect_blocked(&d, root, root, &url).await;
}

#[tokio::test]
async fn relative_paths_from_a_sub_folder() {
    let dir = project();
    let root = dir.path();
    std::fs::create_dir_all(root.join("x")).unwrap();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    let cwd = root.join("sub");
    let d = guard(&cwd, None);
    expect_blocked(&d, root, &cwd, "../x/.env").await;
    expect_blocked(&d, root, &cwd, "../.git/config").await;
    let deep = root.join("a/b");
    let d = guard(&deep, None);
    expect_blocked(&d, root, &deep, "../../x/.env").await;
    expect_blocked(&d, root, &deep, "../../.env").await;
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_are_followed() {
    let dir = project();
    let root = dir.path();
    let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, root.join(name)).unwrap();
    link(".env", "settings"); // a link to .env
    link("sub/../.env", "indirect"); // a link through ..
    link("settings", "chain"); // a link to a link to .env
    link(".git", "repo"); // a link to the .git folder
    link("node_modules", "deps"); // a link to node_modules
    link(".env.local", "dangling"); // a dangling link: writing creates .env.local
    std::os::unix::fs::symlink(root, root.join("sub/up")).unwrap(); // a link to the project
    let d = guard(root, None);
    for path in
        ["settings", "indirect", "chain", "repo/config", "repo/HEAD", "deps/x/index.js", "dangling", "sub/up/.env"]
    {
        expect_blocked(&d, root, root, path).await;
    }
    assert!(!root.join(".env.local").exists());
    // The other way round: a link named .env to an ordinary file is refused by name.
    std::fs::write(root.join("plain.txt"), "x").unwrap();
    link("plain.txt", ".env.test");
    expect_blocked(&d, root, root, ".env.test").await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlinked_session_folder_still_resolves() {
    let dir = project();
    let root = dir.path();
    let other = tempfile::tempdir().unwrap();
    let alias = other.path().join("alias");
    std::os::unix::fs::symlink(root, &alias).unwrap();
    let d = guard(&alias, None);
    expect_blocked(&d, root, &alias, ".env").await;
    assert_ran(&call(&d, &alias, "write", json!({ "path": "ok.txt", "content": "ok" })).await);
    assert_eq!(std::fs::read_to_string(root.join("ok.txt")).unwrap(), "ok");
}

#[tokio::test]
async fn look_alike_names_are_allowed() {
    let dir = project();
    let root = dir.path();
    let d = guard(root, None);
    for path in [
        "my.env.bak",
        "x.env",
        ".envrc",
        "env",
        ".github/workflows/ci.yml",
        ".gitignore",
        "a.git/x",
        "node_modules_backup/x",
        "sub/my_node_modules",
    ] {
        let f = call(&d, root, "write", json!({ "path": path, "content": "ok\n" })).await;
        assert_ran(&f);
        assert_eq!(std::fs::read_to_string(root.join(path)).unwrap(), "ok\n", "{path}");
    }
    let f = call(&d, root, "edit", json!({ "path": "my.env.bak", "edits": [{ "oldText": "ok", "newText": "fine" }] }))
        .await;
    assert_ran(&f);
    // Reading is not guarded (the reference example's scope: write and edit).
    let f = call(&d, root, "read", json!({ "path": ".env" })).await;
    assert_ran(&f);
    assert!(f.result.text_content().contains("SECRET=1"));
}

#[tokio::test]
async fn a_folder_named_env_is_not_a_protected_file() {
    // Python virtual environments are often called `.env`; the file-name rule
    // is about the last component only.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".env/lib")).unwrap();
    let d = guard(root, None);
    assert_ran(&call(&d, root, "write", json!({ "path": ".env/lib/site.py", "content": "x" })).await);
    assert_eq!(std::fs::read_to_string(root.join(".env/lib/site.py")).unwrap(), "x");
    // ... but a `.env.*` file inside it is still a protected name.
    expect_blocked(&d, root, root, ".env/lib/.env.local").await;
}

#[tokio::test]
async fn nested_calls_are_guarded() {
    let dir = project();
    let root = dir.path();
    let d = guard(root, None);
    let before = snapshot(root);
    let f = nested(&d, root, "write", json!({ "path": "sub/../.env", "content": "x" })).await;
    assert_blocked(&f, "Path \"sub/../.env\" is protected");
    assert_eq!(f.id, "call-1/1");
    assert_eq!(snapshot(root), before);
    assert_ran(&nested(&d, root, "write", json!({ "path": "my.env.bak", "content": "x" })).await);
}

#[tokio::test]
async fn a_ui_is_told_about_refusals() {
    let dir = project();
    let root = dir.path();
    let ui = FakeUi::new(true, Some("Yes"));
    let d = guard(root, Some(ui.clone()));
    let f = call(&d, root, "write", json!({ "path": "sub/.env.local", "content": "x" })).await;
    // A UI changes nothing: the refusal is not a question.
    assert_blocked(&f, "Path \"sub/.env.local\" is protected");
    assert_eq!(
        ui.asked(),
        vec![Asked::Notify("Blocked write to protected path: sub/.env.local".into(), NotifyKind::Warning)]
    );
    assert!(!root.join("sub/.env.local").exists());
}
