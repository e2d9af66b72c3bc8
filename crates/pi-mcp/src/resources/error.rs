//! Why a resource tool's call failed; `Display` is what the model reads.

use crate::ClientError;
use crate::text;

/// A resource tool's call that failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResourceError {
    /// A required argument (`server`, `uri`) is missing or empty.
    #[error("{}", text::must_be_provided(.0))]
    Missing(&'static str),
    /// The named server offers no resources (or is not reached).
    #[error("{}", text::no_resources(server, &with_resources.iter().map(String::as_str).collect::<Vec<_>>()))]
    NoResources {
        /// The server named.
        server: String,
        /// The servers that offer resources.
        with_resources: Vec<String>,
    },
    /// The server's request failed.
    #[error(transparent)]
    Client(#[from] ClientError),
}
