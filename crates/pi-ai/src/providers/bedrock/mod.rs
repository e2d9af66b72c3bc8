//! Amazon Bedrock ConverseStream (`POST {baseUrl}/model/{modelId}/converse-stream`,
//! binary event stream), signed with SigV4 or sent with a bearer token.

mod body;
mod container;
pub(crate) mod credentials;
mod error;
pub(crate) mod frames;
mod process;
#[cfg(test)]
mod random_frames;
mod sign;
pub(crate) mod stream;

use std::time::SystemTime;

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::Prepared;
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::{Failure, FailureKind};
use crate::http;
use crate::model::{Model, StreamOptions};
use crate::text::bedrock as words;
use crate::types::{ContextRef, StopReason};

pub(crate) use body::request_body;

/// The header that names an AWS error.
const ERROR_TYPE_HEADER: &str = "x-amzn-errortype";
/// The SDK's retry header; pi does not retry inside a request (the agent does).
const SDK_REQUEST: &str = "attempt=1; max=1";

/// The runtime endpoint of a region.
fn regional_url(region: &str) -> String {
    format!("https://bedrock-runtime.{region}.amazonaws.com")
}

/// The base URL: the model's, unless it is empty or a Bedrock runtime
/// endpoint of AWS (then the endpoint of the configured region).
fn base_url(model: &Model, region: &str) -> String {
    let b = model.base_url.trim_end_matches('/');
    let is_aws_runtime = b.starts_with("https://bedrock-runtime.") && b.ends_with(".amazonaws.com");
    if b.is_empty() || is_aws_runtime { regional_url(region) } else { b.to_string() }
}

