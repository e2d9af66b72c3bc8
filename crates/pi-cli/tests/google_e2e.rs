//! End-to-end: the real `pi` binary against the mock server speaking
//! Google's stream format, for `google-generative-ai` and `google-vertex`
//! (API key, and Application Default Credentials through the mock token
//! endpoint): a tool run, thinking, a cut stream, a 429 with `Retry-After`,
//! an error body, a failing token exchange.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pi_test_support::gemini::{MOCK_ACCESS_TOKEN, TEST_SERVICE_ACCOUNT_KEY};
use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

/// Variables of the environment that would change what pi sends.
const GOOGLE_VARS: [&str; 7] = [
    "GEMINI_API_KEY",
    "GOOGLE_CLOUD_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GCLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "PI_TEST_GOOGLE_TOKEN_URL",
];

struct Env {
    dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(home.join(".pi/agent")).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        std::fs::write(work.join("f.txt"), "hello\n").unwrap();
        std::fs::write(home.join(".pi/agent/settings.json"), json!({"retry": {"baseDelayMs": 50}}).to_string())
            .unwrap();
        Env { dir, home, work }
    }

    /// `models.json` with provider `g`, model `id` of `api` on `base_url`.
    fn models(&self, api: &str, base_url: &str, api_key: &str, id: &str) {
        let doc = json!({"providers": {"g": {"baseUrl": base_url, "api": api, "apiKey": api_key,
            "models": [{"id": id, "reasoning": true, "maxTokens": 1000}]}}});
        std::fs::write(self.home.join(".pi/agent/models.json"), doc.to_string()).unwrap();
    }

    fn command(&self, id: &str, args: &[&str]) -> Command {
        let tmp = self.dir.path().join("tmp");
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &tmp);
        for v in GOOGLE_VARS {
            c.env_remove(v);
        }
        c.args(["-p", "--offline", "--no-session", "--model", &format!("g/{id}")]).args(args).stdin(Stdio::null());
        c
    }
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn events(o: &Output) -> Vec<Value> {
    text(o).0.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

const GEN: &str = "google-generative-ai";
const STREAM_PATH: &str = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";

/// The reference's tool run: a `read` call, its result sent back as a
/// function response with the call's signature, then the printed answer.
#[test]
fn a_tool_run() {
    let env = Env::new();
    let server =
        MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("The file says hello.")]);
    env.models(GEN, &format!("{}/v1beta", server.base_url()), "k1", "gemini-2.5-flash");
    let out = env.command("gemini-2.5-flash", &["read f.txt"]).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout, "The file says hello.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", STREAM_PATH));
        assert_eq!(r.header("x-goog-api-key"), Some("k1"));
        assert!(r.body["tools"][0]["functionDeclarations"].as_array().unwrap().iter().any(|d| d["name"] == "read"));
        assert_eq!(r.body["systemInstruction"]["role"], "user");
    }
    let contents = reqs[1].body["contents"].as_array().unwrap();
    assert_eq!(
        contents[1],
        json!({"parts": [{"functionCall": {"args": {"path": "f.txt"}, "name": "read"}, "thoughtSignature": "callsig_0"}],
            "role": "model"})
    );
    assert_eq!(
        contents[2],
        json!({"parts": [{"functionResponse": {"name": "read", "response": {"output": "hello\n"}}}], "role": "user"})
    );
    assert_eq!(
        reqs[0].body["generationConfig"],
        json!({"maxOutputTokens": 1000, "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 8192}})
    );
}

/// Thinking comes back as a thinking block with its signature; the level
/// becomes a Gemini 3 `thinkingLevel`.
#[test]
fn thinking() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::thinking("Let me see.", "Four.")]);
    env.models(GEN, &server.base_url(), "k", "gemini-3-pro-preview");
    let out = env.command("gemini-3-pro-preview", &["--thinking", "high", "--mode", "json", "2+2?"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let end = events(&out).into_iter().rfind(|e| e["type"] == "message_end").unwrap();
    assert_eq!(
        end["message"]["content"],
        json!([{"type": "thinking", "thinking": "Let me see.", "thinkingSignature": "sig_0"}, {"type": "text", "text": "Four."}])
    );
    assert_eq!(end["message"]["stopReason"], "stop");
    assert_eq!(end["message"]["usage"]["input"], 10);
    assert_eq!(
        server.requests()[0].body["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingLevel": "HIGH"})
    );
}

