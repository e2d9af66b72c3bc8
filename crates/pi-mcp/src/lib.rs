//! MCP servers as tools of pi (requirements X4, S6; `pi-behaviour.md` §6.6).
//!
//! - [`config`] reads `mcp.json` (the user's, and a trusted project's) and
//!   checks every entry on its own, naming the file and key of a bad one.
//! - [`McpManager`] connects every enabled server in the background with
//!   `rmcp` (stdio child processes), registers each server's tools as
//!   `mcp__<server>__<tool>` ([`naming`]) with the configured exposure
//!   (`codemode` by default, registered `deferred`), and reconnects a dropped
//!   server on its next call.
//! - Each tool is an [`McpTool`]: an ordinary `AgentTool`, so every call
//!   takes the one dispatch pipeline of `pi-agent` (policies see it, scripts
//!   reach it as a nested call). Results are cut to 20 KiB for the model with
//!   the full text in a `pi-mcp-*.log` file ([`result`]).
//! - [`Gate`] is the `tool_call` handler that makes codemode scripts and
//!   `tool_search` wait for the servers they reach.
//!
//! `pi-cli` wires it as the built-in extension `builtin:mcp`.
#![deny(missing_docs)]

mod client;
pub mod config;
pub mod exposure;
mod gate;
mod guard;
mod http;
pub mod logfile;
mod manager;
pub mod naming;
mod process;
mod prompt;
pub mod resources;
pub mod result;
pub mod slash;
mod stdio;
mod subst;
pub mod text;
mod tool;

pub use client::ClientError;
pub use config::{ConfigError, ConfigProblem, McpConfig, ServerConfig, Transport};
pub use exposure::ServerExposure;
pub use gate::Gate;
pub use logfile::LogFile;
pub use manager::{Admit, AdmitFn, CACHE_FILE, McpManager, ReconnectError, Registrar, Server, Status};
pub use process::stop_all_now as stop_all_servers_now;
pub use resources::ResourceTool;
pub use subst::SubstError;
pub use tool::McpTool;

/// Block SIGPIPE in the calling thread (give it to every runtime worker with
/// `on_thread_start`). pi restores SIGPIPE's default so a closed standard
/// output ends it quietly; but a stdio server that exits while its
/// connection writes to it must give that write an error (`EPIPE`), not
/// kill pi. SIGPIPE is sent to the writing thread, and MCP connections write
/// from runtime workers, never from the thread that prints.
pub fn block_sigpipe_in_this_thread() {
    #[allow(unsafe_code)]
    // SAFETY: sigemptyset/sigaddset fill a local, zero-initialised set, and
    // pthread_sigmask changes only this thread's mask; no memory is shared.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// The name of the built-in extension (`builtin:mcp`).
pub const BUILTIN: &str = "mcp";