/// The model id as one path segment (`:` and `/` of ARNs encoded).
fn encode_segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The request: URL, the headers to sign and the body (signing waits for
/// `send`, after the request hooks had their say).
pub(crate) fn prepare(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let region = credentials::region(&credentials::process_env());
    let url =
        http::join_url(&base_url(model, &region), &format!("model/{}/converse-stream", encode_segment(&model.id)));
    let invocation = invocation_id();
    let agent = concat!("pi/", env!("CARGO_PKG_VERSION"));
    let fixed = vec![
        ("content-type", "application/json"),
        ("amz-sdk-invocation-id", invocation.as_str()),
        ("amz-sdk-request", SDK_REQUEST),
        ("x-amz-user-agent", agent),
    ];
    let headers = http::request_headers(fixed, model, options)?;
    Ok(Prepared { url, headers, body: request_body(model, context, options)? })
}

/// A random id for `amz-sdk-invocation-id` (UUID v4 form).
fn invocation_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut bytes = [0u8; 16];
    for chunk in bytes.chunks_mut(8) {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// Add the credentials: a bearer token, or a SigV4 signature over the final
/// URL, headers and body.
async fn authorize(request: &mut Prepared, options: &StreamOptions) -> Result<(), ProviderError> {
    let (auth, region) = {
        let env = credentials::process_env();
        (credentials::resolve(options.api_key.as_deref(), &env), credentials::region(&env))
    };
    let keys = match auth? {
        credentials::Auth::Bearer(token) => {
            let value = format!("Bearer {token}");
            request.headers.extend(http::headers([("authorization", value.as_str())])?);
            return Ok(());
        }
        credentials::Auth::Keys(keys) => keys,
        credentials::Auth::Process(command) => process::keys_from(&command).await?,
        credentials::Auth::Container(endpoint) => container::keys_from(&endpoint).await?,
    };
    let len = request.body.len().to_string();
    request.headers.extend(http::headers([("content-length", len.as_str())])?);
    sign::sign_request(&keys, &region, &request.url, &mut request.headers, &request.body.to_vec(), SystemTime::now())
}

/// Send a prepared request, streaming the answer into `em`.
pub(crate) async fn send(
    mut request: Prepared,
    options: &StreamOptions,
    em: &mut Emitter,
) -> Result<StopReason, ProviderError> {
    authorize(&mut request, options).await?;
    let resp = http::post_raw(&request.url, request.headers, request.body.to_vec(), true).await?;
    let status = resp.status().as_u16();
    if !resp.status().is_success() {
        let retry_after = http::retry_after(resp.headers(), SystemTime::now());
        let error_type = error_type(resp.headers());
        let body = http::read_error_body(resp).await;
        let failure = Failure { kind: FailureKind::Status(status), retry_after };
        return Err(ProviderError::Failed(http_error(error_type.as_deref(), &body), failure));
    }
    em.response(status, resp.headers()).await;
    let mut frames = frames::FrameReader::new(Box::pin(resp.bytes_stream()));
    stream::read_stream(&mut frames, em).await
}

/// The error name of an answer's `x-amzn-errortype` (`Name:namespace…`).
fn error_type(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(ERROR_TYPE_HEADER)?.to_str().ok()?;
    Some(v.split(':').next().unwrap_or(v).to_string()).filter(|s| !s.is_empty())
}

/// An HTTP error as the reference words it: the error's name (the header,
/// else the body's `__type` or `code`) and its `message`.
fn http_error(header_type: Option<&str>, body: &str) -> String {
    let parsed = serde_json::from_str::<Value>(body).ok().filter(Value::is_object);
    let Some(v) = parsed else {
        let text = if body.is_empty() { words::UNKNOWN_ERROR } else { body };
        return words::aws_error(header_type, &http::clip(text));
    };
    let body_type = ["__type", "code", "Code"].iter().find_map(|k| v.get(*k).and_then(Value::as_str)).map(|t| {
        // `com.amazon…#ThrottlingException` names it after the `#`.
        t.rsplit('#').next().unwrap_or(t).split(':').next().unwrap_or(t).to_string()
    });
    let name = header_type.map(str::to_string).or(body_type);
    let message = ["message", "Message"].iter().find_map(|k| v.get(*k).and_then(Value::as_str));
    let message = message.map(str::to_string).or_else(|| name.clone()).unwrap_or_else(|| words::UNKNOWN_ERROR.into());
    words::aws_error(name.as_deref(), &http::clip(&message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let m = |base: &str, id: &str| Model { base_url: base.into(), id: id.into(), ..Default::default() };
        assert_eq!(base_url(&m("", "x"), "eu-west-1"), "https://bedrock-runtime.eu-west-1.amazonaws.com");
        assert_eq!(
            base_url(&m("https://bedrock-runtime.us-east-1.amazonaws.com", "x"), "eu-west-1"),
            "https://bedrock-runtime.eu-west-1.amazonaws.com"
        );
        assert_eq!(base_url(&m("http://127.0.0.1:9/", "x"), "eu-west-1"), "http://127.0.0.1:9");
        assert_eq!(
            encode_segment("anthropic.claude-sonnet-4-5-20250929-v1:0"),
            "anthropic.claude-sonnet-4-5-20250929-v1%3A0"
        );
        assert_eq!(
            encode_segment("arn:aws:bedrock:us-east-1:123:inference-profile/x"),
            "arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Ainference-profile%2Fx"
        );
        let id = invocation_id();
        assert_eq!((id.len(), &id[14..15]), (36, "4"));
        assert_ne!(id, invocation_id());
    }

    /// Each expected text was printed by the reference for the same answer.
    #[test]
    fn http_errors_read_like_the_reference() {
        let cases = [
            (
                Some("ValidationException"),
                r#"{"message":"Malformed input request"}"#,
                "Validation error: Malformed input request",
            ),
            (
                Some("AccessDeniedException"),
                r#"{"message":"You don't have access"}"#,
                "AccessDeniedException: You don't have access",
            ),
            (
                Some("ThrottlingException"),
                r#"{"message":"Too many requests, please wait"}"#,
                "Throttling error: Too many requests, please wait",
            ),
            (None, r#"{"message":"boom"}"#, "Unknown: boom"),
            (Some("ServiceUnavailableException"), r#"{"message":"busy"}"#, "Service unavailable: busy"),
            (None, "", "Unknown: UnknownError"),
            (
                Some("UnrecognizedClientException"),
                r#"{"Message":"The security token included in the request is invalid."}"#,
                "UnrecognizedClientException: The security token included in the request is invalid.",
            ),
            (
                None,
                r#"{"__type":"com.amazon.coral.service#ThrottlingException","message":"slow"}"#,
                "Throttling error: slow",
            ),
            (None, "<html>gateway</html>", "Unknown: <html>gateway</html>"),
            (None, "[1]", "Unknown: [1]"),
        ];
        for (header, body, want) in cases {
            assert_eq!(http_error(header, body), want, "{body}");
        }
        let mut h = HeaderMap::new();
        h.insert(ERROR_TYPE_HEADER, "ThrottlingException:http://internal.amazon.com/coral/".parse().unwrap());
        assert_eq!(error_type(&h).as_deref(), Some("ThrottlingException"));
    }
}
