//! RPC `switch_session` to a session whose working folder no longer exists
//! is refused with the reference's message (as `--session` refuses it), and
//! the current session stays.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::rpc_driver;

use std::time::Duration;

use pi_test_support::{MockServer, Scratch, Turn};
use rpc_driver::Rpc;
use serde_json::json;

#[test]
fn switching_to_a_session_whose_folder_is_gone_is_refused() {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let scratch = Scratch::new(&server);
    let gone = scratch.tmp.join("moved-away");
    let file = scratch.tmp.join("old.jsonl");
    let header = json!({"type": "session", "version": 3, "id": "aaaaaaaa-0000-7000-8000-000000000000",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": gone});
    std::fs::write(&file, format!("{header}\n")).unwrap();
    let mut rpc = Rpc::start(&scratch, &[]);
    let before = rpc.ask(json!({"type": "get_state"}), Duration::from_secs(5)).unwrap();
    let r = rpc.ask(json!({"type": "switch_session", "sessionPath": file}), Duration::from_secs(5)).unwrap();
    assert_eq!(r["success"], false, "{r}");
    let want = format!(
        "Stored session working directory does not exist: {}\nSession file: {}\nCurrent working directory: {}",
        gone.display(),
        file.display(),
        scratch.work.display()
    );
    assert_eq!(r["error"], want);
    let after = rpc.ask(json!({"type": "get_state"}), Duration::from_secs(5)).unwrap();
    assert_eq!(after["data"]["sessionId"], before["data"]["sessionId"], "the session stayed");
    assert!(!gone.exists(), "the folder was not made again");
    rpc.close_and_wait(Duration::from_secs(5));
}
