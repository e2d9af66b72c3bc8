//! Starting a command and owning it.
//!
//! The command is first built as data ([`CommandSpec`], by [`build_command`]):
//! that is the one seam a sandbox wraps (it turns a spec into another spec,
//! e.g. `bwrap … <program> <args>`). [`spawn`] then starts it in a new session
//! (so its own process group, without the terminal), stdin from `/dev/null`,
//! stdout and stderr on two pipes, which `pump` reads. [`GroupGuard`] kills
//! the whole group on timeout, abort, or when the call is dropped.

use std::ffi::{OsStr, OsString};
use std::io::{self, PipeReader};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Mutex, MutexGuard};

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

/// A command ready to start: everything that decides what runs, where, with
/// which environment. The sandbox wraps a spec into another spec.
pub(crate) type CommandSpec = pi_sandbox::Command;

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
    for (key, value) in &s.env_overrides {
        env.retain(|(k, _)| k != key.as_str());
        if let Some(v) = value {
            env.push((key.into(), v.into()));
        }
    }
    env
}

/// Process groups of commands that are still running, for [`kill_running_commands`].
/// A static because the signal handler that kills them gets no context argument.
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
    end_sandbox_sessions();
}

/// End every session sandbox (and the commands still running in them) and
/// remove the mount points they made. For pi's exit.
pub fn end_sandbox_sessions() {
    #[cfg(target_os = "linux")]
    super::session::end_all();
}

/// Owns a running command's process group: while armed, dropping it kills
/// the group. Disarm it once the shell has been reaped.
pub(crate) struct GroupGuard {
    pgid: Option<Pid>,
    /// Kills a command run by a session sandbox (its group lives there).
    remote: Option<Box<dyn Fn() + Send + Sync>>,
    armed: bool,
}

impl std::fmt::Debug for GroupGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupGuard").field("pgid", &self.pgid).field("armed", &self.armed).finish()
    }
}

impl GroupGuard {
    fn new(pid: Option<u32>) -> Self {
        let pgid = pid.and_then(|p| i32::try_from(p).ok()).and_then(Pid::from_raw);
        if let Some(p) = pgid {
            live_groups().push(p.as_raw_pid());
        }
        GroupGuard { pgid, remote: None, armed: pgid.is_some() }
    }

    /// A group that `kill` ends (a command in a session sandbox).
    pub(crate) fn remote(kill: Box<dyn Fn() + Send + Sync>) -> Self {
        GroupGuard { pgid: None, remote: Some(kill), armed: true }
    }

    /// SIGKILL the whole group (while armed).
    pub(crate) fn kill(&self) {
        if !self.armed {
            return;
        }
        if let Some(p) = self.pgid {
            let _ = kill_process_group(p, Signal::KILL);
        }
        if let Some(kill) = &self.remote {
            kill();
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

/// A started command's shell, to wait for.
pub(crate) enum ShellProcess {
    /// A process of ours (or its supervisor, which ends as it does).
    Local(tokio::process::Child),
    /// A command a session sandbox runs: its exit code comes from the server.
    Remote { rx: tokio::sync::oneshot::Receiver<Option<i64>>, done: Option<Option<i64>> },
}

impl ShellProcess {
    /// Wait for the end: the exit code (128 + n after signal n), `None`
    /// when it cannot be known. Cancel-safe, and may be called again.
    pub(crate) async fn wait(&mut self) -> Option<i64> {
        match self {
            ShellProcess::Local(child) => child.wait().await.ok().and_then(exit_code),
            ShellProcess::Remote { rx, done } => {
                if let Some(d) = done {
                    return *d;
                }
                let code = (&mut *rx).await.ok().flatten();
                *done = Some(code);
                code
            }
        }
    }
}

/// The exit code, or 128 + the signal number for a killed shell.
fn exit_code(status: std::process::ExitStatus) -> Option<i64> {
    use std::os::unix::process::ExitStatusExt;
    status.code().map(i64::from).or_else(|| status.signal().map(|s| 128 + i64::from(s)))
}

/// A started command.
pub(crate) struct Running {
    /// The shell (or its supervisor, which ends as the shell does).
    pub child: ShellProcess,
    /// Its process group.
    pub group: GroupGuard,
    /// The read ends of its stdout and stderr pipes, in that order.
    pub output: [PipeReader; 2],
    /// The supervisor's lifeline: held until the shell has ended.
    pub lifeline: Option<OwnedFd>,
}

/// The program a spec starts with: through the supervisor when one is set
/// and the program can be run (so a program that cannot start still fails
/// with its own spawn error, as before).
fn launcher(spec: &CommandSpec) -> io::Result<(PathBuf, Vec<OsString>, Option<super::supervisor::Lifeline>)> {
    let direct = || Ok((spec.program.clone(), spec.args.clone(), None));
    let Some(sup) = super::supervisor::supervisor() else { return direct() };
    let runnable = spec.program.is_absolute()
        && rustix::fs::access(&spec.program, rustix::fs::Access::EXEC_OK).is_ok()
        && spec.program.is_file();
    if !runnable {
        return direct();
    }
    let line = super::supervisor::lifeline()?;
    let args = super::supervisor::arguments(super::supervisor::raw(&line.give), &spec.program, &spec.args);
    Ok((sup.clone(), args, Some(line)))
}

/// Start `spec`: new session and process group, stdin `/dev/null`, stdout
/// and stderr each into a pipe.
pub(crate) fn spawn(spec: &CommandSpec) -> io::Result<Running> {
    let (out_reader, out_writer) = io::pipe()?;
    let (err_reader, err_writer) = io::pipe()?;
    let (program, args, line) = launcher(spec)?;
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(&args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str())))
        .stdin(Stdio::null())
        .stdout(out_writer)
        .stderr(err_writer);
    // One of the three documented exceptions to `unsafe_code` (the others:
    // pi-cli's SIGPIPE reset and pi-ext's limited allocator).
    // SAFETY: the hook runs in the forked child before exec and only makes
    // the setsid system call, which is async-signal-safe; it touches no memory
    // of the parent.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(|| rustix::process::setsid().map(drop).map_err(io::Error::from));
    }
    let child = cmd.spawn()?;
    // The command holds our copies of the pipes' write ends: close them now,
    // or the reader would never see the end of the output.
    drop(cmd);
    let group = GroupGuard::new(child.id());
    let lifeline = line.map(|l| {
        drop(l.give);
        l.keep
    });
    Ok(Running { child: ShellProcess::Local(child), group, output: [out_reader, err_reader], lifeline })
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
    fn overrides_set_and_remove_variables_last() {
        let session = SessionEnv {
            session_id: Some("sid".into()),
            env_overrides: vec![("PI_SESSION_ID".into(), Some("hooked".into())), ("HOME".into(), None)],
            ..Default::default()
        };
        let inherited = [("HOME".into(), "/h".into()), ("X".into(), "1".into())];
        let env = command_env(&session, inherited.into_iter());
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.to_string_lossy().into_owned());
        assert_eq!(get("PI_SESSION_ID").as_deref(), Some("hooked"));
        assert_eq!(get("HOME"), None);
        assert_eq!(get("X").as_deref(), Some("1"));
        assert_eq!(env.iter().filter(|(k, _)| k == "PI_SESSION_ID").count(), 1);
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
