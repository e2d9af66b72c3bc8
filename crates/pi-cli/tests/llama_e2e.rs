//! End-to-end: the built-in `llama.cpp` provider and `/llama` through the
//! `pi` binary, against a fake llama.cpp router on 127.0.0.1 that records
//! what it is asked (`GET /models`, `GET /props`, chat completions).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Scratch, read_until};
use serde_json::{Value, json};

/// One request the router saw: method, path, authorization header, body.
type Seen = (String, String, Option<String>, String);

/// A fake router: three models (loaded, sleeping, unloaded) and one chat answer.
struct Router {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

const MODELS: &str = r#"{"data":[
 {"id":"qwen-loaded","object":"model","status":{"value":"loaded","args":["-c","32768"]}},
 {"id":"gemma-sleep","object":"model","status":{"value":"sleeping"}},
 {"id":"llama-unloaded","object":"model","status":{"value":"unloaded"}}]}"#;

fn chat_answer() -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "x", "object": "chat.completion.chunk", "model": "qwen-loaded",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}})
    };
    format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(json!({"role": "assistant", "content": "hello from llama"}), Value::Null),
        chunk(json!({}), json!("stop"))
    )
}

impl Router {
    fn start() -> Router {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = log.clone();
                std::thread::spawn(move || serve(stream, &log));
            }
        });
        Router { url, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: std::net::TcpStream, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
    let (mut length, mut auth) = (0usize, None);
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        let (name, value) = h.split_once(':').unwrap_or(("", ""));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "authorization" => auth = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    log.lock().unwrap().push((method, path.clone(), auth, String::from_utf8_lossy(&body).into_owned()));
    let (kind, answer) = if path.starts_with("/models") && !path.starts_with("/models/") {
        ("application/json", MODELS.to_string())
    } else if path.starts_with("/props") {
        ("application/json", r#"{"chat_template":"{% if enable_thinking %}{% endif %}"}"#.to_string())
    } else if path == "/v1/chat/completions" {
        ("text/event-stream", chat_answer())
    } else {
        ("application/json", r#"{"success":true}"#.to_string())
    };
    let mut out = stream;
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        answer.len()
    );
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(answer.as_bytes());
}

fn pi(s: &Scratch, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = s.pi(env!("CARGO_BIN_EXE_pi"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.args(args).stdin(Stdio::null()).output().unwrap()
}

fn store(s: &Scratch) -> Option<Value> {
    let text = std::fs::read_to_string(s.agent_dir().join("models-store.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// Start RPC (online, so the router's list is refreshed) and wait for the store.
fn rpc_refresh(s: &Scratch, router: &Router) -> (Value, Value) {
    let mut child = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .env("LLAMA_BASE_URL", &router.url)
        .args(["--mode", "rpc", "--no-session", "--model", "mock/mock-1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, r#"{{"id":"c","type":"get_commands"}}"#).unwrap();
    let commands = read_until(&mut out, |v| v["id"] == "c");
    writeln!(stdin, r#"{{"id":"l","type":"prompt","message":"/llama"}}"#).unwrap();
    let notice = read_until(&mut out, |v| v["method"] == "notify");
    let answer = read_until(&mut out, |v| v["id"] == "l");
    assert_eq!(answer["data"]["disposition"], "handled", "{answer}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while store(s).is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    (commands, notice)
}

#[test]
fn rpc_refreshes_the_routers_models_and_lists_llama_first() {
    let (server, router) = (MockServer::start(vec![]), Router::start());
    let s = Scratch::new(&server);
    let (commands, notice) = rpc_refresh(&s, &router);
    let names: Vec<&str> =
        commands["data"]["commands"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(&names[..2], ["llama", "mcp"]);
    assert_eq!(commands["data"]["commands"][0]["sourceInfo"]["path"], "builtin:llama.cpp");
    assert_eq!(
        (notice["message"].as_str(), notice["notifyType"].as_str()),
        (Some("/llama is available in interactive mode"), Some("warning"))
    );
    let seen = router.seen();
    assert_eq!(
        (seen[0].0.as_str(), seen[0].1.as_str(), seen[0].2.as_deref()),
        ("GET", "/models", Some("Bearer local"))
    );
    assert!(seen.iter().any(|r| r.1 == "/props?model=qwen-loaded&autoload=false"), "{seen:?}");
    let store = store(&s).expect("the store was written");
    let models = store["llama.cpp"]["models"].as_array().unwrap();
    let chat: Vec<&Value> = models.iter().filter(|m| m.get("type").is_none()).collect();
    assert_eq!(chat.iter().map(|m| m["id"].as_str().unwrap()).collect::<Vec<_>>(), ["qwen-loaded", "gemma-sleep"]);
    assert_eq!((chat[0]["contextWindow"].as_u64(), chat[0]["reasoning"].as_bool()), (Some(32768), Some(true)));
    assert_eq!(chat[0]["baseUrl"], format!("{}/v1", router.url));
}

#[test]
fn list_models_and_chat_read_the_store_without_asking_the_router() {
    let (server, router) = (MockServer::start(vec![]), Router::start());
    let s = Scratch::new(&server);
    rpc_refresh(&s, &router);
    let before = router.seen().len();
    let env = [("LLAMA_BASE_URL", router.url.as_str()), ("LLAMA_API_KEY", "secret")];
    let list = pi(&s, &env, &["--list-models", "llama"]);
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(text.contains("llama.cpp  gemma-sleep") && text.contains("llama.cpp  qwen-loaded"), "{text}");
    assert!(!text.contains("llama-unloaded"), "{text}");
    let out = pi(&s, &env, &["-p", "--no-session", "--model", "llama.cpp/qwen-loaded", "hi"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "hello from llama",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = router.seen()[before..].to_vec();
    assert_eq!(seen.len(), 1, "only the chat request: {seen:?}");
    let (method, path, auth, body) = &seen[0];
    assert_eq!(
        (method.as_str(), path.as_str(), auth.as_deref()),
        ("POST", "/v1/chat/completions", Some("Bearer secret"))
    );
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!((body["model"].as_str(), body["stream"].as_bool()), (Some("qwen-loaded"), Some(true)));
    // Print mode: `/llama` needs the terminal UI and does nothing, as the reference.
    let out = pi(&s, &env, &["-p", "--no-session", "/llama"]);
    assert!(out.status.success() && out.stdout.is_empty());
    assert_eq!(router.seen().len(), before + 1, "no request for /llama");
}

#[test]
fn a_stored_login_points_at_the_router_without_the_environment() {
    let (server, router) = (MockServer::start(vec![]), Router::start());
    let s = Scratch::new(&server);
    rpc_refresh(&s, &router);
    let auth = json!({"llama.cpp": {"type": "api_key", "env": {"LLAMA_BASE_URL": format!("{}/", router.url)}}});
    std::fs::write(s.agent_dir().join("auth.json"), auth.to_string()).unwrap();
    let out = pi(&s, &[], &["-p", "--no-session", "--model", "llama.cpp/gemma-sleep", "hi"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "hello from llama",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = router.seen().pop().unwrap();
    assert_eq!((last.1.as_str(), last.2.as_deref()), ("/v1/chat/completions", Some("Bearer local")));
}

#[test]
fn the_switch_removes_the_provider_and_the_command() {
    let (server, router) = (MockServer::start(vec![]), Router::start());
    let s = Scratch::new(&server);
    rpc_refresh(&s, &router);
    std::fs::write(s.agent_dir().join("settings.json"), r#"{"extensions": ["-builtin:llama.cpp"]}"#).unwrap();
    let before = router.seen().len();
    let env = [("LLAMA_BASE_URL", router.url.as_str())];
    let list = pi(&s, &env, &["--list-models"]);
    assert!(!String::from_utf8_lossy(&list.stdout).contains("llama.cpp"));
    let out = pi(&s, &env, &["-p", "--no-session", "--model", "llama.cpp/qwen-loaded", "hi"]);
    assert!(!out.status.success());
    let (mut child, mut stdin, mut out) = s.rpc(env!("CARGO_BIN_EXE_pi"), &[]);
    writeln!(stdin, r#"{{"id":"c","type":"get_commands"}}"#).unwrap();
    let commands = read_until(&mut out, |v| v["id"] == "c");
    assert!(!commands.to_string().contains("\"llama\""), "{commands}");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(router.seen().len(), before, "nothing asks the router");
}
