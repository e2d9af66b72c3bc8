//! Where each model request's key comes from when it can change during a
//! session: an OAuth access token is refreshed before it expires, so the
//! front end resolves the key again before every request.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use pi_ai::Model;

/// The credentials of one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestAuth {
    /// The key or token (`StreamOptions::api_key`).
    pub api_key: Option<String>,
    /// Extra headers that carry the credential (e.g. `Authorization`).
    pub headers: BTreeMap<String, String>,
}

/// Resolves the credentials for a request to `model`, given the key the
/// agent holds; an error (a refresh that failed, an unreadable file) fails
/// the request with that message.
pub type CredentialSource =
    Arc<dyn Fn(&Model, Option<&str>) -> BoxFuture<'static, Result<RequestAuth, String>> + Send + Sync>;
