//! The words the manager and its servers share: where tools go
//! ([`Registrar`]), what the selection admits ([`Admit`]) and a server's
//! [`Status`]. Kept apart so a server need not reach back into the manager.

use std::sync::Arc;

use pi_agent::AgentTool;

/// Where the servers' tools go (the session's pending tool changes).
pub trait Registrar: Send + Sync {
    /// Register (or replace, by name) these tools.
    fn register(&self, tools: Vec<Arc<dyn AgentTool>>);
    /// The session's tool named `name` (registered or pending).
    fn tool(&self, name: &str) -> Option<Arc<dyn AgentTool>>;
}

/// What the tool selection says about an MCP tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Not registered (`--exclude-tools`, an allowlist that names MCP tools).
    Skip,
    /// Registered; a `direct` tool is activated only when `activate`.
    Register {
        /// Whether a `direct` tool becomes active.
        activate: bool,
    },
}

/// Decides [`Admit`] by tool name.
pub type AdmitFn = Arc<dyn Fn(&str) -> Admit + Send + Sync>;

/// A server's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// `enabled: false`.
    Disabled,
    /// Starting or reconnecting.
    Connecting,
    /// Up, with this many tools.
    Connected(usize),
    /// The connection dropped; the next call reconnects.
    Disconnected,
    /// The last attempt failed.
    Failed(String),
}
