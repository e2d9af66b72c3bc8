//! A pi session's life as a library, seen from its clients.
//!
//! Every front end (print, JSON, RPC, the terminal UI, an editor protocol)
//! is to drive a session with the same typed operations. This crate holds
//! their one definition: [`Command`], what a client asks for, parsed from the
//! reference's RPC JSON with the reference's field names. An argument that
//! is missing or of the wrong kind is a [`CommandError`] that names the
//! command, the field and what it should be; nothing is silently defaulted.
//!
//! Today RPC mode reads its commands through [`Command::parse`]; the run's
//! life itself (input routing, extension commands, reloads, session
//! replacement) still lives in the `pi` binary and moves here next.
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
mod command;
pub mod text;

pub use command::{Command, CommandError, QueueMode, StreamingBehavior, UiAnswer};
