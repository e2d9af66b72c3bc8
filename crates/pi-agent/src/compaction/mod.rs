//! Compaction (the reference's docs/compaction.md): when the context passes
//! `contextWindow − reserveTokens`, after a context overflow (then the
//! request is tried again once), or on demand, the older part of the active
//! branch is summarized by the session's model and a `compaction` entry
//! stands for it: the context becomes the system checkpoint, the summary and
//! the entries kept. Extensions may cancel a compaction or supply the summary
//! (`session_before_compact`).

mod branch;
mod error;
mod estimate;
mod overflow;
mod prepare;
mod run;

use serde_json::Value;

pub use branch::{BranchSummary, BranchSummaryRequest};
pub use error::{CompactionError, SummaryError};
pub use estimate::{context_tokens, estimate, estimated_so_far, held_context_tokens, session_context_tokens};
pub use overflow::is_context_overflow;
pub use prepare::{Preparation, prepare, serialize};

/// Tokens of the model's window a branch summary keeps free, unless
/// `branchSummary.reserveTokens` says otherwise.
pub const DEFAULT_BRANCH_RESERVE_TOKENS: u64 = 16_384;

/// The `compaction` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Compact automatically.
    pub enabled: bool,
    /// Free tokens below which automatic compaction starts.
    pub reserve_tokens: u64,
    /// Recent tokens kept as they are.
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings { enabled: true, reserve_tokens: 16_384, keep_recent_tokens: 20_000 }
    }
}

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionReason {
    /// `/compact`, RPC `compact`.
    Manual,
    /// The context passed the threshold.
    Threshold,
    /// The model said the context did not fit.
    Overflow,
}

impl CompactionReason {
    /// Its name in events.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionReason::Manual => "manual",
            CompactionReason::Threshold => "threshold",
            CompactionReason::Overflow => "overflow",
        }
    }
}

/// What a hook of an extension decided about a compaction (defined with
/// the hooks, which answer it).
pub use crate::hooks::CompactionHook;

/// A finished compaction, as `compaction_end` and RPC `compact` report it.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionOutcome(pub Value);
