//! The sandbox's errors.

use std::path::PathBuf;

use crate::{Mode, text};

/// A sandboxed command could not be prepared: it must not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", text::cannot_start(*.mode, reason))]
pub struct SandboxError {
    /// The mode that was asked for.
    pub mode: Mode,
    /// Why nothing can run.
    pub reason: String,
}

impl SandboxError {
    pub(crate) fn new(mode: Mode, reason: impl Into<String>) -> Self {
        SandboxError { mode, reason: reason.into() }
    }
}

/// Which rule refused a write by pi's own tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// Read-only mode refuses every write.
    ReadOnly,
    /// The path is outside every writable root.
    Outside,
    /// The path is inside a protected folder (`.git`, `.pi`, `.agents`).
    Protected(String),
    /// The path is inside a hidden credential store.
    Hidden,
}

/// pi's `write` or `edit` may not touch a path. `Display` is the message the
/// model reads (`sandbox: read-only: write to <path> refused`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct Refusal {
    /// The mode in force.
    pub mode: Mode,
    /// The path as resolved (absolute, symlinks followed).
    pub path: PathBuf,
    /// The rule that refused it.
    pub rule: Rule,
}

impl Refusal {
    fn message(&self) -> String {
        let rule = match &self.rule {
            Rule::ReadOnly => None,
            Rule::Outside => Some(text::RULE_OUTSIDE.to_string()),
            Rule::Protected(name) => Some(text::rule_protected(name)),
            Rule::Hidden => Some(text::RULE_HIDDEN.to_string()),
        };
        text::refused(self.mode, &self.path, rule.as_deref())
    }
}
