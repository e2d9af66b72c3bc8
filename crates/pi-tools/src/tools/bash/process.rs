//! Starting a command and owning it.
//!
//! The command is first built as data ([`CommandSpec`], by [`build_command`]):
//! that is the one seam a sandbox wraps (it turns a spec into another spec,
//! e.g. `bwrap … <program> <args>`). [`spawn`] then starts it in a new session
//! (so its own process group, without the terminal), stdin from `/dev/null`,
//! stdout and stderr on one pipe so their order is kept. [`pump`] reads that
//! pipe on its own thread and can be told to stop, so a background process
//! that keeps the pipe open cannot hold the tool. [`GroupGuard`] kills the
//! whole group on timeout, abort, or when the call is dropped.

use std::ffi::{OsStr, OsString};
use std::io::{self, PipeReader};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;
use rustix::process::{Pid, Signal, kill_process_group};

use super::accumulator::Accumulator;
use super::shell::Shell;
use crate::SessionEnv;
use crate::paths::home_dir;

/// Session variables removed from the inherited environment before the
/// session's own values are set.
const SESSION_VARS: [&str; 5] = ["PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL"];

/// Variables set to `1` for commands when the agent runs with `--offline`.
const OFFLINE_VARS: [&str; 2] = ["PI_OFFLINE", "PI_SKIP_VERSION_CHECK"];

/// Bytes asked of the kernel for the output pipe (fewer wake-ups for chatty commands).
const PIPE_SIZE: usize = 1024 * 1024;
/// Bytes read from the pipe at once.
const READ_BUFFER: usize = 256 * 1024;
/// Longest sleep of the reader while it waits for output, so it notices a stop request.
const POLL_TICK: Duration = Duration::from_millis(50);

/// A command ready to start: everything that decides what runs, where, with
/// which environment. A sandbox wraps a spec into another spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommandSpec {
    /// The program (absolute, or a bare name looked up on the parent's `PATH`).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The complete environment (nothing else is inherited).
    pub env: Vec<(OsString, OsString)>,
}

/// Build the spec that runs `command` (already prefixed) with `shell` in `cwd`.
pub(crate) fn build_command(shell: &Shell, command: &str, cwd: &Path, session: &SessionEnv) -> CommandSpec {
    let mut args: Vec<OsString> = shell.args.iter().map(OsString::from).collect();
    args.push(OsString::from(command));
    CommandSpec {
        program: shell.program.clone(),
        args,
        cwd: cwd.to_path_buf(),
        env: command_env(session, std::env::vars_os()),
    }
}

/// The agent dir: the session's, else `PI_CODING_AGENT_DIR` (`~` expanded),
/// else `~/.pi/agent`.
pub(crate) fn agent_dir(session: &SessionEnv) -> Option<PathBuf> {
    if let Some(d) = &session.agent_dir {
        return Some(d.clone());
    }
    if let Some(d) = std::env::var_os("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        let s = d.to_string_lossy();
        return Some(match (s.as_ref(), home_dir()) {
            ("~", Some(h)) => h,
            (p, Some(h)) if p.starts_with("~/") => h.join(&p[2..]),
            _ => PathBuf::from(d),
        });
    }
    home_dir().map(|h| h.join(".pi").join("agent"))
}

/// The command's environment: `inherited` without the session variables,
/// `<agent-dir>/bin` first on `PATH` (whether it exists or not),
/// `AI_AGENT=pi`, `PI_CODING_AGENT=true`, and the session's variables
/// (`PI_REASONING_LEVEL` is `off` when the session has none), and with
/// `--offline` `PI_OFFLINE=1` and `PI_SKIP_VERSION_CHECK=1`.
pub(crate) fn command_env(
    session: &SessionEnv,
    inherited: impl Iterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = inherited
        .filter(|(k, _)| !SESSION_VARS.iter().any(|v| OsStr::new(v) == k) && k != "AI_AGENT" && k != "PI_CODING_AGENT")
        .collect();
    if let Some(dir) = agent_dir(session) {
        let bin = dir.join("bin").into_os_string();
        match env.iter_mut().find(|(k, _)| k == "PATH") {
            Some((_, path)) if !path.is_empty() => {
                let mut joined = bin;
                joined.push(":");
                joined.push(&*path);
                *path = joined;
            }
            Some((_, path)) => *path = bin,
            None => env.push(("PATH".into(), bin)),
        }
    }
    let mut set = |k: &str, v: &str| env.push((k.into(), v.into()));
    set("AI_AGENT", "pi");
    set("PI_CODING_AGENT", "true");
    let s = session;
    for (key, value) in [
        ("PI_SESSION_ID", &s.session_id),
        ("PI_SESSION_FILE", &s.session_file),
        ("PI_PROVIDER", &s.provider),
        ("PI_MODEL", &s.model),
    ] {
        if let Some(v) = value {
            set(key, v);
        }
    }
    set("PI_REASONING_LEVEL", s.reasoning_level.as_deref().unwrap_or("off"));
    if s.offline {
        for var in OFFLINE_VARS {
            env.retain(|(k, _)| k != var);
            env.push((var.into(), "1".into()));
        }
    }
    env
}

