//! The sandbox's errors.

use std::io;
use std::path::PathBuf;

use crate::{Mode, text};

/// A sandboxed command could not be prepared: it must not run.
#[derive(Debug, thiserror::Error)]
#[error("{}", text::cannot_start(*.mode, &reason.to_string()))]
pub struct SandboxError {
    /// The mode that was asked for.
    pub mode: Mode,
    /// Why nothing can run.
    pub reason: Reason,
}

impl SandboxError {
    pub(crate) fn new(mode: Mode, reason: Reason) -> Self {
        SandboxError { mode, reason }
    }
}

/// Why a sandboxed command cannot run: no sandbox can start here, or this
/// command's sandbox cannot be built. `Display` is the reason as shown after
/// `sandbox: <mode>: the command was not run: `.
#[derive(Debug, thiserror::Error)]
pub enum Reason {
    /// No helper binary was registered ([`crate::set_helper`]).
    #[error("{}", text::NO_HELPER)]
    NoHelper,
    /// This platform has no sandbox.
    #[error("{}", text::UNSUPPORTED_PLATFORM)]
    UnsupportedPlatform,
    /// Neither bubblewrap nor Landlock can start.
    #[error("{}", text::no_mechanism(&bwrap.to_string(), &landlock.to_string()))]
    NoMechanism {
        /// Why bubblewrap cannot be used.
        bwrap: BwrapUnusable,
        /// Why Landlock alone cannot be used.
        landlock: LandlockUnusable,
    },
    /// The working folder is inside a hidden credential store.
    #[error("{}", text::cwd_hidden(.0))]
    CwdHidden(PathBuf),
    /// A protected name is a symlink that points nowhere.
    #[error("{}", text::dangling_protected(.0))]
    DanglingProtected(PathBuf),
    /// There is no temp folder to make a private one in.
    #[error("{}", text::NO_TEMP)]
    NoTemp,
    /// The random name of a private temp folder could not be drawn.
    #[cfg(target_os = "linux")]
    #[error("{0}")]
    Random(getrandom::Error),
    /// A private temp folder could not be created.
    #[error("{}: {source}", path.display())]
    PrivateTemp {
        /// The folder.
        path: PathBuf,
        /// What creating it gave.
        source: io::Error,
    },
}

/// Why bubblewrap cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BwrapUnusable {
    /// It is not installed (or the test switch hides it).
    #[error("{}", text::BWRAP_MISSING)]
    Missing,
    /// It is there, but its probe failed.
    #[error("{}", text::bwrap_failed(&.0.to_string()))]
    Failed(ProbeFailure),
}

/// Why Landlock alone cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LandlockUnusable {
    /// The test switch turned it off.
    #[error("{}", text::LANDLOCK_SWITCHED_OFF)]
    SwitchedOff,
    /// Its probe failed.
    #[error("{}", text::landlock_unavailable(&.0.to_string()))]
    Failed(ProbeFailure),
}

/// A probe process (bubblewrap, or the helper asked about Landlock) did not
/// exit 0.
#[derive(Debug, thiserror::Error)]
pub enum ProbeFailure {
    /// It could not be started or waited for.
    #[error("{}", text::probe_failed(what, &source.to_string()))]
    Spawn {
        /// What was probed (`bubblewrap`, `Landlock`).
        what: &'static str,
        /// The error starting or waiting gave.
        source: io::Error,
    },
    /// It did not finish in time.
    #[error("{}", text::probe_timed_out(what, *ms))]
    TimedOut {
        /// What was probed.
        what: &'static str,
        /// How long it was given, in milliseconds.
        ms: u64,
    },
    /// It exited with a failure: the first line it wrote on stderr (possibly
    /// empty).
    #[error("{0}")]
    Refused(String),
}

/// Which rule refused a write by pi's own tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// Read-only mode refuses every write.
    ReadOnly,
    /// The path is outside every writable root.
    Outside,
    /// The path is inside a protected folder (`.git`, `.pi`, `.agents`).
    Protected(String),
    /// The path is inside a hidden credential store.
    Hidden,
}

/// pi's `write` or `edit` may not touch a path. `Display` is the message the
/// model reads (`sandbox: read-only: write to <path> refused`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct Refusal {
    /// The mode in force.
    pub mode: Mode,
    /// The path as resolved (absolute, symlinks followed).
    pub path: PathBuf,
    /// The rule that refused it.
    pub rule: Rule,
}

impl Refusal {
    fn message(&self) -> String {
        let rule = match &self.rule {
            Rule::ReadOnly => None,
            Rule::Outside => Some(text::RULE_OUTSIDE.to_string()),
            Rule::Protected(name) => Some(text::rule_protected(name)),
            Rule::Hidden => Some(text::RULE_HIDDEN.to_string()),
        };
        text::refused(self.mode, &self.path, rule.as_deref())
    }
}
