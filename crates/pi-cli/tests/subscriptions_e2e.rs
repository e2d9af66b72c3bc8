//! End-to-end: the real `pi` binary against the mock server as the two
//! subscription providers. OpenAI Codex (`openai-codex-responses`, a ChatGPT
//! login): the endpoint, account headers and body, a tool run, a usage limit
//! that is not retried, a cut stream that is. GitHub Copilot (its models on
//! Chat Completions, Responses and Anthropic Messages): the headers of each
//! API through a tool run, and a 429 with `Retry-After`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use pi_test_support::{MockServer, RecordedRequest, Turn};
use serde_json::{Value, json};

const COPILOT_TOKEN: &str = "ghu_e2e";

/// A token with a ChatGPT account claim, as a ChatGPT login stores it.
fn codex_token() -> String {
    let enc = |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let claims = json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acc-e2e", "chatgpt_plan_type": "plus"}});
    format!("{}.{}.sig", enc(json!({"alg": "RS256", "typ": "JWT"})), enc(claims))
}

struct Env {
    _dir: tempfile::TempDir,
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
        std::fs::write(work.join("f.txt"), "hello from the file\n").unwrap();
        std::fs::write(home.join(".pi/agent/settings.json"), json!({"retry": {"baseDelayMs": 50}}).to_string())
            .unwrap();
        Env { _dir: dir, home, work }
    }

    fn models(&self, doc: Value) {
        std::fs::write(self.home.join(".pi/agent/models.json"), doc.to_string()).unwrap();
    }

    /// `pi -p --offline --no-session --model <model> <args>`.
    fn run(&self, model: &str, args: &[&str]) -> Output {
        let tmp = self.home.parent().unwrap().join("tmp");
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &tmp);
        c.args(["-p", "--offline", "--no-session", "--model", model]).args(args);
        c.stdin(Stdio::null()).output().unwrap()
    }
}

fn codex_env(server: &MockServer) -> Env {
    let env = Env::new();
    env.models(json!({"providers": {"openai-codex": {
        "baseUrl": server.base_url(),
        "api": "openai-codex-responses",
        "apiKey": codex_token(),
        "models": [{"id": "gpt-codex-e2e", "reasoning": true, "input": ["text", "image"]}],
    }}}));
    env
}

fn copilot_env(server: &MockServer) -> Env {
    let env = Env::new();
    env.models(json!({"providers": {"github-copilot": {
        "baseUrl": server.base_url(),
        "apiKey": COPILOT_TOKEN,
        "headers": {
            "User-Agent": "GitHubCopilotChat/0.35.0",
            "Editor-Version": "vscode/1.107.0",
            "Editor-Plugin-Version": "copilot-chat/0.35.0",
            "Copilot-Integration-Id": "vscode-chat",
        },
        "models": [
            {"id": "cp-completions", "api": "openai-completions", "input": ["text", "image"]},
            {"id": "cp-responses", "api": "openai-responses", "reasoning": true, "input": ["text", "image"]},
            {"id": "cp-anthropic", "api": "anthropic-messages", "input": ["text", "image"]},
        ],
    }}}));
    env
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn read_turns(last: &str) -> Vec<Turn> {
    vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text(last)]
}

#[test]
fn codex_tool_run_sends_the_account_and_the_codex_body() {
    let server = MockServer::start(read_turns("The file says hello."));
    let env = codex_env(&server);
    let out = env.run("openai-codex/gpt-codex-e2e", &["--thinking", "low", "read f.txt"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "The file says hello.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/codex/responses"));
        assert_eq!(r.header("authorization"), Some(format!("Bearer {}", codex_token()).as_str()));
        assert_eq!(r.header("chatgpt-account-id"), Some("acc-e2e"));
        assert_eq!(r.header("openai-beta"), Some("responses=experimental"));
        assert_eq!(r.header("originator"), Some("pi"));
        assert_eq!(r.header("content-encoding"), Some("zstd"), "the body goes compressed (the mock decodes it)");
        let b = &r.body;
        assert_eq!(b["model"], "gpt-codex-e2e");
        assert_eq!((b["store"].clone(), b["stream"].clone()), (json!(false), json!(true)));
        assert_eq!(b["text"], json!({"verbosity": "low"}));
        assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!((b["tool_choice"].clone(), b["parallel_tool_calls"].clone()), (json!("auto"), json!(true)));
        assert_eq!(b["reasoning"], json!({"effort": "low", "summary": "auto"}));
        assert_eq!(b["input"][0]["role"], "developer");
        let read = b["tools"].as_array().unwrap().iter().find(|t| t["name"] == "read").unwrap();
        assert_eq!(read["strict"], true, "Codex declares tools strict");
    }
    let output = reqs[1].body["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .map(|i| i["output"].as_str().unwrap().to_string())
        .unwrap();
    assert!(output.contains("hello from the file"), "{output}");
}

