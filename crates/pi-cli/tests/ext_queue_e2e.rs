//! End-to-end: what extensions queue while a run goes on or ends, as the
//! reference: follow-ups queued by `agent_end` handlers start fresh runs in
//! the order they were queued (print and RPC modes alike), a custom message
//! sent during a run takes a turn, `pi.sendUserMessage` during a run without
//! `deliverAs` is the runtime's error and its handler goes on, and the queues
//! are announced (`queue_update`) as messages join and leave them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::Write;
use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn, read_until, user_texts};
use serde_json::{Value, json};

const PI: &str = env!("CARGO_BIN_EXE_pi");

use crate::common::ext_fixture as fixture;

fn run(s: &Scratch, ext: &str, mode: &[&str], message: &str) -> Output {
    let ext = fixture(ext);
    let mut args = vec!["--offline", "--no-session", "--model", "mock/mock-1", "-e", &ext];
    args.extend_from_slice(mode);
    args.push(message);
    s.pi(PI).args(&args).stdin(Stdio::null()).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn answers() -> Vec<Turn> {
    vec![Turn::text("a"), Turn::text("b"), Turn::text("c"), Turn::text("d"), Turn::text("e")]
}

/// The user texts of each request.
fn sent(server: &MockServer) -> Vec<Vec<String>> {
    server.requests().iter().map(|r| user_texts(&r.body)).collect()
}

const IN_ORDER: [&[&str]; 4] = [&["A"], &["A", "B"], &["A", "B", "C"], &["A", "B", "C", "D"]];

#[test]
fn follow_ups_queued_as_a_run_ends_start_runs_in_the_order_queued() {
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let out = run(&s, "queue-at-end.ts", &["-p"], "A");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(sent(&server), IN_ORDER);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "d", "the last run's answer is printed");

    // The events: "B" opens a fresh run, "C" follows within it (the run would stop), "D" opens
    // another; the queues are announced as messages join and leave them.
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let out = run(&s, "queue-at-end.ts", &["--mode", "json"], "A");
    assert!(out.status.success(), "{}", stderr(&out));
    let events: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "agent_start").count(), 3, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "agent_settled").count(), 1, "one settle at the end: {kinds:?}");
    let queues: Vec<&Value> = events.iter().filter(|e| e["type"] == "queue_update").map(|e| &e["followUp"]).collect();
    assert_eq!(queues, [&json!(["B"]), &json!(["B", "C"]), &json!(["C"]), &json!([]), &json!(["D"]), &json!([])]);
    // A message leaves the queue as it starts: after its run's `turn_start`, before its `message_start`.
    let first_leave = events.iter().position(|e| e["type"] == "queue_update" && e["followUp"] == json!(["C"])).unwrap();
    assert_eq!(kinds[first_leave - 1], "turn_start");
    assert_eq!(events[first_leave + 1]["message"]["content"][0]["text"], "B");
}

