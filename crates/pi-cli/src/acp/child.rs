//! The pi that runs an ACP session: this same binary in RPC mode
//! (`pi --mode rpc`), in the session's folder, with the flags ACP mode was
//! started with. Commands go to its standard input with an id each and are
//! answered by their response; everything else it prints is an event for the
//! session. It is ended when the session goes (or ACP mode ends).

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

use crate::text;

/// Why talking to a session's pi failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ChildError {
    /// pi could not be started.
    #[error("{}", text::acp_cannot_start(.0))]
    CannotStart(String),
    /// pi ended (or its standard input closed).
    #[error("{}", text::ACP_PI_ENDED)]
    Ended,
    /// pi answered the command with this error (its RPC `error` text).
    #[error("{0}")]
    Failed(String),
}

/// A running pi in RPC mode.
#[derive(Debug)]
pub(crate) struct Child {
    stdin: tokio::sync::Mutex<ChildStdin>,
    next_id: AtomicU64,
    waiting: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    /// Set when pi's output ended: no answer can come any more.
    ended: std::sync::atomic::AtomicBool,
    process: Mutex<Option<tokio::process::Child>>,
}

impl Child {
    /// Start pi in RPC mode in `cwd` (`session`: continue that session
    /// file); its events arrive on the returned channel, which closes when
    /// it ends.
    pub(crate) fn spawn(
        cwd: &Path,
        flags: &[String],
        session: Option<&Path>,
        mcp_file: Option<&Path>,
    ) -> Result<(std::sync::Arc<Child>, mpsc::UnboundedReceiver<Value>), ChildError> {
        let exe = std::env::current_exe().map_err(|e| ChildError::CannotStart(e.to_string()))?;
        let mut cmd = Command::new(exe);
        cmd.args(["--mode", "rpc"]).args(flags);
        if let Some(file) = session {
            cmd.arg("--session").arg(file);
        }
        if let Some(file) = mcp_file {
            cmd.env(pi_mcp::config::EXTRA_FILE_ENV, file);
        }
        cmd.current_dir(cwd).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
        let mut process = cmd.spawn().map_err(|e| ChildError::CannotStart(e.to_string()))?;
        let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
            return Err(ChildError::CannotStart("no pipes".into()));
        };
        let child = std::sync::Arc::new(Child {
            stdin: tokio::sync::Mutex::new(stdin),
            next_id: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
            ended: std::sync::atomic::AtomicBool::new(false),
            process: Mutex::new(Some(process)),
        });
        let (events, rx) = mpsc::unbounded_channel();
        let reader = std::sync::Arc::downgrade(&child);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
                let answer = v["type"] == "response" && v["id"].as_str().is_some_and(|id| id.starts_with("acp-"));
                if answer {
                    let id = v["id"].as_str().unwrap_or_default().to_string();
                    let waiter = reader.upgrade().and_then(|c| c.waiting.lock().ok().and_then(|mut w| w.remove(&id)));
                    if let Some(tx) = waiter {
                        let _ = tx.send(v);
                    }
                } else if events.send(v).is_err() {
                    break;
                }
            }
            // pi ended: commands still waiting get no answer (their senders drop).
            if let Some(c) = reader.upgrade() {
                c.ended.store(true, Ordering::SeqCst);
                if let Ok(mut w) = c.waiting.lock() {
                    w.clear();
                }
            }
        });
        Ok((child, rx))
    }

    /// Write one line to pi.
    pub(crate) async fn send(&self, v: &Value) -> Result<(), ChildError> {
        let mut line = serde_json::to_vec(v).unwrap_or_default();
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        stdin.write_all(&line).await.map_err(|_| ChildError::Ended)?;
        stdin.flush().await.map_err(|_| ChildError::Ended)
    }

    /// Run an RPC command; its `data` (`null` when it has none), or its error.
    pub(crate) async fn command(&self, cmd: Value) -> Result<Value, ChildError> {
        let answer = self.start_command(cmd).await?;
        Self::finish_command(answer).await
    }

    /// Send an RPC command now; its answer comes through the receiver
    /// ([`Child::finish_command`] reads it).
    pub(crate) async fn start_command(&self, mut cmd: Value) -> Result<oneshot::Receiver<Value>, ChildError> {
        let id = format!("acp-{}", self.next_id.fetch_add(1, Ordering::SeqCst));
        let (tx, rx) = oneshot::channel();
        if let Ok(mut w) = self.waiting.lock() {
            w.insert(id.clone(), tx);
        }
        // Asked after pi's output ended: no answer will come (and none waits for it).
        if self.ended.load(Ordering::SeqCst) {
            self.waiting.lock().ok().map(|mut w| w.remove(&id));
            return Err(ChildError::Ended);
        }
        cmd["id"] = json!(id);
        self.send(&cmd).await?;
        Ok(rx)
    }

    /// The answer of a command [`Child::start_command`] sent.
    pub(crate) async fn finish_command(answer: oneshot::Receiver<Value>) -> Result<Value, ChildError> {
        let answer = answer.await.map_err(|_| ChildError::Ended)?;
        if answer["success"] == true {
            Ok(answer.get("data").cloned().unwrap_or(Value::Null))
        } else {
            Err(ChildError::Failed(answer["error"].as_str().unwrap_or(text::ACP_COMMAND_FAILED).to_string()))
        }
    }

    /// End pi now.
    pub(crate) fn kill(&self) {
        if let Some(mut p) = self.process.lock().ok().and_then(|mut p| p.take()) {
            let _ = p.start_kill();
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}
