//! Application Default Credentials: the credentials file Google's tools
//! write (a service-account key, or `gcloud auth application-default
//! login`'s refresh token), exchanged for an access token at Google's token
//! endpoint and kept until shortly before it expires.
//!
//! A service account signs a JWT (RS256, with the `ring` signer rustls
//! already carries) and trades it for a token (`grant_type`
//! `urn:ietf:params:oauth:grant-type:jwt-bearer`); a user file trades its
//! refresh token (`grant_type=refresh_token`).

use std::path::PathBuf;
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rustls::pki_types::PrivateKeyDer;
use rustls::pki_types::pem::PemObject;
use serde::Deserialize;
use serde_json::{Value, json};

use super::unix_now;
use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::http;
use crate::limits::{MAX_CREDENTIALS_FILE_BYTES, TOKEN_LIFETIME_SECS, TOKEN_REFRESH_MARGIN_SECS};
use crate::text::google as text;

/// Google's OAuth 2.0 token endpoint.
pub(crate) const TOKEN_URL: &str = "https://oauth2.googleapis.com/token";
/// Test-only: another token endpoint (a local mock server).
pub(crate) const TOKEN_URL_VAR: &str = "PI_TEST_GOOGLE_TOKEN_URL";
/// The variable naming the credentials file.
pub(crate) const CREDENTIALS_VAR: &str = "GOOGLE_APPLICATION_CREDENTIALS";
/// Where `gcloud auth application-default login` writes, under the home folder.
const GCLOUD_ADC_FILE: &str = ".config/gcloud/application_default_credentials.json";
/// The scope asked for.
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// The grant of a signed JWT.
const JWT_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// A credentials file as Google's tools write it.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Credentials {
    /// A service-account key.
    ServiceAccount {
        client_email: String,
        private_key: String,
        #[serde(default)]
        private_key_id: Option<String>,
        #[serde(default)]
        project_id: Option<String>,
    },
    /// A user's refresh token (`gcloud auth application-default login`).
    AuthorizedUser {
        client_id: String,
        client_secret: String,
        refresh_token: String,
        #[serde(default)]
        quota_project_id: Option<String>,
    },
}

/// Why a service account's key could not sign its JWT.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SigningError {
    /// The key is not PEM.
    #[error("its private_key is not a PEM private key ({0:?})")]
    NotPem(rustls::pki_types::pem::Error),
    /// The key is of no kind the signer knows.
    #[error("its private_key cannot sign ({0})")]
    Unusable(rustls::Error),
    /// The key cannot sign RS256.
    #[error("its private_key is not an RSA key")]
    NotRsa,
    /// The signer failed.
    #[error("signing failed ({0})")]
    Failed(rustls::Error),
}

/// A token and when it stops being used (seconds since the epoch).
struct Cached {
    source: PathBuf,
    token: String,
    until: u64,
}

static TOKEN: Mutex<Option<Cached>> = Mutex::new(None);

/// The credentials file: `GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's
/// file in the home folder when it exists.
pub(crate) fn credentials_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(CREDENTIALS_VAR).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    let path = PathBuf::from(home).join(GCLOUD_ADC_FILE);
    path.is_file().then_some(path)
}

fn bad(path: &std::path::Path, why: impl std::fmt::Display) -> ProviderError {
    ProviderError::failed(text::bad_credentials(&path.display().to_string(), &why.to_string()))
}

/// Read and parse a credentials file (at most [`MAX_CREDENTIALS_FILE_BYTES`]).
fn load(path: &std::path::Path) -> Result<Credentials, ProviderError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| bad(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_CREDENTIALS_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| bad(path, e))?;
    if bytes.len() as u64 > MAX_CREDENTIALS_FILE_BYTES {
        return Err(bad(path, format!("the file is larger than {MAX_CREDENTIALS_FILE_BYTES} bytes")));
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| bad(path, e))?;
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("").to_string();
    if !matches!(kind.as_str(), "service_account" | "authorized_user") {
        return Err(bad(path, text::unsupported_credentials(&kind)));
    }
    serde_json::from_value(value).map_err(|e| bad(path, e))
}

