//! The crate's errors: a configuration file, a skill or template file.

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

/// A skill or prompt-template file could not be used; `Display` is the
/// diagnostic's text.
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    /// The file does not exist (or is not a regular file).
    #[error("{}", crate::text::RESOURCE_FILE_MISSING)]
    Missing,
    /// The file could not be read.
    #[error("{0}")]
    Unreadable(std::io::Error),
    /// The frontmatter is not valid YAML.
    #[error("{0}")]
    Yaml(yaml_rust2::ScanError),
    /// The frontmatter holds more than one YAML document.
    #[error("{}", crate::text::FRONTMATTER_MULTIPLE_DOCUMENTS)]
    MultipleDocuments,
}