#[test]
fn codex_usage_limit_reads_as_the_reference_and_is_not_retried() {
    let resets_at =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 20 * 60 + 10;
    let body = json!({"error": {"type": "usage_limit_reached", "message": "The usage limit has been reached",
        "plan_type": "pro", "resets_at": resets_at}});
    let server = MockServer::start(vec![
        Turn::status(429, &body.to_string()).with_header("retry-after", "1"),
        Turn::text("never asked for"),
    ]);
    let env = codex_env(&server);
    let out = env.run("openai-codex/gpt-codex-e2e", &["hi"]);
    assert_eq!(out.status.code(), Some(1));
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(all.contains("You have hit your ChatGPT usage limit (pro plan). Try again in ~20 min."), "{all}");
    assert_eq!(server.requests().len(), 1, "a usage limit is not retried");
}

#[test]
fn codex_key_without_an_account_is_refused_before_sending() {
    let server = MockServer::start(vec![Turn::text("never")]);
    let env = Env::new();
    env.models(json!({"providers": {"openai-codex": {"baseUrl": server.base_url(), "api": "openai-codex-responses",
        "apiKey": "sk-not-a-chatgpt-token", "models": [{"id": "m"}]}}}));
    let out = env.run("openai-codex/m", &["hi"]);
    assert_eq!(out.status.code(), Some(1));
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(all.contains("Failed to extract accountId from token"), "{all}");
    assert!(server.requests().is_empty());
}

#[test]
fn codex_cut_stream_is_retried() {
    let server = MockServer::start(vec![Turn::tool("read", json!({"path": "f.txt"})).cut(), Turn::text("whole")]);
    let env = codex_env(&server);
    let out = env.run("openai-codex/gpt-codex-e2e", &["hi"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "whole");
    assert_eq!(server.requests().len(), 2);
}

/// The Copilot headers every request carries, and who started it.
fn assert_copilot_headers(r: &RecordedRequest, initiator: &str) {
    assert_eq!(r.header("x-initiator"), Some(initiator), "{}", r.path);
    assert_eq!(r.header("openai-intent"), Some("conversation-edits"));
    assert_eq!(r.header("authorization"), Some(format!("Bearer {COPILOT_TOKEN}").as_str()));
    assert_eq!(r.header("x-api-key"), None);
    assert_eq!(r.header("copilot-integration-id"), Some("vscode-chat"));
    assert_eq!(r.header("editor-version"), Some("vscode/1.107.0"));
    assert_eq!(r.header("editor-plugin-version"), Some("copilot-chat/0.35.0"));
    assert_eq!(r.header("user-agent"), Some("GitHubCopilotChat/0.35.0"));
    assert_eq!(r.header("copilot-vision-request"), None, "no image was sent");
}

#[test]
fn copilot_tool_runs_on_each_api() {
    for (model, path) in [
        ("cp-completions", "/chat/completions"),
        ("cp-responses", "/responses"),
        ("cp-anthropic", "/v1/messages?beta=true"),
    ] {
        let server = MockServer::start(read_turns("It says hello."));
        let env = copilot_env(&server);
        let out = env.run(&format!("github-copilot/{model}"), &["read f.txt"]);
        assert!(out.status.success(), "{model}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout).trim(), "It says hello.", "{model}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2, "{model}");
        assert_eq!(reqs[0].path, path);
        assert_copilot_headers(&reqs[0], "user");
        assert_copilot_headers(&reqs[1], "agent");
        assert!(reqs[1].raw_body.contains("hello from the file"), "{model}: the tool result goes back");
    }
}

#[test]
fn copilot_thinking_off_sends_no_reasoning_on_responses() {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let env = copilot_env(&server);
    let out = env.run("github-copilot/cp-responses", &["--thinking", "off", "hi"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.requests()[0].body.get("reasoning"), None);
}

#[test]
fn copilot_429_waits_for_retry_after() {
    let server = MockServer::start(vec![
        Turn::error(429, "slow down").with_header("retry-after", "1"),
        Turn::text("after the wait"),
    ]);
    let env = copilot_env(&server);
    let started = Instant::now();
    let out = env.run("github-copilot/cp-completions", &["hi"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "after the wait");
    assert!(started.elapsed() >= Duration::from_secs(1), "the server's wait was honoured");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_copilot_headers(&reqs[1], "user");
}

#[test]
fn copilot_marks_requests_that_carry_images() {
    // A 1×1 PNG.
    let png = base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        .unwrap();
    let server = MockServer::start(vec![Turn::text("a dot")]);
    let env = copilot_env(&server);
    std::fs::write(env.work.join("dot.png"), png).unwrap();
    let out = env.run("github-copilot/cp-completions", &["@dot.png", "what is this?"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs[0].header("copilot-vision-request"), Some("true"));
    assert!(reqs[0].raw_body.contains("data:image/png;base64,"));
}
