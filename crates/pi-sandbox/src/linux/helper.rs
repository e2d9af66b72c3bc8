//! The helper: the `pi` binary started as `pi __pi-sandbox <rules> --
//! <program> <args>` (inside bubblewrap, or alone). It marks inherited
//! descriptors close-on-exec, drops every capability (root's included: a
//! capability such as `CAP_SYS_PTRACE` or `CAP_SYS_ADMIN` would reach past
//! Landlock), applies Landlock, then the seccomp filters (which set
//! no-new-privs), then runs the program in its place. When any
//! step fails it prints why and exits 126: nothing runs.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;

use super::error::RestrictError;
use super::spec::{self, Action, HelperSpec};
use super::{fds, landlock, seccomp};
use crate::limits::{HELPER_EXEC_FAILED, HELPER_REFUSED};
use crate::text;

/// Drop every capability: bounding set (so no exec gives any back),
/// ambient, then effective, permitted and inheritable.
fn drop_capabilities() -> rustix::io::Result<()> {
    use rustix::thread::{CapabilitySet, CapabilitySets};
    for cap in CapabilitySet::all().iter() {
        match rustix::thread::remove_capability_from_bounding_set(cap) {
            // Not known to this kernel, or already without CAP_SETPCAP (then
            // the set is what it is, and the sets below still empty).
            Ok(()) | Err(rustix::io::Errno::INVAL) | Err(rustix::io::Errno::PERM) => {}
            Err(e) => return Err(e),
        }
    }
    rustix::thread::clear_ambient_capability_set()?;
    let none = CapabilitySet::empty();
    let sets = CapabilitySets { effective: none, permitted: none, inheritable: none };
    rustix::thread::set_capabilities(None, sets)
}

/// Everything the helper does before it runs a command.
pub(super) fn restrict(spec: &HelperSpec) -> Result<(), RestrictError> {
    fds::close_extra_on_exec()?;
    drop_capabilities()?;
    landlock::apply(spec)?;
    seccomp::apply(spec.network)
}

/// The helper's main: `args` are what follows [`super::HELPER_ARG`]. Returns
/// the exit status when the program could not be started.
pub fn helper_main(args: &[OsString]) -> i32 {
    let action = match spec::parse(args) {
        Ok(a) => a,
        Err(_) => {
            eprintln!("{}", text::HELPER_USAGE);
            return HELPER_REFUSED;
        }
    };
    match action {
        Action::Probe => match restrict(&HelperSpec { landlock: spec::LandlockUse::Optional, ..HelperSpec::default() })
        {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{e}");
                HELPER_REFUSED
            }
        },
        Action::ProbeLandlock => match landlock::probe() {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{e}");
                HELPER_REFUSED
            }
        },
        Action::Serve { spec, clear } => super::serve::serve(&spec, &clear),
        Action::Run { spec, program, args } => {
            if let Err(e) = restrict(&spec) {
                eprintln!("{}", text::helper_failed(&e.to_string()));
                return HELPER_REFUSED;
            }
            let e = std::process::Command::new(&program).args(&args).exec();
            let code =
                e.raw_os_error().map_or_else(|| e.to_string(), |n| std::io::Error::from_raw_os_error(n).to_string());
            eprintln!("{}", text::exec_failed(&program.to_string_lossy(), &code));
            HELPER_EXEC_FAILED
        }
    }
}
