//! Platforms without a sandbox: mode `off` only; the others fail closed.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::text;
use crate::view::View;
use crate::{Command, Prepared, Reason};

/// The argument that makes the `pi` binary run [`helper_main`].
pub const HELPER_ARG: &str = "__pi-sandbox";

/// How commands are sandboxed here: never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {}

/// There is no mechanism on this platform.
pub fn mechanism() -> Result<Mechanism, Reason> {
    Err(Reason::UnsupportedPlatform)
}

/// Accepted and unused off Linux.
pub fn set_helper(_program: PathBuf) {}

/// The helper does not exist off Linux.
pub fn helper_main(_args: &[OsString]) -> i32 {
    eprintln!("{}", text::helper_failed(text::UNSUPPORTED_PLATFORM));
    crate::limits::HELPER_REFUSED
}

pub(crate) fn wrap(_view: &View, _command: Command, _visible: &[PathBuf]) -> Result<Prepared, Reason> {
    Err(Reason::UnsupportedPlatform)
}

pub(crate) fn plan(_view: &View, _command: Command, _visible: &[PathBuf]) -> Result<crate::Plan, Reason> {
    Err(Reason::UnsupportedPlatform)
}