/// Process groups of commands that are still running, for [`kill_running_commands`].
static LIVE_GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn live_groups() -> MutexGuard<'static, Vec<i32>> {
    LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Kill (SIGKILL) the process group of every command still running. For the
/// agent's exit path (SIGTERM, SIGHUP) so a killed agent leaves no child behind.
pub fn kill_running_commands() {
    for pgid in live_groups().iter() {
        if let Some(pid) = Pid::from_raw(*pgid) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

/// Owns a running command's process group: while armed, dropping it kills
/// the group. Disarm it once the shell has been reaped.
#[derive(Debug)]
pub(crate) struct GroupGuard {
    pgid: Option<Pid>,
    armed: bool,
}

impl GroupGuard {
    fn new(pid: Option<u32>) -> Self {
        let pgid = pid.and_then(|p| i32::try_from(p).ok()).and_then(Pid::from_raw);
        if let Some(p) = pgid {
            live_groups().push(p.as_raw_pid());
        }
        GroupGuard { pgid, armed: pgid.is_some() }
    }

    /// SIGKILL the whole group (while armed).
    pub(crate) fn kill(&self) {
        if let (true, Some(p)) = (self.armed, self.pgid) {
            let _ = kill_process_group(p, Signal::KILL);
        }
    }

    /// The shell was reaped: forget the group (background processes it left
    /// are not ours to kill, and the id may be reused once they are gone).
    pub(crate) fn disarm(&mut self) {
        if self.armed {
            self.armed = false;
            if let Some(p) = self.pgid {
                let mut live = live_groups();
                if let Some(i) = live.iter().position(|g| *g == p.as_raw_pid()) {
                    live.swap_remove(i);
                }
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
        self.disarm();
    }
}

/// A started command.
#[derive(Debug)]
pub(crate) struct Running {
    /// The shell.
    pub child: tokio::process::Child,
    /// Its process group.
    pub group: GroupGuard,
    /// The read end of its stdout+stderr pipe.
    pub output: PipeReader,
}

/// Start `spec`: new session and process group, stdin `/dev/null`, stdout
/// and stderr into one pipe.
pub(crate) fn spawn(spec: &CommandSpec) -> io::Result<Running> {
    let (reader, writer) = io::pipe()?;
    let writer_err = writer.try_clone()?;
    let mut cmd = tokio::process::Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str())))
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_err);
    // SAFETY: the hook runs in the forked child before exec and only makes
    // the setsid system call, which is async-signal-safe; it touches no memory
    // of the parent.
    unsafe {
        cmd.pre_exec(|| rustix::process::setsid().map(drop).map_err(io::Error::from));
    }
    let child = cmd.spawn()?;
    // The command holds our copies of the pipe's write end: close them now,
    // or the reader would never see the end of the output.
    drop(cmd);
    let group = GroupGuard::new(child.id());
    Ok(Running { child, group, output: reader })
}

/// Tells [`pump`] to stop reading at a point in time.
#[derive(Debug, Default)]
pub(crate) struct StopSignal {
    set: AtomicBool,
    deadline: Mutex<Option<Instant>>,
}

impl StopSignal {
    /// Stop reading at `at`, whether or not the output has ended.
    pub(crate) fn stop_at(&self, at: Instant) {
        *self.deadline.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
        self.set.store(true, Ordering::Release);
    }

