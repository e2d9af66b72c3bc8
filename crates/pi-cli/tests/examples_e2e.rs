//! The reference's example extensions, unmodified, through the real `pi`
//! (issue 15): every example that loads in the reference loads with `-e` in
//! print mode, and a few with a visible effect behave.
//!
//! The examples are read from the installed reference package (`PI_REF_PKG`,
//! or `$HOME/.cache/pi-ref/node_modules/@earendil-works/pi-coding-agent`,
//! where `.ci/run` installs it); they are never copied into this repository.
//! Without the package the tests say so and pass.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

const PI: &str = env!("CARGO_BIN_EXE_pi");

/// Examples that need npm packages from `node_modules` (pi loads none), or
/// fail in the reference too (`gondolin`).
const NEED_PACKAGES: &[&str] = &["with-deps", "custom-provider-anthropic", "gondolin"];

/// The reference package's examples folder, when installed.
fn examples() -> Option<PathBuf> {
    let pkg = std::env::var_os("PI_REF_PKG").map(PathBuf::from).or_else(|| {
        let home = std::env::var_os("HOME")?;
        Some(PathBuf::from(home).join(".cache/pi-ref/node_modules/@earendil-works/pi-coding-agent"))
    })?;
    let dir = pkg.join("examples/extensions");
    dir.is_dir().then_some(dir)
}

fn skip() {
    eprintln!("skipped: the reference package is not installed (PI_REF_PKG or ~/.cache/pi-ref)");
}

/// `pi -e <ex> -p … <prompt>` against `server`, waited for (killed after a minute: a hang fails).
fn run(scratch: &Scratch, ex: &Path, prompt: &str) -> Output {
    let mut child = scratch
        .pi(PI)
        .args(["-e", &ex.to_string_lossy(), "-p", "--offline", "--no-session", "--model", "mock/mock-1", prompt])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pi");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn every_example_that_loads_in_the_reference_loads() {
    let Some(dir) = examples() else { return skip() };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir() || e.path().extension().is_some_and(|x| x == "ts"))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !NEED_PACKAGES.contains(&n.as_str()))
        .collect();
    names.sort();
    assert!(names.len() >= 70, "expected the reference's examples, found {}", names.len());
    let mut failed = Vec::new();
    for name in &names {
        let server = MockServer::start(vec![Turn::text("ok")]);
        let scratch = Scratch::new(&server);
        let out = run(&scratch, &dir.join(name), "hello");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || stderr.contains("Failed to load extension") {
            failed.push(format!("{name}: {:?} {}", out.status.code(), stderr.lines().next().unwrap_or("")));
        }
    }
    assert!(failed.is_empty(), "{} of {} examples failed:\n{}", failed.len(), names.len(), failed.join("\n"));
}

/// The tool messages of the last request.
fn tool_results(server: &MockServer) -> Vec<Value> {
    let last = server.requests().last().map(|r| r.body.clone()).unwrap_or(Value::Null);
    last["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "tool").cloned().collect()
}

#[test]
fn hello_and_bash_spawn_hook_answer_the_model() {
    let Some(dir) = examples() else { return skip() };
    let server = MockServer::start(vec![Turn::tool("hello", json!({"name": "pi"})), Turn::text("done")]);
    let scratch = Scratch::new(&server);
    let out = run(&scratch, &dir.join("hello.ts"), "go");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(tool_results(&server)[0]["content"], "Hello, pi!");

    // bash replaced by createBashTool with a spawn hook (`source ~/.profile` first).
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": "echo from-bash"})), Turn::text("done")]);
    let scratch = Scratch::new(&server);
    std::fs::write(scratch.home.join(".profile"), "echo from-profile\n").unwrap();
    let out = run(&scratch, &dir.join("bash-spawn-hook.ts"), "go");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(tool_results(&server)[0]["content"], "from-profile\nfrom-bash\n");
}

#[test]
fn permission_gate_blocks_without_a_ui() {
    let Some(dir) = examples() else { return skip() };
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": "rm -rf build"})), Turn::text("done")]);
    let scratch = Scratch::new(&server);
    std::fs::create_dir(scratch.work.join("build")).unwrap();
    let out = run(&scratch, &dir.join("permission-gate.ts"), "go");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(scratch.work.join("build").is_dir(), "the command ran");
    let content = tool_results(&server)[0]["content"].as_str().unwrap_or("").to_string();
    assert!(content.contains("no UI"), "{content}");
}