/// A stream cut mid-way is retried; the next answer is printed.
#[test]
fn a_cut_stream_is_retried() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("never finished").cut(), Turn::text("second try")]);
    env.models(GEN, &server.base_url(), "k", "gemini-2.5-flash");
    let out = env.command("gemini-2.5-flash", &["--mode", "json", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let evs = events(&out);
    let retry = evs.iter().find(|e| e["type"] == "auto_retry_start").unwrap();
    assert_eq!(retry["errorMessage"], "terminated: other side closed");
    let end = evs.iter().rfind(|e| e["type"] == "message_end").unwrap();
    assert_eq!(end["message"]["content"][0]["text"], "second try");
    assert_eq!(server.requests().len(), 2);
}

/// A 429 with `Retry-After: 1` waits the second the server asked for.
#[test]
fn a_429_with_retry_after_waits_and_retries() {
    let env = Env::new();
    let body = r#"{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}"#;
    let server = MockServer::start(vec![Turn::status(429, body).with_header("retry-after", "1"), Turn::text("ok")]);
    env.models(GEN, &server.base_url(), "k", "gemini-2.5-flash");
    let t = Instant::now();
    let out = env.command("gemini-2.5-flash", &["--mode", "json", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    assert!(t.elapsed() >= Duration::from_millis(950));
    let retry = events(&out).into_iter().find(|e| e["type"] == "auto_retry_start").unwrap();
    assert_eq!(
        retry,
        json!({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 1000, "errorMessage": body})
    );
}

/// An error body is shown as the server sent it, and a 400 is not retried.
#[test]
fn an_error_body_is_shown_and_not_retried() {
    let env = Env::new();
    let body = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#;
    let server = MockServer::start(vec![Turn::status(400, body), Turn::text("never")]);
    env.models(GEN, &server.base_url(), "k", "gemini-2.5-flash");
    let out = env.command("gemini-2.5-flash", &["hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out).1.trim_end(), body);
    assert_eq!(server.requests().len(), 1);
}

/// Vertex with an API key: the short path and the key header.
#[test]
fn vertex_with_an_api_key() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("vertex says hi")]);
    env.models("google-vertex", &server.base_url(), "vk", "gemini-2.5-flash");
    let out = env.command("gemini-2.5-flash", &["hi"]).output().unwrap();
    assert_eq!(text(&out), ("vertex says hi\n".into(), String::new()));
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    assert_eq!(r.header("x-goog-api-key"), Some("vk"));
}

/// A service-account key file, the token endpoint `PI_TEST_GOOGLE_TOKEN_URL`.
fn service_account(env: &Env) -> PathBuf {
    let path = env.dir.path().join("sa.json");
    let sa = json!({"type": "service_account", "project_id": "p1", "private_key_id": "kid",
        "private_key": TEST_SERVICE_ACCOUNT_KEY, "client_email": "sa@p1.iam.gserviceaccount.com"});
    std::fs::write(&path, sa.to_string()).unwrap();
    path
}

/// Vertex with Application Default Credentials: a signed JWT is exchanged
/// for a token, which goes as `Authorization: Bearer` on the request.
#[test]
fn vertex_with_a_service_account() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("done")]);
    env.models("google-vertex", &server.base_url(), "<authenticated>", "gemini-2.5-flash");
    let out = env
        .command("gemini-2.5-flash", &["hi"])
        .env("GOOGLE_APPLICATION_CREDENTIALS", service_account(&env))
        .env("PI_TEST_GOOGLE_TOKEN_URL", format!("{}/token", server.base_url()))
        .output()
        .unwrap();
    assert_eq!(text(&out), ("done\n".into(), String::new()));
    let reqs = server.requests();
    // One token for both requests.
    let paths: Vec<&str> = reqs.iter().map(|r| r.path.as_str()).collect();
    let stream = "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    assert_eq!(paths, ["/token", stream, stream]);
    assert!(
        reqs[0].raw_body.starts_with("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=ey")
    );
    for r in &reqs[1..] {
        assert_eq!(r.header("authorization"), Some(format!("Bearer {MOCK_ACCESS_TOKEN}-0").as_str()));
        assert_eq!(r.header("x-goog-api-key"), None);
    }
}

