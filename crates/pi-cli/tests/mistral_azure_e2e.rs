//! End-to-end: the real `pi` binary on the `mistral-conversations` and
//! `azure-openai-responses` APIs against the mock server on 127.0.0.1: a
//! `read` tool run (what is sent, the tool result sent back, the printed
//! answer), a stream cut short, a 429 with `Retry-After`, an error body.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

const MISTRAL: &str = "mistral-conversations";
const AZURE: &str = "azure-openai-responses";
/// Variables that would change Azure's URL or deployment.
const AZURE_VARS: [&str; 4] = [
    "AZURE_OPENAI_BASE_URL",
    "AZURE_OPENAI_RESOURCE_NAME",
    "AZURE_OPENAI_API_VERSION",
    "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
];

/// A scratch install whose `mock/mock-1` speaks `api`, with a quick backoff.
fn scratch(server: &MockServer, api: &str) -> Scratch {
    let s = Scratch::new(server);
    server.write_models_json(&s.agent_dir(), api);
    std::fs::write(s.agent_dir().join("settings.json"), json!({"retry": {"baseDelayMs": 50}}).to_string()).unwrap();
    std::fs::write(s.work.join("f.txt"), "hello\n").unwrap();
    s
}

/// `pi -p --offline --no-session --model mock/mock-1 <args>` with `env` set.
fn run(s: &Scratch, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = s.pi(env!("CARGO_BIN_EXE_pi"));
    for v in AZURE_VARS {
        c.env_remove(v);
    }
    c.envs(env.iter().copied());
    c.args(["-p", "--offline", "--no-session", "--model", "mock/mock-1"]).args(args);
    c.stdin(Stdio::null()).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read_then_answer() -> Vec<Turn> {
    vec![Turn::tool("read", json!({"path": "f.txt"})), Turn::text("The file says hello.")]
}

#[test]
fn mistral_tool_run_sends_mistral_shapes() {
    let server = MockServer::start(read_then_answer());
    let s = scratch(&server, MISTRAL);
    let out = run(&s, &[], &["read f.txt"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "The file says hello.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!(r.path, "/mistral/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some("Bearer x"));
        assert_eq!((r.body["model"].as_str(), r.body["stream"].as_bool()), (Some("mock-1"), Some(true)));
        assert!(r.body["max_tokens"].is_u64());
        let tools = r.body["tools"].as_array().unwrap();
        assert!(tools.iter().all(|t| t["type"] == "function" && t["function"]["strict"] == false), "{tools:?}");
    }
    let messages = reqs[1].body["messages"].as_array().unwrap();
    let call_id = pi_test_support::mistral::call_id(0, 0);
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "prefix": false, "tool_calls": [{"id": call_id, "type": "function",
            "function": {"name": "read", "arguments": "{\"path\":\"f.txt\"}"}, "index": 0}]})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "name": "read", "content": [{"type": "text", "text": "hello"}], "tool_call_id": call_id})
    );
}

