//! SigV4 signing of a Bedrock request (`aws-sigv4`, AWS's own signer, rather
//! than the whole SDK: pi needs the signature, not the SDK's clients).

use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{PayloadChecksumKind, SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::credentials::Keys;
use crate::error::ProviderError;
use crate::text::bedrock as words;

/// The signing name of the Bedrock runtime.
const SERVICE: &str = "bedrock";

/// Sign a POST of `body` to `url`: every header in `headers` is signed, and
/// `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` (temporary
/// keys) and `authorization` are added.
pub(crate) fn sign_request(
    keys: &Keys,
    region: &str,
    url: &str,
    headers: &mut HeaderMap,
    body: &[u8],
    time: SystemTime,
) -> Result<(), ProviderError> {
    let fail = |e: &dyn std::fmt::Display| ProviderError::failed(words::signing_failed(&e.to_string()));
    let identity = Credentials::new(
        keys.access_key_id.clone(),
        keys.secret_access_key.clone(),
        keys.session_token.clone(),
        None,
        "pi",
    )
    .into();
    let mut settings = SigningSettings::default();
    settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(SERVICE)
        .time(time)
        .settings(settings)
        .build()
        .map_err(|e| fail(&e))?
        .into();
    let pairs: Vec<(&str, &str)> =
        headers.iter().filter_map(|(k, v)| v.to_str().ok().map(|v| (k.as_str(), v))).collect();
    let request =
        SignableRequest::new("POST", url, pairs.into_iter(), SignableBody::Bytes(body)).map_err(|e| fail(&e))?;
    let (instructions, _) = sign(request, &params).map_err(|e| fail(&e))?.into_parts();
    for (name, value) in instructions.headers() {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|e| fail(&e))?;
        let value = HeaderValue::from_str(value).map_err(|e| fail(&e))?;
        headers.insert(name, value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The signature of a fixed request at a fixed time, checked against the
    /// SigV4 algorithm step by step (canonical request, string to sign).
    #[test]
    fn signs_with_the_documented_scope_and_headers() {
        let keys = Keys {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: Some("TOKEN".into()),
        };
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        let time = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000);
        let url = "http://127.0.0.1:9/model/anthropic.claude-x-v1%3A0/converse-stream";
        sign_request(&keys, "eu-west-1", url, &mut headers, b"{}", time).unwrap();
        let auth = headers["authorization"].to_str().unwrap();
        assert!(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20270115/eu-west-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="), "{auth}");
        assert_eq!(headers["x-amz-date"], "20270115T080000Z");
        assert_eq!(headers["x-amz-security-token"], "TOKEN");
        assert_eq!(
            headers["x-amz-content-sha256"], "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            "sha256 of {{}}"
        );
        // Same input, same signature; another body, another one.
        let mut again = HeaderMap::new();
        again.insert("content-type", HeaderValue::from_static("application/json"));
        sign_request(&keys, "eu-west-1", url, &mut again, b"{}", time).unwrap();
        assert_eq!(again["authorization"], headers["authorization"]);
        let mut other = HeaderMap::new();
        other.insert("content-type", HeaderValue::from_static("application/json"));
        sign_request(&keys, "eu-west-1", url, &mut other, b"[]", time).unwrap();
        assert_ne!(other["authorization"], headers["authorization"]);
    }
}
