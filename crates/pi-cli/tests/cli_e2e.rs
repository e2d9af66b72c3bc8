//! End-to-end: the command line as the reference reads it (unknown and
//! malformed options, the first message built from standard input, `@file`
//! arguments and the message, custom model ids), with the real `pi` binary
//! against the mock model server.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use pi_test_support::{MockServer, Turn, user_texts};
use serde_json::Value;

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    server: MockServer,
}

impl Env {
    /// A scratch home and work folder, and a mock model answering `turns`.
    fn new(turns: Vec<Turn>) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(home.join(".pi/agent")).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        let server = MockServer::start(turns);
        server.write_models_json(&home.join(".pi/agent"), "openai-completions");
        Env { _dir: dir, home, work, server }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let tmp = self.home.parent().unwrap().join("tmp");
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &tmp);
        c.args(args);
        c
    }

    /// `pi ARGS` with standard input `stdin` (closed at once when `None`).
    fn run_raw(&self, args: &[&str], stdin: Option<&str>) -> Out {
        let mut child = self
            .cmd(args)
            .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
            pipe.write_all(text.as_bytes()).unwrap();
        }
        Out(child.wait_with_output().unwrap())
    }

    /// `pi -p --offline --no-session ARGS`.
    fn run(&self, args: &[&str]) -> Out {
        let mut all = vec!["-p", "--offline", "--no-session"];
        all.extend_from_slice(args);
        self.run_raw(&all, None)
    }

    /// `pi -p --offline --no-session --model mock/mock-1 ARGS`.
    fn run_mock(&self, args: &[&str]) -> Out {
        let mut all = vec!["--model", "mock/mock-1"];
        all.extend_from_slice(args);
        self.run(&all)
    }

    fn bodies(&self) -> Vec<Value> {
        self.server.requests().into_iter().map(|r| r.body).collect()
    }
}

struct Out(Output);

impl Out {
    fn code(&self) -> Option<i32> {
        self.0.status.code()
    }
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }
    /// Exit 1 with exactly `stderr` and nothing on standard output.
    fn fails_with(&self, stderr: &str) {
        assert_eq!((self.code(), self.stderr().as_str(), self.stdout().as_str()), (Some(1), stderr, ""));
    }
}

