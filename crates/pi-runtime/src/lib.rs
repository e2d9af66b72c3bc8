//! A pi session's life as a library, seen from its clients.
//!
//! Every front end (print, JSON, RPC, the terminal UI, an editor protocol)
//! is to drive a session with the same typed operations. This crate holds
//! their one definition: [`Command`], what a client asks for, parsed from the
//! reference's RPC JSON with the reference's field names. An argument that
//! is missing or of the wrong kind is a [`CommandError`] that names the
//! command, the field and what it should be; nothing is silently defaulted.
//!
//! The session's life is here too, whichever front end drives it: a
//! message on its way in ([`ext_input`]: extension commands, `input`
//! handlers, `before_agent_start`, what the extensions asked for after it),
//! the extensions' side of the session ([`ext_session`], [`session_api`]),
//! their reloads ([`ext_reload`], [`reload`]), session replacement
//! ([`session_events`]), moves in the tree ([`tree_events`]), undo
//! ([`undo`]), the models and credentials a session uses ([`model_select`],
//! [`auth`]) and what extensions, skills and templates a run loads
//! ([`extensions`], [`expand`]). The `pi` binary's modes (print, JSON, RPC,
//! ACP, the terminal UI) are clients of these, through one value: a
//! [`Runtime`] holds the agent, the extensions' side of the session and
//! what `/reload` remembers, and carries out typed operations ([`Op`]),
//! answering with an [`Outcome`] or an [`OpError`]; what happens meanwhile
//! reaches the client as the agent's typed events.
//!
//! ```
//! use pi_runtime::{Command, QueueMode};
//! let line = serde_json::json!({"id": "1", "type": "set_steering_mode", "mode": "all"});
//! let cmd = Command::parse(&line).unwrap();
//! assert_eq!(cmd, Command::SetSteeringMode { mode: QueueMode::All });
//! let bad = serde_json::json!({"type": "set_steering_mode"});
//! assert!(Command::parse(&bad).unwrap_err().to_string().contains("\"mode\""));
//! ```
#![deny(missing_docs)]

mod args;
pub mod auth;
pub mod codemode;
mod command;
pub mod docs;
pub mod expand;
pub mod ext_commands;
pub mod ext_input;
pub mod ext_models;
pub mod ext_reload;
pub mod ext_session;
pub mod extensions;
pub mod llama;
pub mod mcp;
pub mod model_change;
pub mod model_json;
pub mod model_select;
pub mod prompt_options;
pub mod prompt_source;
pub mod reload;
mod runtime;
pub mod session_api;
pub mod session_error;
pub mod session_event;
pub mod session_events;
pub mod text;
pub mod tree_events;
pub mod undo;

pub use command::{Command, CommandError, QueueMode, StreamingBehavior, UiAnswer};
pub use runtime::{Op, OpError, Outcome, Runtime};
