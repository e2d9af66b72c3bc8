//! RPC `bash`: a user command fires `user_bash` first (an extension may
//! answer it, and then nothing runs here), works with `--no-tools`, streams
//! `bash_execution_update` events, does not hold up other commands, can be
//! stopped with `abort_bash` or `abort`, and reaches the model on the next
//! prompt (unless `excludeFromContext`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

/// A running `pi --mode rpc` and the records it printed, read on a thread.
struct Rpc {
    child: Child,
    stdin: ChildStdin,
    records: mpsc::Receiver<Value>,
    work: PathBuf,
    _dir: tempfile::TempDir,
}

impl Rpc {
    fn start(server: &MockServer, extra: &[&str], setup: impl FnOnce(&std::path::Path)) -> Rpc {
        let dir = tempfile::tempdir().unwrap();
        let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
        for d in [&home.join(".pi/agent"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        server.write_models_json(&home.join(".pi/agent"), "openai-completions");
        setup(&work);
        let mut args = vec!["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1"];
        args.extend_from_slice(extra);
        let mut child = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &home, &work, &tmp)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout: BufReader<ChildStdout> = BufReader::new(child.stdout.take().unwrap());
        let (tx, records) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Rpc { child, stdin, records, work, _dir: dir }
    }

    fn send(&mut self, v: Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Records until one matches (it included), within 10 s.
    fn until(&self, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self.records.recv_timeout(left).unwrap_or_else(|_| panic!("timed out; saw {seen:#?}"));
            let done = pred(&v);
            seen.push(v);
            if done {
                return seen;
            }
        }
    }

    fn response(&self, id: &str) -> Value {
        self.until(|v| v["type"] == "response" && v["id"] == id).pop().unwrap()
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn output_streams_with_the_id_and_the_result_has_the_reference_shape() {
    let server = MockServer::start(vec![]);
    let mut rpc = Rpc::start(&server, &["--no-tools"], |_| {});
    rpc.send(json!({"id": "b1", "type": "bash", "command": "echo hi; echo err >&2; exit 3"}));
    let seen = rpc.until(|v| v["type"] == "response" && v["id"] == "b1");
    let deltas: String = seen
        .iter()
        .filter(|v| v["type"] == "bash_execution_update")
        .inspect(|v| assert_eq!(v["id"], "b1"))
        .map(|v| v["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "hi\nerr\n");
    let r = seen.last().unwrap();
    assert_eq!(r["success"], true);
    assert_eq!(r["data"], json!({"output": "hi\nerr\n", "exitCode": 3, "cancelled": false, "truncated": false}));
    let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "type", "command", "success", "data"], "id first, as the reference writes it");

    rpc.send(json!({"id": "b2", "type": "bash", "command": "seq 3000"}));
    let r = rpc.response("b2");
    let data = &r["data"];
    assert_eq!(data["truncated"], true);
    let output = data["output"].as_str().unwrap();
    assert!(output.starts_with("1001\n") && output.ends_with("\n3000"), "the last 2000 lines");
    let full = data["fullOutputPath"].as_str().unwrap();
    assert_eq!(std::fs::read_to_string(full).unwrap().lines().count(), 3000);
}

#[test]
fn other_commands_are_answered_while_it_runs_and_abort_stops_it() {
    let server = MockServer::start(vec![]);
    let mut rpc = Rpc::start(&server, &[], |_| {});
    for (n, stop) in [(1, "abort_bash"), (2, "abort")] {
        let id = format!("b{n}");
        rpc.send(json!({"id": id, "type": "bash", "command": "echo started; sleep 30"}));
        rpc.until(|v| v["type"] == "bash_execution_update" && v["id"] == id.as_str());
        let t0 = Instant::now();
        rpc.send(json!({"id": format!("s{n}"), "type": "get_state"}));
        let state = rpc.response(&format!("s{n}"));
        assert!(t0.elapsed() < Duration::from_secs(2), "get_state waited for the command");
        assert_eq!(state["success"], true);
        let t0 = Instant::now();
        rpc.send(json!({"id": format!("a{n}"), "type": stop}));
        let r = rpc.response(&id);
        assert!(t0.elapsed() < Duration::from_secs(1), "{stop} took {:?}", t0.elapsed());
        assert_eq!(r["data"], json!({"output": "started\n", "cancelled": true, "truncated": false}));
    }
}

#[test]
fn a_user_bash_handler_answers_instead_of_the_shell_and_the_model_reads_the_records() {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let ext = r#"export default function (pi) {
  pi.on("user_bash", (event) => {
    if (event.command.startsWith("remote ")) {
      return { result: { output: `ran ${event.command} in ${event.cwd}`, exitCode: 0, cancelled: false, truncated: false } };
    }
  });
}
"#;
    let mut rpc = Rpc::start(&server, &["--no-tools", "-e", "ext.ts"], |work| {
        std::fs::write(work.join("ext.ts"), ext).unwrap();
    });
    let marker = rpc.work.join("marker");
    rpc.send(json!({"id": "b1", "type": "bash", "command": format!("remote touch {}", marker.display())}));
    let r = rpc.response("b1");
    let expected = format!("ran remote touch {} in {}", marker.display(), rpc.work.display());
    assert_eq!(r["data"]["output"], expected.as_str());
    assert!(!marker.exists(), "the handler's answer replaced the local run");
    rpc.send(json!({"id": "b2", "type": "bash", "command": "echo local"}));
    assert_eq!(rpc.response("b2")["data"]["output"], "local\n");
    rpc.send(json!({"id": "b3", "type": "bash", "command": "echo hidden", "excludeFromContext": true}));
    rpc.response("b3");
    rpc.send(json!({"id": "m", "type": "get_messages"}));
    let messages = rpc.response("m")["data"]["messages"].clone();
    assert_eq!(messages.as_array().unwrap().len(), 3);
    assert_eq!(messages[2]["role"], "bashExecution");
    assert_eq!(messages[2]["excludeFromContext"], true);

    rpc.send(json!({"id": "p", "type": "prompt", "message": "go"}));
    rpc.until(|v| v["type"] == "agent_settled");
    let body = &server.requests()[0].body;
    let texts: Vec<String> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"][0]["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        texts,
        [
            format!("Ran `remote touch {}`\n```\n{expected}\n```", marker.display()),
            "Ran `echo local`\n```\nlocal\n\n```".into(),
            "go".into()
        ]
    );
}
