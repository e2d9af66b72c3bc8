//! End-to-end: the real `pi` binary against a hostile mock model server on
//! 127.0.0.1. Tool arguments nested thousands of levels deep, failures that
//! are retried by their HTTP status and kind (never by the words of the
//! message) with `Retry-After` honoured, and streams big enough to expose
//! work that grows with the square of their size.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

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

    fn settings(&self, v: Value) {
        std::fs::write(self.agent_dir().join("settings.json"), v.to_string()).unwrap();
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

fn json_events(o: &Output) -> Vec<Value> {
    stdout(o).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
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

// ---- 7. Retries by status and kind, Retry-After ----

/// Settings that make a retry by the backoff quick, so only the rules are tested.
fn quick_backoff(env: &Env) {
    env.settings(json!({"retry": {"baseDelayMs": 50}}));
}

#[test]
fn a_400_mentioning_5000_is_not_retried() {
    let env = Env::new();
    quick_backoff(&env);
    let server = MockServer::start(vec![
        Turn::error(400, "max_tokens: 50000 > 5000, which is the maximum allowed"),
        Turn::text("retried"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let out = env.run(&["go"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), r#"400: {"message":"max_tokens: 50000 > 5000, which is the maximum allowed"}"#);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_401_mentioning_connection_is_not_retried() {
    let env = Env::new();
    quick_backoff(&env);
    let server =
        MockServer::start(vec![Turn::error(401, "Invalid API key for this connection"), Turn::text("retried")]);
    server.write_models_json(&env.agent_dir(), "anthropic-messages");
    let out = env.run(&["go"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), r#"401 {"error":{"message":"Invalid API key for this connection"}}"#);
    assert_eq!(server.requests().len(), 1);
}

/// 429 and 503 with `Retry-After: 1` are retried after the second the
/// server asked for, not after the backoff; the JSON events are the usual ones.
#[test]
fn retry_after_is_honoured() {
    let env = Env::new();
    quick_backoff(&env);
    let server = MockServer::start(vec![
        Turn::error(429, "slow down").with_header("retry-after", "1"),
        Turn::error(503, "busy").with_header("Retry-After", "1"),
        Turn::text("after retry"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let t = Instant::now();
    let out = env.run(&["--mode", "json", "go"]);
    let took = t.elapsed();
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(server.requests().len(), 3);
    assert!(took >= Duration::from_millis(1900), "two retries after 1 s each, took {took:?}");
    let retries: Vec<Value> =
        json_events(&out).into_iter().filter(|e| e["type"].as_str().unwrap().starts_with("auto_retry")).collect();
    assert_eq!(
        retries,
        [
            json!({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 1000,
                "errorMessage": "429: {\"message\":\"slow down\"}"}),
            json!({"type": "auto_retry_start", "attempt": 2, "maxAttempts": 3, "delayMs": 1000,
                "errorMessage": "503: {\"message\":\"busy\"}"}),
            json!({"type": "auto_retry_end", "success": true, "attempt": 2}),
        ]
    );
}

/// A server asking for longer than `retry.provider.maxRetryDelayMs` (60 s by
/// default) fails at once, with its own message.
#[test]
fn retry_after_beyond_the_limit_fails_at_once() {
    let env = Env::new();
    quick_backoff(&env);
    let server = MockServer::start(vec![
        Turn::error(429, "quota resets in an hour").with_header("retry-after", "3600"),
        Turn::text("retried"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let t = Instant::now();
    let out = env.run(&["go"]);
    assert!(t.elapsed() < Duration::from_secs(30), "took {:?}", t.elapsed());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        r#"Server requested 3600s retry delay (max: 60s). 429: {"message":"quota resets in an hour"}"#
    );
    assert_eq!(server.requests().len(), 1);
}

/// The limit is the `retry.provider.maxRetryDelayMs` setting.
#[test]
fn the_retry_delay_limit_is_the_setting() {
    let env = Env::new();
    env.settings(json!({"retry": {"baseDelayMs": 50, "provider": {"maxRetryDelayMs": 2000}}}));
    let server =
        MockServer::start(vec![Turn::error(503, "busy").with_header("retry-after", "5"), Turn::text("retried")]);
    server.write_models_json(&env.agent_dir(), "openai-responses");
    let out = env.run(&["go"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        r#"Server requested 5s retry delay (max: 2s). mock API error (503): {"message":"busy"}"#
    );
    assert_eq!(server.requests().len(), 1);
}

/// Transient kinds without a status are retried: a refused connection and a
/// stream cut mid-way.
#[test]
fn connection_failures_and_cut_streams_are_retried() {
    let env = Env::new();
    env.settings(json!({"retry": {"baseDelayMs": 50, "maxRetries": 2}}));
    let server = MockServer::start(vec![Turn::text("this answer is cut").cut(), Turn::text("whole")]);
    server.write_models_json(&env.agent_dir(), "anthropic-messages");
    let out = env.run(&["--mode", "json", "go"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(server.requests().len(), 2);
    let starts = json_events(&out).into_iter().filter(|e| e["type"] == "auto_retry_start").count();
    assert_eq!(starts, 1);

    // Nothing listens on the port of a server that is gone.
    let env = Env::new();
    env.settings(json!({"retry": {"baseDelayMs": 50, "maxRetries": 2}}));
    let gone = MockServer::start(vec![]);
    gone.write_models_json(&env.agent_dir(), "openai-completions");
    drop(gone);
    let out = env.run(&["--mode", "json", "go"]);
    assert_eq!(out.status.code(), Some(1));
    let events = json_events(&out);
    let starts: Vec<&Value> = events.iter().filter(|e| e["type"] == "auto_retry_start").collect();
    assert_eq!(starts.len(), 2, "{events:?}");
    assert!(starts[0]["errorMessage"].as_str().unwrap().starts_with("Connection error."), "{}", starts[0]);
    let end = events.iter().find(|e| e["type"] == "auto_retry_end").unwrap();
    assert_eq!(end["success"], false);
    assert_eq!(end["attempt"], 2);
}

// ---- 8. Streaming in linear time ----

/// CPU time `pi` may spend on each case: a few seconds in a debug build,
/// generous for a slow machine and far below the time the quadratic parsers
/// took (over four minutes for the 8 MB argument, over a minute for the
/// 50 MB line). CPU time, not wall time, so that other work on a shared
/// machine does not count.
const LINEAR_CPU_BOUND: Duration = Duration::from_secs(20);
/// Wall time allowed all the same, to catch a hang.
const LINEAR_WALL_BOUND: Duration = Duration::from_secs(300);

/// Run `pi`, and measure the CPU time it used (user and system, read from
/// `/proc` while it is a zombie, before it is reaped); where there is no
/// `/proc`, the wall time.
fn run_timed(env: &Env, args: &[&str]) -> (Output, Duration) {
    use std::io::Read;
    let tmp = env.home.parent().unwrap().join("tmp");
    let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &env.home, &env.work, &tmp);
    c.args(["-p", "--offline", "--model", "mock/mock-1", "--no-session"]).args(args);
    let mut child = c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).unwrap();
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let stat = format!("/proc/{}/stat", child.id());
    let t = Instant::now();
    let mut cpu = None;
    while let Ok(text) = std::fs::read_to_string(&stat) {
        // After the command name: the state is the 1st field, utime the 12th, stime the 13th.
        let fields: Vec<&str> = text.rsplit_once(')').unwrap().1.split_whitespace().collect();
        if fields[0] == "Z" {
            let ticks = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
            cpu = Some(Duration::from_millis(ticks * 10)); // USER_HZ is 100 on Linux
            break;
        }
        if t.elapsed() > LINEAR_WALL_BOUND {
            child.kill().unwrap();
            panic!("pi still running after {:?}", t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    let took = cpu.unwrap_or_else(|| t.elapsed());
    (Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }, took)
}

#[test]
fn a_50_mb_sse_data_line_streams_in_linear_time() {
    let env = Env::new();
    let text = "a".repeat(50 * 1024 * 1024);
    let chunk = |delta: Value, finish: Value| {
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let body = format!(
        "{}{}data: [DONE]\n\n",
        chunk(json!({"role": "assistant", "content": text}), Value::Null),
        chunk(json!({}), json!("stop"))
    );
    let server = MockServer::start(vec![Turn::raw_sse(&body)]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    drop(body);
    let (out, cpu) = run_timed(&env, &["go"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(out.stdout.len(), text.len() + 1);
    assert!(cpu < LINEAR_CPU_BOUND, "took {cpu:?} of CPU");
}

#[test]
fn an_8_mb_argument_in_16_byte_deltas_streams_in_linear_time() {
    let env = Env::new();
    let content = "0123456789abcdef".repeat(8 * 1024 * 1024 / 16);
    let server = MockServer::start(vec![
        Turn::tool("write", json!({"path": "big.txt", "content": content})).in_deltas_of(16),
        Turn::text("written"),
    ]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let (out, cpu) = run_timed(&env, &["go"]);
    assert_eq!(out.status.code(), Some(0), "stderr {}", stderr(&out));
    assert_eq!(stdout(&out), "written\n");
    assert_eq!(std::fs::read_to_string(env.work.join("big.txt")).unwrap(), content);
    assert!(cpu < LINEAR_CPU_BOUND, "took {cpu:?} of CPU");
}
