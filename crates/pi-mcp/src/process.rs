//! A stdio server's process group: the server was started as its leader, so
//! signalling the group reaches the children of `npx`/`uvx` wrappers too.
//! Stopping gives the server a grace period after its standard input closed,
//! then SIGTERM to the group, another grace period, then SIGKILL. A dropped
//! [`Process`] kills its group at once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::process::{Pid, Signal};

use crate::text;

/// A started stdio server.
#[derive(Debug)]
pub(crate) struct Process {
    /// The leader's pid, which is the group's id.
    pub pid: u32,
    child: Mutex<Option<tokio::process::Child>>,
    stopped: AtomicBool,
    groups: Groups,
}

/// The process groups of the servers started and not yet stopped (all of
/// this process's: a signal that ends pi stops them all). A static because
/// the signal handler that stops them gets no context argument.
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<u32>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The process groups of one session's servers not stopped yet.
pub(crate) type Groups = std::sync::Arc<Mutex<Vec<u32>>>;

/// SIGKILL to every group of `groups` (servers still starting when their
/// session ends) and of [`LIVE`] when `groups` is `None`.
pub(crate) fn kill_all(groups: Option<&Groups>) {
    let pids: Vec<u32> = match groups {
        Some(g) => g.lock().unwrap_or_else(|p| p.into_inner()).drain(..).collect(),
        None => live().drain(..).collect(),
    };
    for pid in pids {
        signal(pid, Signal::KILL);
    }
}

/// On a signal that ends pi: SIGTERM to every server's process group, a
/// short grace period (blocking), then SIGKILL to what is left.
pub fn stop_all_now() {
    let pids: Vec<u32> = live().clone();
    if pids.is_empty() {
        return;
    }
    for pid in &pids {
        signal(*pid, Signal::TERM);
    }
    let gone = |pid: &u32| group(*pid).is_none_or(|g| rustix::process::test_kill_process_group(g).is_err());
    let mut waited = std::time::Duration::ZERO;
    while waited < text::EXIT_GRACE && !pids.iter().all(gone) {
        std::thread::sleep(text::STOP_POLL);
        waited += text::STOP_POLL;
    }
    kill_all(None);
}

fn group(pid: u32) -> Option<Pid> {
    i32::try_from(pid).ok().filter(|p| *p > 1).and_then(Pid::from_raw)
}

fn signal(pid: u32, signal: Signal) {
    if let Some(g) = group(pid) {
        let _ = rustix::process::kill_process_group(g, signal);
    }
}

impl Process {
    /// Own `child` (started with `process_group(0)`).
    pub(crate) fn new(child: tokio::process::Child, groups: Groups) -> Self {
        let pid = child.id().unwrap_or(0);
        live().push(pid);
        groups.lock().unwrap_or_else(|p| p.into_inner()).push(pid);
        Process { pid, child: Mutex::new(Some(child)), stopped: AtomicBool::new(false), groups }
    }

    fn forget(&self) {
        live().retain(|p| *p != self.pid);
        self.groups.lock().unwrap_or_else(|p| p.into_inner()).retain(|p| *p != self.pid);
    }

    fn group(&self) -> Option<Pid> {
        group(self.pid)
    }

    fn signal(&self, s: Signal) {
        signal(self.pid, s);
    }

    /// Whether any process of the group is left (the leader is reaped as it goes).
    fn group_alive(&self) -> bool {
        if let Some(child) = self.child.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            let _ = child.try_wait();
        }
        self.group().is_some_and(|g| rustix::process::test_kill_process_group(g).is_ok())
    }

    /// Wait up to `grace` for the whole group to be gone.
    async fn wait_gone(&self, grace: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            if !self.group_alive() {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(text::STOP_POLL).await;
        }
    }

    /// Stop the group (its standard input is already closed): a grace
    /// period, SIGTERM, another, SIGKILL.
    pub(crate) async fn stop(&self) {
        if self.stopped.swap(true, Ordering::SeqCst) {
            return;
        }
        if self.wait_gone(text::STOP_GRACE).await {
            self.reap();
            return;
        }
        self.signal(Signal::TERM);
        if !self.wait_gone(text::STOP_GRACE).await {
            self.signal(Signal::KILL);
        }
        self.reap();
    }

    /// SIGKILL to the group now.
    pub(crate) fn kill(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.signal(Signal::KILL);
        self.reap();
    }

    fn reap(&self) {
        self.forget();
        if let Some(mut child) = self.child.lock().unwrap_or_else(|p| p.into_inner()).take() {
            // Reaped by tokio's orphan queue if it is not gone yet.
            let _ = child.try_wait();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if !self.stopped.load(Ordering::SeqCst) {
            self.signal(Signal::KILL);
        }
        self.forget();
    }
}
