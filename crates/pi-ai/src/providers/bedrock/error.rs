//! Why a Bedrock request has no credentials: nothing found, a file that
//! could not be read, or a `credential_process` or container endpoint that
//! gave no keys. Each `Display` is the reference's (or pi's) sentence.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::ClientError;
use crate::text::bedrock as words;

/// The credentials of a request could not be had.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CredentialsError {
    /// Nothing in the chain.
    #[error("{}", words::NO_CREDENTIALS)]
    NotFound,
    /// `AWS_PROFILE` names a profile without keys.
    #[error("{}", words::profile_without_keys(.0))]
    ProfileWithoutKeys(String),
    /// Only a source pi does not read is set (the variable).
    #[error("{}", words::unsupported_source(.0))]
    UnsupportedSource(&'static str),
    /// An AWS file (or a token file) that could not be read.
    #[error("{}", words::unreadable_file(.path, &.why.to_string()))]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        why: FileProblem,
    },
    /// `AWS_CONTAINER_CREDENTIALS_FULL_URI` names a URL pi will not ask.
    #[error("{}", words::container_url(.url, &.why.to_string()))]
    ContainerUrl {
        /// The URL.
        url: String,
        /// Why not.
        why: UrlProblem,
    },
    /// A `credential_process` command gave no keys.
    #[error("{}", words::credential_process_failed(.command, &.why.to_string()))]
    Process {
        /// The command.
        command: String,
        /// What went wrong.
        why: KeysProblem,
    },
    /// The container credentials endpoint gave no keys.
    #[error("{}", words::container_failed(.url, &.why.to_string()))]
    Container {
        /// The endpoint.
        url: String,
        /// What went wrong.
        why: KeysProblem,
    },
}

/// Why an AWS file could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FileProblem {
    /// Opening or reading it failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// It is larger than the limit (bytes).
    #[error("{}", words::file_too_large(*.0))]
    TooLarge(usize),
}

/// Why a container credentials URL is refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UrlProblem {
    /// It is not a URL.
    #[error("{0}")]
    Parse(url::ParseError),
    /// Plain HTTP to a host other than loopback or the agents.
    #[error("{}", words::CONTAINER_HOST)]
    PlainHttp,
}

/// Why a command or an endpoint gave no keys.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeysProblem {
    /// Starting, reading or waiting for the command failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// The command's pipes could not be opened.
    #[error("{}", words::NO_PIPES)]
    NoPipes,
    /// No answer within the time limit.
    #[error("{}", words::process_timed_out(.0.as_secs_f64()))]
    TimedOut(Duration),
    /// More output than the limit (bytes).
    #[error("{}", words::process_output_too_large(*.0))]
    TooLarge(usize),
    /// The command failed (its exit code, none for a signal; its standard error, clipped).
    #[error("{}", words::process_exit(*.code, .stderr))]
    Exit {
        /// The exit code.
        code: Option<i32>,
        /// What it printed on standard error.
        stderr: String,
    },
    /// The output is not JSON.
    #[error("{}", words::process_output(&.0.to_string()))]
    NotJson(serde_json::Error),
    /// The JSON's `Version` is not 1.
    #[error("{}", words::process_output(words::PROCESS_VERSION))]
    Version,
    /// The JSON lacks the keys.
    #[error("{}", words::process_output(words::PROCESS_NO_KEYS))]
    NoKeys,
    /// The HTTP client could not be built.
    #[error("{0}")]
    Client(ClientError),
    /// The request got no answer.
    #[error("{0}")]
    Request(reqwest::Error),
    /// The endpoint answered with an error status (the body clipped).
    #[error("{status} {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body.
        body: String,
    },
}

impl From<CredentialsError> for crate::error::ProviderError {
    fn from(e: CredentialsError) -> Self {
        crate::error::ProviderError::failed(e.to_string())
    }
}
