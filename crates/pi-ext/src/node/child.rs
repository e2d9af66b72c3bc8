//! `node:child_process` on std: `spawnSync` (the sync forms) runs a command
//! to its end on the engine thread; `spawn` (the async forms) starts it and
//! reports its output and exit as messages to the engine's loop. Children
//! start through pi's supervisor when one is set (`pi_tools::supervised_command`),
//! in their own process group, so the ones still running when the engine
//! stops (or pi dies) are killed with their group.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::error::NodeError;
use crate::text::node as t;

/// Output, end of output and exit of a child process (`node:child_process`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ChildEvent {
    /// Bytes on stdout (1) or stderr (2).
    Data {
        /// 1 or 2.
        stream: u8,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// The stream ended.
    End {
        /// 1 or 2.
        stream: u8,
    },
    /// The process ended: its exit code, or the signal that killed it.
    Exit {
        /// The exit code.
        code: Option<i64>,
        /// The signal's name.
        signal: Option<String>,
    },
}

/// What the glue asks to run (`shell` already turned into `sh -c`).
#[derive(Debug, Deserialize)]
pub(crate) struct SpawnSpec {
    file: String,
    #[serde(default)]
    args: Vec<String>,
    cwd: Option<String>,
    env: Option<HashMap<String, String>>,
    /// Milliseconds (sync forms only).
    timeout: Option<f64>,
    #[serde(rename = "killSignal")]
    kill_signal: Option<String>,
    #[serde(rename = "maxBuffer")]
    max_buffer: Option<f64>,
    /// Which of stdin, stdout, stderr are pipes (`"pipe"`), else ignored / inherited.
    #[serde(default)]
    stdio: Vec<String>,
}

/// A running child of the async forms.
pub(crate) struct Running {
    pub pid: u32,
    pub stdin: Option<ChildStdin>,
    /// Held while the child may run: closing it makes the supervisor kill the group.
    pub _lifeline: Option<OwnedFd>,
    /// The child has exited (and was reaped): its group id may be reused.
    pub exited: bool,
    /// Its output streams whose end has not been told yet (an `end` event
    /// comes for each, also for one not piped).
    pub open_streams: u8,
}

impl Running {
    /// Whether everything about the child has been told (exit and both ends).
    pub(crate) fn done(&self) -> bool {
        self.exited && self.open_streams == 0
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // The engine stopped while the child runs: its group goes with it.
        if !self.exited {
            kill_group(self.pid, "SIGKILL");
        }
    }
}

/// Signal `pid`'s process group; false when there is none.
pub(crate) fn kill_group(pid: u32, signal: &str) -> bool {
    use rustix::process::{Pid, Signal, kill_process_group};
    let sig = match signal {
        "SIGKILL" | "9" => Signal::KILL,
        "SIGINT" | "2" => Signal::INT,
        "SIGHUP" | "1" => Signal::HUP,
        "SIGQUIT" | "3" => Signal::QUIT,
        "SIGUSR1" | "10" => Signal::USR1,
        "SIGUSR2" | "12" => Signal::USR2,
        _ => Signal::TERM,
    };
    match Pid::from_raw(pid as i32) {
        Some(p) => kill_process_group(p, sig).is_ok(),
        None => false,
    }
}

fn signal_name(n: i32) -> &'static str {
    match n {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => "SIGTERM",
    }
}

fn status_json(status: ExitStatus) -> (Value, Value) {
    match (status.code(), status.signal()) {
        (Some(c), _) => (json!(c), Value::Null),
        (None, Some(s)) => (Value::Null, json!(signal_name(s))),
        _ => (Value::Null, Value::Null),
    }
}

fn pipe(spec: &SpawnSpec, i: usize) -> Stdio {
    match spec.stdio.get(i).map(String::as_str) {
        Some("ignore") => Stdio::null(),
        Some("inherit") if i > 0 => Stdio::from(std::io::stderr()),
        _ => Stdio::piped(),
    }
}

/// Node's error for a child that could not run: `<syscall> <file> <CODE>`.
fn spawn_error(e: &std::io::Error, syscall: &str, file: &str) -> NodeError {
    let mut err = NodeError::io(e, &format!("{syscall} {file}"), Some(file));
    err.message = t::spawn_message(&err.syscall, &err.code);
    err
}

