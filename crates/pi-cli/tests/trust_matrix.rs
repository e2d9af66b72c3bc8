//! Project trust at start-up, observed in what the model is sent: for each
//! protected resource kind and each way trust can be decided, the project's
//! settings (`defaultTools`) and `.pi/SYSTEM.md` apply exactly when the project
//! is trusted, in print, JSON and RPC modes; context files load either way (P2).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

const KINDS: &[&str] = &[
    ".pi/settings.json",
    ".pi/mcp.json",
    ".pi/extensions",
    ".pi/skills",
    ".pi/prompts",
    ".pi/themes",
    ".pi/SYSTEM.md",
    ".pi/APPEND_SYSTEM.md",
    ".agents/skills",
];

#[derive(Clone, Copy, Debug)]
enum State {
    NoDecision,
    SavedTrue,
    SavedFalse,
    ParentTrueChildFalse,
    ParentTrue,
    Approve,
    NoApprove,
    DefaultAlways,
    DefaultNever,
    DefaultAsk,
}

const STATES: &[(State, bool)] = &[
    (State::NoDecision, false),
    (State::SavedTrue, true),
    (State::SavedFalse, false),
    (State::ParentTrueChildFalse, false),
    (State::ParentTrue, true),
    (State::Approve, true),
    (State::NoApprove, false),
    (State::DefaultAlways, true),
    (State::DefaultNever, false),
    (State::DefaultAsk, false),
];

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Print,
    Json,
    Rpc,
}

struct Case {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    server: MockServer,
    extra: Vec<&'static str>,
}

fn canonical(p: &Path) -> String {
    std::fs::canonicalize(p).unwrap().to_string_lossy().into_owned()
}

fn setup(kind: &str, state: State) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let agent = home.join(".pi/agent");
    let parent = dir.path().join("parent");
    let project = parent.join("project");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(project.join(".pi")).unwrap();
    // The resource kind under test.
    let k = project.join(kind);
    if kind.ends_with(".json") || kind.ends_with(".md") {
        std::fs::write(&k, "{}").unwrap();
    } else {
        std::fs::create_dir_all(&k).unwrap();
    }
    // Observers: what a trusted project changes in the request.
    std::fs::write(project.join(".pi/settings.json"), r#"{"defaultTools": ["read", "ls"]}"#).unwrap();
    std::fs::write(project.join(".pi/SYSTEM.md"), "PROJECT SYSTEM PROMPT").unwrap();
    std::fs::write(project.join("AGENTS.md"), "CONTEXT FILE MARKER").unwrap();
    let mut trust = serde_json::Map::new();
    let mut settings = json!({});
    let mut extra = vec![];
    match state {
        State::SavedTrue => {
            trust.insert(canonical(&project), json!(true));
        }
        State::SavedFalse => {
            trust.insert(canonical(&project), json!(false));
        }
        State::ParentTrueChildFalse => {
            trust.insert(canonical(&parent), json!(true));
            trust.insert(canonical(&project), json!(false));
        }
        State::ParentTrue => {
            trust.insert(canonical(&parent), json!(true));
        }
        State::Approve => extra.push("--approve"),
        State::NoApprove => extra.push("--no-approve"),
        State::DefaultAlways => settings = json!({"defaultProjectTrust": "always"}),
        State::DefaultNever => settings = json!({"defaultProjectTrust": "never"}),
        State::DefaultAsk => settings = json!({"defaultProjectTrust": "ask"}),
        State::NoDecision => {}
    }
    if !trust.is_empty() {
        std::fs::write(agent.join("trust.json"), Value::Object(trust).to_string()).unwrap();
    }
    std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
    let server = MockServer::start(vec![Turn::text("ok"), Turn::text("ok")]);
    server.write_models_json(&agent, "openai-completions");
    Case { _dir: dir, home, project, server, extra }
}