fn declared(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn the_last_exclude_tools_flag_wins() {
    let env = Env::new(vec![Turn::text("ok")]);
    let out = env.run_mock(&["-xt", "bash", "--exclude-tools", "read", "go"]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr());
    assert_eq!(declared(&env.bodies()[0]), ["bash", "edit", "write"]);
}

#[test]
fn unknown_long_flags_stop_the_run() {
    let env = Env::new(vec![]);
    // `=` is for extension flags only: a known flag written so is unknown.
    env.run_mock(&["--tools=ls", "go"]).fails_with("Error: Unknown option: --tools\n");
    // The next argument is the unknown flag's value, not a message.
    env.run_mock(&["--foo", "bar"]).fails_with("Error: Unknown option: --foo\n");
    env.run_mock(&["--foo", "--bar=1", "--foo", "go"]).fails_with("Error: Unknown options: --foo, --bar\n");
    env.run_mock(&["---x", "go"]).fails_with("Error: Unknown option: ---x\n");
    // A value flag at the end of the line is not recognised.
    for flag in ["--tools", "--thinking", "--exclude-tools", "--session"] {
        env.run_mock(&["go", flag]).fails_with(&format!("Error: Unknown option: {flag}\n"));
    }
    env.run(&["go", "--model"]).fails_with("Error: Unknown option: --model\n");
    assert!(env.bodies().is_empty());
}

#[test]
fn unknown_flags_are_left_to_a_loaded_extension() {
    let env = Env::new(vec![Turn::text("ok")]);
    let ext = env.work.join("flag.js");
    std::fs::write(&ext, "export default function (pi) { pi.registerFlag(\"plan\", { type: \"boolean\" }); }\n")
        .unwrap();
    // (`--plan go` would take `go` as the flag's value.)
    let out = env.run_mock(&["-e", ext.to_str().unwrap(), "go", "--plan"]);
    assert_eq!((out.code(), out.stdout().as_str()), (Some(0), "ok\n"), "{}", out.stderr());
}

#[test]
fn malformed_options() {
    let env = Env::new(vec![]);
    env.run_mock(&["--mode", "xml", "go"]).fails_with("Error: Invalid mode \"xml\". Valid values: text, json, rpc\n");
    env.run_mock(&["go", "--mode"]).fails_with("Error: --mode requires text, json, or rpc\n");
    env.run_mock(&["--tui-mode", "bad", "go"])
        .fails_with("Error: Invalid TUI mode \"bad\". Valid values: regular, fullscreen\n");
    env.run_mock(&["go", "--use-theme"]).fails_with("Error: --use-theme requires a theme name\n");
    env.run_mock(&["go", "-t"]).fails_with("Error: Unknown option: -t\n");
    env.run_mock(&["-", "go"]).fails_with("Error: Unknown option: -\n");
    env.run_mock(&["--name", " ", "go"]).fails_with("Error: --name requires a non-empty value\n");
    // Every problem of the line is reported, warnings too.
    env.run_mock(&["--thinking", "bad", "--mode", "xml", "-z", "go"]).fails_with(concat!(
        "Warning: Invalid thinking level \"bad\". Valid values: off, minimal, low, medium, high, xhigh, max\n",
        "Error: Invalid mode \"xml\". Valid values: text, json, rpc\n",
        "Error: Unknown option: -z\n"
    ));
    env.run_raw(&["--mode", "rpc", "--offline", "--no-session", "--model", "mock/mock-1", "@x"], None)
        .fails_with("Error: @file arguments are not supported in RPC mode\n");
    assert!(env.bodies().is_empty());
}

#[test]
fn provider_and_api_key_need_a_model() {
    let env = Env::new(vec![]);
    env.run(&["--provider", "mock", "go"])
        .fails_with("Error: --provider requires --model (for example: --provider mock --model <pattern>)\n");
    env.run(&["--api-key", "k", "go"])
        .fails_with("Error: --api-key requires a model to be specified via --model, --provider/--model, or --models\n");
    env.run(&["--provider", "nosuch", "--model", "x", "go"])
        .fails_with("Error: Unknown provider \"nosuch\". Use --list-models to see available providers/models.\n");
    assert!(env.bodies().is_empty());
}

#[test]
fn an_unknown_id_on_a_known_provider_is_used_as_is() {
    let env = Env::new(vec![Turn::text("ok")]);
    let out = env.run(&["--model", "mock/nope", "go"]);
    assert_eq!(out.code(), Some(0));
    assert_eq!(out.stderr(), "Warning: Model \"nope\" not found for provider \"mock\". Using custom model id.\n");
    assert_eq!(out.stdout(), "ok\n");
    assert_eq!(env.bodies()[0]["model"], "nope");
}

#[test]
fn no_message_sends_nothing() {
    let env = Env::new(vec![]);
    for args in [&[][..], &[""][..]] {
        let out = env.run_mock(args);
        assert_eq!((out.code(), out.stdout(), out.stderr()), (Some(0), String::new(), String::new()), "{args:?}");
    }
    let out = env.run_raw(&["-p", "--offline", "--no-session", "--model", "mock/mock-1"], Some(" \n\t\n"));
    assert_eq!((out.code(), out.stdout(), out.stderr()), (Some(0), String::new(), String::new()));
    assert!(env.bodies().is_empty());
}

#[test]
fn stdin_then_files_then_the_first_message() {
    let env = Env::new(vec![Turn::text("ok"), Turn::text("done")]);
    std::fs::write(env.work.join("a.txt"), "\u{feff}BOM text\n").unwrap();
    std::fs::write(env.work.join("empty.txt"), "").unwrap();
    let out = env.run_raw(
        &["-p", "--offline", "--no-session", "--model", "mock/mock-1", "@a.txt", "@empty.txt", "go", "second"],
        Some("  hello from stdin\n"),
    );
    assert_eq!((out.code(), out.stdout().as_str()), (Some(0), "done\n"), "{}", out.stderr());
    let path = env.work.join("a.txt");
    let bodies = env.bodies();
    assert_eq!(
        user_texts(&bodies[1]),
        [format!("hello from stdin<file name=\"{}\">\nBOM text\n\n</file>\ngo", path.display()), "second".into()]
    );
    // Standard input alone is the message.
    let env = Env::new(vec![Turn::text("ok")]);
    let out = env.run_raw(&["-p", "--offline", "--no-session", "--model", "mock/mock-1"], Some("only stdin\n"));
    assert_eq!(out.code(), Some(0));
    assert_eq!(user_texts(&env.bodies()[0]), ["only stdin"]);
}

#[test]
fn a_missing_file_argument_stops_the_run() {
    let env = Env::new(vec![]);
    let missing = env.work.join("missing.txt");
    env.run_mock(&["@missing.txt", "go"]).fails_with(&format!("Error: File not found: {}\n", missing.display()));
    assert!(env.bodies().is_empty());
}

#[test]
fn image_file_arguments_are_attached_after_the_text() {
    let env = Env::new(vec![Turn::text("ok")]);
    let png = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    )
    .unwrap();
    std::fs::write(env.work.join("i.png"), &png).unwrap();
    let out = env.run_mock(&["@i.png", "describe"]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr());
    let body = &env.bodies()[0];
    let user = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap();
    let abs = env.work.join("i.png");
    // The mock model takes no images: the image becomes the reference's placeholder.
    assert_eq!(
        user["content"],
        serde_json::json!([
            {"type": "text", "text": format!("<file name=\"{}\"></file>\ndescribe", abs.display())},
            {"type": "text", "text": "(image omitted: model does not support images)"},
        ])
    );
}
