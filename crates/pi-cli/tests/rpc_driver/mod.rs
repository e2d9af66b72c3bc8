//! Driving `pi --mode rpc` with deadlines: commands written at once, the
//! output read on a thread of its own, answers awaited by `id` with a
//! timeout (a wedged loop fails the test instead of hanging it).
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)] // test code; not every test uses every helper

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use pi_test_support::Scratch;
use serde_json::Value;

/// How long pi may take to start serving (a debug build on a busy machine).
pub const STARTUP_WITHIN: Duration = Duration::from_secs(30);

/// A running `pi --mode rpc`.
pub struct Rpc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Records read but not yet asked for.
    seen: VecDeque<Value>,
    asked: usize,
}

impl Rpc {
    /// Start `pi --mode rpc` in `scratch` with `extra` arguments, and wait
    /// until it serves (start-up is not what the deadlines measure).
    pub fn start(scratch: &Scratch, extra: &[&str]) -> Rpc {
        let (child, stdin, reader) = scratch.rpc(env!("CARGO_BIN_EXE_pi"), extra);
        let mut rpc = Rpc::over(child, stdin, reader);
        let ready = rpc.ask(serde_json::json!({"type": "get_state"}), STARTUP_WITHIN);
        assert!(ready.is_some(), "pi did not start serving within {STARTUP_WITHIN:?}");
        rpc
    }

    /// Drive an already started child.
    pub fn over(child: Child, stdin: ChildStdin, mut reader: impl BufRead + Send + 'static) -> Rpc {
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            loop {
                line.clear();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                // A line serde_json will not read (deeper than its limit) is kept as its text.
                let text = line.trim_end();
                let v = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()));
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Rpc { child, stdin: Some(stdin), lines, seen: VecDeque::new(), asked: 0 }
    }

    /// Write one command.
    pub fn send(&mut self, cmd: Value) {
        let stdin = self.stdin.as_mut().expect("standard input open");
        writeln!(stdin, "{cmd}").unwrap();
        stdin.flush().unwrap();
    }

    /// The first record (seen or coming) that `pred` accepts, within `limit`.
    pub fn find(&mut self, limit: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(i) = self.seen.iter().position(&pred) {
            return self.seen.remove(i);
        }
        let end = Instant::now() + limit;
        loop {
            let left = end.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok(v) if pred(&v) => return Some(v),
                Ok(v) => self.seen.push_back(v),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// The response to the command with `id`, within `limit`.
    pub fn answer(&mut self, id: &str, limit: Duration) -> Option<Value> {
        self.find(limit, |v| v["type"] == "response" && v["id"] == id)
    }

    /// The next event of `kind`, within `limit`.
    pub fn event(&mut self, kind: &str, limit: Duration) -> Option<Value> {
        self.find(limit, |v| v["type"] == kind)
    }

    /// Send `cmd` with a fresh `id` and await its response.
    pub fn ask(&mut self, mut cmd: Value, limit: Duration) -> Option<Value> {
        self.asked += 1;
        let id = format!("ask-{}", self.asked);
        cmd["id"] = Value::String(id.clone());
        self.send(cmd);
        self.answer(&id, limit)
    }

    /// Every record read so far and not asked for.
    pub fn drain(&mut self) -> Vec<Value> {
        while let Ok(v) = self.lines.try_recv() {
            self.seen.push_back(v);
        }
        self.seen.drain(..).collect()
    }

    /// Close standard input; pi must exit, successfully, within `limit`.
    pub fn close_and_wait(mut self, limit: Duration) {
        drop(self.stdin.take());
        let end = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "pi exited with {status}");
                return;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                panic!("pi still running {limit:?} after its input closed");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
