//! RPC under a model that stalls: an `abort` sent right after `prompt`
//! (before the run has started) ends the run, and no command waits behind
//! a run; random interleavings of prompt, steer, follow_up, abort,
//! abort_bash, get_state and bash are each answered; closing standard
//! input ends pi at once.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::rpc_driver;

use std::time::{Duration, Instant};

use pi_test_support::{MockServer, Scratch, Turn};
use proptest::prelude::*;
use rpc_driver::Rpc;
use serde_json::json;

/// How long any command may take to be answered.
const ANSWER_WITHIN: Duration = Duration::from_secs(1);

/// A model that sends one text chunk, then nothing until the client goes away.
fn stalling(n: usize) -> MockServer {
    MockServer::start((0..n).map(|_| Turn::text("waiting").stall()).collect())
}

#[test]
fn a_hundred_rounds_of_prompt_then_abort_never_wedge_the_loop() {
    const ROUNDS: usize = 100;
    let server = stalling(ROUNDS + 5);
    let scratch = Scratch::new(&server);
    let mut rpc = Rpc::start(&scratch, &[]);
    for i in 0..ROUNDS {
        let (p, a, s) = (format!("p{i}"), format!("a{i}"), format!("s{i}"));
        rpc.send(json!({"id": p, "type": "prompt", "message": format!("round {i}")}));
        rpc.send(json!({"id": a, "type": "abort"}));
        rpc.send(json!({"id": s, "type": "get_state"}));
        for id in [&p, &a, &s] {
            let r = rpc.answer(id, ANSWER_WITHIN).unwrap_or_else(|| panic!("round {i}: no answer to {id} within 1 s"));
            assert_eq!(r["success"], true, "{r}");
        }
        // The run accepted before the abort ended, aborted.
        let settled = rpc.event("agent_settled", ANSWER_WITHIN).unwrap_or_else(|| panic!("round {i}: run not ended"));
        assert_eq!(settled["aborted"], true, "round {i}: {settled}");
    }
    let state = rpc.ask(json!({"type": "get_state"}), ANSWER_WITHIN).expect("still serving");
    assert_eq!(state["data"]["isStreaming"], false, "{state}");
    rpc.close_and_wait(ANSWER_WITHIN);
}

#[test]
fn closing_standard_input_while_the_model_stalls_ends_pi_at_once() {
    let server = stalling(2);
    let scratch = Scratch::new(&server);
    let mut rpc = Rpc::start(&scratch, &[]);
    rpc.send(json!({"id": "p", "type": "prompt", "message": "hi"}));
    rpc.answer("p", ANSWER_WITHIN).expect("prompt answered");
    assert!(server.wait_for_requests(1, Duration::from_secs(5)), "the model was asked");
    let t = Instant::now();
    rpc.close_and_wait(ANSWER_WITHIN);
    assert!(t.elapsed() < ANSWER_WITHIN, "ended after {:?}", t.elapsed());
}

/// One command of the random stream.
#[derive(Clone, Debug)]
enum Cmd {
    Prompt,
    Steer,
    FollowUp,
    Abort,
    AbortBash,
    GetState,
    Bash,
    Pause(u64),
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        3 => Just(Cmd::Prompt),
        2 => Just(Cmd::Steer),
        2 => Just(Cmd::FollowUp),
        3 => Just(Cmd::Abort),
        1 => Just(Cmd::AbortBash),
        2 => Just(Cmd::GetState),
        1 => Just(Cmd::Bash),
        2 => (0u64..40).prop_map(Cmd::Pause),
    ]
}

/// Write the stream without waiting for answers, then an `abort_bash` and an
/// `abort`; every command must be answered, each within a second of the
/// last command that can end a wait (a bash command or a run ends only
/// when aborted).
fn run_stream(stream: &[Cmd]) {
    let server = stalling(stream.len() + 5);
    let scratch = Scratch::new(&server);
    let mut rpc = Rpc::start(&scratch, &[]);
    let mut ids = Vec::new();
    for (i, c) in stream.iter().enumerate() {
        let id = format!("c{i}");
        let msg = format!("message {i}");
        let v = match c {
            Cmd::Prompt => json!({"id": id, "type": "prompt", "message": msg}),
            Cmd::Steer => json!({"id": id, "type": "steer", "message": msg}),
            Cmd::FollowUp => json!({"id": id, "type": "follow_up", "message": msg}),
            Cmd::Abort => json!({"id": id, "type": "abort"}),
            Cmd::AbortBash => json!({"id": id, "type": "abort_bash"}),
            Cmd::GetState => json!({"id": id, "type": "get_state"}),
            Cmd::Bash => json!({"id": id, "type": "bash", "command": "sleep 30"}),
            Cmd::Pause(ms) => {
                std::thread::sleep(Duration::from_millis(*ms));
                continue;
            }
        };
        rpc.send(v);
        ids.push((id, c.clone()));
    }
    // get_state and abort_bash never wait for anything.
    let quick = |c: &Cmd| matches!(c, Cmd::GetState | Cmd::AbortBash);
    for (id, c) in ids.iter().filter(|(_, c)| quick(c)) {
        assert!(rpc.answer(id, ANSWER_WITHIN).is_some(), "{c:?} {id} not answered; stream {stream:?}");
    }
    rpc.send(json!({"id": "end-bash", "type": "abort_bash"}));
    rpc.send(json!({"id": "end", "type": "abort"}));
    let rest = ids.iter().filter(|(_, c)| !quick(c)).map(|(i, c)| (i.clone(), format!("{c:?}")));
    for (id, c) in rest.chain([("end-bash".into(), "AbortBash".into()), ("end".into(), "Abort".into())]) {
        assert!(rpc.answer(&id, ANSWER_WITHIN).is_some(), "{c} {id} not answered; stream {stream:?}");
    }
    let state = rpc.ask(json!({"type": "get_state"}), ANSWER_WITHIN).expect("still serving");
    assert_eq!(state["success"], true);
    rpc.close_and_wait(ANSWER_WITHIN * 2);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_command_streams_over_a_stalling_model_are_all_answered(stream in prop::collection::vec(cmd(), 1..14)) {
        run_stream(&stream);
    }
}
