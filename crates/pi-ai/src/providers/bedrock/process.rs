//! Keys from a profile's `credential_process`: a command that prints
//! `{"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken"?}` (the
//! AWS CLI's contract, used by aws-vault, SSO helpers and the like). It runs
//! through `sh -c`, with a time limit and a bounded read of what it prints.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;

use super::credentials::Keys;
use super::error::{CredentialsError, KeysProblem};
use crate::limits::{CREDENTIAL_PROCESS_TIMEOUT, MAX_CREDENTIAL_PROCESS_OUTPUT};

/// Run `command` and read the keys it prints.
pub(crate) async fn keys_from(command: &str) -> Result<Keys, CredentialsError> {
    keys_within(command, CREDENTIAL_PROCESS_TIMEOUT).await
}

async fn keys_within(command: &str, limit: Duration) -> Result<Keys, CredentialsError> {
    let fail = |why: KeysProblem| CredentialsError::Process { command: command.to_string(), why };
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| fail(KeysProblem::Io(e)))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(fail(KeysProblem::NoPipes));
    };
    let cap = MAX_CREDENTIAL_PROCESS_OUTPUT as u64 + 1;
    // Standard error is read on the side, so neither pipe fills up and stalls the command.
    let errors = tokio::spawn(async move {
        let mut err = Vec::new();
        let _ = stderr.take(cap).read_to_end(&mut err).await;
        err
    });
    let read = async {
        let mut out = Vec::new();
        stdout.take(cap).read_to_end(&mut out).await.map_err(|e| fail(KeysProblem::Io(e)))?;
        if out.len() > MAX_CREDENTIAL_PROCESS_OUTPUT {
            // It would block on a full pipe: stop it now.
            let _ = child.kill().await;
            return Err(fail(KeysProblem::TooLarge(MAX_CREDENTIAL_PROCESS_OUTPUT)));
        }
        let status = child.wait().await.map_err(|e| fail(KeysProblem::Io(e)))?;
        Ok::<_, CredentialsError>((status, out))
    };
    let outcome = tokio::time::timeout(limit, read).await;
    let (status, out) = match outcome {
        Ok(r) => r?,
        Err(_) => {
            errors.abort();
            return Err(fail(KeysProblem::TimedOut(limit)));
        }
    };
    let err = errors.await.unwrap_or_default();
    if !status.success() {
        let err = String::from_utf8_lossy(&err);
        return Err(fail(KeysProblem::Exit { code: status.code(), stderr: crate::http::clip(err.trim()) }));
    }
    let v: Value = serde_json::from_slice(&out).map_err(|e| fail(KeysProblem::NotJson(e)))?;
    if v.get("Version").and_then(Value::as_u64) != Some(1) {
        return Err(fail(KeysProblem::Version));
    }
    let s = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    match (s("AccessKeyId"), s("SecretAccessKey")) {
        (Some(access_key_id), Some(secret_access_key)) => {
            Ok(Keys { access_key_id, secret_access_key, session_token: s("SessionToken") })
        }
        _ => Err(fail(KeysProblem::NoKeys)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys, an error as its text.
    async fn keys_from(command: &str) -> Result<Keys, String> {
        super::keys_from(command).await.map_err(|e| e.to_string())
    }

    /// The keys within `limit`, an error as its text.
    async fn keys_within(command: &str, limit: Duration) -> Result<Keys, String> {
        super::keys_within(command, limit).await.map_err(|e| e.to_string())
    }

    #[tokio::test]
    async fn keys_and_failures() {
        let ok = r#"printf '{"Version": 1, "AccessKeyId": "AKIDP", "SecretAccessKey": "s", "SessionToken": "t"}'"#;
        assert_eq!(
            keys_from(ok).await,
            Ok(Keys { access_key_id: "AKIDP".into(), secret_access_key: "s".into(), session_token: Some("t".into()) })
        );
        let err = keys_from("echo 'not logged in' >&2; exit 3").await.unwrap_err();
        assert!(err.contains("exited with code 3") && err.contains("not logged in"), "{err}");
        let err = keys_from("echo nope").await.unwrap_err();
        assert!(err.contains("not the JSON"), "{err}");
        let err =
            keys_from(r#"printf '{"Version": 2, "AccessKeyId": "a", "SecretAccessKey": "s"}'"#).await.unwrap_err();
        assert!(err.contains("Version"), "{err}");
        let err = keys_from(r#"printf '{"Version": 1, "AccessKeyId": "a"}'"#).await.unwrap_err();
        assert!(err.contains("SecretAccessKey"), "{err}");
        let err = keys_within("sleep 5", Duration::from_millis(200)).await.unwrap_err();
        assert!(err.contains("did not finish"), "{err}");
        let err = keys_from("yes | head -c 200000").await.unwrap_err();
        assert!(err.contains("more than"), "{err}");
    }
}
