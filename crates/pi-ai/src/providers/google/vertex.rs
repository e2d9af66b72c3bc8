//! Where a Vertex AI request goes, and with which key.

use crate::error::ProviderError;
use crate::http;
use crate::model::{Model, StreamOptions};
use crate::text::google as text;

use super::adc;

/// The key variable of Vertex AI.
pub(crate) const API_KEY_VAR: &str = "GOOGLE_CLOUD_API_KEY";
/// The project variables, in the order they are read.
pub(crate) const PROJECT_VARS: [&str; 2] = ["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"];
/// The location variable.
pub(crate) const LOCATION_VAR: &str = "GOOGLE_CLOUD_LOCATION";
/// The stand-in key of a provider signed in with ambient credentials (not a key).
pub(crate) const AMBIENT_CREDENTIALS: &str = "<authenticated>";
/// The placeholder of the built-in base URL.
const LOCATION_PLACEHOLDER: &str = "{location}";
/// The regional host, `{location}` replaced.
const REGIONAL_BASE_URL: &str = "https://{location}-aiplatform.googleapis.com";
/// The global host (location `global`, and API keys).
const GLOBAL_BASE_URL: &str = "https://aiplatform.googleapis.com";

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The API key of a request: the given one, else `GOOGLE_CLOUD_API_KEY`;
/// `None` means Application Default Credentials.
pub(crate) fn api_key(options: &StreamOptions) -> Option<String> {
    options.api_key.clone().filter(|k| !k.is_empty() && k != AMBIENT_CREDENTIALS).or_else(|| env(API_KEY_VAR))
}

/// The URL of a request. A base URL of one's own (`models.json`) gets
/// `/v1/publishers/google/{path}`; the built-in one, with credentials rather
/// than a key, is the regional host of `GOOGLE_CLOUD_LOCATION` with the
/// project and location in the path (a key goes to the global host).
pub(crate) fn url(model: &Model, with_key: bool, path: &str) -> Result<String, ProviderError> {
    let base = model.base_url.as_str();
    if !base.is_empty() && !base.contains(LOCATION_PLACEHOLDER) {
        return Ok(http::join_url(base, &format!("v1/publishers/google/{path}")));
    }
    if with_key {
        return Ok(http::join_url(GLOBAL_BASE_URL, &format!("v1/publishers/google/{path}")));
    }
    let location = env(LOCATION_VAR).ok_or_else(|| ProviderError::failed(text::VERTEX_NO_LOCATION))?;
    let project = PROJECT_VARS
        .iter()
        .find_map(|v| env(v))
        .or_else(adc::project_of_credentials)
        .ok_or_else(|| ProviderError::failed(text::VERTEX_NO_PROJECT))?;
    Ok(project_url(base, &project, &location, path))
}

/// The URL of a request with credentials on the built-in base URL (`base`
/// empty or holding `{location}`): the location's regional host, or the
/// global one, with the project and location in the path.
fn project_url(base: &str, project: &str, location: &str, path: &str) -> String {
    let host = if location == "global" {
        GLOBAL_BASE_URL.to_string()
    } else {
        let template = if base.is_empty() { REGIONAL_BASE_URL } else { base };
        template.replace(LOCATION_PLACEHOLDER, location)
    };
    http::join_url(&host, &format!("v1/projects/{project}/locations/{location}/publishers/google/{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_of_ones_own_takes_the_short_path() {
        let model = Model { base_url: "http://127.0.0.1:9".into(), ..Default::default() };
        assert_eq!(
            url(&model, false, "models/m:streamGenerateContent?alt=sse").unwrap(),
            "http://127.0.0.1:9/v1/publishers/google/models/m:streamGenerateContent?alt=sse"
        );
        let keyed = Model { base_url: "https://{location}-aiplatform.googleapis.com".into(), ..Default::default() };
        assert_eq!(
            url(&keyed, true, "models/m:x").unwrap(),
            "https://aiplatform.googleapis.com/v1/publishers/google/models/m:x"
        );
    }

    #[test]
    fn credentials_go_to_the_project_path_on_the_regional_host() {
        let built_in = "https://{location}-aiplatform.googleapis.com";
        assert_eq!(
            project_url(built_in, "p1", "europe-west4", "models/m:x"),
            "https://europe-west4-aiplatform.googleapis.com/v1/projects/p1/locations/europe-west4/publishers/google/models/m:x"
        );
        assert_eq!(
            project_url("", "p1", "global", "models/m:x"),
            "https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/google/models/m:x"
        );
    }

    #[test]
    fn the_stand_in_key_is_no_key() {
        let options = StreamOptions { api_key: Some(AMBIENT_CREDENTIALS.into()), ..Default::default() };
        if std::env::var(API_KEY_VAR).is_err() {
            assert_eq!(api_key(&options), None);
        }
        let options = StreamOptions { api_key: Some("k".into()), ..Default::default() };
        assert_eq!(api_key(&options).as_deref(), Some("k"));
    }
}