#[test]
fn rpc_runs_follow_ups_queued_as_a_run_ends_in_the_same_order() {
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("queue-at-end.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"A"}}"#).unwrap();
    assert_eq!(read_until(&mut out, |v| v["id"] == "1")["data"], json!({"disposition": "started"}));
    read_until(&mut out, |v| v["type"] == "agent_settled");
    assert_eq!(sent(&server), IN_ORDER);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn a_user_message_sent_during_a_run_without_delivery_is_the_runtimes_error_and_the_handler_goes_on() {
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let out = run(&s, "queue-undelivered.ts", &["--mode", "json"], "A");
    assert!(out.status.success(), "{}", stderr(&out));
    let events: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let errors: Vec<&Value> = events.iter().filter(|e| e["type"] == "extension_error").collect();
    let refusal =
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";
    let expected = json!({"type": "extension_error", "extensionPath": "<runtime>", "event": "send_user_message", "error": refusal});
    assert_eq!(errors, [&expected, &expected]);
    assert!(
        events.iter().any(|e| e["type"] == "entry_appended" && e["entry"]["customType"] == "handler-done"),
        "the handler ran to its end"
    );
    assert_eq!(server.requests().len(), 1, "nothing was queued");

    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let out = run(&s, "queue-undelivered.ts", &["-p"], "A");
    let line = format!("Extension error (<runtime>): {refusal}");
    assert_eq!(stderr(&out).lines().filter(|l| *l == line).count(), 2, "{}", stderr(&out));
}

#[test]
fn a_custom_message_sent_during_a_run_takes_a_turn() {
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let out = run(&s, "steer-custom.ts", &["-p"], "A");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(sent(&server), [vec!["A"], vec!["A", "a note"]]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "b");
}

#[test]
fn a_message_held_for_the_next_turn_waits_for_the_next_prompt_and_follows_it() {
    // Print mode: one prompt, so the held message never enters, and the answer is printed.
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let out = run(&s, "next-turn.ts", &["-p"], "A");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(sent(&server), [vec!["A"]]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "a");

    // RPC: the next prompt's run opens with the prompt, then the held message.
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("next-turn.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"A"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "agent_settled");
    writeln!(stdin, r#"{{"id":"2","type":"prompt","message":"B"}}"#).unwrap();
    let held = read_until(&mut out, |v| v["type"] == "message_start" && v["message"]["role"] == "custom");
    assert_eq!(held["message"]["content"], "held");
    read_until(&mut out, |v| v["type"] == "agent_settled");
    assert_eq!(sent(&server), [vec!["A"], vec!["A", "B", "held"]]);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn rpc_runs_an_extension_command_sent_while_a_run_streams() {
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "sleep 1; echo slow"})),
        Turn::text("b"),
        Turn::text("c"),
    ]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("queue-commands.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"A"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "tool_execution_start");
    // No streamingBehavior: a command still runs (as the reference), a plain message is refused.
    writeln!(stdin, r#"{{"id":"2","type":"prompt","message":"/steer S"}}"#).unwrap();
    assert_eq!(read_until(&mut out, |v| v["id"] == "2")["data"], json!({"disposition": "handled"}));
    writeln!(stdin, r#"{{"id":"3","type":"prompt","message":"/later F"}}"#).unwrap();
    assert_eq!(read_until(&mut out, |v| v["id"] == "3")["data"], json!({"disposition": "handled"}));
    writeln!(stdin, r#"{{"id":"4","type":"prompt","message":"plain"}}"#).unwrap();
    let refused = read_until(&mut out, |v| v["id"] == "4");
    assert_eq!(refused["success"], false);
    assert_eq!(
        refused["error"],
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
    );
    read_until(&mut out, |v| v["type"] == "agent_settled");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(user_texts(&requests[1].body), ["A", "S"], "the steered message follows the tool result");
    assert_eq!(user_texts(&requests[2].body), ["A", "S", "F"], "the follow-up once the run would stop");
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn rpc_queues_in_the_order_sent_and_an_abort_keeps_the_queues_as_the_reference() {
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "sleep 5; echo slow"})),
        Turn::text("b"),
        Turn::text("c"),
    ]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &[]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"A"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "tool_execution_start");
    writeln!(stdin, r#"{{"id":"2","type":"steer","message":"S"}}"#).unwrap();
    writeln!(stdin, r#"{{"id":"3","type":"follow_up","message":"F"}}"#).unwrap();
    let first = read_until(&mut out, |v| v["type"] == "queue_update");
    assert_eq!((&first["steering"], &first["followUp"]), (&json!(["S"]), &json!([])), "queued in the order sent");
    read_until(&mut out, |v| v["id"] == "3");
    writeln!(stdin, r#"{{"id":"4","type":"abort"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "agent_settled");
    writeln!(stdin, r#"{{"id":"5","type":"prompt","message":"B"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "agent_settled");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    // The steered message entered the aborted run's last turn; the follow-up waited for the next prompt's run.
    assert_eq!(user_texts(&requests[1].body), ["A", "S", "B"]);
    assert_eq!(user_texts(&requests[2].body), ["A", "S", "B", "F"]);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn images_sent_with_a_steering_message_are_queued_with_it_and_prepared_when_delivered() {
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": "sleep 1; echo slow"})), Turn::text("b")]);
    let s = Scratch::new(&server);
    server.write_models_json_with(&s.agent_dir(), "openai-completions", json!({"input": ["text", "image"]}));
    let (mut child, mut stdin, mut out) = s.rpc(PI, &[]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"A"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "tool_execution_start");
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP4z8AARwzEcQCukw/x0F8jngAAAABJRU5ErkJggg==";
    let steer = json!({"id": "2", "type": "steer", "message": "look", "images": [
        {"type": "image", "data": png, "mimeType": "image/png"},
        {"type": "image", "data": "bm90IGFuIGltYWdl", "mimeType": "image/png"}]});
    writeln!(stdin, "{steer}").unwrap();
    let queued = read_until(&mut out, |v| v["type"] == "queue_update");
    assert_eq!(queued["steering"], json!(["look"]), "the queue lists the text");
    read_until(&mut out, |v| v["type"] == "agent_settled");
    let requests = server.requests();
    let user = requests[1].body["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "user").unwrap();
    assert_eq!(
        user["content"],
        json!([
            {"type": "text", "text": "look\n\n[Image omitted: could not be resized below the inline image size limit.]"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}}
        ])
    );
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn steering_sent_while_a_run_starts_joins_its_first_request_after_the_prompt() {
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let out = run(&s, "queue-at-start.ts", &["--mode", "json"], "A");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(sent(&server), [vec!["A", "S"], vec!["A", "S", "F"]]);
    // As the reference: the steering message leaves its queue after the prompt's events, before its own.
    let events: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let seq: Vec<String> = events
        .iter()
        .filter(|e| e["type"] != "message_update")
        .map(|e| match e["type"].as_str().unwrap() {
            "queue_update" => format!("queue {} {}", e["steering"], e["followUp"]),
            t @ ("message_start" | "message_end") => {
                format!("{t} {}", e["message"]["content"][0]["text"].as_str().unwrap_or_default())
            }
            t => t.to_string(),
        })
        .collect();
    let from = seq.iter().position(|e| e == "message_start A").unwrap();
    assert_eq!(
        seq[from..from + 5],
        ["message_start A", "message_end A", r#"queue [] ["F"]"#, "message_start S", "message_end S"]
    );
}

#[test]
fn rpc_steer_and_follow_up_while_idle_wait_for_the_next_run_and_refuse_an_extension_command() {
    let server = MockServer::start(answers());
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("queue-commands.ts")]);
    // As the reference: an extension command cannot be queued.
    writeln!(stdin, r#"{{"id":"c","type":"steer","message":"/steer now"}}"#).unwrap();
    let refused = read_until(&mut out, |v| v["id"] == "c");
    assert_eq!(
        refused["error"],
        "Extension command \"/steer\" cannot be queued. Use prompt() or execute the command when not streaming."
    );
    // Idle: queued, no run starts.
    writeln!(stdin, r#"{{"id":"1","type":"steer","message":"S"}}"#).unwrap();
    assert_eq!(read_until(&mut out, |v| v["id"] == "1")["data"], json!({"disposition": "queued"}));
    writeln!(stdin, r#"{{"id":"2","type":"follow_up","message":"F"}}"#).unwrap();
    assert_eq!(read_until(&mut out, |v| v["id"] == "2")["data"], json!({"disposition": "queued"}));
    writeln!(stdin, r#"{{"id":"3","type":"get_state"}}"#).unwrap();
    let state = read_until(&mut out, |v| v["id"] == "3");
    assert_eq!(state["data"]["pendingMessageCount"], 2);
    assert!(server.requests().is_empty(), "nothing ran");
    // The next prompt's run takes them: steering in its first request, the follow-up once it would stop.
    writeln!(stdin, r#"{{"id":"4","type":"prompt","message":"B"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "agent_settled");
    assert_eq!(sent(&server), [vec!["B", "S"], vec!["B", "S", "F"]]);
    drop(stdin);
    let _ = child.wait();
}
