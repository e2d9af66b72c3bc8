//! Commands in session sandboxes (beyond.md B5): a sandbox made once per
//! working folder and set of rules and kept, whose server (inside it) forks
//! each command, instead of new namespaces per command.
//!
//! The server starts through the supervisor like any command (B8: a killed
//! pi takes it along), its stdin the server's end of a control socket. A
//! reader thread per server hands each command's exit code to the call
//! that waits for it; when the server goes, every command still waiting
//! ends as killed (137), as they were. Retired servers (the sandbox would
//! now be different, or too many are kept) end once their last command
//! has. [`end_all`] ends them all and removes the mount points they made.

use std::collections::HashMap;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use pi_sandbox::limits::{MAX_SESSIONS, SESSION_START_TIMEOUT_MS};
use pi_sandbox::{Channel, Event, MountWatch, SessionKey, SessionPlan};
use rustix::process::{Pid, Signal, kill_process_group};
use tokio::sync::oneshot;

use super::process::{CommandSpec, GroupGuard, Running, ShellProcess};

/// Exit code of a command whose sandbox went away (killed with it).
const KILLED: i64 = 128 + 9;
/// Keys whose server could not start, remembered so each command does not
/// try again (it gets a sandbox of its own instead).
const MAX_FAILED_KEYS: usize = 16;

type Pending = Mutex<HashMap<u64, oneshot::Sender<Option<i64>>>>;

/// A running session server.
pub(crate) struct Server {
    channel: Arc<Channel>,
    pending: Arc<Pending>,
    alive: Arc<AtomicBool>,
    pgid: Option<Pid>,
    watch: MountWatch,
    /// The sandbox's mount points, removed once it is gone.
    guard: Mutex<Option<pi_sandbox::Guard>>,
    /// Held while the server lives: when pi dies, the supervisor kills it.
    _lifeline: OwnedFd,
}

impl Server {
    fn kill_command(&self, id: u64) {
        if self.channel.kill(id).is_err() {
            self.kill_server();
        }
    }

    fn kill_server(&self) {
        if let Some(p) = self.pgid {
            let _ = kill_process_group(p, Signal::KILL);
        }
        self.channel.close();
    }

