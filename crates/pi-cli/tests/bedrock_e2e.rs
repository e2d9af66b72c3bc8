//! End-to-end: the real `pi` binary against the mock server speaking Amazon
//! Bedrock ConverseStream (HTTP/2 without TLS, binary event-stream frames):
//! a signed tool run, a bearer token, thinking, a frame with a wrong CRC, a
//! cut stream, a throttling exception and a 429 with `Retry-After`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use pi_test_support::{MockServer, ToolCallSpec, Turn, eventstream};
use serde_json::{Value, json};

/// The model id, with the `:` the path must encode.
const MODEL_ID: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const MODEL_PATH: &str = "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";

/// Every AWS variable the credential chain reads.
const AWS_VARS: [&str; 11] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
];

struct Env {
    dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
}

impl Env {
    /// A scratch home whose `models.json` declares provider `bed` on `server`
    /// (API `bedrock-converse-stream`, no key: the AWS chain provides it).
    fn new(server: &MockServer, reasoning: bool) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(home.join(".pi/agent")).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        let models = json!({"providers": {"bed": {
            "baseUrl": server.base_url(),
            "api": "bedrock-converse-stream",
            "models": [{"id": MODEL_ID, "reasoning": reasoning, "maxTokens": 64000}],
        }}});
        std::fs::write(home.join(".pi/agent/models.json"), models.to_string()).unwrap();
        std::fs::write(home.join(".pi/agent/settings.json"), json!({"retry": {"baseDelayMs": 50}}).to_string())
            .unwrap();
        Env { dir, home, work }
    }

    /// `pi -p --offline --no-session --model bed/<id> <args>` with `vars` set
    /// and every other AWS variable removed.
    fn run(&self, vars: &[(&str, &str)], args: &[&str]) -> Output {
        let tmp = self.dir.path().join("tmp");
        let mut c: Command = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &tmp);
        for v in AWS_VARS {
            c.env_remove(v);
        }
        c.envs(vars.iter().copied());
        c.args(["-p", "--offline", "--no-session", "--model", &format!("bed/{MODEL_ID}")]).args(args);
        c.stdin(Stdio::null()).output().unwrap()
    }
}

const KEYS: [(&str, &str); 3] = [
    ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
    ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
    ("AWS_REGION", "eu-west-1"),
];

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_events(o: &Output) -> Vec<Value> {
    stdout(o).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[test]
fn a_signed_tool_run() {
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "echo hi-from-tool"})).with_text("Let me look."),
        Turn::text("Done: the folder has files."),
    ]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["List the files."]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Done: the folder has files.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let first = &reqs[0];
    assert_eq!((first.method.as_str(), first.path.as_str()), ("POST", MODEL_PATH));
    let auth = first.header("authorization").unwrap();
    let scope = format!(
        "Credential=AKIDEXAMPLE/{}/eu-west-1/bedrock/aws4_request, ",
        &first.header("x-amz-date").unwrap()[..8]
    );
    assert!(auth.starts_with(&format!("AWS4-HMAC-SHA256 {scope}")), "{auth}");
    assert!(
        auth.contains("SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-user-agent, Signature="),
        "{auth}"
    );
    assert_eq!(first.header("content-type"), Some("application/json"));
    assert_eq!(first.header("x-amz-security-token"), None);
    let sha = first.header("x-amz-content-sha256").unwrap();
    assert_eq!(sha.len(), 64);
    // The body's shape.
    let body = &first.body;
    assert_eq!(
        body["messages"][0],
        json!({"role": "user", "content": [{"text": "List the files."}, {"cachePoint": {"type": "default"}}]})
    );
    assert_eq!(body["system"][1], json!({"cachePoint": {"type": "default"}}));
    assert_eq!(body["inferenceConfig"], json!({"maxTokens": 64000}));
    let bash =
        body["toolConfig"]["tools"].as_array().unwrap().iter().find(|t| t["toolSpec"]["name"] == "bash").unwrap();
    assert_eq!(bash["toolSpec"]["inputSchema"]["json"]["type"], "object");
    assert!(body.get("additionalModelRequestFields").is_none());
    // The tool call and its result, sent back.
    let msgs = reqs[1].body["messages"].as_array().unwrap();
    assert_eq!(
        msgs[1],
        json!({"role": "assistant", "content": [{"text": "Let me look."},
            {"toolUse": {"toolUseId": "tooluse_0_0", "name": "bash", "input": {"command": "echo hi-from-tool"}}}]})
    );
    let result = &msgs[2]["content"][0]["toolResult"];
    assert_eq!(result["toolUseId"], "tooluse_0_0");
    assert_eq!(result["status"], "success");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("hi-from-tool"), "{result}");
    assert_eq!(msgs[2]["content"][1], json!({"cachePoint": {"type": "default"}}));
}

