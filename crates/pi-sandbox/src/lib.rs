//! Turning a command into a sandboxed command, and the one rule that says
//! what a mode lets pi's own writing tools touch (beyond.md B5).
//!
//! Modes ([`Mode`]): `off` (the reference's behaviour), `read-only` (no
//! write anywhere; temp is a private, empty tmpfs) and `workspace-write`
//! (writes under the working folder, temp and `writableRoots`; `.git`, `.pi`
//! and `.agents` stay read-only unless allowed by name). Network is off in
//! both unless allowed; credential stores and the agent dir are hidden;
//! secret-looking environment variables are removed ([`env`]).
//!
//! On Linux a command runs as
//! `bwrap <mounts> -- <pi> __pi-sandbox <rules> -- <program> <args>`:
//! bubblewrap builds the file-system view in new namespaces (mount, pid,
//! net, ipc, uts; `--new-session`, `--die-with-parent`, no capabilities),
//! and the helper ([`helper_main`], the `pi` binary itself) adds Landlock as
//! a second layer, a seccomp filter and no-new-privs, then runs the program.
//! Where bubblewrap cannot start (no user namespaces), the helper alone
//! enforces the same rules with Landlock (ABI 6 or newer). If neither can
//! start, [`Sandbox::wrap`] fails: nothing runs unsandboxed.
//!
//! [`Sandbox::check_write`] is the same rule for `write` and `edit`; both it
//! and the mounts are read off one [`view`] of the working folder.
#![deny(missing_docs)]

mod command;
pub mod env;
mod error;
pub mod limits;
mod mode;
pub mod paths;
mod policy;
mod sandbox;
mod session;
pub mod text;
mod view;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as platform;

#[cfg(not(target_os = "linux"))]
mod unsupported;
#[cfg(not(target_os = "linux"))]
use unsupported as platform;

pub use command::{Command, Guard, Prepared};
pub use error::{BwrapUnusable, LandlockUnusable, ProbeFailure, Reason, Refusal, Rule, SandboxError};
#[cfg(target_os = "linux")]
pub use linux::{Channel, Event, channel};
pub use mode::Mode;
pub use platform::{HELPER_ARG, Mechanism, helper_main, mechanism, set_helper};
pub use policy::{Base, Flags, Layer, PROTECTED_NAMES, Policy, from_settings};
pub use sandbox::{MODE_VAR, NETWORK_DISABLED_VAR, Sandbox};
pub use session::{MountWatch, Plan, SessionKey, SessionPlan};
pub use view::DEFAULT_HIDDEN;
