//! Driving `pi`'s terminal UI under tmux: a private tmux server per test,
//! keys in with `send-keys`, the screen out with `capture-pane`, against the
//! mock model server.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Turn};
use serde_json::json;

/// How long a test waits for the screen to show something.
pub const WAIT: Duration = Duration::from_secs(30);

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Whether tmux is installed (the tests say so and pass when it is not).
pub fn have_tmux() -> bool {
    let ok = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("tmux is not installed; skipping");
    }
    ok
}

/// A tmux server of its own with one window.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket, "-f", "/dev/null"]);
        c
    }

    /// Start `command` (a shell command) in a `cols`×`rows` window.
    pub fn start(cols: u16, rows: u16, command: &str) -> Tmux {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let t = Tmux { socket: format!("pi-tui-test-{}-{n}", std::process::id()) };
        let ok = t
            .tmux()
            .args(["new-session", "-d", "-s", "main", "-x", &cols.to_string(), "-y", &rows.to_string(), command])
            .status()
            .expect("tmux runs");
        assert!(ok.success(), "tmux new-session failed");
        for opt in [["status", "off"], ["set-clipboard", "on"], ["escape-time", "0"]] {
            let _ = t.tmux().args(["set-option", "-g", opt[0], opt[1]]).status();
        }
        t
    }

    /// Send keys (tmux names: `Enter`, `Escape`, `C-c`, `M-Enter`, `Down`).
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            let _ = self.tmux().args(["send-keys", "-t", "main", k]).status();
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    /// Type text literally.
    pub fn type_text(&self, s: &str) {
        let _ = self.tmux().args(["send-keys", "-t", "main", "-l", s]).status();
        std::thread::sleep(Duration::from_millis(60));
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        let o = self.tmux().args(["capture-pane", "-p", "-t", "main"]).output().expect("capture");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// The scrollback and the screen.
    pub fn history(&self) -> String {
        let o = self.tmux().args(["capture-pane", "-p", "-S", "-", "-t", "main"]).output().expect("capture");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Wait until the screen satisfies `pred`; the screen.
    pub fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > WAIT {
                panic!("timed out waiting for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Wait until the screen shows `needle`.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait(needle, |s| s.contains(needle))
    }

    /// Resize the window.
    pub fn resize(&self, cols: u16, rows: u16) {
        let _ = self
            .tmux()
            .args(["resize-window", "-t", "main", "-x", &cols.to_string(), "-y", &rows.to_string()])
            .status();
    }

    /// `tmux display -p FORMAT`.
    pub fn display(&self, format: &str) -> String {
        let o = self.tmux().args(["display-message", "-p", "-t", "main", format]).output().expect("display");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// tmux's paste buffers (OSC 52 clipboard writes land here).
    pub fn buffers(&self) -> String {
        let o = self.tmux().args(["list-buffers"]).output().expect("list-buffers");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
    }
}

/// A scratch home, project folder and mock model for one test.
pub struct Scene {
    pub root: tempfile::TempDir,
    pub server: MockServer,
}

impl Scene {
    /// `turns` scripted; models `mock/mock-1` and `mock/mock-2` declared.
    pub fn new(turns: Vec<Turn>) -> Scene {
        let root = tempfile::tempdir().expect("tempdir");
        let server = MockServer::start(turns);
        let s = Scene { root, server };
        for d in [s.home(), s.work(), s.tmp(), s.agent_dir()] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        let doc = json!({"providers": {"mock": {
            "baseUrl": format!("{}/v1", s.server.base_url()),
            "api": "openai-completions",
            "apiKey": "x",
            "models": [{"id": "mock-1"}, {"id": "mock-2", "reasoning": true}],
        }}});
        std::fs::write(s.agent_dir().join("models.json"), doc.to_string()).expect("models.json");
        s
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }
    pub fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }
    pub fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }
    pub fn agent_dir(&self) -> PathBuf {
        self.home().join(".pi").join("agent")
    }

    /// The shell command running `pi` with `flags` in the project folder;
    /// after it ends the pane shows `PI-EXIT-<code>`.
    pub fn command(&self, flags: &str) -> String {
        format!(
            "cd {work} && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u PI_CODING_AGENT_DIR HOME={home} TMPDIR={tmp} \
             COLORTERM= {bin} --offline --model mock/mock-1 --no-session {flags}; echo PI-EXIT-$?; sleep 600",
            work = self.work().display(),
            home = self.home().display(),
            tmp = self.tmp().display(),
            bin = env!("CARGO_BIN_EXE_pi"),
        )
    }

    /// Start `pi` with `flags` in a `cols`×`rows` tmux window; returns once its
    /// UI shows.
    pub fn start(&self, cols: u16, rows: u16, flags: &str) -> Tmux {
        let t = Tmux::start(cols, rows, &self.command(flags));
        t.wait("the UI", |s| s.contains("mock-1") || s.contains("Trust project folder?"));
        t
    }

    /// Write a file in the project folder.
    pub fn write(&self, rel: &str, content: &str) {
        let p = self.work().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }
}

/// The editor is idle (no working indicator on its border).
pub fn idle(s: &str) -> bool {
    !s.contains("Working") && s.contains("────")
}

/// The last request's messages of a given role, as text.
pub fn messages_of(server: &MockServer, role: &str) -> Vec<String> {
    let reqs = server.requests();
    let Some(last) = reqs.last() else { return Vec::new() };
    last.body["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter(|m| m["role"] == role)
                .map(|m| match &m["content"] {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The folder as trust.json keys it.
pub fn canonical(p: &Path) -> String {
    std::fs::canonicalize(p).expect("canonicalize").to_string_lossy().into_owned()
}