#[test]
fn temporary_keys_profiles_and_a_bearer_token() {
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two"), Turn::text("three"), Turn::text("four")]);
    let env = Env::new(&server, false);
    let mut with_token = KEYS.to_vec();
    with_token.push(("AWS_SESSION_TOKEN", "TOKEN123"));
    assert!(env.run(&with_token, &["hi"]).status.success());
    std::fs::create_dir_all(env.home.join(".aws")).unwrap();
    std::fs::write(
        env.home.join(".aws/credentials"),
        "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = s\n",
    )
    .unwrap();
    std::fs::write(
        env.home.join(".aws/config"),
        "[profile work]\nregion = sa-east-1\n[profile proc]\ncredential_process = printf '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROC\", \"SecretAccessKey\": \"s\", \"SessionToken\": \"PT\"}'\n",
    )
    .unwrap();
    let out = env.run(&[("AWS_PROFILE", "work")], &["hi"]);
    assert_eq!(stdout(&out).trim(), "two", "{}", stderr(&out));
    let out = env.run(&[("AWS_BEARER_TOKEN_BEDROCK", "bedtok")], &["hi"]);
    assert_eq!(stdout(&out).trim(), "three", "{}", stderr(&out));
    let out = env.run(&[("AWS_PROFILE", "proc")], &["hi"]);
    assert_eq!(stdout(&out).trim(), "four", "{}", stderr(&out));
    let reqs = server.requests();
    assert!(reqs[3].header("authorization").unwrap().contains("Credential=AKIDPROC/"));
    assert_eq!(reqs[3].header("x-amz-security-token"), Some("PT"));
    assert_eq!(reqs[0].header("x-amz-security-token"), Some("TOKEN123"));
    assert!(reqs[0].header("authorization").unwrap().contains("x-amz-security-token"));
    assert!(
        reqs[1].header("authorization").unwrap().contains("Credential=AKIDWORK/"),
        "{:?}",
        reqs[1].header("authorization")
    );
    assert!(reqs[1].header("authorization").unwrap().contains("/sa-east-1/bedrock/"));
    assert_eq!(reqs[2].header("authorization"), Some("Bearer bedtok"));
    assert_eq!(reqs[2].header("x-amz-date"), None);
}

