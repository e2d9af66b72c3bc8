//! The session server: the helper started once as `pi __pi-sandbox --serve
//! <rules>` inside bubblewrap, its stdin the control socket. It restricts
//! itself as the helper does for one command (Landlock, seccomp,
//! no-new-privs, no capabilities), makes itself undumpable (no command can
//! read or write its memory through `/proc`), says it is ready, then runs
//! each command pi sends: a new process group, stdin `/dev/null`, stdout and
//! stderr the descriptors that came with the request, the request's working
//! folder and environment. When a command's shell ends, its group is
//! killed (as the per-command sandbox's pid namespace ended with it), and
//! when no command is left every other process in the sandbox is too, and
//! in read-only mode the private temp is emptied: the next command starts
//! in a sandbox as empty as a new one. When pi goes (the socket closes),
//! everything in the sandbox is killed and the server ends, and with it
//! the sandbox.

use std::collections::HashMap;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use rustix::event::{PollFd, PollFlags, poll};
use rustix::process::{Pid, PidfdFlags, Signal};

use super::error::RestrictError;
use super::spec::HelperSpec;
use super::wire::{self, Event, ToServer};
use crate::limits::{HELPER_EXEC_FAILED, HELPER_REFUSED};
use crate::text;

/// A command the server started.
struct Running {
    child: Child,
    /// Readable once the child has ended.
    pidfd: OwnedFd,
}

/// Run the server; returns the exit status.
pub(super) fn serve(spec: &HelperSpec, clear: &[PathBuf]) -> i32 {
    let sock = match take_control_socket() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}", text::helper_failed(&e.to_string()));
            return HELPER_REFUSED;
        }
    };
    if let Err(e) = super::helper::restrict(spec).and_then(|()| {
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
            .map_err(RestrictError::from)
    }) {
        eprintln!("{}", text::helper_failed(&e.to_string()));
        return HELPER_REFUSED;
    }
    if wire::send_event(sock.as_fd(), Event::Ready).is_err() {
        return 0;
    }
    let mut running: HashMap<u64, Running> = HashMap::new();
    loop {
        let ids: Vec<u64> = running.keys().copied().collect();
        let mut fds: Vec<PollFd<'_>> = vec![PollFd::new(&sock, PollFlags::IN)];
        fds.extend(ids.iter().filter_map(|id| running.get(id)).map(|r| PollFd::new(&r.pidfd, PollFlags::IN)));
        match poll(&mut fds, None) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => break,
        }
        let request = !fds[0].revents().is_empty();
        let ended: Vec<u64> =
            ids.iter().zip(&fds[1..]).filter(|(_, f)| !f.revents().is_empty()).map(|(id, _)| *id).collect();
        drop(fds);
        for id in ended {
            if let Some(code) = reap(&mut running, id)
                && wire::send_event(sock.as_fd(), Event::Exit { id, code }).is_err()
            {
                kill_all_but_me();
                return 0;
            }
        }
        if request {
            match wire::recv_request(sock.as_fd()) {
                Ok(Some(ToServer::Kill { id })) => {
                    if let Some(r) = running.get(&id) {
                        kill_group(r.child.id());
                    }
                }
                Ok(Some(ToServer::Run { id, request, stdout, stderr })) => {
                    if running.is_empty() {
                        empty(clear);
                    }
                    match start(request, stdout, stderr) {
                        Ok(r) => {
                            running.insert(id, r);
                        }
                        Err(code) => {
                            if wire::send_event(sock.as_fd(), Event::Exit { id, code }).is_err() {
                                break;
                            }
                        }
                    }
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
    // pi is gone: so is everything in the sandbox.
    kill_all_but_me();
    0
}

/// The control socket (stdin), moved to a descriptor of its own; stdin
/// becomes `/dev/null`.
fn take_control_socket() -> Result<OwnedFd, RestrictError> {
    let stdin = std::io::stdin();
    let sock = rustix::io::fcntl_dupfd_cloexec(stdin.as_fd(), 3)?;
    let null = std::fs::File::open("/dev/null")?;
    rustix::stdio::dup2_stdin(&null)?;
    Ok(sock)
}

/// Start a request; on failure the exit code to report (the reason written
/// to the command's stderr).
fn start(request: OwnedFd, stdout: OwnedFd, stderr: OwnedFd) -> Result<Running, i64> {
    let mut err_copy = stderr.try_clone().ok().map(std::fs::File::from);
    let Some(c) = wire::read_request(request) else {
        if let Some(f) = err_copy.as_mut() {
            let _ = writeln!(f, "{}", text::helper_failed(text::BAD_SESSION_REQUEST));
        }
        return Err(i64::from(HELPER_REFUSED));
    };
    let spawned = std::process::Command::new(&c.program)
        .args(&c.args)
        .current_dir(&c.cwd)
        .env_clear()
        .envs(c.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr))
        .process_group(0)
        .spawn();
    let child = match spawned {
        Ok(child) => child,
        Err(e) => {
            let code =
                e.raw_os_error().map_or_else(|| e.to_string(), |n| std::io::Error::from_raw_os_error(n).to_string());
            if let Some(f) = err_copy.as_mut() {
                let _ = writeln!(f, "{}", text::exec_failed(&c.program.to_string_lossy(), &code));
            }
            return Err(i64::from(HELPER_EXEC_FAILED));
        }
    };
    let pid = Pid::from_child(&child);
    match rustix::process::pidfd_open(pid, PidfdFlags::empty()) {
        Ok(pidfd) => Ok(Running { child, pidfd }),
        Err(e) => {
            kill_group(child.id());
            let mut child = child;
            let _ = child.wait();
            if let Some(f) = err_copy.as_mut() {
                let _ = writeln!(f, "{}", text::helper_failed(&e.to_string()));
            }
            Err(i64::from(HELPER_REFUSED))
        }
    }
}

/// A command's shell ended: kill what it left in its group (and, when it
/// was the last command, everything else), and give its exit code.
fn reap(running: &mut HashMap<u64, Running>, id: u64) -> Option<i64> {
    let status = match running.get_mut(&id)?.child.try_wait() {
        Ok(Some(s)) => s,
        Ok(None) => return None,
        Err(_) => {
            running.remove(&id);
            return Some(i64::from(HELPER_REFUSED));
        }
    };
    let r = running.remove(&id)?;
    kill_group(r.child.id());
    if running.is_empty() {
        kill_all_but_me();
    }
    use std::os::unix::process::ExitStatusExt;
    Some(status.code().map(i64::from).or_else(|| status.signal().map(|s| 128 + i64::from(s))).unwrap_or(128))
}

fn kill_group(pid: u32) {
    if let Some(p) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(p, Signal::KILL);
    }
}

/// SIGKILL every process of the sandbox's pid namespace but this one and
/// its init (which reaps them).
fn kill_all_but_me() {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if pid == me || pid == 1 {
            continue;
        }
        if let Some(p) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            let _ = rustix::process::kill_process(p, Signal::KILL);
        }
    }
}

/// Empty the private temp folders (what cannot be removed, such as the
/// files shown read-only, stays).
fn empty(dirs: &[PathBuf]) {
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(d) else { continue };
        for e in entries.flatten() {
            let p: &Path = &e.path();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let _ = if is_dir { std::fs::remove_dir_all(p) } else { std::fs::remove_file(p) };
        }
    }
}
