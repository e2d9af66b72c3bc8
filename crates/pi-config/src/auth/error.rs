//! What can go wrong with `auth.json`.

use std::path::PathBuf;

/// `auth.json` could not be used. Every variant names the file; the
/// file is never written after one of these.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The file exists but could not be read.
    #[error("Could not read {path}: {source}. The file was left unchanged.")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a JSON object of credentials.
    #[error("Invalid {path}: {message}. Fix or remove the file; it was left unchanged.")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The file could not be written.
    #[error("Could not write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another process held the lock for too long.
    #[error("Timed out waiting for the lock on {path} (another pi process is changing it); try again.")]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
}

/// What is wrong with one entry of `auth.json` (completes
/// [`AuthError::Invalid`]'s `the entry for "<provider>": …`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EntryError {
    /// The entry is not a JSON object.
    #[error("expected an object")]
    NotObject,
    /// A field (`key`, `env.NAME`, …) that is not a string.
    #[error("\"{0}\" must be a string")]
    NotString(String),
    /// A required field is absent.
    #[error("\"{0}\" is missing")]
    Missing(&'static str),
    /// `env` is not an object.
    #[error("\"env\" must be an object")]
    EnvNotObject,
    /// `expires` is not a number.
    #[error("\"expires\" must be a number")]
    ExpiresNotNumber,
    /// No `type`, or not a string.
    #[error("\"type\" must be \"api_key\" or \"oauth\"")]
    NoType,
}
