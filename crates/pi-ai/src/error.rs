//! Why a request failed, before it becomes an `error` event.

use crate::failure::{Failure, FailureKind};

/// A failed request. Its `Display` is the `errorMessage` the agent sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProviderError {
    /// The signal was cancelled.
    #[error("{}", crate::text::REQUEST_ABORTED)]
    Aborted,
    /// Nobody listens to the events any more; stop quietly.
    #[error("receiver dropped")]
    ReceiverGone,
    /// Anything else: the text the agent shows, and what kind of failure it was.
    #[error("{0}")]
    Failed(String, Failure),
}

impl ProviderError {
    /// A failure of no particular kind (never worth retrying).
    pub(crate) fn failed(msg: impl Into<String>) -> Self {
        Self::of_kind(FailureKind::Other, msg)
    }

    /// A failure of this kind.
    pub(crate) fn of_kind(kind: FailureKind, msg: impl Into<String>) -> Self {
        ProviderError::Failed(msg.into(), Failure::new(kind))
    }

    /// The kind of a failure (`None` for an abort or a gone receiver).
    #[cfg(test)]
    pub(crate) fn kind(&self) -> Option<FailureKind> {
        match self {
            ProviderError::Failed(_, f) => Some(f.kind),
            _ => None,
        }
    }
}

/// The shared HTTP client could not be built (kept, so it is cloneable).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", crate::text::client_failed(.0))]
pub(crate) struct ClientError(std::sync::Arc<reqwest::Error>);

impl From<reqwest::Error> for ClientError {
    fn from(e: reqwest::Error) -> Self {
        ClientError(std::sync::Arc::new(e))
    }
}

impl From<ClientError> for ProviderError {
    fn from(e: ClientError) -> Self {
        ProviderError::failed(e.to_string())
    }
}

/// One server-sent event outgrew its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", crate::text::sse_event_too_large(self.limit))]
pub(crate) struct EventTooLarge {
    /// The limit in bytes.
    pub limit: usize,
}