#[test]
fn mistral_thinking_is_read_and_sent_back() {
    let server = MockServer::start(vec![
        Turn { thinking: Some("I should read it.".into()), ..Turn::tool("read", json!({"path": "f.txt"})) },
        Turn::text("done"),
    ]);
    let s = scratch(&server, MISTRAL);
    server.write_models_json_with(&s.agent_dir(), MISTRAL, json!({"reasoning": true}));
    let out = run(&s, &[], &["--thinking", "high", "read f.txt"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    let reqs = server.requests();
    assert_eq!(reqs[0].body["prompt_mode"], "reasoning");
    assert_eq!(
        reqs[1].body["messages"][2]["content"],
        json!([{"type": "thinking", "thinking": [{"type": "text", "text": "I should read it."}]}])
    );
}

#[test]
fn mistral_cut_streams_are_retried_then_reported() {
    let server = MockServer::start(vec![Turn::text("a long answer cut short").cut(); 4]);
    let s = scratch(&server, MISTRAL);
    let out = run(&s, &[], &["hi"]);
    assert_eq!(server.requests().len(), 4, "three retries");
    assert_eq!(stderr(&out).trim(), "terminated");
    assert_eq!(out.status.code(), Some(1));
}

/// The reference's Mistral client passes no `Retry-After` on: the retry
/// waits the backoff (50 ms here), not the hour asked for.
#[test]
fn mistral_429_is_retried_after_the_backoff_not_retry_after() {
    let server = MockServer::start(vec![
        Turn::status(429, "{\"message\": \"Requests rate limit exceeded\"}").with_header("retry-after", "3600"),
        Turn::text("after retry"),
    ]);
    let s = scratch(&server, MISTRAL);
    let t = Instant::now();
    let out = run(&s, &[], &["--mode", "json", "hi"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert!(t.elapsed() < Duration::from_secs(30), "took {:?}", t.elapsed());
    let start = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "auto_retry_start")
        .unwrap();
    assert_eq!(start["delayMs"], 50);
    assert_eq!(start["errorMessage"], "Mistral API error (429): {\"message\": \"Requests rate limit exceeded\"}");
}

#[test]
fn mistral_error_bodies_read_like_the_reference() {
    let server = MockServer::start(vec![
        Turn::status(400, "{\"object\": \"error\", \"message\": \"Invalid model\"}"),
        Turn::raw_sse("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"object\":\"error\"}\n\n"),
    ]);
    let s = scratch(&server, MISTRAL);
    let out = run(&s, &[], &["hi"]);
    assert_eq!(stderr(&out).trim(), "Mistral API error (400): {\"object\": \"error\", \"message\": \"Invalid model\"}");
    assert_eq!(out.status.code(), Some(1));
    let out = run(&s, &[], &["hi"]);
    assert_eq!(stderr(&out).trim(), "Invalid Mistral streaming event");
    assert_eq!(server.requests().len(), 2, "neither is retried");
}

#[test]
fn azure_tool_run_uses_the_responses_api_at_an_azure_url() {
    let server = MockServer::start(read_then_answer());
    let s = scratch(&server, AZURE);
    let env = [("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "other=x,mock-1=my-deployment")];
    let out = run(&s, &env, &["read f.txt"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "The file says hello.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!(r.path, "/v1/responses?api-version=v1");
        assert_eq!(r.header("api-key"), Some("x"));
        assert_eq!(r.header("authorization"), None);
        assert_eq!(r.body["model"], "my-deployment");
    }
    let input = reqs[1].body["input"].as_array().unwrap();
    assert_eq!(input.last().unwrap()["type"], "function_call_output");
    assert_eq!(input.last().unwrap()["output"], "hello\n");
}

#[test]
fn azure_base_url_and_api_version_from_the_environment() {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let s = scratch(&server, AZURE);
    let base = format!("{}/custom", server.base_url());
    let env = [("AZURE_OPENAI_BASE_URL", base.as_str()), ("AZURE_OPENAI_API_VERSION", "2025-04-01-preview")];
    let out = run(&s, &env, &["hi"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(server.requests()[0].path, "/custom/responses?api-version=2025-04-01-preview");
}

#[test]
fn azure_429_with_retry_after_then_an_error_body() {
    let server = MockServer::start(vec![
        Turn::error(429, "slow down").with_header("retry-after", "1"),
        Turn::text("after retry"),
        Turn::error(400, "bad thing"),
        Turn::text("x").cut(),
        Turn::text("x").cut(),
        Turn::text("x").cut(),
        Turn::text("x").cut(),
    ]);
    let s = scratch(&server, AZURE);
    let t = Instant::now();
    let out = run(&s, &[], &["hi"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "after retry");
    assert!(t.elapsed() >= Duration::from_millis(900), "waited the second asked for: {:?}", t.elapsed());
    let out = run(&s, &[], &["hi"]);
    assert_eq!(stderr(&out).trim(), "Azure OpenAI API error (400): {\"message\":\"bad thing\"}");
    let out = run(&s, &[], &["hi"]);
    assert_eq!(stderr(&out).trim(), "terminated: other side closed");
    assert_eq!(server.requests().len(), 7);
}

#[test]
fn azure_without_a_base_url_says_how_to_set_one() {
    let server = MockServer::start(vec![]);
    let s = scratch(&server, AZURE);
    let doc =
        json!({"providers": {"mock": {"baseUrl": "", "api": AZURE, "apiKey": "x", "models": [{"id": "mock-1"}]}}});
    std::fs::write(s.agent_dir().join("models.json"), doc.to_string()).unwrap();
    let out = run(&s, &[], &["hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("Azure OpenAI base URL is required."), "{}", stderr(&out));
    assert!(server.requests().is_empty());
}
