//! Why the helper (or the session server) could not restrict itself: printed
//! after `pi sandbox: the command was not run: `, and nothing runs.

use std::io;
use std::path::PathBuf;

use landlock::RulesetStatus;

use crate::text;

/// A step of the helper's restriction failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RestrictError {
    /// A system call (capabilities, descriptors, dumpable flag) failed.
    #[error("{0}")]
    Os(#[from] rustix::io::Errno),
    /// Reading `/proc/self/fd` or opening `/dev/null` failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Landlock refused the ruleset.
    #[error("{0}")]
    Landlock(#[from] landlock::RulesetError),
    /// Landlock was required and is not fully enforced.
    #[error("{}", text::landlock_not_enforced(&format!("{:?}", .0)))]
    LandlockNotEnforced(RulesetStatus),
    /// A folder has more entries, or the rules more paths, than Landlock takes.
    #[error("{}", text::too_many_entries(path, *limit))]
    TooManyEntries {
        /// The folder (or the path that went over the rule limit).
        path: PathBuf,
        /// The limit.
        limit: usize,
    },
    /// A seccomp filter could not be built.
    #[error("{0}")]
    SeccompFilter(#[from] seccompiler::BackendError),
    /// A seccomp filter could not be installed.
    #[error("{0}")]
    Seccomp(#[from] seccompiler::Error),
    /// There is no seccomp filter for this architecture.
    #[error("{}", text::SECCOMP_UNSUPPORTED_ARCH)]
    UnsupportedArch,
}
