//! The `pi auth` command (`cmd`) and its logins (`login`). Which credential
//! a request uses is the session runtime's ([`pi_runtime::auth`]).

pub mod cmd;
pub mod login;
