//! End-to-end: the built-in catalogue through the `pi` binary. Which models a
//! provider's key makes available (`--list-models`, as the reference prints
//! them), `--model` against the whole catalogue, and a built-in provider's
//! `baseUrl` moved to the mock server by `models.json`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::json;

/// A scratch install without `models.json`.
fn bare() -> (MockServer, Scratch) {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    std::fs::remove_file(s.agent_dir().join("models.json")).unwrap();
    (server, s)
}

fn pi(s: &Scratch, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = s.pi(env!("CARGO_BIN_EXE_pi"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.args(args).stdin(Stdio::null()).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The providers and ids of a `--list-models` table.
fn rows(o: &Output) -> Vec<(String, String)> {
    let text = stdout(o);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("provider"), "{text}");
    lines
        .map(|l| {
            let mut cells = l.split_whitespace();
            (cells.next().unwrap().to_string(), cells.next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn a_providers_key_lists_its_models_as_the_reference_prints_them() {
    let (_server, s) = bare();
    let out = pi(&s, &[("GROQ_API_KEY", "k")], &["--list-models"]);
    assert!(out.status.success());
    // Byte for byte what Pi 1.6.0 prints with GROQ_API_KEY set.
    assert_eq!(
        stdout(&out),
        "provider  model                         context  max-out  thinking  images
groq      llama-3.1-8b-instant          131.1K   131.1K   no        no    
groq      llama-3.3-70b-versatile       131.1K   32.8K    no        no    
groq      openai/gpt-oss-120b           131.1K   65.5K    yes       no    
groq      openai/gpt-oss-20b            131.1K   65.5K    yes       no    
groq      openai/gpt-oss-safeguard-20b  131.1K   65.5K    yes       no    
groq      qwen/qwen3.6-27b              131.1K   16.4K    yes       yes   
groq      qwen/qwen3.8-27b              131.1K   16.4K    yes       yes   
"
    );
    for (env, provider, count) in [
        (vec![("GEMINI_API_KEY", "k")], "google", 26),
        (vec![("OPENROUTER_API_KEY", "k")], "openrouter", 417),
        (vec![("MISTRAL_API_KEY", "k")], "mistral", 34),
        (vec![("COPILOT_GITHUB_TOKEN", "k")], "github-copilot", 35),
        (vec![("ANTHROPIC_OAUTH_TOKEN", "k")], "anthropic", 18),
        (vec![("AWS_ACCESS_KEY_ID", "a"), ("AWS_SECRET_ACCESS_KEY", "s")], "amazon-bedrock", 208),
        (vec![("CLOUDFLARE_API_KEY", "k"), ("CLOUDFLARE_ACCOUNT_ID", "a")], "cloudflare-workers-ai", 20),
    ] {
        let listed = rows(&pi(&s, &env, &["--list-models"]));
        assert_eq!(listed.len(), count, "{provider}");
        assert!(listed.iter().all(|(p, _)| p == provider), "{provider}: {listed:?}");
    }
    // Half the AWS pair, or Cloudflare without its account: nothing.
    let out = pi(&s, &[("AWS_ACCESS_KEY_ID", "a"), ("CLOUDFLARE_API_KEY", "k")], &["--list-models"]);
    assert!(stdout(&out).starts_with("No models available. Use /login"), "{}", stdout(&out));
}

#[test]
fn without_any_key_the_reference_words_name_our_docs() {
    let (_server, s) = bare();
    let out = pi(&s, &[], &["--list-models"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("No models available. Use /login to log into a provider via OAuth or API key. See:"));
    assert!(lines.next().unwrap().ends_with("docs/providers.md"));
    assert!(lines.next().unwrap().ends_with("docs/models.md"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("Warning: No models available."), "{err}");
}

#[test]
fn search_is_fuzzy_and_sorted() {
    let (_server, s) = bare();
    let env = [("GROQ_API_KEY", "k"), ("ANTHROPIC_API_KEY", "k")];
    let listed = rows(&pi(&s, &env, &["--list-models", "groq llama"]));
    let ids: Vec<&str> = listed.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(ids, ["llama-3.1-8b-instant", "llama-3.3-70b-versatile"]);
    let listed = rows(&pi(&s, &env, &["--list-models", "antclaude"]));
    assert!(listed.len() > 5 && listed.iter().all(|(p, _)| p == "anthropic"));
    let out = pi(&s, &env, &["--list-models", "instantgroq"]);
    assert_eq!(stdout(&out), "No models matching \"instantgroq\"\n");
}

#[test]
fn a_model_several_providers_offer_needs_a_key_or_a_provider() {
    let (_server, s) = bare();
    let out = pi(&s, &[], &["-p", "--offline", "--no-session", "--model", "gemini-2.5-flash", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Error: Model \"gemini-2.5-flash\" is ambiguous across providers: google-vertex/gemini-2.5-flash, google/gemini-2.5-flash. No matching provider is authenticated. Use --provider or provider/model."),
        "{err}"
    );
}

#[test]
fn a_builtin_providers_base_url_moved_to_the_mock_server() {
    let server = MockServer::start(vec![Turn::text("hello from groq")]);
    let s = Scratch::new(&server);
    let models =
        json!({"providers": {"groq": {"baseUrl": format!("{}/v1", server.base_url()), "headers": {"x-extra": "1"}}}});
    std::fs::write(s.agent_dir().join("models.json"), models.to_string()).unwrap();
    let args = ["-p", "--offline", "--no-session", "--model", "llama-3.3-70b-versatile", "hi"];
    let out = pi(&s, &[("GROQ_API_KEY", "gsk-test")], &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out).trim(), "hello from groq");
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer gsk-test"));
    assert_eq!(req.header("x-extra"), Some("1"));
    assert_eq!(req.body["model"], json!("llama-3.3-70b-versatile"));
    // The catalogue's output limit of the model.
    assert_eq!(req.body["max_completion_tokens"], json!(32768));
}

#[test]
fn a_builtin_anthropic_model_brings_its_compat() {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let s = Scratch::new(&server);
    let models = json!({"providers": {"anthropic": {"baseUrl": server.base_url()}}});
    std::fs::write(s.agent_dir().join("models.json"), models.to_string()).unwrap();
    let args = ["-p", "--offline", "--no-session", "--tools", "read", "--model", "anthropic/claude-haiku-4-5", "hi"];
    let out = pi(&s, &[("ANTHROPIC_API_KEY", "sk-ant")], &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let req = &server.requests()[0];
    assert!(req.path.starts_with("/v1/messages"), "{}", req.path);
    assert_eq!(req.header("x-api-key"), Some("sk-ant"));
    // The catalogue says supportsStrictTools: read, which prefers strict sampling, is declared strict.
    assert_eq!(req.body["tools"][0]["strict"], json!(true), "{}", req.body["tools"]);
    assert_eq!(req.body["max_tokens"], json!(64000));
}
