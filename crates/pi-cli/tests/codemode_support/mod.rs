//! Shared by the codemode and tool_search end-to-end tests: a scratch home
//! and working folder, `pi -p` against the mock model, and readers of what
//! the model was sent.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pi_test_support::{MockServer, RecordedRequest, Turn};
use serde_json::{Value, json};

pub struct Env {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub work: PathBuf,
    pub tmp: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        let tmp = dir.path().join("tmp");
        for d in [&home.join(".pi/agent"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        Env { dir, home, work, tmp }
    }

    pub fn agent_dir(&self) -> PathBuf {
        self.home.join(".pi/agent")
    }

    /// Write the user settings (retries are always off).
    pub fn settings(&self, mut v: Value) {
        v["retry"] = json!({"enabled": false});
        std::fs::write(self.agent_dir().join("settings.json"), v.to_string()).unwrap();
    }

    /// Copy a fixture of `crates/pi-codemode/tests/fixtures` into the working folder.
    pub fn fixture(&self, name: &str) -> String {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../pi-codemode/tests/fixtures").join(name);
        std::fs::copy(src, self.work.join(name)).unwrap();
        format!("./{name}")
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &self.tmp);
        c.args(args);
        c
    }

    /// `pi -p` against `server` with `args`; the server must be running.
    pub fn run(&self, server: &MockServer, args: &[&str]) -> Output {
        server.write_models_json(&self.agent_dir(), "openai-completions");
        if !self.agent_dir().join("settings.json").exists() {
            self.settings(json!({}));
        }
        let mut base = vec!["-p", "--offline", "--model", "mock/mock-1"];
        base.extend_from_slice(args);
        base.push("go");
        self.cmd(&base).stdin(Stdio::null()).output().unwrap()
    }
}

/// One `codemode` call with `code`, then a final text turn.
pub fn script(code: &str) -> Vec<Turn> {
    vec![Turn::tool("codemode", json!({ "code": code })), Turn::text("done")]
}

/// The `role: "tool"` contents of the last request, in order.
pub fn tool_texts(server: &MockServer) -> Vec<String> {
    let reqs = server.requests();
    let last = reqs.last().expect("a request");
    tool_texts_of(last)
}

pub fn tool_texts_of(req: &RecordedRequest) -> Vec<String> {
    req.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// The only tool result of the run, with its wall time masked.
pub fn result(server: &MockServer) -> String {
    let texts = tool_texts(server);
    assert_eq!(texts.len(), 1, "{texts:?}");
    mask(&texts[0])
}

/// `Wall time N seconds` → `Wall time X seconds`.
pub fn mask(s: &str) -> String {
    s.split('\n')
        .map(|l| if l.starts_with("Wall time ") && l.ends_with(" seconds") { "Wall time X seconds" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names of the tools declared in request `n`.
pub fn declared(server: &MockServer, n: usize) -> Vec<String> {
    let reqs = server.requests();
    reqs[n].body["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["function"]["name"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// The description tool `name` was declared with in request `n`.
pub fn description(server: &MockServer, n: usize, name: &str) -> String {
    let reqs = server.requests();
    reqs[n].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == name)
        .map(|t| t["function"]["description"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("{name} not declared"))
}

/// The session files in `dir`.
pub fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(session_files(&p));
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    out
}

/// The entries of a session file.
pub fn entries(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}
