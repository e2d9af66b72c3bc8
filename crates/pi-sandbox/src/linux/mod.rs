//! Linux: bubblewrap for the file-system view, the helper for Landlock,
//! seccomp and no-new-privs; Landlock alone where bubblewrap cannot start.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::view::View;
use crate::{Command, Prepared, Reason};

mod bwrap;
mod direct;
mod error;
mod fds;
mod helper;
mod landlock;
mod probe;
mod seccomp;
mod serve;
mod session;
mod spec;
mod wire;

pub use helper::helper_main;
pub use session::{Channel, channel};
pub use wire::Event;

/// The argument that makes the `pi` binary run [`helper_main`].
pub const HELPER_ARG: &str = "__pi-sandbox";

/// Test switch: the bubblewrap to use; set to an empty value (or a path
/// that does not exist) to act as if bubblewrap were missing.
pub const BWRAP_VAR: &str = "PI_SANDBOX_BWRAP";

/// Test switch: `off` acts as if the kernel had no Landlock (neither the
/// second layer nor the fallback is used).
pub const LANDLOCK_VAR: &str = "PI_SANDBOX_LANDLOCK";

/// Test switch: `off` gives every command a sandbox of its own (no session
/// sandbox), as before sessions existed; the bench compares the two.
pub const SESSION_VAR: &str = "PI_SANDBOX_SESSION";

/// How commands are sandboxed on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mechanism {
    /// bubblewrap (this binary), with the helper's Landlock layer when the
    /// kernel has it, seccomp and no-new-privs.
    Bubblewrap(PathBuf),
    /// The helper alone: Landlock (ABI 6 or newer), seccomp, no-new-privs.
    Landlock,
}

static HELPER: OnceLock<PathBuf> = OnceLock::new();

/// Run the sandbox helper as `program __pi-sandbox …` (the `pi` binary,
/// which calls [`helper_main`] for [`HELPER_ARG`]). Without a helper every
/// sandboxed command fails closed.
pub fn set_helper(program: PathBuf) {
    let _ = HELPER.set(program);
}

fn helper() -> Result<&'static Path, Reason> {
    HELPER.get().map(PathBuf::as_path).ok_or(Reason::NoHelper)
}

/// Whether the Landlock test switch is on.
fn landlock_switched_off() -> bool {
    std::env::var_os(LANDLOCK_VAR).is_some_and(|v| v == "off")
}

/// A found mechanism is kept for the life of the process; a failed probe is
/// tried again next time (a passing shortage must not disable commands).
static MECHANISM: Mutex<Option<Mechanism>> = Mutex::new(None);

/// How commands are sandboxed here, probing once: bubblewrap if it can
/// create its namespaces, else Landlock alone, else the reasons neither can.
pub fn mechanism() -> Result<Mechanism, Reason> {
    let mut cached = MECHANISM.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = cached.as_ref() {
        return Ok(m.clone());
    }
    let helper = helper()?;
    let found = probe::find(helper, landlock_switched_off())?;
    *cached = Some(found.clone());
    Ok(found)
}

/// Wrap `command` for `view` (secrets already out of its environment).
pub(crate) fn wrap(view: &View, command: Command, visible: &[PathBuf]) -> Result<Prepared, Reason> {
    let helper = helper()?;
    let landlock_off = landlock_switched_off();
    match mechanism()? {
        Mechanism::Bubblewrap(bwrap) => bwrap::wrap(view, &bwrap, helper, landlock_off, command, visible),
        Mechanism::Landlock => direct::wrap(view, helper, command),
    }
}

/// How `command` runs for `view`: with bubblewrap, in a session sandbox
/// (the server's command built here); with Landlock alone, wrapped.
pub(crate) fn plan(view: &View, command: Command, visible: &[PathBuf]) -> Result<crate::Plan, Reason> {
    let helper = helper()?;
    let landlock_off = landlock_switched_off();
    let bwrap = match mechanism()? {
        Mechanism::Bubblewrap(bwrap) => bwrap,
        Mechanism::Landlock => return direct::wrap(view, helper, command).map(crate::Plan::Direct),
    };
    if std::env::var_os(SESSION_VAR).is_some_and(|v| v == "off") {
        return bwrap::wrap(view, &bwrap, helper, landlock_off, command, visible).map(crate::Plan::Direct);
    }
    let layout = bwrap::layout(view, helper, landlock_off, visible)?;
    let mut args = layout.args;
    args.push("--".into());
    args.push(helper.into());
    args.push(HELPER_ARG.into());
    args.extend(layout.spec.serve_args(&layout.private_temps));
    let server = Command { program: bwrap, args, cwd: view.cwd.clone(), env: Vec::new() };
    Ok(crate::Plan::Session(crate::SessionPlan::new(command, server, layout.mount_points, view.mount_points.clone())))
}

/// `[HELPER_ARG, rules…, "--", program, args…]`.
fn helper_command(spec: &spec::HelperSpec, program: &Path, args: &[OsString]) -> Vec<OsString> {
    let mut out: Vec<OsString> = vec![HELPER_ARG.into()];
    out.extend(spec.to_args());
    out.push("--".into());
    out.push(program.into());
    out.extend(args.iter().cloned());
    out
}