/// The project named by the credentials file, when it names one.
pub(crate) fn project_of_credentials() -> Option<String> {
    match load(&credentials_path()?).ok()? {
        Credentials::ServiceAccount { project_id, .. } => project_id,
        Credentials::AuthorizedUser { quota_project_id, .. } => quota_project_id,
    }
}

fn token_url() -> String {
    std::env::var(TOKEN_URL_VAR).ok().filter(|u| !u.is_empty()).unwrap_or_else(|| TOKEN_URL.to_string())
}

/// An access token for Vertex AI: the one kept, or a new one.
pub(crate) async fn access_token() -> Result<String, ProviderError> {
    let path = credentials_path().ok_or_else(|| ProviderError::failed(text::VERTEX_NO_CREDENTIALS))?;
    let now = unix_now();
    if let Ok(cached) = TOKEN.lock()
        && let Some(c) = cached.as_ref().filter(|c| c.source == path && c.until > now)
    {
        return Ok(c.token.clone());
    }
    let credentials = load(&path)?;
    let url = token_url();
    let form = match &credentials {
        Credentials::ServiceAccount { client_email, private_key, private_key_id, .. } => {
            let jwt = signed_jwt(client_email, private_key, private_key_id.as_deref(), &url, now)
                .map_err(|why| bad(&path, why))?;
            form_body(&[("grant_type", JWT_GRANT), ("assertion", &jwt)])
        }
        Credentials::AuthorizedUser { client_id, client_secret, refresh_token, .. } => form_body(&[
            ("grant_type", "refresh_token"),
            ("client_id", client_id),
            ("client_secret", client_secret),
            ("refresh_token", refresh_token),
        ]),
    };
    let (token, lifetime) = exchange(&url, form).await?;
    if let Ok(mut cached) = TOKEN.lock() {
        let until = now + lifetime.saturating_sub(TOKEN_REFRESH_MARGIN_SECS);
        *cached = Some(Cached { source: path, token: token.clone(), until });
    }
    Ok(token)
}

fn form_body(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
}

