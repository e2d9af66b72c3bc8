//! Why a package command failed: the command run, the file written, the
//! source asked for. Each error shows as the reference's message (the
//! texts are in [`super::text`]).

use std::path::PathBuf;

use pi_config::{SettingsError, TrustError};

use super::text;

/// A failure of `pi install|remove|update`, or of installing a package.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PackageError {
    /// `program` (git, npm) could not be started.
    #[error("{}", text::command_not_started(.program, .source))]
    NotStarted {
        /// The program.
        program: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// `program args…` exited with a failure status (`None`: a signal).
    #[error("{}", text::command_failed(.program, .args, *.code))]
    CommandFailed {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its exit code.
        code: Option<i32>,
    },
    /// The `npmCommand` setting names no program.
    #[error("{}", text::INVALID_NPM_COMMAND)]
    InvalidNpmCommand,
    /// A local source that does not exist.
    #[error("{}", text::path_missing(.0))]
    PathMissing(PathBuf),
    /// A file or folder pi writes while installing.
    #[error("{}", text::write_failed(.path, .source))]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why it could not be written.
        source: std::io::Error,
    },
    /// `pi update <source>` names no configured package (`suggestion`: the
    /// configured source it probably means).
    #[error("{}", match .suggestion {
        Some(s) => text::no_matching_package_suggestion(.package, s),
        None => text::no_matching_package(.package),
    })]
    NoMatch {
        /// The source as typed.
        package: String,
        /// The configured source it probably means.
        suggestion: Option<String>,
    },
    /// `-e npm:…`/`git:…` offline, never installed before.
    #[error("{}", text::OFFLINE_NOT_CACHED)]
    NotCached,
    /// A package given with `-e` that could not be installed.
    #[error("{}", text::temporary_warning(.spec, &.cause.to_string()))]
    Temporary {
        /// The source as given.
        spec: String,
        /// Why it could not be installed.
        #[source]
        cause: Box<PackageError>,
    },
    /// The project's trust could not be read.
    #[error(transparent)]
    Trust(#[from] TrustError),
    /// The settings could not be written.
    #[error(transparent)]
    Settings(#[from] SettingsError),
}
