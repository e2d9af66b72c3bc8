//! Why a request failed, before it becomes an `error` event.

/// A failed request. Its `Display` is the `errorMessage` the agent sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProviderError {
    /// The signal was cancelled.
    #[error("{}", crate::text::REQUEST_ABORTED)]
    Aborted,
    /// Nobody listens to the events any more; stop quietly.
    #[error("receiver dropped")]
    ReceiverGone,
    /// Anything else, with the text the agent shows.
    #[error("{0}")]
    Failed(String),
}

impl ProviderError {
    pub(crate) fn failed(msg: impl Into<String>) -> Self {
        ProviderError::Failed(msg.into())
    }
}