/// Build and start the command; the lifeline to keep comes back with it.
fn start(spec: &SpawnSpec) -> Result<(Child, Option<OwnedFd>), NodeError> {
    let args: Vec<std::ffi::OsString> = spec.args.iter().map(Into::into).collect();
    let sup = pi_tools::supervised_command(std::path::Path::new(&spec.file), &args)
        .map_err(|e| spawn_error(&e, "spawn", &spec.file))?;
    let mut cmd: Command = sup.command;
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    if let Some(env) = &spec.env {
        cmd.env_clear().envs(env);
    }
    cmd.stdin(pipe(spec, 0)).stdout(pipe(spec, 1)).stderr(pipe(spec, 2));
    if let Some(cwd) = &spec.cwd
        && !std::path::Path::new(cwd).is_dir()
    {
        let e = std::io::Error::from_raw_os_error(2);
        return Err(spawn_error(&e, "spawn", &spec.file));
    }
    // The supervisor reports a program it cannot start as exit 127; find it first, as Node's spawn does.
    if !spec.file.contains('/') && which(&spec.file, spec.env.as_ref()).is_none() {
        let e = std::io::Error::from_raw_os_error(2);
        return Err(spawn_error(&e, "spawn", &spec.file));
    }
    let child = cmd.spawn().map_err(|e| spawn_error(&e, "spawn", &spec.file))?;
    drop(cmd);
    drop(sup.give);
    Ok((child, sup.keep))
}

/// The program `name` on `PATH` (the child's, else ours).
fn which(name: &str, env: Option<&HashMap<String, String>>) -> Option<std::path::PathBuf> {
    let path = env.and_then(|e| e.get("PATH").cloned()).or_else(|| std::env::var("PATH").ok())?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out);
        out
    })
}

/// Run `spec` to its end with `input` on its stdin (the sync forms).
/// `{pid, status, signal, stdout, stderr, error?}`; output as byte strings (one char per byte).
pub(crate) fn spawn_sync(spec: &SpawnSpec, input: Option<Vec<u8>>) -> Value {
    let (mut child, lifeline) = match start(spec) {
        Ok(c) => c,
        Err(e) => {
            return json!({"error": super::error_json(&e), "status": null, "signal": null, "stdout": "", "stderr": ""});
        }
    };
    let pid = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.unwrap_or_default();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let out = child.stdout.take().map(read_all);
    let err = child.stderr.take().map(read_all);
    let deadline =
        spec.timeout.filter(|t| t.is_finite() && *t > 0.0).map(|t| Instant::now() + Duration::from_millis(t as u64));
    let mut timed_out = false;
    // The exit is waited for on its own thread, so it is seen the moment it
    // happens (no polling), and a timeout can still kill the group.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait().ok());
    });
    let status = match deadline {
        None => rx.recv().ok().flatten(),
        Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
            Ok(s) => s,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                timed_out = true;
                kill_group(pid, spec.kill_signal.as_deref().unwrap_or("SIGTERM"));
                rx.recv().ok().flatten()
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => None,
        },
    };
    drop(lifeline);
    let max = spec.max_buffer.filter(|m| m.is_finite() && *m > 0.0).map(|m| m as usize).unwrap_or(t::MAX_BUFFER);
    let take = |h: Option<std::thread::JoinHandle<Vec<u8>>>| -> Vec<u8> {
        let mut v = h.and_then(|h| h.join().ok()).unwrap_or_default();
        v.truncate(max);
        v
    };
    let (stdout, stderr) = (take(out), take(err));
    let (code, signal) = status.map(status_json).unwrap_or((Value::Null, Value::Null));
    let mut v = json!({"pid": pid, "status": code, "signal": signal,
        "stdout": super::latin1(&stdout), "stderr": super::latin1(&stderr)});
    if timed_out {
        let e = spawn_error(&std::io::Error::from_raw_os_error(110), "spawnSync", &spec.file);
        v["error"] = super::error_json(&e);
    }
    v
}

