//! Credentials: which key or token a request uses (`resolve`), refreshing
//! stored OAuth logins (`refresh`) and the agent's per-request source
//! (`source`). The file itself is `pi_config::auth`; the `pi auth` command
//! and its logins are the binary's.

pub mod error;
pub mod providers;
pub mod refresh;
pub mod resolve;
pub mod source;
pub mod text;

pub use error::{LoginError, ResolveError};
pub use resolve::{api_key_for, stored};
pub use source::credential_source;
