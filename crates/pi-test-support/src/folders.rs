//! Folder states for tests that change files and bring them back: every
//! entry with its mode and contents (or link target), a `.git` folder's
//! bytes, and git run with a test identity.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Everything under `dir` but its `.git`: `path` → `"<mode> <contents>"`,
/// `"-> <target>"` for a symlink, `""` for a folder (`path/`).
pub fn tree_state(dir: &Path) -> BTreeMap<String, String> {
    fn go(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).expect("read_dir") {
            let path = e.expect("entry").path();
            let rel = path.strip_prefix(root).expect("under root").display().to_string();
            let m = std::fs::symlink_metadata(&path).expect("metadata");
            if rel == ".git" {
                continue;
            } else if m.file_type().is_symlink() {
                out.insert(rel, format!("-> {}", std::fs::read_link(&path).expect("link").display()));
            } else if m.is_dir() {
                out.insert(format!("{rel}/"), String::new());
                go(root, &path, out);
            } else {
                let body = String::from_utf8_lossy(&std::fs::read(&path).expect("read")).into_owned();
                out.insert(rel, format!("{:o} {body}", m.permissions().mode() & 0o777));
            }
        }
    }
    let mut out = BTreeMap::new();
    go(dir, dir, &mut out);
    out
}

/// Every file under `dir/.git` with its bytes.
pub fn dot_git(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn go(dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).expect("read_dir") {
            let path = e.expect("entry").path();
            if path.is_dir() {
                go(&path, out);
            } else {
                out.insert(path.display().to_string(), std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    go(&dir.join(".git"), &mut out);
    out
}

/// `git <args>` in `dir` with a test identity and `main` as the first
/// branch; a failure fails the test.
pub fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}
