//! One `pi --mode rpc --sandbox MODE` for a world: many commands (RPC
//! `bash`) in one pi, so in one session sandbox, as the world's user, with a
//! descriptor open for writing outside the project (fd 5) and the world's
//! secrets in its environment.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Ran, World};

/// How long one command may take before the test gives up on it.
const COMMAND_WAIT: Duration = Duration::from_secs(90);

/// A running `pi --mode rpc`.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    records: mpsc::Receiver<Value>,
    next: u64,
}

impl World {
    /// A pi in RPC mode with `--sandbox mode` in the project.
    pub fn session(&self, mode: &str) -> Session {
        let args = ["--mode", "rpc", "--no-session", "--offline", "--sandbox", mode].map(String::from);
        let mut c = self.pi_process(args.to_vec(), true);
        let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, records) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Session { child, stdin, records, next: 0 }
    }
}

impl Session {
    /// pi's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send a request; its id.
    pub fn send(&mut self, mut request: Value) -> String {
        self.next += 1;
        let id = format!("r{}", self.next);
        request["id"] = json!(id);
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        id
    }

    /// The response to request `id`.
    pub fn response(&self, id: &str) -> Value {
        let deadline = Instant::now() + COMMAND_WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self.records.recv_timeout(left).unwrap_or_else(|_| panic!("no response to {id}"));
            if v["type"] == "response" && v["id"] == id {
                return v;
            }
        }
    }

    /// Run `template` (expanded by `world`) as an RPC `bash` command.
    pub fn bash(&mut self, world: &World, template: &str) -> Ran {
        let id = self.send(json!({"type": "bash", "command": world.expand(template)}));
        let r = self.response(&id);
        let data = &r["data"];
        let text = data["output"].as_str().unwrap_or_default().to_string();
        let full = data["fullOutputPath"].as_str().map(PathBuf::from);
        let mut raw = format!("{r}\n{text}");
        if let Some(all) = full.and_then(|f| std::fs::read(f).ok()) {
            raw.push_str(&String::from_utf8_lossy(&all));
        }
        Ran { text, raw, json: Some(r) }
    }

    /// Close stdin and wait for pi to end.
    pub fn close(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + COMMAND_WAIT;
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "pi did not end after its input closed");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL pi.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Processes whose command line mentions `needle`, after waiting up to
/// `wait` for them to go.
pub fn processes_mentioning(needle: &Path, wait: Duration) -> Vec<String> {
    let needle = needle.to_string_lossy().into_owned();
    let deadline = Instant::now() + wait;
    loop {
        let found: Vec<String> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
            .filter_map(|e| {
                let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                cmd.contains(&needle).then(|| format!("{}: {cmd}", e.file_name().to_string_lossy()))
            })
            .collect();
        if found.is_empty() || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
