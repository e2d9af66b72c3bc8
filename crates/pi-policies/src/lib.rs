//! The shipped policies of `pi`, as built-in [`Interceptor`]s: `tool_call`
//! handlers that run in the one dispatch pipeline of `pi-agent` like any
//! extension's handler, but need no JavaScript engine and can look at the file
//! system (to canonicalise paths) before a call runs.
//!
//! - [`permission-gate`](PermissionGate): asks before dangerous `bash` and
//!   `powershell` commands (`rm -rf`, `sudo`, `chmod 777`); blocks them when
//!   there is no UI to ask.
//! - [`protected-paths`](ProtectedPaths): blocks `write` and `edit` calls whose
//!   path is, or leads through symlinks to, a `.env`/`.env.*` file or anything
//!   inside a `.git` or `node_modules` folder.
//! - [`approval`](Approval): opt-in; asks before every call the tool's
//!   annotations (as registered when the call is made) do not mark as
//!   harmless; blocks them when there is no UI.
//!
//! Each policy judges the call as it will run: its handler is asked after
//! every other source's `tool_call` handlers
//! ([`Interceptor::judges_final_input`]), so a later rewrite of the input
//! cannot escape it.
//!
//! A front end switches a policy on by name (`-e builtin:<name>`, or
//! `"extensions": ["builtin:<name>"]` in settings) and adds the result to
//! [`pi_agent::Dispatcher::interceptors`]:
//!
//! ```
//! use pi_policies::{builtin, PolicyOptions, BUILTIN_NAMES};
//! let opts = PolicyOptions::new(std::env::current_dir().unwrap());
//! let gate = builtin("permission-gate", opts).expect("a shipped policy");
//! assert_eq!(gate.source(), "builtin:permission-gate");
//! assert!(BUILTIN_NAMES.contains(&"protected-paths"));
//! ```
#![deny(missing_docs)]

mod approval;
mod error;
mod permission_gate;
mod protected_paths;
pub mod text;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
pub use pi_agent::Interceptor;
use pi_tools::Annotations;

pub use approval::{Approval, needs_approval};
pub use error::PolicyFailed;
pub use permission_gate::{PermissionGate, is_dangerous_command};
pub use protected_paths::{ProtectedPaths, canonicalize_lenient, is_protected};

/// The names of the shipped policies, as `builtin:<name>` takes them.
pub const BUILTIN_NAMES: &[&str] = &[PermissionGate::NAME, ProtectedPaths::NAME, Approval::NAME];

/// The largest part of a call's arguments the approval question shows, in
/// bytes (the middle of longer arguments is cut).
pub const APPROVAL_ARGS_MAX_BYTES: usize = 2000;

/// How serious a notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotifyKind {
    /// For information.
    Info,
    /// Something was refused or needs attention.
    Warning,
    /// Something failed.
    Error,
}

/// The user interface a policy asks through (interactive terminal, RPC
/// client). A front end without a UI passes no approver; policies then fail
/// closed.
pub trait Approver: Send + Sync {
    /// Ask a yes/no question; `false` for no, a cancelled dialog or a timeout.
    fn confirm<'a>(&'a self, title: &'a str, message: &'a str) -> BoxFuture<'a, bool>;
    /// Offer `options`; the chosen one, or `None` when cancelled or timed out.
    fn select<'a>(&'a self, title: &'a str, options: &'a [&'a str]) -> BoxFuture<'a, Option<String>>;
    /// Show a short notice; does nothing unless the UI implements it.
    fn notify(&self, _message: &str, _kind: NotifyKind) {}
}

/// What a policy is built with.
#[derive(Clone, Default)]
pub struct PolicyOptions {
    /// The session folder; relative paths resolve against it as the tools
    /// resolve them (it must be the tools' `ToolContext::cwd`).
    pub cwd: PathBuf,
    /// The UI to ask through; `None` when there is none (print and JSON modes).
    pub ui: Option<Arc<dyn Approver>>,
}

impl PolicyOptions {
    /// Options for `cwd`, without a UI.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        PolicyOptions { cwd: cwd.into(), ui: None }
    }

    /// The same options asking through `ui`.
    pub fn with_ui(mut self, ui: Arc<dyn Approver>) -> Self {
        self.ui = Some(ui);
        self
    }
}

impl fmt::Debug for PolicyOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicyOptions").field("cwd", &self.cwd).field("ui", &self.ui.is_some()).finish()
    }
}

/// The annotations of a built-in tool by name, `None` for other names.
pub fn builtin_annotations(name: &str) -> Option<Annotations> {
    name.parse::<pi_tools::ToolName>().ok().map(|t| pi_tools::ToolSpec::of(t).annotations)
}

/// The shipped policy `name` (one of [`BUILTIN_NAMES`], without the
/// `builtin:` prefix), or `None` for another name.
pub fn builtin(name: &str, opts: PolicyOptions) -> Option<Arc<dyn Interceptor>> {
    match name {
        PermissionGate::NAME => Some(Arc::new(PermissionGate::new(opts.ui))),
        ProtectedPaths::NAME => Some(Arc::new(ProtectedPaths::new(opts.cwd, opts.ui))),
        Approval::NAME => Some(Arc::new(Approval::new(opts.ui))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_with_its_source() {
        for name in BUILTIN_NAMES {
            let p = builtin(name, PolicyOptions::new("/")).unwrap();
            assert_eq!(p.source(), format!("builtin:{name}"));
        }
        assert!(builtin("nope", PolicyOptions::new("/")).is_none());
        assert!(builtin("builtin:approval", PolicyOptions::new("/")).is_none());
    }

    #[test]
    fn builtin_annotations_by_name() {
        assert_eq!(builtin_annotations("read").unwrap().read_only_hint, Some(true));
        assert_eq!(builtin_annotations("bash").unwrap().open_world_hint, Some(true));
        assert!(builtin_annotations("mcp__x__y").is_none());
    }
}