/// Start `spec` (the async forms): its output, end of streams and exit are
/// handed to `report` (from other threads), until it answers false (no one
/// listens any more).
pub(crate) fn spawn<F>(spec: &SpawnSpec, report: F) -> Result<Running, NodeError>
where
    F: Fn(ChildEvent) -> bool + Clone + Send + 'static,
{
    let (mut child, lifeline) = start(spec)?;
    let pid = child.id();
    let streams: [(u8, Option<Box<dyn Read + Send>>); 2] = [
        (1, child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>)),
        (2, child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>)),
    ];
    for (stream, reader) in streams {
        let report = report.clone();
        match reader {
            None => {
                report(ChildEvent::End { stream });
            }
            Some(mut r) => {
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; t::CHUNK];
                    loop {
                        match r.read(&mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                let bytes = buf[..n].to_vec();
                                if !report(ChildEvent::Data { stream, bytes }) {
                                    break;
                                }
                            }
                        }
                    }
                    report(ChildEvent::End { stream });
                });
            }
        }
    }
    let stdin = child.stdin.take();
    std::thread::spawn(move || {
        let (code, signal) = match child.wait() {
            Ok(s) => status_json(s),
            Err(_) => (Value::Null, Value::Null),
        };
        report(ChildEvent::Exit { code: code.as_i64(), signal: signal.as_str().map(str::to_string) });
    });
    Ok(Running { pid, stdin, _lifeline: lifeline, exited: false, open_streams: 2 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: Value) -> SpawnSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn sync_runs_to_the_end_with_input_and_status() {
        let r = spawn_sync(
            &spec(json!({"file": "sh", "args": ["-c", "cat; echo err >&2; exit 3"]})),
            Some(b"in\xff".to_vec()),
        );
        assert_eq!(r["status"], 3);
        assert_eq!(r["stdout"], "in\u{ff}");
        assert_eq!(r["stderr"], "err\n");
        assert!(r.get("error").is_none());
    }

    #[test]
    fn sync_failures_are_node_errors() {
        let r = spawn_sync(&spec(json!({"file": "no-such-program-pi"})), None);
        assert_eq!(r["error"]["code"], "ENOENT");
        assert_eq!(r["error"]["message"], "spawn no-such-program-pi ENOENT");
        let r = spawn_sync(&spec(json!({"file": "sh", "cwd": "/no/such/dir"})), None);
        assert_eq!(r["error"]["code"], "ENOENT");
        let r = spawn_sync(&spec(json!({"file": "sh", "args": ["-c", "kill -9 $$"]})), None);
        assert_eq!((r["status"].clone(), r["signal"].clone()), (Value::Null, json!("SIGKILL")));
        let r = spawn_sync(&spec(json!({"file": "sleep", "args": ["30"], "timeout": 200})), None);
        assert_eq!(r["error"]["code"], "ETIMEDOUT");
        assert_eq!(r["error"]["message"], "spawnSync sleep ETIMEDOUT");
        assert_eq!(r["signal"], "SIGTERM");
    }

    #[test]
    fn async_reports_output_and_exit_and_dropping_kills() {
        let (raw, rx) = std::sync::mpsc::channel();
        let to = |id: u64| {
            let raw = raw.clone();
            move |event| raw.send((id, event)).is_ok()
        };
        let running = spawn(&spec(json!({"file": "sh", "args": ["-c", "echo hi; exit 4"]})), to(7)).unwrap();
        let mut got = Vec::new();
        while got.len() < 4 {
            match rx.recv_timeout(Duration::from_secs(30)).unwrap() {
                (7, event) => got.push(event),
                _ => panic!("unexpected message"),
            }
        }
        assert!(got.iter().any(|e| matches!(e, ChildEvent::Data { stream: 1, bytes } if bytes == b"hi\n")));
        assert!(got.iter().any(|e| matches!(e, ChildEvent::Exit { code: Some(4), signal: None })));
        let mut running = running;
        running.exited = true;
        drop(running);
        let never = spawn(&spec(json!({"file": "sleep", "args": ["1000"]})), to(8)).unwrap();
        drop(never);
        let exit = loop {
            match rx.recv_timeout(Duration::from_secs(30)).unwrap() {
                (8, ChildEvent::Exit { code, signal }) => break (code, signal),
                _ => continue,
            }
        };
        assert_eq!(exit, (None, Some("SIGKILL".to_string())));
        assert_eq!(
            spawn(&spec(json!({"file": "/no/such"})), to(9)).err().map(|e| e.code.clone()),
            Some("ENOENT".into())
        );
    }
}
