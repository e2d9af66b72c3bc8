//! The Google clients' messages (Generative AI and Vertex AI).

/// A stream that ended before a candidate's `finishReason`.
pub const NO_FINISH_REASON: &str = "Google stream ended without a finish reason";
/// Put before a candidate's `finishReason` that is neither `STOP` nor `MAX_TOKENS`
/// (`SAFETY`, `MALFORMED_FUNCTION_CALL`, …).
pub const PROVIDER_STOPPED: &str = "Provider stopped with: ";
/// Sent instead of a tool result that has only images.
pub const TOOL_RESULT_IMAGE: &str = "Tool result image:";

/// A thinking level the model's map sends as something Gemini does not take.
pub fn unsupported_level(provider: &str, model: &str, level: &str, value: &str) -> String {
    format!("Unsupported Google thinking level mapping for {provider}/{model}: {level} -> {value}")
}

/// An error the server reported inside the stream: its status name and the chunk.
pub fn stream_error(status: &str, chunk: &str) -> String {
    format!("got status: {status}. {chunk}")
}

/// Vertex AI without any credentials.
pub const VERTEX_NO_CREDENTIALS: &str = "No Google Cloud credentials found. Set GOOGLE_CLOUD_API_KEY, point GOOGLE_APPLICATION_CREDENTIALS at a service-account key file, or run `gcloud auth application-default login`.";
/// Vertex AI with credentials but no project.
pub const VERTEX_NO_PROJECT: &str =
    "Vertex AI needs a Google Cloud project. Set GOOGLE_CLOUD_PROJECT (or GCLOUD_PROJECT).";
/// Vertex AI with credentials but no location.
pub const VERTEX_NO_LOCATION: &str = "Vertex AI needs a location. Set GOOGLE_CLOUD_LOCATION (e.g. us-central1).";

/// A credentials file that could not be read or understood.
pub fn bad_credentials(path: &str, why: &str) -> String {
    format!("Could not use the Google credentials in {path}: {why}")
}

/// The credentials file has a `type` pi cannot exchange for a token.
pub fn unsupported_credentials(kind: &str) -> String {
    format!("credentials of type \"{kind}\" are not supported (use a service_account or authorized_user file)")
}

/// The token endpoint refused or failed.
pub fn token_refused(url: &str, status: u16, detail: &str) -> String {
    format!("Could not get a Google access token from {url}: {status} {detail}")
}

/// The token endpoint could not be reached.
pub fn token_unreachable(url: &str, cause: &str) -> String {
    format!("request to {url} failed, reason: {cause}")
}

/// The token endpoint answered without an `access_token`.
pub const TOKEN_MISSING: &str = "the answer has no access_token";
