//! What the helper is told to enforce, as arguments: built by the wrapper,
//! parsed by the helper (the same type both ways, so they cannot drift).

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// Whether Landlock is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum LandlockUse {
    /// Fully enforced or nothing runs (Landlock is the only layer).
    #[default]
    Required,
    /// As much as the kernel has (a second layer under bubblewrap).
    Optional,
    /// Not at all (the test switch).
    Off,
}

/// What sockets a command may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Network {
    /// None at all (`socket(2)` fails for every family).
    #[default]
    Off,
    /// IPv4 and IPv6 only, in a network namespace of its own (its own
    /// loopback, nothing else); no unix sockets.
    OwnLoopback,
    /// Everything.
    On,
}

/// The helper's rules.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct HelperSpec {
    pub landlock: LandlockUse,
    /// Everything is readable except these (and what is under them).
    pub hide: Vec<PathBuf>,
    /// Readable although under a hidden path.
    pub readable: Vec<PathBuf>,
    /// Writable, with everything under them.
    pub write: Vec<PathBuf>,
    /// Writable under them, except the `not_write` paths.
    pub write_around: Vec<PathBuf>,
    /// Kept read-only inside `write_around` roots.
    pub not_write: Vec<PathBuf>,
    /// Devices (or device folders) that may be written and take ioctls.
    pub dev: Vec<PathBuf>,
    pub network: Network,
}

/// What the helper was asked to do.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Apply the default rules and exit 0 (bubblewrap's probe).
    Probe,
    /// Exit 0 when Landlock ABI 6 or newer can be used.
    ProbeLandlock,
    /// Restrict, then run `program` with `args`.
    Run { spec: HelperSpec, program: OsString, args: Vec<OsString> },
    /// Restrict, then serve a session's commands (the control socket on
    /// stdin), emptying the `clear` folders whenever none runs.
    Serve { spec: HelperSpec, clear: Vec<PathBuf> },
}

/// Helper arguments that make no sense (only pi starts the helper, so this
/// is a bug or a person trying it by hand: the usage line is printed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SpecError {
    /// Nothing follows `--`, or there is no `--`.
    #[error("no program")]
    NoProgram,
    /// The last flag has no value.
    #[error("a flag without its value")]
    MissingValue,
    /// `--landlock` with a value that is not a [`LandlockUse`].
    #[error("bad --landlock")]
    BadLandlock,
    /// `--network` with a value that is not a [`Network`].
    #[error("bad --network")]
    BadNetwork,
    /// A flag the helper does not know.
    #[error("unknown flag")]
    UnknownFlag,
}

const PROBE: &str = "--probe";
const PROBE_LANDLOCK: &str = "--probe-landlock";
const SERVE: &str = "--serve";
const CLEAR: &str = "--clear";

fn landlock_name(l: LandlockUse) -> &'static str {
    match l {
        LandlockUse::Required => "required",
        LandlockUse::Optional => "optional",
        LandlockUse::Off => "off",
    }
}

fn network_name(n: Network) -> &'static str {
    match n {
        Network::Off => "off",
        Network::OwnLoopback => "own-loopback",
        Network::On => "on",
    }
}

impl HelperSpec {
    pub(crate) fn to_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![
            "--landlock".into(),
            landlock_name(self.landlock).into(),
            "--network".into(),
            network_name(self.network).into(),
        ];
        let lists = [
            ("--hide", &self.hide),
            ("--readable", &self.readable),
            ("--write", &self.write),
            ("--write-around", &self.write_around),
            ("--not-write", &self.not_write),
            ("--dev", &self.dev),
        ];
        for (flag, list) in lists {
            for p in list {
                out.push(flag.into());
                out.push(p.into());
            }
        }
        out
    }

    /// The probe's arguments.
    pub(crate) fn probe_args() -> Vec<OsString> {
        vec![PROBE.into()]
    }

    /// The Landlock probe's arguments.
    pub(crate) fn probe_landlock_args() -> Vec<OsString> {
        vec![PROBE_LANDLOCK.into()]
    }

    /// The session server's arguments: these rules, emptying `clear`.
    pub(crate) fn serve_args(&self, clear: &[PathBuf]) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![SERVE.into()];
        out.extend(self.to_args());
        for c in clear {
            out.push(CLEAR.into());
            out.push(c.into());
        }
        out
    }
}

