//! Credentials: which key or token a request uses (`resolve`), refreshing
//! stored OAuth logins (`refresh`), the agent's per-request source
//! (`source`), and the `pi auth` command with its logins (`cmd`, `login`).
//! The file itself is `pi_config::auth`.

pub mod cmd;
pub mod error;
pub mod login;
pub mod providers;
pub mod refresh;
pub mod resolve;
pub mod source;
pub mod text;

pub use error::{LoginError, ResolveError};
pub use resolve::{api_key_for, stored};
pub use source::credential_source;
