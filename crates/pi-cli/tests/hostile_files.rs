//! Hostile files: configuration and state files that are devices, FIFOs or
//! huge never hang pi or fill its memory (each run is capped with `prlimit
//! --as`), `trust.json` fails closed; huge inputs to grep and edit stay in
//! bounded memory; files pi writes for itself are private whatever the umask.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Turn};
use serde_json::json;

/// The address-space cap of every run here: far below what reading
/// `/dev/zero` or a 1 GiB line would take.
const ADDRESS_SPACE: &str = "--as=1500000000";

struct Scratch {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
        for d in [&home, &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        Scratch { _dir: dir, home, work, tmp }
    }

    fn agent_dir(&self) -> PathBuf {
        self.home.join(".pi/agent")
    }

    /// `pi <args>` under the address-space cap, with stdin closed; killed
    /// after 30 s (a hang is a failure, never a stuck test).
    fn pi(&self, args: &[&str]) -> (Output, Duration) {
        let mut cmd = Command::new("prlimit");
        cmd.arg(ADDRESS_SPACE).arg("--").arg(env!("CARGO_BIN_EXE_pi")).args(args);
        cmd.current_dir(&self.work)
            .env("HOME", &self.home)
            .env("TMPDIR", &self.tmp)
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let t0 = Instant::now();
        let mut child = cmd.spawn().unwrap();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if t0.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                panic!("pi {args:?} hung");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        (child.wait_with_output().unwrap(), t0.elapsed())
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

#[test]
fn trust_json_that_is_a_device_or_a_fifo_fails_closed_at_once() {
    for kind in ["device", "fifo", "huge"] {
        let s = Scratch::new();
        std::fs::create_dir_all(s.agent_dir()).unwrap();
        std::fs::create_dir_all(s.work.join(".pi")).unwrap();
        std::fs::write(s.work.join(".pi/settings.json"), "{}").unwrap();
        let trust = s.agent_dir().join("trust.json");
        match kind {
            "device" => std::os::unix::fs::symlink("/dev/zero", &trust).unwrap(),
            "fifo" => mkfifo(&trust),
            _ => std::fs::File::create(&trust).unwrap().set_len(64 * 1024 * 1024).unwrap(),
        }
        let (o, took) = s.pi(&["-p", "--offline", "--no-session", "hi"]);
        assert_eq!(o.status.code(), Some(1), "{kind}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("trust.json"), "{kind}: the error names the file: {err}");
        assert!(took < Duration::from_secs(10), "{kind}: took {took:?}");
        // `pi trust status` says the same and stays out of it.
        let (o, _) = s.pi(&["trust", "status"]);
        assert_ne!(o.status.code(), Some(0), "{kind}");
    }
}

#[test]
fn settings_and_models_files_that_are_devices_or_fifos_are_reported() {
    let server = MockServer::start(vec![Turn::text("fine")]);
    let s = Scratch::new();
    server.write_models_json(&s.agent_dir(), "openai-completions");
    std::os::unix::fs::symlink("/dev/zero", s.agent_dir().join("settings.json")).unwrap();
    std::fs::create_dir_all(s.work.join("sub")).unwrap();
    mkfifo(&s.work.join("AGENTS.md"));
    let (o, _) = s.pi(&["-p", "--offline", "--no-session", "--model", "mock/mock-1", "hi"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "fine");
    let err = stderr(&o);
    assert!(err.contains("settings.json") && err.contains("not a regular file"), "{err}");
    // The FIFO named AGENTS.md is no context file (not a regular file): skipped, no hang.
    // models.json as a FIFO: start-up stops, naming it.
    let s = Scratch::new();
    std::fs::create_dir_all(s.agent_dir()).unwrap();
    mkfifo(&s.agent_dir().join("models.json"));
    let (o, took) = s.pi(&["-p", "--offline", "--no-session", "hi"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("models.json"), "{}", stderr(&o));
    assert!(took < Duration::from_secs(10));
}

#[test]
fn grep_and_edit_on_a_huge_file_stay_within_memory() {
    let s = Scratch::new();
    // 1 GiB without a newline (sparse: all zero bytes).
    let big = s.work.join("big.bin");
    std::fs::File::create(&big).unwrap().set_len(1024 * 1024 * 1024).unwrap();
    let args = json!({"pattern": "needle", "path": "big.bin"}).to_string();
    let (o, _) = s.pi(&["tool", "grep", &args, "--cwd", s.work.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
    assert!(v["content"][0]["text"].as_str().unwrap().contains("a line is longer than"), "{v}");
    let args = json!({"path": "big.bin", "edits": [{"oldText": "a", "newText": "b"}]}).to_string();
    let (o, _) = s.pi(&["tool", "edit", &args, "--cwd", s.work.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v["content"][0]["text"].as_str().unwrap().starts_with("File too large to edit: big.bin is 1024.0MB"),
        "{v}"
    );
}

#[test]
fn files_pi_writes_for_itself_are_private_whatever_the_umask() {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let s = Scratch::new();
    server.write_models_json(&s.agent_dir(), "openai-completions");
    let sh = |cmd: &str| {
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("umask 000; exec {cmd}"))
            .current_dir(&s.work)
            .env("HOME", &s.home)
            .env("TMPDIR", &s.tmp)
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{cmd}");
    };
    let pi = env!("CARGO_BIN_EXE_pi");
    std::fs::remove_dir_all(s.agent_dir()).unwrap();
    sh(&format!("{pi} trust yes"));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&s.agent_dir().join("trust.json")), 0o600);
    assert_eq!(mode(&s.agent_dir()), 0o700, "the agent dir pi created");
    server.write_models_json(&s.agent_dir(), "openai-completions");
    sh(&format!("{pi} -p --offline --model mock/mock-1 hi"));
    let sessions = s.agent_dir().join("sessions");
    let folder = std::fs::read_dir(&sessions).unwrap().next().unwrap().unwrap().path();
    assert_eq!(mode(&sessions), 0o700);
    assert_eq!(mode(&folder), 0o700);
    let file = std::fs::read_dir(&folder).unwrap().next().unwrap().unwrap().path();
    assert_eq!(mode(&file), 0o600);
}
