//! A scratch installation for end-to-end tests: a home with the agent dir
//! and a models.json naming the mock server, a project folder and a temp
//! folder; `pi` started in it (an RPC child with piped standard streams).

use std::io::BufReader;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::MockServer;

/// The folders of one test run, removed when dropped.
pub struct Scratch {
    _dir: tempfile::TempDir,
    /// `HOME`.
    pub home: PathBuf,
    /// The project folder (the working directory).
    pub work: PathBuf,
    /// `TMPDIR`.
    pub tmp: PathBuf,
}

impl Scratch {
    /// Fresh folders; `server` answers as `mock/mock-1` (Chat Completions).
    pub fn new(server: &MockServer) -> Scratch {
        let dir = tempfile::tempdir().expect("tempdir");
        let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
        for d in [&home.join(".pi/agent"), &work, &tmp] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        server.write_models_json(&home.join(".pi/agent"), "openai-completions");
        Scratch { _dir: dir, home, work, tmp }
    }

    /// The agent dir (`~/.pi/agent`).
    pub fn agent_dir(&self) -> PathBuf {
        self.home.join(".pi/agent")
    }

    /// `bin` run here without the caller's pi settings or keys.
    pub fn pi(&self, bin: &str) -> Command {
        crate::isolated_pi(bin, &self.home, &self.work, &self.tmp)
    }

    /// `bin --mode rpc --no-session --offline --model mock/mock-1` with
    /// `extra`: the child, its input and its output (standard error dropped).
    pub fn rpc(&self, bin: &str, extra: &[&str]) -> (Child, ChildStdin, BufReader<ChildStdout>) {
        let mut child = self
            .pi(bin)
            .args(["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn pi");
        let stdin = child.stdin.take().expect("stdin");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        (child, stdin, out)
    }
}
