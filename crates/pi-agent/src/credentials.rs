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
    Arc<dyn Fn(&Model, Option<&str>) -> BoxFuture<'static, Result<RequestAuth, CredentialError>> + Send + Sync>;

/// Why a request's credentials could not be had. Its `Display` is the
/// failure's own message: the request fails with it.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct CredentialError {
    /// The provider whose credentials were asked for.
    pub provider: String,
    /// What failed, as the front end's source reports it.
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl CredentialError {
    /// The credentials of `provider` failed with `source`.
    pub fn new(provider: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        CredentialError { provider: provider.into(), source: source.into() }
    }
}
