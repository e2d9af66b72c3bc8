//! The one error type of this crate.

use std::path::PathBuf;

/// A configuration file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("Could not read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("Could not write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid JSON or has the wrong shape.
    #[error("Invalid {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A `!command` value failed.
    #[error("Command for {what} failed: {message}")]
    Command {
        /// Which value.
        what: String,
        /// What went wrong.
        message: String,
    },
}