/// A JWT for the token endpoint at `aud`, signed RS256 with the account's key.
pub(crate) fn signed_jwt(
    email: &str,
    private_key_pem: &str,
    key_id: Option<&str>,
    aud: &str,
    now: u64,
) -> Result<String, SigningError> {
    let mut header = json!({"alg": "RS256", "typ": "JWT"});
    if let Some(kid) = key_id {
        header["kid"] = kid.into();
    }
    let claims = json!({"iss": email, "scope": SCOPE, "aud": aud, "iat": now, "exp": now + TOKEN_LIFETIME_SECS});
    let signing_input =
        format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
    let der = PrivateKeyDer::from_pem_slice(private_key_pem.as_bytes()).map_err(SigningError::NotPem)?;
    let key = rustls::crypto::ring::sign::any_supported_type(&der).map_err(SigningError::Unusable)?;
    let signer = key.choose_scheme(&[rustls::SignatureScheme::RSA_PKCS1_SHA256]).ok_or(SigningError::NotRsa)?;
    let signature = signer.sign(signing_input.as_bytes()).map_err(SigningError::Failed)?;
    Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// POST the form; the token and its lifetime in seconds.
async fn exchange(url: &str, form: String) -> Result<(String, u64), ProviderError> {
    let client = http::client()?;
    let resp = client
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(form)
        .send()
        .await
        .map_err(|e| ProviderError::of_kind(FailureKind::Connection, text::token_unreachable(url, &cause(&e))))?;
    let status = resp.status().as_u16();
    let body = resp.text().await.unwrap_or_default();
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    if !(200..300).contains(&status) {
        let detail = match (parsed.get("error").and_then(Value::as_str), parsed.get("error_description")) {
            (Some(e), Some(Value::String(d))) => format!("{e}: {d}"),
            (Some(e), _) => e.to_string(),
            _ => http::clip(&body),
        };
        return Err(ProviderError::of_kind(FailureKind::Status(status), text::token_refused(url, status, &detail)));
    }
    let token = parsed.get("access_token").and_then(Value::as_str).filter(|t| !t.is_empty()).ok_or_else(|| {
        ProviderError::of_kind(FailureKind::Other, text::token_refused(url, status, text::TOKEN_MISSING))
    })?;
    let lifetime = parsed.get("expires_in").and_then(Value::as_u64).unwrap_or(TOKEN_LIFETIME_SECS);
    Ok((token.to_string(), lifetime))
}

/// The innermost cause of a transport failure.
fn cause(e: &reqwest::Error) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut deepest = e.to_string();
    while let Some(s) = source {
        deepest = s.to_string();
        source = s.source();
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use pi_test_support::gemini::{TEST_SERVICE_ACCOUNT_KEY, TEST_SERVICE_ACCOUNT_PUBLIC_KEY_B64};

    #[test]
    fn the_jwt_is_signed_rs256_with_the_account_key() {
        let jwt = signed_jwt("sa@p.iam.gserviceaccount.com", TEST_SERVICE_ACCOUNT_KEY, Some("kid1"), TOKEN_URL, 1000)
            .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |s: &str| serde_json::from_slice::<Value>(&URL_SAFE_NO_PAD.decode(s).unwrap()).unwrap();
        assert_eq!(decode(parts[0]), json!({"alg": "RS256", "typ": "JWT", "kid": "kid1"}));
        assert_eq!(
            decode(parts[1]),
            json!({"iss": "sa@p.iam.gserviceaccount.com", "scope": SCOPE, "aud": TOKEN_URL, "iat": 1000, "exp": 4600})
        );
        let public = STANDARD.decode(TEST_SERVICE_ACCOUNT_PUBLIC_KEY_B64.trim()).unwrap();
        let provider = rustls::crypto::ring::default_provider();
        let algs = provider
            .signature_verification_algorithms
            .mapping
            .iter()
            .find(|(s, _)| *s == rustls::SignatureScheme::RSA_PKCS1_SHA256)
            .unwrap()
            .1;
        let message = format!("{}.{}", parts[0], parts[1]);
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        assert!(algs.iter().any(|a| a.verify_signature(&public, message.as_bytes(), &signature).is_ok()));
        // Another message does not verify: the check can fail.
        assert!(algs.iter().all(|a| a.verify_signature(&public, b"other", &signature).is_err()));
    }

    #[test]
    fn keys_that_cannot_sign_say_why() {
        assert!(
            signed_jwt("a", "not a key", None, TOKEN_URL, 0).unwrap_err().to_string().contains("not a PEM private key")
        );
    }

    #[test]
    fn credentials_files_are_checked() {
        let dir = std::env::temp_dir().join(format!("pi-adc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let e = |p: &std::path::Path| load(p).err().unwrap().to_string();
        assert!(e(&write("a.json", "{")).starts_with("Could not use the Google credentials in"));
        assert!(
            e(&write("b.json", r#"{"type":"external_account"}"#)).contains("\"external_account\" are not supported")
        );
        assert!(e(&write("c.json", r#"{"type":"service_account"}"#)).contains("client_email"));
        assert!(e(&dir.join("missing.json")).contains("missing.json"));
        let big = write("d.json", &" ".repeat(MAX_CREDENTIALS_FILE_BYTES as usize + 1));
        assert!(e(&big).contains("larger than"));
        let user =
            write("e.json", r#"{"type":"authorized_user","client_id":"i","client_secret":"s","refresh_token":"r"}"#);
        assert!(matches!(load(&user), Ok(Credentials::AuthorizedUser { .. })));
        std::fs::remove_dir_all(&dir).ok();
    }
}
