//! A command outlives no `pi` (beyond.md B8): SIGINT, SIGTERM or SIGKILL of
//! `pi tool` or `pi -p` while a command runs ends the command's whole process
//! group, background processes included.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Turn};
use serde_json::json;

/// The command: note its process group, then hold it with two sleeps.
const COMMAND: &str = "cut -d' ' -f5 /proc/$$/stat > pgid; sleep 300 & sleep 300";

/// Whether a live (not zombie) process of group `pgid` remains after a
/// short grace.
fn group_alive(pgid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let alive = std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { return false };
            let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return false };
            let f: Vec<&str> = rest.split_whitespace().collect();
            f.len() > 2 && f[0] != "Z" && f[2].parse::<i32>().ok() == Some(pgid)
        });
        if !alive || Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Wait for the command to start; its process group.
fn started(dir: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(s) = std::fs::read_to_string(dir.join("pgid"))
            && let Ok(n) = s.trim().parse()
        {
            std::thread::sleep(Duration::from_millis(100));
            return n;
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

#[test]
fn pi_tool_takes_its_command_along_on_any_signal() {
    for (sig, code) in [("INT", Some(130)), ("TERM", Some(143)), ("KILL", None)] {
        let dir = tempfile::tempdir().unwrap();
        let args = json!({ "command": COMMAND }).to_string();
        let mut child = common::pi()
            .args(["tool", "bash", &args, "--cwd"])
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pgid = started(dir.path());
        assert!(group_alive(pgid));
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), code, "SIG{sig}");
        assert!(!group_alive(pgid), "SIG{sig}: the command's group outlived pi tool");
    }
}

#[test]
fn pi_print_mode_killed_outright_leaves_nothing() {
    let server = MockServer::start(vec![Turn::tool("bash", json!({ "command": COMMAND })), Turn::text("done")]);
    let dir = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
    for d in [&home.join(".pi/agent"), &work, &tmp] {
        std::fs::create_dir_all(d).unwrap();
    }
    server.write_models_json(&home.join(".pi/agent"), "openai-completions");
    let mut child = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &home, &work, &tmp)
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "go"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pgid = started(&work);
    signal(&child, "KILL");
    child.wait().unwrap();
    assert!(!group_alive(pgid), "the command's group outlived a SIGKILLed pi");
}