/// A token exchange the endpoint refuses ends the run with its words.
#[test]
fn vertex_token_refused() {
    let env = Env::new();
    let refusal = r#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#;
    let server = MockServer::start(vec![Turn::status(400, refusal)]);
    env.models("google-vertex", &server.base_url(), "<authenticated>", "gemini-2.5-flash");
    let out = env
        .command("gemini-2.5-flash", &["hi"])
        .env("GOOGLE_APPLICATION_CREDENTIALS", service_account(&env))
        .env("PI_TEST_GOOGLE_TOKEN_URL", format!("{}/token", server.base_url()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out).1.trim_end(),
        format!(
            "Could not get a Google access token from {}/token: 400 invalid_grant: Invalid JWT Signature.",
            server.base_url()
        )
    );
    assert_eq!(server.requests().len(), 1);
}

/// gcloud's user credentials (`gcloud auth application-default login`, in
/// the home folder): the refresh token is traded for the access token.
#[test]
fn vertex_with_gclouds_user_credentials() {
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("as the user")]);
    env.models("google-vertex", &server.base_url(), "<authenticated>", "gemini-2.5-flash");
    let gcloud = env.home.join(".config/gcloud");
    std::fs::create_dir_all(&gcloud).unwrap();
    let user = json!({"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
        "client_secret": "s/e+c", "refresh_token": "1//r"});
    std::fs::write(gcloud.join("application_default_credentials.json"), user.to_string()).unwrap();
    let out = env
        .command("gemini-2.5-flash", &["hi"])
        .env("PI_TEST_GOOGLE_TOKEN_URL", format!("{}/token", server.base_url()))
        .output()
        .unwrap();
    assert_eq!(text(&out), ("as the user\n".into(), String::new()));
    let reqs = server.requests();
    assert_eq!(
        reqs[0].raw_body,
        "grant_type=refresh_token&client_id=cid.apps.googleusercontent.com&client_secret=s%2Fe%2Bc&refresh_token=1%2F%2Fr"
    );
    assert_eq!(reqs[1].header("authorization"), Some(format!("Bearer {MOCK_ACCESS_TOKEN}-0").as_str()));
}

/// An error chunk inside the stream is retried by the status its code names;
/// a safety stop is not retried and reads as the reference's.
#[test]
fn errors_inside_the_stream() {
    let env = Env::new();
    let partial = r#"data: {"candidates":[{"content":{"parts":[{"text":"par"}],"role":"model"},"index":0}]}"#;
    let error = r#"data: {"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}"#;
    let safety = r#"data: {"candidates":[{"content":{"parts":[{"text":"x"}],"role":"model"},"finishReason":"SAFETY","index":0}]}"#;
    let server = MockServer::start(vec![
        Turn::raw_sse(&format!("{partial}\r\n\r\n{error}\r\n\r\n")),
        Turn::raw_sse(&format!("{safety}\r\n\r\n")),
        Turn::text("never"),
    ]);
    env.models(GEN, &server.base_url(), "k", "gemini-2.5-flash");
    let out = env.command("gemini-2.5-flash", &["--mode", "json", "hi"]).output().unwrap();
    let evs = events(&out);
    let retry = evs.iter().find(|e| e["type"] == "auto_retry_start").unwrap();
    assert_eq!(
        retry["errorMessage"],
        r#"got status: INTERNAL. {"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}"#
    );
    let end = evs.iter().rfind(|e| e["type"] == "message_end").unwrap();
    assert_eq!(end["message"]["errorMessage"], "Provider stopped with: SAFETY");
    assert_eq!(end["message"]["rawStopReason"], "SAFETY");
    assert_eq!(server.requests().len(), 2, "the safety stop is not retried");
}
