//! A command outlives no agent (beyond.md B8): even a `pi` killed with
//! SIGKILL takes the running command's whole process group with it.
//!
//! When a front end names a supervisor ([`set_supervisor`]: the `pi`
//! binary, which runs [`supervise_main`] for [`SUPERVISE_ARG`]), a command
//! starts as `<supervisor> __pi-supervise <fd> -- <program> <args>…` in a new
//! session. The supervisor starts the program in its own process group and
//! watches a *lifeline*: the read end of a pipe whose only write end the
//! agent holds (close-on-exec, so no other child keeps it). When the agent
//! dies, however it dies, the kernel closes that end, the read returns, and
//! the supervisor kills the group (itself included). When the program exits
//! first, the supervisor exits with its status (128 + n after signal n, as
//! the agent reports a killed shell anyway), and background processes the
//! command left behind are left alone, as before. Without a supervisor (a
//! library user, the crate's own tests) the program starts directly.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The argument that makes the `pi` binary run [`supervise_main`].
pub const SUPERVISE_ARG: &str = "__pi-supervise";

/// Exit status of a supervisor that could not start the program.
const CANNOT_START: i32 = 127;

static SUPERVISOR: OnceLock<PathBuf> = OnceLock::new();

/// Start every command through `program` (a binary that runs
/// [`supervise_main`] when its first argument is [`SUPERVISE_ARG`]).
pub fn set_supervisor(program: PathBuf) {
    let _ = SUPERVISOR.set(program);
}

/// The supervisor, when one is set.
pub(crate) fn supervisor() -> Option<&'static PathBuf> {
    SUPERVISOR.get()
}

/// A lifeline: the agent keeps `keep` (close-on-exec) for as long as the
/// command may run; `give` goes to the supervisor.
pub(crate) struct Lifeline {
    pub keep: OwnedFd,
    pub give: OwnedFd,
}

/// A new lifeline pipe. The write end is close-on-exec from its creation (no
/// other child may ever hold it); the read end is inheritable, which is
/// harmless (only write ends keep a pipe open).
pub(crate) fn lifeline() -> io::Result<Lifeline> {
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    rustix::io::fcntl_setfd(&read, rustix::io::FdFlags::empty())?;
    Ok(Lifeline { keep: write, give: read })
}

/// The supervisor's arguments: `[SUPERVISE_ARG, fd, "--", program, args…]`.
pub(crate) fn arguments(fd: i32, program: &std::path::Path, args: &[OsString]) -> Vec<OsString> {
    let mut out: Vec<OsString> = vec![SUPERVISE_ARG.into(), fd.to_string().into(), "--".into(), program.into()];
    out.extend(args.iter().cloned());
    out
}

/// The supervisor: `args` are what follows [`SUPERVISE_ARG`] (`<fd> --
/// <program> <args>…`). Returns the exit status to end with.
pub fn supervise_main(args: &[OsString]) -> i32 {
    let (Some(fd), Some(program)) = (args.first().and_then(|a| a.to_str()?.parse::<i32>().ok()), args.get(2)) else {
        eprintln!("{}", crate::text::bash::SUPERVISOR_USAGE);
        return CANNOT_START;
    };
    // The inherited descriptor, opened again (no raw descriptor handling);
    // without /proc there is nothing to watch and the command just runs.
    let lifeline = std::fs::File::open(format!("/proc/self/fd/{fd}")).ok();
    let mut child = match std::process::Command::new(program).args(&args[3..]).spawn() {
        Ok(c) => c,
        Err(e) => {
            let code = super::process::errno_name(&e).unwrap_or("EUNKNOWN");
            eprintln!("{}", crate::text::bash::spawn_failed(&program.to_string_lossy(), code));
            return CANNOT_START;
        }
    };
    if let Some(mut lifeline) = lifeline {
        std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            while matches!(std::io::Read::read(&mut lifeline, &mut buf), Ok(n) if n > 0) {}
            // The agent is gone: the whole group goes with it.
            let _ = rustix::process::kill_process_group(rustix::process::getpgrp(), rustix::process::Signal::KILL);
        });
    }
    match child.wait() {
        Ok(status) => {
            use std::os::unix::process::ExitStatusExt as _;
            status.code().or_else(|| status.signal().map(|s| 128 + s)).unwrap_or(CANNOT_START)
        }
        Err(_) => CANNOT_START,
    }
}

/// The descriptor number the supervisor will find its lifeline on.
pub(crate) fn raw(fd: &OwnedFd) -> i32 {
    fd.as_raw_fd()
}

/// A command started as pi starts its own (for extensions' child processes):
/// through the supervisor when one is set. Hold `keep` while the command may
/// run (closing it kills the command's group); drop `give` once it started.
#[derive(Debug)]
pub struct SupervisedCommand {
    /// The command to configure (stdio, cwd, env) and spawn.
    pub command: std::process::Command,
    /// The agent's end of the lifeline (none without a supervisor).
    pub keep: Option<OwnedFd>,
    /// The supervisor's end, to drop after the spawn.
    pub give: Option<OwnedFd>,
}

/// `program args`, through the supervisor when one is set ([`set_supervisor`]).
pub fn supervised_command(program: &std::path::Path, args: &[OsString]) -> io::Result<SupervisedCommand> {
    let Some(sup) = supervisor() else {
        let mut command = std::process::Command::new(program);
        command.args(args);
        return Ok(SupervisedCommand { command, keep: None, give: None });
    };
    let line = lifeline()?;
    let mut command = std::process::Command::new(sup);
    command.args(arguments(raw(&line.give), program, args));
    Ok(SupervisedCommand { command, keep: Some(line.keep), give: Some(line.give) })
}
