//! Why a credential could not be found, refreshed or saved. Each error
//! shows as the message pi prints (the texts are in [`super::text`]).

use pi_ai::oauth::OAuthError;
use pi_config::{AuthError, ConfigError};

use super::text;

/// A credential that could not be resolved or refreshed.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// `auth.json` could not be read, locked or written, or its entry is
    /// not a credential.
    #[error(transparent)]
    Store(#[from] AuthError),
    /// `models.json`'s `apiKey` could not be resolved (`$NAME`, `!command`).
    #[error(transparent)]
    Value(#[from] ConfigError),
    /// The task waiting for the lock on `auth.json` ended abnormally.
    #[error(transparent)]
    Lock(#[from] tokio::task::JoinError),
    /// A stored OAuth login could not be refreshed.
    #[error("{}", text::refresh_failed(.provider, &.cause.to_string()))]
    Refresh {
        /// The provider.
        provider: String,
        /// Why.
        #[source]
        cause: RefreshError,
    },
}

/// Why a stored OAuth login's tokens could not be renewed.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// pi has no refresh flow for the provider.
    #[error("{}", text::cannot_refresh(.0))]
    Unsupported(String),
    /// The provider refused, or could not be reached.
    #[error(transparent)]
    OAuth(#[from] OAuthError),
}

/// An account login or a key that could not be obtained.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// An empty key (or a key asked of an account-only flow).
    #[error("{}", text::EMPTY_KEY)]
    EmptyKey,
    /// No authorization code was pasted.
    #[error("{}", text::NO_CODE)]
    NoCode,
    /// The pasted code belongs to another login.
    #[error("{}", text::STATE_MISMATCH)]
    StateMismatch,
    /// A GitHub Enterprise host was given.
    #[error("{}", text::ENTERPRISE_UNSUPPORTED)]
    EnterpriseUnsupported,
    /// The login was not finished in time.
    #[error("{}", text::LOGIN_TIMED_OUT)]
    TimedOut,
    /// The local callback could not listen on `port`.
    #[error("{}", text::callback_failed(*.port, &.source.to_string()))]
    Callback {
        /// The port.
        port: u16,
        /// Why.
        source: std::io::Error,
    },
    /// The provider's sign-in flow failed.
    #[error(transparent)]
    OAuth(#[from] OAuthError),
    /// The credential could not be saved in `auth.json`.
    #[error(transparent)]
    Store(#[from] AuthError),
}