    fn usable(&self) -> bool {
        self.alive.load(Ordering::SeqCst) && self.watch.intact()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The server kills what is left in its sandbox and ends.
        self.channel.close();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The session servers this process keeps.
struct Sessions {
    /// The servers, least recently used first.
    servers: Mutex<Vec<(SessionKey, Arc<Server>)>>,
    /// Keys whose server could not start.
    failed: Mutex<Vec<SessionKey>>,
    /// Held while a server starts, so two first commands do not start two.
    starting: Mutex<()>,
}

/// A static because pi's exit and its signal handler end every server
/// ([`end_all`], through `kill_running_commands`) without a context to
/// find them in.
static SESSIONS: Sessions =
    Sessions { servers: Mutex::new(Vec::new()), failed: Mutex::new(Vec::new()), starting: Mutex::new(()) };
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The usable server for `key`, if one runs.
fn lookup(key: &SessionKey) -> Option<Arc<Server>> {
    let mut servers = lock(&SESSIONS.servers);
    servers.retain(|(k, s)| k != key || s.usable());
    let i = servers.iter().position(|(k, _)| k == key)?;
    let entry = servers.remove(i);
    let server = Arc::clone(&entry.1);
    servers.push(entry);
    Some(server)
}

/// The server for `plan`, started when there is none; `None` when none can
/// start (the command then gets a sandbox of its own).
fn acquire(plan: &SessionPlan) -> Option<Arc<Server>> {
    let _one = lock(&SESSIONS.starting);
    if let Some(s) = lookup(&plan.key) {
        return Some(s);
    }
    if lock(&SESSIONS.failed).contains(&plan.key) {
        return None;
    }
    match start(plan) {
        Ok(server) => {
            let server = Arc::new(server);
            let mut servers = lock(&SESSIONS.servers);
            servers.push((plan.key.clone(), Arc::clone(&server)));
            while servers.len() > MAX_SESSIONS {
                servers.remove(0);
            }
            Some(server)
        }
        Err(_) => {
            let mut failed = lock(&SESSIONS.failed);
            if failed.len() >= MAX_FAILED_KEYS {
                failed.remove(0);
            }
            failed.push(plan.key.clone());
            None
        }
    }
}

/// Start a server for `plan` and wait until it is ready.
fn start(plan: &SessionPlan) -> io::Result<Server> {
    let sup = super::supervisor::supervisor().ok_or_else(|| io::Error::other("no supervisor"))?;
    let (channel, theirs) = pi_sandbox::channel()?;
    let line = super::supervisor::lifeline()?;
    let args =
        super::supervisor::arguments(super::supervisor::raw(&line.give), &plan.server.program, &plan.server.args);
    let guard = plan.guard();
    let mut child = std::process::Command::new(sup)
        .args(&args)
        .current_dir(&plan.server.cwd)
        .env_clear()
        .envs(plan.server.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    drop(line.give);
    let pgid = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    let ready = channel.wait_ready(Duration::from_millis(SESSION_START_TIMEOUT_MS)).unwrap_or(false);
    if !ready {
        if let Some(p) = pgid {
            let _ = kill_process_group(p, Signal::KILL);
        }
        let _ = child.wait();
        return Err(io::Error::other("the session sandbox did not start"));
    }
    let channel = Arc::new(channel);
    let pending: Arc<Pending> = Arc::default();
    let alive = Arc::new(AtomicBool::new(true));
    let (c, p, a) = (Arc::clone(&channel), Arc::clone(&pending), Arc::clone(&alive));
    std::thread::Builder::new().name("pi-sandbox-session".into()).spawn(move || {
        read_events(&c, &p, &a);
        if let Some(g) = pgid {
            let _ = kill_process_group(g, Signal::KILL);
        }
        let _ = child.wait();
    })?;
    Ok(Server {
        channel,
        pending,
        alive,
        pgid,
        watch: plan.watch(),
        guard: Mutex::new(Some(guard)),
        _lifeline: line.keep,
    })
}

/// Hand each exit code to its command until the server is gone; then every
/// command still waiting ends as killed.
fn read_events(channel: &Channel, pending: &Pending, alive: &AtomicBool) {
    while let Ok(Some(event)) = channel.next_event() {
        if let Event::Exit { id, code } = event
            && let Some(tx) = lock(pending).remove(&id)
        {
            let _ = tx.send(Some(code));
        }
    }
    alive.store(false, Ordering::SeqCst);
    for (_, tx) in lock(pending).drain() {
        let _ = tx.send(Some(KILLED));
    }
}

/// Start `command` in `server`: output into two new pipes, as a spawned command's.
fn run_in(server: Arc<Server>, command: &CommandSpec) -> io::Result<Running> {
    let (out_r, out_w) = io::pipe()?;
    let (err_r, err_w) = io::pipe()?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = oneshot::channel();
    {
        let mut pending = lock(&server.pending);
        if !server.alive.load(Ordering::SeqCst) {
            return Err(io::Error::other("the session sandbox is gone"));
        }
        pending.insert(id, tx);
    }
    let out_w: OwnedFd = out_w.into();
    let err_w: OwnedFd = err_w.into();
    if let Err(e) = server.channel.run(id, command, out_w.as_fd(), err_w.as_fd()) {
        lock(&server.pending).remove(&id);
        return Err(e);
    }
    let group = GroupGuard::remote(Box::new(move || server.kill_command(id)));
    Ok(Running { child: ShellProcess::Remote { rx, done: None }, group, output: [out_r, err_r], lifeline: None })
}

/// Run `plan`'s command in its session sandbox; `None` when there is none
/// to be had (the caller gives it a sandbox of its own).
pub(crate) async fn run(plan: &SessionPlan) -> Option<Running> {
    super::supervisor::supervisor()?;
    let server = match lookup(&plan.key) {
        Some(s) => s,
        None => {
            let p = plan.clone();
            tokio::task::spawn_blocking(move || acquire(&p)).await.ok().flatten()?
        }
    };
    run_in(server, &plan.command).ok()
}

/// End every session sandbox: kill the servers (and so every command in
/// them) and remove the mount points they made. For pi's exit.
pub(crate) fn end_all() {
    let servers: Vec<(SessionKey, Arc<Server>)> = std::mem::take(&mut *lock(&SESSIONS.servers));
    for (_, s) in servers {
        s.kill_server();
        drop(lock(&s.guard).take());
    }
}
