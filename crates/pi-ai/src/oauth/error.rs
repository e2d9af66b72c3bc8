//! Why a token request failed.

/// A token request (login or refresh) failed.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum OAuthError {
    /// The request did not get an answer.
    #[error("{what} request failed. url={url}; {message}")]
    Request {
        /// `Anthropic token refresh`, ….
        what: String,
        /// The endpoint.
        url: String,
        /// The transport's error.
        message: String,
    },
    /// The server answered with an error status.
    #[error("{what} request failed. status={status}; url={url}; body={body}")]
    Status {
        /// `Anthropic token refresh`, ….
        what: String,
        /// The endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body.
        body: String,
    },
    /// The answer was not what the flow expects.
    #[error("{what} answer was not understood: {message}")]
    BadAnswer {
        /// `Anthropic token refresh`, ….
        what: String,
        /// What was wrong.
        message: String,
    },
    /// The login was not completed (bad state, denied, timed out, cancelled).
    #[error("{0}")]
    Login(String),
}
