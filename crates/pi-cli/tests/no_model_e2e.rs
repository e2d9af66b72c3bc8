//! End-to-end: a run without a usable model, as the reference has it. The
//! session starts (RPC answers, `bash` runs, `get_state` names the `unknown`
//! stand-in); a prompt is refused before anything is sent, with the way to
//! add a model; an `auth.json` entry that is not a credential leaves its
//! provider without one; and `--model provider/id` settles between providers
//! that offer the same id by their credentials.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, Write};
use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

/// A scratch install without `models.json` (and a server that must stay unasked).
fn bare() -> (MockServer, Scratch) {
    let server = MockServer::start(vec![Turn::text("never sent")]);
    let s = Scratch::new(&server);
    std::fs::remove_file(s.agent_dir().join("models.json")).unwrap();
    (server, s)
}

fn pi(s: &Scratch, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = s.pi(env!("CARGO_BIN_EXE_pi"));
    c.envs(env.iter().copied()).args(args).stdin(Stdio::null());
    c.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The first paragraph of the reference's refusal.
fn refused_for(who: &str) -> String {
    format!("No API key found for {who}.\n\nUse /login to log into a provider via OAuth or API key. See:\n")
}

#[test]
fn rpc_starts_without_a_model_and_refuses_prompts_with_the_reference_words() {
    let (server, s) = bare();
    let mut child = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["--mode", "rpc", "--no-session", "--offline"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut ask = |cmd: Value| -> Value {
        writeln!(stdin, "{cmd}").unwrap();
        loop {
            let mut line = String::new();
            assert!(out.read_line(&mut line).unwrap() > 0, "pi ended before answering {cmd}");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["type"] == "response" && v["id"] == cmd["id"] {
                return v;
            }
        }
    };
    let state = ask(json!({"id": "s", "type": "get_state"}));
    let model = &state["data"]["model"];
    assert_eq!(
        (&model["id"], &model["provider"], &model["api"], &model["baseUrl"], &model["contextWindow"]),
        (&json!("unknown"), &json!("unknown"), &json!("unknown"), &json!(""), &json!(0))
    );
    assert_eq!(state["data"]["thinkingLevel"], "off");
    let prompt = ask(json!({"id": "p", "type": "prompt", "message": "hi"}));
    assert_eq!(prompt["success"], false);
    assert!(prompt["error"].as_str().unwrap().starts_with(&refused_for("the selected model")), "{prompt}");
    assert!(prompt["error"].as_str().unwrap().ends_with("docs/models.md"), "{prompt}");
    // Nothing was recorded; the session serves on: the user's own commands run.
    assert_eq!(ask(json!({"id": "m", "type": "get_messages"}))["data"]["messages"], json!([]));
    let bash = ask(json!({"id": "b", "type": "bash", "command": "echo still here"}));
    assert_eq!(bash["data"]["output"], "still here\n");
    assert_eq!(ask(json!({"id": "a", "type": "get_available_models"}))["data"]["models"], json!([]));
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(server.requests().is_empty(), "nothing reaches a model");
}

#[test]
fn a_named_model_without_a_key_starts_and_its_prompt_names_the_provider() {
    let (server, s) = bare();
    let out = pi(&s, &[], &["-p", "--no-session", "--offline", "--model", "openai/gpt-4o-mini", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    // A model was named: no "No models available" warning, as the reference.
    assert!(stderr(&out).starts_with(&refused_for("openai")), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert!(server.requests().is_empty());
}

#[test]
fn a_saved_default_without_credentials_is_not_chosen() {
    let (_server, s) = bare();
    let settings = json!({"defaultProvider": "openai", "defaultModel": "gpt-4o-mini"});
    std::fs::write(s.agent_dir().join("settings.json"), settings.to_string()).unwrap();
    let out = pi(&s, &[], &["-p", "--no-session", "--offline", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("Warning: No models available."), "{err}");
    assert!(err.contains(&refused_for("the selected model")), "{err}");
}

#[test]
fn an_auth_entry_that_is_not_a_credential_leaves_its_provider_without_one() {
    let (_server, s) = bare();
    let env = [("OPENAI_API_KEY", "from-env")];
    let listed =
        |s: &Scratch| String::from_utf8_lossy(&pi(s, &env, &["--list-models", "gpt-4o-mini"]).stdout).into_owned();
    assert!(listed(&s).contains("openai    gpt-4o-mini"), "the key variable alone makes it available");
    for entry in
        [json!({"key": "no type"}), json!({"type": "nosuch"}), json!({"type": "api_key", "key": 5}), json!("x")]
    {
        std::fs::write(s.agent_dir().join("auth.json"), json!({"openai": entry}).to_string()).unwrap();
        assert!(listed(&s).starts_with("No models available."), "{entry}: {}", listed(&s));
        let out = pi(&s, &env, &["-p", "--no-session", "--offline", "--model", "openai/gpt-4o-mini", "hi"]);
        assert_eq!(out.status.code(), Some(1), "{entry}");
        assert!(stderr(&out).starts_with(&refused_for("openai")), "{entry}: {}", stderr(&out));
    }
    // The file is the user's: read, never rewritten.
    let kept = std::fs::read_to_string(s.agent_dir().join("auth.json")).unwrap();
    assert_eq!(kept, json!({"openai": "x"}).to_string());
}

/// The model `--model pattern` settles on with `env`, read back over RPC
/// (or the start-up error).
fn settled(s: &Scratch, env: &[(&str, &str)], pattern: &str) -> String {
    let mut c = s.pi(env!("CARGO_BIN_EXE_pi"));
    c.envs(env.iter().copied()).args(["--mode", "rpc", "--no-session", "--offline", "--model", pattern]);
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = writeln!(stdin, "{}", json!({"id": "s", "type": "get_state"}));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    match text.lines().next().and_then(|l| serde_json::from_str::<Value>(l).ok()) {
        Some(v) => format!(
            "{}/{}",
            v["data"]["model"]["provider"].as_str().unwrap(),
            v["data"]["model"]["id"].as_str().unwrap()
        ),
        None => stderr(&out).lines().next().unwrap_or_default().to_string(),
    }
}

#[test]
fn a_provider_prefix_settles_between_providers_by_their_credentials() {
    let (_server, s) = bare();
    // Measured with Pi 1.6.0: the named provider without credentials still
    // wins over others without; the only other one with credentials wins;
    // two others with credentials are ambiguous, all candidates named.
    assert_eq!(settled(&s, &[], "openai/gpt-4o"), "openai/gpt-4o");
    assert_eq!(settled(&s, &[("OPENAI_API_KEY", "k")], "openai/gpt-4o"), "openai/gpt-4o");
    assert_eq!(settled(&s, &[("OPENROUTER_API_KEY", "k")], "openai/gpt-4o"), "openrouter/openai/gpt-4o");
    assert_eq!(
        settled(&s, &[("OPENROUTER_API_KEY", "k"), ("AI_GATEWAY_API_KEY", "k")], "openai/gpt-4o"),
        "Error: Model \"openai/gpt-4o\" is ambiguous across providers: openai/gpt-4o, openrouter/openai/gpt-4o, \
         vercel-ai-gateway/openai/gpt-4o. More than one matching provider is authenticated. Use --provider or provider/model."
    );
    assert_eq!(
        settled(
            &s,
            &[("OPENROUTER_API_KEY", "k"), ("AI_GATEWAY_API_KEY", "k"), ("OPENAI_API_KEY", "k")],
            "openai/gpt-4o"
        ),
        "openai/gpt-4o"
    );
}
