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
mod http;
pub mod logfile;
mod manager;
pub mod naming;
mod prompt;
pub mod result;
mod subst;
pub mod text;
mod tool;

pub use client::ClientError;
pub use config::{ConfigProblem, McpConfig, ServerConfig, Transport};
pub use exposure::ServerExposure;
pub use gate::Gate;
pub use logfile::LogFile;
pub use manager::{Admit, AdmitFn, McpManager, Registrar, Server, Status};
pub use tool::McpTool;

/// The name of the built-in extension (`builtin:mcp`).
pub const BUILTIN: &str = "mcp";
