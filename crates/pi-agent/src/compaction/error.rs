//! Why a compaction did not happen. Each error's `Display` is the message
//! after `Compaction failed: ` (or `Auto-compaction failed: `).

use crate::CredentialError;
use crate::text;

/// A compaction that did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    /// The branch ends with a compaction already.
    #[error("{}", text::ALREADY_COMPACTED)]
    AlreadyCompacted,
    /// Nothing comes before the part kept as it is.
    #[error("{}", text::NOTHING_TO_COMPACT)]
    NothingToCompact,
    /// A `session_before_compact` handler cancelled it.
    #[error("{}", text::COMPACTION_CANCELLED)]
    Cancelled,
    /// The session could not be read: a thread panicked while holding it.
    #[error("{}", text::SESSION_LOCK_POISONED)]
    SessionPoisoned,
    /// The summary of the history could not be had.
    #[error("{}", text::summarization_failed(.0))]
    Summary(SummaryError),
    /// The summary of a split user-message span's start could not be had.
    #[error("{}", text::turn_prefix_summarization_failed(.0))]
    TurnPrefixSummary(SummaryError),
}

impl CompactionError {
    /// Whether the compaction was cancelled rather than failed
    /// (`compaction_end` says `aborted` and no error message).
    pub fn is_cancelled(&self) -> bool {
        matches!(self, CompactionError::Cancelled)
    }
}

/// Why one summary request to the session's model gave no summary.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The request's credentials could not be had.
    #[error(transparent)]
    Credentials(#[from] CredentialError),
    /// The model answered with no text.
    #[error("{}", text::EMPTY_SUMMARY)]
    Empty,
    /// The request failed: the provider's message.
    #[error("{0}")]
    Failed(String),
    /// The stream ended without a final message.
    #[error("{}", text::STREAM_ENDED_EARLY)]
    StreamEnded,
}
