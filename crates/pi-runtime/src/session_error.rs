//! Why a call on the session failed: an extension's (its `Display` is the
//! message the extension's JavaScript receives as the thrown error, the
//! reference's words where it has them; it becomes text only at
//! [`pi_ext::SessionApi`]'s boundary) or a terminal-UI command's.

use crate::text;

/// A session call or command could not be done.
#[derive(Debug, thiserror::Error)]
pub enum SessionCallError {
    /// A task failed while holding the session (it is left as it was).
    #[error("{}", text::EXT_SESSION_UNAVAILABLE)]
    Unavailable,
    /// Reading or writing the session file failed.
    #[error(transparent)]
    Session(#[from] pi_agent::session::SessionError),
    /// A command that needs an idle agent came during a run.
    #[error("{}", text::EXT_SESSION_BUSY)]
    Busy,
    /// `sendUserMessage` during a run without `deliverAs`.
    #[error("{}", text::EXT_USER_MESSAGE_WHILE_STREAMING)]
    WhileStreaming,
    /// `fork` of an empty session.
    #[error("{}", text::RPC_NOTHING_TO_COPY)]
    NothingToCopy,
    /// No entry has this id.
    #[error("{}", text::ext_entry_not_found(.0))]
    EntryNotFound(String),
    /// The summary of the branch left behind could not be had (the
    /// conversation did not move).
    #[error("{}", text::branch_summary_failed(&.0.to_string()))]
    BranchSummary(pi_agent::compaction::SummaryError),
}

impl<T> From<std::sync::PoisonError<T>> for SessionCallError {
    fn from(_: std::sync::PoisonError<T>) -> Self {
        SessionCallError::Unavailable
    }
}
