//! A stdio server's process and its two pipes, for rmcp.
//!
//! pi spawns the server itself (rather than through rmcp's child-process
//! transport) for two reasons: it keeps the child, so stopping can close
//! stdin, wait, then signal the process group; and it reads the server's
//! standard output through a [`Tap`], which keeps the raw JSON of the
//! resource answers pi asks for. rmcp parses every message into typed
//! structs, which lose the server's key order, and the resource tools show
//! the server's objects as the server wrote them (as the reference does).

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

use crate::text;

/// Raw `result`s of the resource requests in flight, by JSON-RPC id.
#[derive(Debug, Default)]
pub(crate) struct Stash {
    /// How many resource requests are in flight; lines are parsed only then.
    wanted: AtomicUsize,
    results: Mutex<VecDeque<(Value, Value)>>,
}

impl Stash {
    /// A resource request is about to be sent: keep raw results until [`Stash::done`].
    pub(crate) fn want(&self) {
        self.wanted.fetch_add(1, Ordering::SeqCst);
    }

    /// The request is over.
    pub(crate) fn done(&self) {
        let _ = self.wanted.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if self.wanted.load(Ordering::SeqCst) == 0 {
            self.lock().clear();
        }
    }

    /// The raw result of the answer to `id`, once.
    pub(crate) fn take(&self, id: &Value) -> Option<Value> {
        let mut results = self.lock();
        let at = results.iter().position(|(i, _)| i == id)?;
        results.remove(at).map(|(_, r)| r)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(Value, Value)>> {
        self.results.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keep `line` (one JSON-RPC message) when it is the answer to a resource request.
    pub(crate) fn scan(&self, line: &[u8]) {
        if self.wanted.load(Ordering::SeqCst) == 0 {
            return;
        }
        let keys: [&[u8]; 3] = [b"\"resources\"", b"\"resourceTemplates\"", b"\"contents\""];
        if !keys.iter().any(|k| memchr::memmem::find(line, k).is_some()) {
            return;
        }
        let Ok(Value::Object(mut m)) = serde_json::from_slice::<Value>(line) else { return };
        let (Some(id), Some(result)) = (m.remove("id"), m.remove("result")) else { return };
        let mut results = self.lock();
        if results.len() >= text::MAX_STASHED_RESULTS {
            results.pop_front();
        }
        results.push_back((id, result));
    }
}

/// The server's standard output (whole lines within the limits, see
/// [`crate::guard`]), passed through unchanged, with complete lines shown
/// to the [`Stash`].
pub(crate) struct Tap<R> {
    inner: R,
    line: Vec<u8>,
    /// The current line is past [`text::MAX_STASHED_LINE_BYTES`]: not kept.
    skipping: bool,
    stash: Arc<Stash>,
}

impl<R> Tap<R> {
    /// Tap `inner` for `stash`.
    pub(crate) fn new(inner: R, stash: Arc<Stash>) -> Self {
        Tap { inner, line: Vec::new(), skipping: false, stash }
    }

    fn feed(&mut self, bytes: &[u8]) {
        if self.stash.wanted.load(Ordering::SeqCst) == 0 && self.line.is_empty() && !self.skipping {
            // Nothing is asked for: only note whether a line is left open.
            if let Some(last) = memchr::memrchr(b'\n', bytes) {
                self.skipping = last + 1 < bytes.len();
            } else {
                self.skipping = !bytes.is_empty();
            }
            return;
        }
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            if !self.skipping {
                if self.line.len() + chunk.len() > text::MAX_STASHED_LINE_BYTES {
                    self.skipping = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            if chunk.last() == Some(&b'\n') {
                if !self.skipping {
                    self.stash.scan(&self.line);
                }
                self.line.clear();
                self.skipping = false;
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Tap<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            this.feed(&buf.filled()[before..]);
        }
        polled
    }
}

/// A started server: the child (its process group's leader) and its pipes.
pub(crate) struct Spawned {
    /// The child; killed when dropped.
    pub child: tokio::process::Child,
    /// Its standard output, tapped.
    pub stdout: Tap<crate::guard::Guard<tokio::process::ChildStdout>>,
    /// Its standard input.
    pub stdin: tokio::process::ChildStdin,
}

/// Start `cmd` as the leader of a new process group, with piped stdin and
/// stdout (standard error goes to `stderr`).
///
/// The server is also told to die with pi (`PR_SET_PDEATHSIG`, SIGKILL), so
/// a pi killed with SIGKILL, which cannot stop anything, leaves no server
/// behind. The signal comes when the *thread* that started the server ends:
/// servers are started from the runtime's worker threads, which live as
/// long as pi (pi never calls `block_in_place`). It reaches the server
/// only; a wrapper's children (`npx`, `uvx`) see their standard input
/// close and end when they leave on that, as MCP servers do.
pub(crate) fn spawn(
    mut cmd: tokio::process::Command,
    stderr: std::process::Stdio,
    stash: Arc<Stash>,
) -> std::io::Result<Spawned> {
    let pi = rustix::process::getpid();
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the child between fork and exec; it makes
    // two raw system calls (prctl, getppid) and builds an error from an
    // errno, which allocates nothing and takes no lock: async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
            if rustix::process::getppid() != Some(pi) {
                // pi ended before the death signal was set: do not outlive it.
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
    cmd.process_group(0)
        .kill_on_drop(true)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(stderr);
    let mut child = cmd.spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(std::io::Error::other(text::NO_PIPES));
    };
    Ok(Spawned { child, stdout: Tap::new(crate::guard::Guard::new(stdout), stash), stdin })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn read_all(input: &[u8], stash: Arc<Stash>) -> Vec<u8> {
        let mut tap = Tap::new(input, stash);
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            let n = tap.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    }

    #[tokio::test]
    async fn passes_bytes_through_and_keeps_wanted_resource_answers_in_server_order() {
        let stash = Arc::new(Stash::default());
        stash.want();
        let input = b"garbage\n{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"resources\":[{\"uri\":\"a\",\"name\":\"n\",\"mimeType\":\"m\",\"description\":\"d\"}]}}\n{\"id\":8,\"result\":{\"tools\":[]}}\npartial";
        let out = read_all(input, stash.clone()).await;
        assert_eq!(out, input.to_vec());
        let raw = stash.take(&serde_json::json!(7)).unwrap_or_default();
        let keys: Vec<&String> = raw["resources"][0].as_object().map(|o| o.keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["uri", "name", "mimeType", "description"]);
        assert_eq!(stash.take(&serde_json::json!(7)), None, "taken once");
        assert_eq!(stash.take(&serde_json::json!(8)), None, "not a resource answer");
    }

    #[tokio::test]
    async fn keeps_nothing_when_nothing_is_wanted_and_bounds_what_it_keeps() {
        let stash = Arc::new(Stash::default());
        let line = b"{\"id\":1,\"result\":{\"contents\":[]}}\n";
        read_all(line, stash.clone()).await;
        assert_eq!(stash.take(&serde_json::json!(1)), None);
        stash.want();
        let mut many = Vec::new();
        for i in 0..(text::MAX_STASHED_RESULTS + 5) {
            many.extend_from_slice(format!("{{\"id\":{i},\"result\":{{\"contents\":[]}}}}\n").as_bytes());
        }
        read_all(&many, stash.clone()).await;
        assert_eq!(stash.take(&serde_json::json!(0)), None, "the oldest went");
        assert!(stash.take(&serde_json::json!(text::MAX_STASHED_RESULTS + 4)).is_some());
        stash.done();
        assert_eq!(stash.take(&serde_json::json!(text::MAX_STASHED_RESULTS + 3)), None, "cleared when done");
    }

    #[tokio::test]
    async fn a_line_past_the_limit_is_skipped_and_the_next_is_kept() {
        let stash = Arc::new(Stash::default());
        stash.want();
        let mut input = b"{\"id\":1,\"result\":{\"contents\":\"".to_vec();
        input.extend(std::iter::repeat_n(b'x', text::MAX_STASHED_LINE_BYTES));
        input.extend_from_slice(b"\"}}\n{\"id\":2,\"result\":{\"contents\":[]}}\n");
        let out = read_all(&input, stash.clone()).await;
        assert_eq!(out.len(), input.len());
        assert_eq!(stash.take(&serde_json::json!(1)), None);
        assert!(stash.take(&serde_json::json!(2)).is_some());
    }

    /// Whether `pid` runs (a zombie counts as gone).
    fn alive(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z"),
            Err(_) => false,
        }
    }

    #[test]
    fn a_server_dies_with_the_thread_that_started_it() {
        // The death signal fires when the starting thread ends (as when pi dies):
        // start a server that would sleep on, from a thread that then ends.
        let started = std::thread::spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            rt.block_on(async {
                let mut cmd = tokio::process::Command::new("sleep");
                cmd.arg("1000");
                let spawned = spawn(cmd, std::process::Stdio::null(), Arc::default()).ok()?;
                let pid = spawned.child.id()?;
                std::mem::forget(spawned.child); // not killed on drop: only the death signal may end it
                Some(pid)
            })
        });
        let pid = started.join().ok().flatten().unwrap_or_default();
        assert!(pid > 0, "started");
        // Bounded wait for the kernel's SIGKILL to land (not a timing assertion).
        for _ in 0..400 {
            if !alive(pid) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        let survived = alive(pid);
        if survived && let Some(p) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
        }
        assert!(!survived, "the server outlived the thread that started it");
    }
}