#[test]
fn no_credentials_is_a_clear_error() {
    let server = MockServer::start(vec![]);
    let env = Env::new(&server, false);
    let out = env.run(&[], &["hi"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("No API key found"), "{}", stderr(&out));
    let out = env.run(&[("AWS_PROFILE", "missing")], &["hi"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("AWS profile \"missing\" has no aws_access_key_id"), "{}", stderr(&out));
    assert!(server.requests().is_empty());
}

#[test]
fn thinking_is_requested_streamed_and_sent_back() {
    let server = MockServer::start(vec![
        Turn { thinking: Some("Let me think.".into()), ..Turn::tool("bash", json!({"command": "true"})) },
        Turn::text("Answer."),
    ]);
    let env = Env::new(&server, true);
    let out = env.run(&KEYS, &["--thinking", "high", "--mode", "json", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = server.requests();
    assert_eq!(
        reqs[0].body["additionalModelRequestFields"],
        json!({"thinking": {"type": "enabled", "budget_tokens": 16384, "display": "summarized"},
            "anthropic_beta": ["interleaved-thinking-2025-05-14"]})
    );
    let events = json_events(&out);
    let first = events.iter().find(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant").unwrap();
    assert_eq!(
        first["message"]["content"][0],
        json!({"type": "thinking", "thinking": "Let me think.", "thinkingSignature": "sig_0"})
    );
    assert_eq!(
        reqs[1].body["messages"][1]["content"][0],
        json!({"reasoningContent": {"reasoningText": {"text": "Let me think.", "signature": "sig_0"}}})
    );
}

#[test]
fn a_frame_with_a_wrong_crc_fails_clearly() {
    let mut body = eventstream::event("messageStart", &json!({"role": "assistant"}));
    body.extend(eventstream::with_bad_crc(eventstream::event(
        "contentBlockDelta",
        &json!({"contentBlockIndex": 0, "delta": {"text": "x"}}),
    )));
    let server = MockServer::start(vec![Turn::raw_frames(body)]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["hi"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("The message checksum (") && err.contains(") did not match the expected value of "), "{err}");
    assert_eq!(server.requests().len(), 1, "a corrupt answer is not retried");
}

#[test]
fn a_cut_stream_is_retried() {
    let server = MockServer::start(vec![Turn::text("never finished").cut(), Turn::text("second try")]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["--mode", "json", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let retries: Vec<Value> = json_events(&out).into_iter().filter(|e| e["type"] == "auto_retry_start").collect();
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert_eq!(retries[0]["errorMessage"], "terminated: other side closed");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_throttling_exception_is_retried_like_a_429() {
    let mut body = eventstream::event("messageStart", &json!({"role": "assistant"}));
    body.extend(eventstream::exception("throttlingException", "Too many tokens, please wait before trying again."));
    let server = MockServer::start(vec![Turn::raw_frames(body), Turn::text("after the wait")]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["--mode", "json", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let retries: Vec<Value> = json_events(&out).into_iter().filter(|e| e["type"] == "auto_retry_start").collect();
    assert_eq!(retries[0]["errorMessage"], "Throttling error: Too many tokens, please wait before trying again.");
    assert_eq!(server.requests().len(), 2);
    // A validation exception is not retried.
    let mut body = eventstream::event("messageStart", &json!({"role": "assistant"}));
    body.extend(eventstream::exception("validationException", "Bad input."));
    let server = MockServer::start(vec![Turn::raw_frames(body)]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["hi"]);
    assert!(stderr(&out).contains("Validation error: Bad input."), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_429_with_retry_after_waits_as_asked() {
    let server = MockServer::start(vec![
        Turn::status(429, r#"{"message":"Too many requests, please wait"}"#)
            .with_header("x-amzn-errortype", "ThrottlingException:http://internal.amazon.com/coral/")
            .with_header("retry-after", "1"),
        Turn::text("after retry"),
    ]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["--mode", "json", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let retries: Vec<Value> = json_events(&out).into_iter().filter(|e| e["type"] == "auto_retry_start").collect();
    assert_eq!(
        retries,
        vec![json!({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 1000,
            "errorMessage": "Throttling error: Too many requests, please wait"})]
    );
    // An access error is not retried, and reads as the reference's.
    let server = MockServer::start(vec![
        Turn::status(403, r#"{"message":"You don't have access"}"#)
            .with_header("x-amzn-errortype", "AccessDeniedException:x"),
    ]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["hi"]);
    assert!(stderr(&out).contains("AccessDeniedException: You don't have access"), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn tool_calls_in_tiny_pieces() {
    let server = MockServer::start(vec![
        Turn::tools(vec![ToolCallSpec::new("bash", json!({"command": "echo é-ok"})).with_id("t-1")]).in_deltas_of(1),
        Turn::text("fin").in_deltas_of(1),
    ]);
    let env = Env::new(&server, false);
    let out = env.run(&KEYS, &["hi"]);
    assert_eq!(stdout(&out).trim(), "fin", "{}", stderr(&out));
    let result = &server.requests()[1].body["messages"][2]["content"][0]["toolResult"];
    assert_eq!(result["toolUseId"], "t-1");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("é-ok"));
}
