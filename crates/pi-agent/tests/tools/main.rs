//! The built-in tools through the one dispatch path, in-process: every call
//! is made as `pi tool NAME ARGS --cwd DIR` makes it (support.rs), so these
//! tests check what the model and `pi tool` see, with the exact texts the
//! reference (Pi 1.6.0) produces. What needs the `pi` binary itself (its
//! command line, another user, a changed environment, the process's memory)
//! stays in crates/pi-cli/tests.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod support;

mod bash;
mod edit;
mod find;
mod grep;
mod ls;
mod read;
mod search_compare;
mod write;