fn command(case: &Case, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pi"));
    c.args(["--offline", "--no-session", "--model", "mock/mock-1"])
        .args(&case.extra)
        .args(args)
        .current_dir(&case.project)
        .env("HOME", &case.home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR");
    c
}

fn run(case: &Case, mode: Mode) -> Value {
    match mode {
        Mode::Print | Mode::Json => {
            let mut args = vec!["-p"];
            if mode == Mode::Json {
                args = vec!["--mode", "json"];
            }
            args.push("go");
            let out = command(case, &args).stdin(Stdio::null()).output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        Mode::Rpc => {
            let mut child =
                command(case, &["--mode", "rpc"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, "{}", json!({"type": "prompt", "message": "go"})).unwrap();
            let reader = BufReader::new(child.stdout.take().unwrap());
            for line in reader.lines() {
                let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
                if v["type"] == "agent_settled" {
                    break;
                }
            }
            drop(stdin);
            assert!(child.wait().unwrap().success());
        }
    }
    case.server.requests()[0].body.clone()
}

fn observe(body: &Value) -> (Vec<String>, String) {
    let tools = body["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["function"]["name"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    let system = body["messages"][0]["content"].as_str().unwrap_or_default().to_string();
    (tools, system)
}

fn check(kind: &str, state: State, trusted: bool, mode: Mode) {
    let case = setup(kind, state);
    let (tools, system) = observe(&run(&case, mode));
    let label = format!("{kind} {state:?}");
    if trusted {
        assert_eq!(tools, ["read", "ls"], "{label}: project defaultTools should apply");
        assert!(system.starts_with("PROJECT SYSTEM PROMPT"), "{label}: project SYSTEM.md should apply");
    } else {
        assert_eq!(tools, ["read", "bash", "edit", "write"], "{label}: project settings must not apply");
        assert!(!system.contains("PROJECT SYSTEM PROMPT"), "{label}: project SYSTEM.md must not apply");
    }
    assert!(system.contains("CONTEXT FILE MARKER"), "{label}: context files load whatever the decision");
}

#[test]
fn every_kind_and_decision_in_print_mode() {
    for kind in KINDS {
        for (state, trusted) in STATES {
            check(kind, *state, *trusted, Mode::Print);
        }
    }
}

#[test]
fn every_decision_in_json_and_rpc_modes() {
    for (state, trusted) in STATES {
        check(".pi/settings.json", *state, *trusted, Mode::Json);
        check(".agents/skills", *state, *trusted, Mode::Rpc);
    }
}

#[test]
fn a_folder_without_resources_is_trusted_unless_a_decision_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let agent = home.join(".pi/agent");
    let project = dir.path().join("plain");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(project.join(".pi")).unwrap(); // a bare .pi/ is not a trigger
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&agent, "openai-completions");
    let out = Command::new(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "go"])
        .current_dir(&project)
        .env("HOME", &home)
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    // A corrupt store is fatal even here (§0.10), with the reference's message.
    std::fs::write(agent.join("trust.json"), "[1,2]").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "go"])
        .current_dir(&project)
        .env("HOME", &home)
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        format!("Error: Invalid trust store {}: expected an object", agent.join("trust.json").display())
    );
}

#[test]
fn an_untrusted_projects_session_dir_is_ignored_with_one_warning() {
    let case = setup(".pi/settings.json", State::NoDecision);
    std::fs::write(case.project.join(".pi/settings.json"), r#"{"sessionDir": "./sessions-here"}"#).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_pi"));
    let out = c
        .args(["-p", "--offline", "--model", "mock/mock-1", "go"])
        .current_dir(&case.project)
        .env("HOME", &case.home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!case.project.join("sessions-here").exists(), "a session was written where the untrusted project said");
    let err = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("sessionDir")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(case.home.join(".pi/agent/sessions").exists());
}

#[test]
fn a_malformed_setting_is_reported_and_ignored() {
    let case = setup(".pi/settings.json", State::Approve);
    std::fs::write(case.project.join(".pi/settings.json"), r#"{"defaultTools": "read"}"#).unwrap();
    let out = command(&case, &["-p", "go"]).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("defaultTools") && err.contains("settings.json"), "{err}");
    let (tools, _) = observe(&case.server.requests()[0].body);
    assert_eq!(tools, ["read", "bash", "edit", "write"]);
}
