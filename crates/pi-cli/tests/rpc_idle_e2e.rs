//! RPC with an extension loaded, on timing the reference's clients rely on:
//! a message an extension sends from a background callback while pi is idle
//! reaches the client at once (not with the next prompt), and a prompt sent
//! as soon as `agent_end` is out is accepted, every time.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, Write};
use std::process::ChildStdin;
use std::sync::mpsc;
use std::time::Duration;

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

struct Rpc {
    child: std::process::Child,
    stdin: ChildStdin,
    records: mpsc::Receiver<Value>,
}

impl Rpc {
    fn start(s: &Scratch, extension: &std::path::Path) -> Rpc {
        let ext = extension.to_string_lossy().into_owned();
        let (mut child, stdin, out) = s.rpc(env!("CARGO_BIN_EXE_pi"), &["-e", &ext]);
        let (tx, records) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        let _ = &mut child;
        Rpc { child, stdin, records }
    }

    fn send(&mut self, v: Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Records until one matches `want`; the match.
    fn until(&self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self.records.recv_timeout(WAIT).unwrap_or_else(|_| panic!("no {what}"));
            if want(&v) {
                return v;
            }
        }
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_message_sent_while_idle_reaches_the_client_at_once() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let ext = s.work.join("bg.ts");
    std::fs::write(
        &ext,
        r#"export default function (pi: any) {
  pi.on("session_start", () => {
    setTimeout(() => pi.sendMessage({ customType: "bg", content: "tick", display: true }, { triggerTurn: false }), 300);
  });
}
"#,
    )
    .unwrap();
    let rpc = Rpc::start(&s, &ext);
    // No command is sent: the message comes by itself.
    let end = rpc.until("the background message", |v| v["type"] == "message_end" && v["message"]["customType"] == "bg");
    assert_eq!(end["message"]["content"], "tick");
    assert!(server.requests().is_empty(), "triggerTurn false: nothing is sent to the model");
}

#[test]
fn a_prompt_sent_once_agent_end_is_out_is_accepted() {
    let server = MockServer::start((0..5).map(|i| Turn::text(&format!("answer {i}"))).collect());
    let s = Scratch::new(&server);
    let ext = s.work.join("settle.ts");
    // Handlers that keep the ending run busy a little after agent_end.
    std::fs::write(
        &ext,
        r#"export default function (pi: any) {
  pi.on("agent_end", async () => { await new Promise((r) => setTimeout(r, 50)); });
  pi.on("agent_settled", async () => { await new Promise((r) => setTimeout(r, 50)); });
}
"#,
    )
    .unwrap();
    let mut rpc = Rpc::start(&s, &ext);
    for i in 0..5 {
        let id = format!("p{i}");
        rpc.send(json!({"id": id, "type": "prompt", "message": format!("hello {i}")}));
        let answer = rpc.until("the prompt's answer", |v| v["type"] == "response" && v["id"] == id.as_str());
        assert_eq!(answer["success"], true, "prompt {i} refused: {answer}");
        rpc.until("agent_end", |v| v["type"] == "agent_end");
    }
    assert!(server.wait_for_requests(5, WAIT), "every prompt reached the model");
}

#[test]
fn a_message_that_triggers_a_turn_while_idle_starts_the_run() {
    let server = MockServer::start(vec![Turn::text("answered")]);
    let s = Scratch::new(&server);
    let ext = s.work.join("trigger.ts");
    std::fs::write(
        &ext,
        r#"export default function (pi: any) {
  pi.on("session_start", () => {
    setTimeout(() => pi.sendMessage({ customType: "bg", content: "look", display: true }, { triggerTurn: true }), 300);
  });
}
"#,
    )
    .unwrap();
    let rpc = Rpc::start(&s, &ext);
    rpc.until("agent_end", |v| v["type"] == "agent_end");
    assert!(server.wait_for_requests(1, WAIT));
    let body = &server.requests()[0].body;
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user", "the custom message is sent as the reference sends it: {last}");
}

#[test]
fn a_commands_message_that_triggers_a_turn_is_recorded_inside_the_run() {
    let server = MockServer::start(vec![Turn::text("seen")]);
    let s = Scratch::new(&server);
    let ext = s.work.join("go.ts");
    std::fs::write(
        &ext,
        r#"export default function (pi: any) {
  pi.registerCommand("go", { description: "trigger", handler: async () => {
    pi.sendMessage({ customType: "note", content: "look at this", display: true }, { triggerTurn: true });
  } });
}
"#,
    )
    .unwrap();
    let mut rpc = Rpc::start(&s, &ext);
    rpc.send(json!({"id": "p", "type": "prompt", "message": "/go"}));
    let mut seen = Vec::new();
    loop {
        let v = rpc.until("a record", |_| true);
        let role = v["message"]["role"].as_str().unwrap_or_default().to_string();
        seen.push(format!("{} {role}", v["type"].as_str().unwrap_or_default()).trim().to_string());
        if v["type"] == "agent_end" {
            break;
        }
    }
    // Recorded with Pi 1.6.0: the answer first, the note inside the run after the system message.
    let head: Vec<&str> = seen.iter().map(String::as_str).take(7).collect();
    assert_eq!(
        head,
        [
            "response",
            "agent_start",
            "turn_start",
            "message_start system",
            "message_end system",
            "message_start custom",
            "message_end custom"
        ],
        "{seen:?}"
    );
}
