//! Helpers shared by the `pi tool` tests (read, ls, grep, find).
#![allow(dead_code)]

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// What `pi tool` printed, with the exit status already checked against `isError`.
pub struct Out {
    /// The text blocks joined by newlines.
    pub text: String,
    /// `details`.
    pub details: Value,
    /// `isError`.
    pub is_error: bool,
}

/// Run `pi tool <tool> <args> --cwd <dir>`, with `PATH` replaced when given.
pub fn run_tool(tool: &str, dir: &Path, args: &Value, path_env: Option<&str>) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pi"));
    cmd.args(["tool", tool, &args.to_string(), "--cwd"]).arg(dir);
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    let o = cmd.output().expect("run pi");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| {
        panic!("not JSON: {} / {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    });
    let text =
        v["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n");
    let is_error = v["isError"].as_bool().unwrap();
    assert_eq!(o.status.code(), Some(if is_error { 1 } else { 0 }));
    Out { text, details: v["details"].clone(), is_error }
}

/// Write `content` to `dir/rel`, creating folders.
pub fn write(dir: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

/// The `pi` binary under test.
pub fn pi() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pi"))
}

/// What `pi tool` printed, as JSON, with its exit status (not checked).
pub struct Raw {
    /// The printed result.
    pub json: Value,
    /// The exit status (-1 when killed by a signal).
    pub code: i32,
}

impl Raw {
    /// The first content block's text.
    pub fn text(&self) -> &str {
        self.json["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text block: {}", self.json))
    }
    /// `isError`.
    pub fn is_error(&self) -> bool {
        self.json["isError"].as_bool().unwrap()
    }
}

/// Run `cmd tool <tool> <args> --cwd <cwd>` (`cmd` is `pi()` or a wrapper of it).
pub fn run_raw(cmd: &mut Command, tool: &str, args: &Value, cwd: &Path) -> Raw {
    let out = cmd.arg("tool").arg(tool).arg(args.to_string()).arg("--cwd").arg(cwd).output().unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    Raw { json, code: out.status.code().unwrap_or(-1) }
}

/// A successful call's text, checked to be no error (exit 0).
pub fn ok_text(tool: &str, args: Value, cwd: &Path) -> String {
    let out = run_raw(&mut pi(), tool, &args, cwd);
    assert!(!out.is_error(), "unexpected error: {}", out.json);
    assert_eq!(out.code, 0);
    out.text().to_string()
}

/// Whether the tests run as root (read from /proc: no libc dependency here).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

/// `pi` as an unprivileged user: directly when not root, as `nobody` through
/// `setpriv` when root (root ignores permission bits); `None` = skip.
pub fn unprivileged_pi() -> Option<Command> {
    if !is_root() {
        return Some(pi());
    }
    let drop = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    let works = Command::new("setpriv")
        .args(drop)
        .arg(env!("CARGO_BIN_EXE_pi"))
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    works.then(|| {
        let mut cmd = Command::new("setpriv");
        cmd.args(drop).arg(env!("CARGO_BIN_EXE_pi"));
        cmd
    })
}

/// Processes of the user nobody (uid 65534): the escape suites' unsandboxed
/// control runs `kill -9 -1` as nobody, which reaches every process of that
/// user, so the suites that run as nobody take turns with it. All the
/// end-to-end suites share one test binary, so the turn is taken here.
static NOBODY: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// A turn beside the other suites running as nobody (not the escape suites').
pub fn nobody_shared() -> std::sync::RwLockReadGuard<'static, ()> {
    NOBODY.read().unwrap_or_else(|p| p.into_inner())
}

/// A turn with no other process of nobody's from these tests.
pub fn nobody_alone() -> std::sync::RwLockWriteGuard<'static, ()> {
    NOBODY.write().unwrap_or_else(|p| p.into_inner())
}

/// The path of one of the extension fixtures (`tests/fixtures/extensions/<name>`).
pub fn ext_fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extensions").join(name).to_string_lossy().into_owned()
}
