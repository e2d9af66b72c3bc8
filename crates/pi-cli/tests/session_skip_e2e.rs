//! `--continue` passes over newer files in the session folder that are not
//! sessions (garbage, a FIFO), with a warning naming each, and continues the
//! newest real session; `--resume` lists it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use pi_test_support::{MockServer, Scratch, Turn};

#[test]
fn continue_skips_a_garbage_and_a_fifo_newest_file_with_a_warning() {
    let server = MockServer::start(vec![Turn::text("continued")]);
    let scratch = Scratch::new(&server);
    let dir = scratch.agent_dir().join("sessions").join(pi_agent::session::encode_cwd(&scratch.work));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("2026-01-01T00-00-00-000Z_aaaaaaaa-0000-7000-8000-000000000000.jsonl");
    let header = serde_json::json!({"type": "session", "version": 3, "id": "aaaaaaaa-0000-7000-8000-000000000000",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": scratch.work});
    let first = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"the first question"}],"timestamp":1}}"#;
    std::fs::write(&good, format!("{header}\n{first}\n")).unwrap();
    let garbage = dir.join("2026-01-02T00-00-00-000Z_bbbbbbbb-0000-7000-8000-000000000000.jsonl");
    std::fs::write(&garbage, "\u{0}garbage, not a session\n").unwrap();
    let fifo = dir.join("2026-01-03T00-00-00-000Z_cccccccc-0000-7000-8000-000000000000.jsonl");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());

    let out = scratch
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--model", "mock/mock-1", "--continue", "next"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "continued");
    for bad in [&garbage, &fifo] {
        let warning = format!("Warning: Skipped {}: not a session file", bad.display());
        assert!(err.contains(&warning), "a warning names {}: {err}", bad.display());
    }
    // The earlier conversation went to the model, and the answer was recorded in that file.
    let sent = server.requests();
    assert!(sent[0].body["messages"].to_string().contains("the first question"));
    assert!(std::fs::read_to_string(&good).unwrap().contains("continued"));
    assert_eq!(std::fs::read_to_string(&garbage).unwrap(), "\u{0}garbage, not a session\n", "left as it was");

    let out = scratch.pi(env!("CARGO_BIN_EXE_pi")).args(["--offline", "--resume", "-p", "x"]).output().unwrap();
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(listing.contains(&good.display().to_string()), "{listing}");
    assert!(!listing.contains("bbbbbbbb") && !listing.contains("cccccccc"), "{listing}");
}
