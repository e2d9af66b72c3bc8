//! The errors of the terminal side: a key name that is not one, an external
//! editor that failed. Each `Display` is the user-visible text.

use std::process::ExitStatus;

use crate::text;

/// A key name (`ctrl+x`, …) that names no key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", text::invalid_key(.key))]
pub struct InvalidKey {
    /// The name as given.
    pub key: String,
}

/// The external editor could not edit the prompt.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    /// The prompt's temporary file could not be written or read back.
    #[error("{0}")]
    File(std::io::Error),
    /// The editor could not be started.
    #[error("{}", text::editor_failed(.command, &.source.to_string()))]
    NotStarted {
        /// The editor command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The editor exited with a failure.
    #[error("{}", text::editor_failed(.command, &.status.to_string()))]
    Failed {
        /// The editor command.
        command: String,
        /// How it ended.
        status: ExitStatus,
    },
}
