//! `auth.json`: the credentials `/login` and `pi auth login` keep in the
//! agent dir, in the reference's format.
//!
//! The file is a JSON object keyed by provider ID. Each value is either an
//! API key, `{"type": "api_key", "key": "…"}` (the key may be `!command` or
//! use `$NAME` like a `models.json` value, and an optional `env` object holds
//! provider settings), or an OAuth login, `{"type": "oauth", "access": "…",
//! "refresh": "…", "expires": <ms since the epoch>, …}` whose other fields
//! (`accountId`, …) are kept as they are.
//!
//! [`AuthStore`] reads the file and changes it under a lock (shared with the
//! trust store's: an OS file lock on `auth.json.lock`, which also respects the
//! reference's lock directory there), re-reading it under the lock and
//! writing it whole to a temporary file renamed over the old one, mode 0600.
//! A file that cannot be read or parsed is reported with its path and left
//! exactly as it is.

mod credential;
mod error;
mod store;

pub use credential::{ApiKeyCredential, AuthFile, Credential, OAuthCredential};
pub use error::AuthError;
pub use store::{AUTH_FILE_NAME, AuthLock, AuthStore};
