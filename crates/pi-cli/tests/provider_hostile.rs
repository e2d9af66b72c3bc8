//! End-to-end: the real `pi` binary against a hostile mock model server on
//! 127.0.0.1: tool arguments nested thousands of levels deep.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use pi_test_support::{MockServer, Turn};
use serde_json::Value;

const APIS: [&str; 3] = ["openai-completions", "openai-responses", "anthropic-messages"];

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
        Env { _dir: dir, home, work }
    }

    fn agent_dir(&self) -> PathBuf {
        self.home.join(".pi/agent")
    }

    /// `pi -p --offline --model mock/mock-1 --no-session <args>`.
    fn run(&self, args: &[&str]) -> Output {
        let tmp = self.home.parent().unwrap().join("tmp");
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &tmp);
        c.args(["-p", "--offline", "--model", "mock/mock-1", "--no-session"]).args(args);
        run_quietly(c)
    }
}

fn run_quietly(mut c: Command) -> Output {
    c.stdin(Stdio::null()).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The text of the tool result sent back to the model, whatever the API.
fn tool_result_text(api: &str, body: &Value) -> String {
    let find = |items: &Value, pick: &dyn Fn(&Value) -> Option<String>| {
        items.as_array().unwrap().iter().find_map(pick).unwrap_or_else(|| panic!("no tool result in {body}"))
    };
    match api {
        "openai-completions" => find(&body["messages"], &|m| {
            (m["role"] == "tool").then(|| m["content"].as_str().unwrap_or_default().to_string())
        }),
        "openai-responses" => find(&body["input"], &|m| {
            (m["type"] == "function_call_output").then(|| m["output"].as_str().unwrap_or_default().to_string())
        }),
        _ => find(&body["messages"], &|m| {
            m["content"].as_array()?.iter().find(|b| b["type"] == "tool_result").map(|b| match &b["content"] {
                Value::String(s) => s.clone(),
                other => other[0]["text"].as_str().unwrap_or_default().to_string(),
            })
        }),
    }
}

// ---- 1. Tool-call arguments nested 10,000 levels deep ----

/// 20 KB of brackets: the model gets the invalid-arguments error (as for any
/// malformed JSON), the run goes on and exits normally, nothing overflows.
#[test]
fn deeply_nested_arguments_are_invalid_arguments_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    for api in APIS {
        let env = Env::new();
        let server = MockServer::start(vec![Turn::tool_raw("write", &deep), Turn::text("noted")]);
        server.write_models_json(&env.agent_dir(), api);
        let out = env.run(&["go"]);
        assert_eq!(out.status.code(), Some(0), "{api}: stderr {}", stderr(&out));
        assert_eq!(stdout(&out), "noted\n", "{api}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2, "{api}");
        let result = tool_result_text(api, &reqs[1].body);
        assert!(
            result.starts_with(
                "Invalid arguments for tool \"write\": Nesting deeper than 64 levels in JSON at position 64 \
                 (line 1 column 65)\n\nReceived arguments:\n[[[["
            ),
            "{api}: {}",
            &result[..result.len().min(300)]
        );
        assert!(result.ends_with("]]]]"), "{api}: the raw arguments follow");
        assert!(!env.work.join("f.txt").exists());
    }
}

/// Just under the limit the arguments parse; the tool's own validation answers.
#[test]
fn arguments_at_the_depth_limit_still_parse() {
    let env = Env::new();
    let nested = format!("{}1{}", "[".repeat(63), "]".repeat(63));
    let args = format!("{{\"path\":\"f.txt\",\"content\":{nested}}}");
    let server = MockServer::start(vec![Turn::tool_raw("write", &args), Turn::text("ok")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["go"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    let result = tool_result_text("openai-completions", &server.requests()[1].body);
    assert!(result.starts_with("Validation failed for tool \"write\""), "{result}");
}
