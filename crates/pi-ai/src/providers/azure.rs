//! Azure OpenAI Responses (`azure-openai-responses`): the Responses API of
//! [`super::openai_responses`] (same body, same stream) at an Azure URL,
//! `POST {base}/responses?api-version=<version>` with an `api-key` header.
//!
//! The base URL is `AZURE_OPENAI_BASE_URL`, else
//! `https://<AZURE_OPENAI_RESOURCE_NAME>.openai.azure.com/openai/v1`, else the
//! model's `baseUrl`; a resource's root URL on Azure's hosts becomes its
//! `/openai/v1` path. The body's `model` is the deployment:
//! `AZURE_OPENAI_DEPLOYMENT_NAME_MAP` (`model=deployment,…`) or the model id.

use super::{Prepared, open_stream, openai_responses};
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::http;
use crate::model::{Model, StreamOptions};
use crate::text;
use crate::types::{ContextRef, StopReason};

/// The provider id whose models live on Azure (its Chat Completions models
/// take their base URL as its Responses models do).
pub(crate) const PROVIDER: &str = "azure";
/// The variable with the base URL (wins over the others).
pub(crate) const BASE_URL_VAR: &str = "AZURE_OPENAI_BASE_URL";
/// The variable with the resource name.
pub(crate) const RESOURCE_NAME_VAR: &str = "AZURE_OPENAI_RESOURCE_NAME";
/// The variable with the API version.
pub(crate) const API_VERSION_VAR: &str = "AZURE_OPENAI_API_VERSION";
/// The variable mapping model ids to deployment names.
pub(crate) const DEPLOYMENT_MAP_VAR: &str = "AZURE_OPENAI_DEPLOYMENT_NAME_MAP";
/// The `api-version` sent when the environment names none.
pub(crate) const DEFAULT_API_VERSION: &str = "v1";
/// Host suffixes of Azure resources whose root URL means the OpenAI API path.
const AZURE_HOSTS: [&str; 3] = [".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com"];
/// The `accept` header the reference's Azure client sends (the stream comes all the same).
const ACCEPT: &str = "application/json";
/// The OpenAI API path of an Azure resource.
const OPENAI_PATH: &str = "/openai/v1";

/// The Azure settings the environment gives (blank values count as unset).
#[derive(Clone, Debug, Default)]
pub(crate) struct AzureEnv {
    /// `AZURE_OPENAI_BASE_URL`.
    pub base_url: Option<String>,
    /// `AZURE_OPENAI_RESOURCE_NAME`.
    pub resource_name: Option<String>,
    /// `AZURE_OPENAI_API_VERSION`.
    pub api_version: Option<String>,
    /// `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`.
    pub deployment_map: Option<String>,
}

impl AzureEnv {
    /// Read the process environment.
    pub(crate) fn from_process() -> Self {
        let var = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        AzureEnv {
            base_url: var(BASE_URL_VAR),
            resource_name: var(RESOURCE_NAME_VAR),
            api_version: var(API_VERSION_VAR),
            deployment_map: var(DEPLOYMENT_MAP_VAR),
        }
    }
}

/// The request, with the process environment's settings.
pub(crate) fn prepare(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    prepare_with(model, context, options, &AzureEnv::from_process())
}

/// The request: URL, headers and body, with these settings.
pub(crate) fn prepare_with(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
    env: &AzureEnv,
) -> Result<Prepared, ProviderError> {
    let base = base_url(model, env)?;
    let version = env.api_version.as_deref().unwrap_or(DEFAULT_API_VERSION);
    let url = with_api_version(&http::join_url(&base, "responses"), version);
    let mut pairs: Vec<(&str, &str)> = vec![("accept", ACCEPT)];
    if let Some(key) = &options.api_key {
        pairs.push(("api-key", key));
    }
    let headers = http::request_headers(pairs, model, options)?;
    let deployment = deployment(&model.id, env.deployment_map.as_deref());
    let body = if deployment == model.id {
        openai_responses::request_body(model, context, options)?
    } else {
        let renamed = Model { id: deployment.to_string(), ..model.clone() };
        openai_responses::request_body(&renamed, context, options)?
    };
    Ok(Prepared { url, headers, body })
}

/// A Chat Completions request of the `azure` provider (its Foundry models):
/// the base URL found as for Responses (the environment first, Azure roots
/// normalized), then Chat Completions as usual (`{base}/chat/completions`,
/// `authorization: Bearer`, no `api-version`), as the reference sends it.
pub(crate) fn prepare_completions(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    prepare_completions_with(model, context, options, &AzureEnv::from_process())
}

/// [`prepare_completions`] with these settings.
pub(crate) fn prepare_completions_with(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
    env: &AzureEnv,
) -> Result<Prepared, ProviderError> {
    let located = Model { base_url: base_url(model, env)?, ..model.clone() };
    super::openai_completions::prepare(&located, context, options)
}

/// Send a prepared request, streaming the answer into `em`.
pub(crate) async fn send(request: Prepared, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut sse = open_stream(request, em, |e| http::responses_http_error(text::AZURE_ERROR_NAME, e)).await?;
    em.start().await?;
    openai_responses::read_stream(&mut sse, em).await
}

/// The base URL: the environment's, the resource's, or the model's.
fn base_url(model: &Model, env: &AzureEnv) -> Result<String, ProviderError> {
    if let Some(url) = &env.base_url {
        return Ok(normalize(url));
    }
    if let Some(name) = &env.resource_name {
        return Ok(format!("https://{name}.openai.azure.com{OPENAI_PATH}"));
    }
    if !model.base_url.trim().is_empty() {
        return Ok(normalize(model.base_url.trim()));
    }
    Err(ProviderError::failed(text::AZURE_NO_BASE_URL))
}

/// A resource's root URL (or its `/openai`) on an Azure host becomes its
/// `/openai/v1`; any other URL stays as it is (without a trailing `/`).
fn normalize(url: &str) -> String {
    let trimmed = url.trim_end_matches('/');
    let Ok(parsed) = reqwest::Url::parse(trimmed) else {
        return trimmed.to_string();
    };
    let azure = parsed.host_str().is_some_and(|h| AZURE_HOSTS.iter().any(|s| h.to_ascii_lowercase().ends_with(s)));
    let root = matches!(parsed.path().trim_end_matches('/'), "" | "/openai");
    if azure && root && parsed.query().is_none() {
        let mut u = parsed;
        u.set_path(OPENAI_PATH);
        return u.to_string();
    }
    trimmed.to_string()
}

/// `url` with `api-version=<version>` in its query (encoded).
fn with_api_version(url: &str, version: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            u.query_pairs_mut().append_pair("api-version", version);
            u.to_string()
        }
        Err(_) => format!("{url}?api-version={version}"),
    }
}

/// The deployment for a model id: its entry in a `model=deployment,…` map,
/// else the id.
fn deployment<'a>(model_id: &'a str, map: Option<&'a str>) -> &'a str {
    map.into_iter()
        .flat_map(|m| m.split(','))
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, v)| k.trim() == model_id && !v.trim().is_empty())
        .map_or(model_id, |(_, v)| v.trim())
}

#[cfg(test)]
#[path = "azure_tests.rs"]
mod tests;