/// Parse what follows `__pi-sandbox`.
pub(crate) fn parse(args: &[OsString]) -> Result<Action, SpecError> {
    match args.first().and_then(|a| a.to_str()) {
        Some(PROBE) => return Ok(Action::Probe),
        Some(PROBE_LANDLOCK) => return Ok(Action::ProbeLandlock),
        Some(SERVE) => return parse_serve(&args[1..]),
        _ => {}
    }
    let mut spec = HelperSpec::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--" {
            let program = it.next().cloned().ok_or(SpecError::NoProgram)?;
            return Ok(Action::Run { spec, program, args: it.cloned().collect() });
        }
        let value = it.next().ok_or(SpecError::MissingValue)?;
        apply(&mut spec, flag, value)?;
    }
    Err(SpecError::NoProgram)
}

/// The server's rules (no program: commands come over the socket).
fn parse_serve(args: &[OsString]) -> Result<Action, SpecError> {
    let (mut spec, mut clear) = (HelperSpec::default(), Vec::new());
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(SpecError::MissingValue)?;
        if flag == CLEAR {
            clear.push(PathBuf::from(value));
        } else {
            apply(&mut spec, flag, value)?;
        }
    }
    Ok(Action::Serve { spec, clear })
}

fn apply(spec: &mut HelperSpec, flag: &OsStr, value: &OsStr) -> Result<(), SpecError> {
    let path = || PathBuf::from(value);
    match flag.to_str().unwrap_or("") {
        "--landlock" => {
            spec.landlock = match value.to_str() {
                Some("required") => LandlockUse::Required,
                Some("optional") => LandlockUse::Optional,
                Some("off") => LandlockUse::Off,
                _ => return Err(SpecError::BadLandlock),
            }
        }
        "--network" => {
            spec.network = match value.to_str() {
                Some("off") => Network::Off,
                Some("own-loopback") => Network::OwnLoopback,
                Some("on") => Network::On,
                _ => return Err(SpecError::BadNetwork),
            }
        }
        "--hide" => spec.hide.push(path()),
        "--readable" => spec.readable.push(path()),
        "--write" => spec.write.push(path()),
        "--write-around" => spec.write_around.push(path()),
        "--not-write" => spec.not_write.push(path()),
        "--dev" => spec.dev.push(path()),
        _ => return Err(SpecError::UnknownFlag),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_round_trip() {
        let spec = HelperSpec {
            landlock: LandlockUse::Optional,
            hide: vec!["/h/.ssh".into()],
            readable: vec!["/h/.pi/agent/bin".into()],
            write: vec!["/tmp".into()],
            write_around: vec!["/p".into()],
            not_write: vec!["/p/.git".into(), "/p/-- odd".into()],
            dev: vec!["/dev/null".into()],
            network: Network::OwnLoopback,
        };
        let mut args = spec.to_args();
        args.extend(["--".into(), "/bin/bash".into(), "-c".into(), "--write /x".into()]);
        assert_eq!(
            parse(&args).unwrap(),
            Action::Run { spec, program: "/bin/bash".into(), args: vec!["-c".into(), "--write /x".into()] }
        );
        assert_eq!(parse(&[PROBE.into()]).unwrap(), Action::Probe);
        assert_eq!(parse(&[PROBE_LANDLOCK.into()]).unwrap(), Action::ProbeLandlock);
        assert!(parse(&["--write".into()]).is_err());
        assert!(parse(&["--bogus".into(), "x".into(), "--".into(), "p".into()]).is_err());
        assert!(parse(&[]).is_err());
        assert!(parse(&["--network".into(), "wide".into(), "--".into(), "p".into()]).is_err());
        let spec = HelperSpec { write: vec!["/p".into()], ..HelperSpec::default() };
        let clear = vec![PathBuf::from("/tmp")];
        assert_eq!(parse(&spec.serve_args(&clear)).unwrap(), Action::Serve { spec, clear });
        assert!(parse(&[SERVE.into(), CLEAR.into()]).is_err());
        assert!(parse(&[SERVE.into(), "--bogus".into(), "x".into()]).is_err());
    }
}
