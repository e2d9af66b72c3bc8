//! Keys from a profile's `credential_process`: a command that prints
//! `{"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken"?}` (the
//! AWS CLI's contract, used by aws-vault, SSO helpers and the like). It runs
//! through `sh -c`, with a time limit and a bounded read of what it prints.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;

use super::credentials::Keys;
use crate::limits::{CREDENTIAL_PROCESS_TIMEOUT, MAX_CREDENTIAL_PROCESS_OUTPUT};
use crate::text::bedrock as words;

/// Run `command` and read the keys it prints.
pub(crate) async fn keys_from(command: &str) -> Result<Keys, String> {
    keys_within(command, CREDENTIAL_PROCESS_TIMEOUT).await
}

async fn keys_within(command: &str, limit: Duration) -> Result<Keys, String> {
    let fail = |why: String| words::credential_process_failed(command, &why);
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| fail(e.to_string()))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(fail(words::NO_PIPES.into()));
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
        stdout.take(cap).read_to_end(&mut out).await.map_err(|e| fail(e.to_string()))?;
        if out.len() > MAX_CREDENTIAL_PROCESS_OUTPUT {
            // It would block on a full pipe: stop it now.
            let _ = child.kill().await;
            return Err(fail(words::process_output_too_large(MAX_CREDENTIAL_PROCESS_OUTPUT)));
        }
        let status = child.wait().await.map_err(|e| fail(e.to_string()))?;
        Ok::<_, String>((status, out))
    };
    let outcome = tokio::time::timeout(limit, read).await;
    let (status, out) = match outcome {
        Ok(r) => r?,
        Err(_) => {
            errors.abort();
            return Err(fail(words::process_timed_out(limit.as_secs_f64())));
        }
    };
    let err = errors.await.unwrap_or_default();
    if !status.success() {
        let err = String::from_utf8_lossy(&err);
        return Err(fail(words::process_exit(status.code(), crate::http::clip(err.trim()).as_str())));
    }
    let v: Value = serde_json::from_slice(&out).map_err(|e| fail(words::process_output(&e.to_string())))?;
    if v.get("Version").and_then(Value::as_u64) != Some(1) {
        return Err(fail(words::process_output(words::PROCESS_VERSION)));
    }
    let s = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    match (s("AccessKeyId"), s("SecretAccessKey")) {
        (Some(access_key_id), Some(secret_access_key)) => {
            Ok(Keys { access_key_id, secret_access_key, session_token: s("SessionToken") })
        }
        _ => Err(fail(words::process_output(words::PROCESS_NO_KEYS))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
