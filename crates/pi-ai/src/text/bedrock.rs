//! The texts of the Bedrock ConverseStream client.

use std::path::Path;

/// No credentials anywhere in the chain.
pub const NO_CREDENTIALS: &str = "No AWS credentials found for Amazon Bedrock. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), AWS_PROFILE with keys or a credential_process in ~/.aws/credentials or ~/.aws/config, or AWS_BEARER_TOKEN_BEDROCK.";

/// `AWS_PROFILE` names a profile without static keys.
pub fn profile_without_keys(profile: &str) -> String {
    format!(
        "AWS profile \"{profile}\" has no aws_access_key_id and aws_secret_access_key or credential_process in ~/.aws/credentials or ~/.aws/config (SSO and role profiles are not supported by pi); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_BEARER_TOKEN_BEDROCK instead."
    )
}

/// Only a credential source pi does not read is set.
pub fn unsupported_source(var: &str) -> String {
    format!(
        "{var} is set, but pi does not read web-identity AWS credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK."
    )
}

/// An AWS credentials or config file that could not be read.
pub fn unreadable_file(path: &Path, why: &str) -> String {
    format!("Could not read {}: {why}", path.display())
}

/// The reason for a file past the size limit.
pub fn file_too_large(limit: usize) -> String {
    format!("the file is larger than {} KiB", limit / 1024)
}

/// The request could not be signed.
pub fn signing_failed(why: &str) -> String {
    format!("Could not sign the Bedrock request: {why}")
}

/// The stream ended before `messageStop`.
pub const NO_STOP: &str = "Bedrock stream ended without a stop reason";

/// A stop reason that is not a normal end (`guardrail_intervened`, …).
pub fn provider_stopped(reason: &str) -> String {
    format!("Provider stopped with: {reason}")
}

/// A frame that is not a valid event-stream message (bad checksum, bad lengths).
pub fn bad_frame(why: &str) -> String {
    format!("Error reading response: invalid event-stream frame: {why}")
}

/// A frame whose prelude CRC is wrong (the reference's words).
pub fn prelude_checksum(stored: u32, computed: u32) -> String {
    format!(
        "The prelude checksum specified in the message ({stored}) does not match the calculated CRC32 checksum ({computed})"
    )
}

/// A frame whose message CRC is wrong (the reference's words).
pub fn message_checksum(computed: u32, stored: u32) -> String {
    format!("The message checksum ({computed}) did not match the expected value of {stored}")
}

/// A frame longer than the limit.
pub fn frame_too_large(len: u64, limit: usize) -> String {
    format!("Error reading response: an event-stream frame of {len} bytes is larger than {} MiB", limit / (1024 * 1024))
}

/// The body ended inside a frame.
pub const TRUNCATED_FRAME: &str = "Truncated event message received.";

/// The AWS error names whose messages get the reference's prefixes.
pub const ERROR_PREFIXES: [(&str, &str); 5] = [
    ("throttlingexception", "Throttling error"),
    ("serviceunavailableexception", "Service unavailable"),
    ("internalserverexception", "Internal server error"),
    ("modelstreamerrorexception", "Model stream error"),
    ("validationexception", "Validation error"),
];

/// An AWS error as the reference words it: `Throttling error: <message>`
/// for the names above, else `<name>: <message>` (`Unknown` without a name).
pub fn aws_error(name: Option<&str>, message: &str) -> String {
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        return format!("Unknown: {message}");
    };
    let lower = name.to_ascii_lowercase();
    match ERROR_PREFIXES.iter().find(|(n, _)| *n == lower) {
        Some((_, prefix)) => format!("{prefix}: {message}"),
        None => format!("{name}: {message}"),
    }
}

/// The message of an error answer without one.
pub const UNKNOWN_ERROR: &str = "UnknownError";

/// A `credential_process` command that gave no keys.
pub fn credential_process_failed(command: &str, why: &str) -> String {
    format!("The AWS credential_process \"{command}\" failed: {why}")
}

/// The command's pipes could not be opened.
pub const NO_PIPES: &str = "its output could not be read";

/// The command ran past the time limit.
pub fn process_timed_out(seconds: f64) -> String {
    format!("it did not finish within {seconds} s")
}

/// The command failed.
pub fn process_exit(code: Option<i32>, stderr: &str) -> String {
    let how = match code {
        Some(c) => format!("it exited with code {c}"),
        None => "it was killed by a signal".to_string(),
    };
    if stderr.is_empty() { how } else { format!("{how}: {stderr}") }
}

/// The command printed more than the limit.
pub fn process_output_too_large(limit: usize) -> String {
    format!("it printed more than {} KiB", limit / 1024)
}

/// What the command printed is not the credentials JSON.
pub fn process_output(why: &str) -> String {
    format!("its output is not the JSON AWS describes ({why})")
}

/// The JSON's `Version` is not 1.
pub const PROCESS_VERSION: &str = "\"Version\" must be 1";
/// The JSON lacks the keys.
pub const PROCESS_NO_KEYS: &str = "\"AccessKeyId\" and \"SecretAccessKey\" are required";

/// A container credentials URL pi will not ask.
pub fn container_url(url: &str, why: &str) -> String {
    format!("AWS_CONTAINER_CREDENTIALS_FULL_URI \"{url}\" cannot be used: {why}")
}

/// Why a plain-HTTP container URL is refused.
pub const CONTAINER_HOST: &str = "plain http is allowed only for loopback and the ECS/EKS credential agents; use https";

/// The container credentials endpoint gave no keys.
pub fn container_failed(url: &str, why: &str) -> String {
    format!("Could not get AWS container credentials from {url}: {why}")
}