    fn deadline(&self) -> Option<Instant> {
        if !self.set.load(Ordering::Acquire) {
            return None;
        }
        *self.deadline.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Read `output` into `acc` until the end of the output or the stop signal's
/// deadline, then close the pipe and finish the accumulator. Blocking: run it
/// on its own thread.
pub(crate) fn pump(output: PipeReader, acc: &Mutex<Accumulator>, stop: &StopSignal) {
    let fd: OwnedFd = output.into();
    let _ = rustix::pipe::fcntl_setpipe_size(&fd, PIPE_SIZE);
    let nonblocking = rustix::io::ioctl_fionbio(&fd, true).is_ok();
    let mut buf = vec![0u8; READ_BUFFER];
    loop {
        let deadline = stop.deadline();
        let now = deadline.map(|_| Instant::now());
        if let (Some(d), Some(now)) = (deadline, now)
            && now >= d
        {
            break;
        }
        match rustix::io::read(&fd, &mut buf[..]) {
            Ok(0) => break,
            Ok(n) => lock(acc).push(&buf[..n]),
            Err(Errno::INTR) => {}
            Err(Errno::AGAIN) if nonblocking => {
                let wait = match (deadline, now) {
                    (Some(d), Some(now)) => d.saturating_duration_since(now).min(POLL_TICK),
                    _ => POLL_TICK,
                };
                let ts = Timespec { tv_sec: 0, tv_nsec: wait.as_nanos().try_into().unwrap_or(0) };
                let mut fds = [PollFd::new(&fd, PollFlags::IN)];
                let _ = poll(&mut fds, Some(&ts));
            }
            Err(_) => break,
        }
    }
    drop(fd);
    lock(acc).finish();
}

/// Lock the accumulator; a panic elsewhere never poisons the output.
pub(crate) fn lock(acc: &Mutex<Accumulator>) -> MutexGuard<'_, Accumulator> {
    acc.lock().unwrap_or_else(|e| e.into_inner())
}

/// The errno name Node.js would print for a failed spawn (`ENOENT`, `EACCES`, …).
pub(crate) fn errno_name(e: &io::Error) -> Option<&'static str> {
    let name = match Errno::from_io_error(e)? {
        Errno::NOENT => "ENOENT",
        Errno::ACCESS => "EACCES",
        Errno::PERM => "EPERM",
        Errno::NOEXEC => "ENOEXEC",
        Errno::NOTDIR => "ENOTDIR",
        Errno::ISDIR => "EISDIR",
        Errno::TOOBIG => "E2BIG",
        Errno::NOMEM => "ENOMEM",
        Errno::AGAIN => "EAGAIN",
        Errno::LOOP => "ELOOP",
        Errno::NAMETOOLONG => "ENAMETOOLONG",
        Errno::TXTBSY => "ETXTBSY",
        Errno::MFILE => "EMFILE",
        Errno::NFILE => "ENFILE",
        Errno::IO => "EIO",
        _ => return None,
    };
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(session: &SessionEnv, inherited: &[(&str, &str)]) -> Vec<(String, String)> {
        command_env(session, inherited.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))))
            .into_iter()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.to_string_lossy().into_owned()))
            .collect()
    }

    fn get<'a>(env: &'a [(String, String)], key: &str) -> Option<&'a str> {
        let found: Vec<&str> = env.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect();
        assert!(found.len() <= 1, "{key} set twice");
        found.first().copied()
    }

    #[test]
    fn environment_has_agent_bin_first_and_the_session_variables() {
        let session = SessionEnv {
            session_id: Some("sid".into()),
            provider: Some("mock".into()),
            model: Some("m1".into()),
            agent_dir: Some(PathBuf::from("/agent")),
            ..SessionEnv::default()
        };
        let inherited = [
            ("PATH", "/usr/bin:/bin"),
            ("PI_SESSION_FILE", "/old/file"),
            ("PI_MODEL", "old"),
            ("AI_AGENT", "other"),
            ("KEEP", "1"),
        ];
        let env = env_of(&session, &inherited);
        assert_eq!(get(&env, "PATH"), Some("/agent/bin:/usr/bin:/bin"));
        assert_eq!(get(&env, "AI_AGENT"), Some("pi"));
        assert_eq!(get(&env, "PI_CODING_AGENT"), Some("true"));
        assert_eq!(get(&env, "PI_SESSION_ID"), Some("sid"));
        assert_eq!(get(&env, "PI_SESSION_FILE"), None);
        assert_eq!(get(&env, "PI_PROVIDER"), Some("mock"));
        assert_eq!(get(&env, "PI_MODEL"), Some("m1"));
        assert_eq!(get(&env, "PI_REASONING_LEVEL"), Some("off"));
        assert_eq!(get(&env, "KEEP"), Some("1"));

        let session = SessionEnv {
            reasoning_level: Some("high".into()),
            agent_dir: Some(PathBuf::from("/a")),
            ..SessionEnv::default()
        };
        let env = env_of(&session, &[]);
        assert_eq!(get(&env, "PATH"), Some("/a/bin"));
        assert_eq!(get(&env, "PI_REASONING_LEVEL"), Some("high"));
        assert_eq!(get(&env, "PI_SESSION_ID"), None);
        assert_eq!(get(&env, "PI_OFFLINE"), None);
    }

    #[test]
    fn offline_sessions_tell_commands_so() {
        let session = SessionEnv { offline: true, ..SessionEnv::default() };
        let env = env_of(&session, &[("PI_OFFLINE", "0"), ("KEEP", "1")]);
        assert_eq!(get(&env, "PI_OFFLINE"), Some("1"));
        assert_eq!(get(&env, "PI_SKIP_VERSION_CHECK"), Some("1"));
        let env = env_of(&SessionEnv::default(), &[("PI_OFFLINE", "0")]);
        assert_eq!(get(&env, "PI_OFFLINE"), Some("0"), "inherited as it is without --offline");
    }

    #[test]
    fn the_spec_is_shell_args_then_the_command() {
        let shell = Shell { program: PathBuf::from("/bin/bash"), args: vec!["-c".into()] };
        let spec = build_command(&shell, "echo hi", Path::new("/tmp"), &SessionEnv::default());
        assert_eq!(spec.program, PathBuf::from("/bin/bash"));
        assert_eq!(spec.args, [OsString::from("-c"), OsString::from("echo hi")]);
        assert_eq!(spec.cwd, PathBuf::from("/tmp"));
    }

    #[test]
    fn errno_names() {
        assert_eq!(errno_name(&io::Error::from_raw_os_error(2)), Some("ENOENT"));
        assert_eq!(errno_name(&io::Error::from_raw_os_error(13)), Some("EACCES"));
        assert_eq!(errno_name(&io::Error::other("x")), None);
    }
}
