//! Which mechanism can start here: bubblewrap is tried for real (its
//! namespaces, then the helper's seccomp filter inside), then Landlock.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::spec::HelperSpec;
use super::{BWRAP_VAR, HELPER_ARG, Mechanism};
use crate::limits::{PROBE_POLL_MS, PROBE_TIMEOUT_MS};
use crate::{BwrapUnusable, LandlockUnusable, ProbeFailure, Reason};

/// Where bubblewrap is looked for before `PATH`.
const BWRAP_PLACES: [&str; 3] = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

/// Find a mechanism, or say why there is none.
pub(super) fn find(helper: &Path, landlock_off: bool) -> Result<Mechanism, Reason> {
    let bwrap = match find_bwrap() {
        None => BwrapUnusable::Missing,
        Some(bwrap) => {
            let mut args = super::bwrap::namespace_flags(false);
            args.extend(super::bwrap::base_mounts());
            args.push("--".into());
            args.push(helper.into());
            args.push(HELPER_ARG.into());
            args.extend(HelperSpec::probe_args());
            match run(&bwrap, &args, "bubblewrap") {
                Ok(()) => return Ok(Mechanism::Bubblewrap(bwrap)),
                Err(e) => BwrapUnusable::Failed(e),
            }
        }
    };
    let landlock = if landlock_off {
        LandlockUnusable::SwitchedOff
    } else {
        let mut args: Vec<OsString> = vec![HELPER_ARG.into()];
        args.extend(HelperSpec::probe_landlock_args());
        match run(helper, &args, "Landlock") {
            Ok(()) => return Ok(Mechanism::Landlock),
            Err(e) => LandlockUnusable::Failed(e),
        }
    };
    Err(Reason::NoMechanism { bwrap, landlock })
}

/// bubblewrap: the test switch's path if set (empty: none), else the usual
/// places, else the first absolute `PATH` entry that has it.
fn find_bwrap() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(BWRAP_VAR) {
        let p = PathBuf::from(v);
        return (p.is_absolute() && p.is_file()).then_some(p);
    }
    let path_dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    BWRAP_PLACES
        .iter()
        .map(PathBuf::from)
        .chain(path_dirs.into_iter().filter(|d| d.is_absolute()).map(|d| d.join("bwrap")))
        .find(|p| p.is_file())
}

/// Run a probe; `Ok` on exit status 0, else what it printed on stderr.
fn run(program: &Path, args: &[OsString], what: &'static str) -> Result<(), ProbeFailure> {
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ProbeFailure::Spawn { what, source })?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if started.elapsed() < Duration::from_millis(PROBE_TIMEOUT_MS) => {
                std::thread::sleep(Duration::from_millis(PROBE_POLL_MS));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ProbeFailure::TimedOut { what, ms: PROBE_TIMEOUT_MS });
            }
            Err(source) => return Err(ProbeFailure::Spawn { what, source }),
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut err = String::new();
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut err);
    }
    Err(ProbeFailure::Refused(err.lines().next().unwrap_or_default().to_string()))
}
