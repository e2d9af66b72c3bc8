//! Why a policy could not judge a call (it then blocks it: policies fail closed).

/// A policy's own check failed; `Display` is the message the call is blocked with.
#[derive(Debug, thiserror::Error)]
#[error("{}", crate::text::policy_failed(.policy, &.source.to_string()))]
pub struct PolicyFailed {
    /// The policy's name.
    pub policy: &'static str,
    /// The task that ran the check ended without an answer.
    pub source: tokio::task::JoinError,
}
