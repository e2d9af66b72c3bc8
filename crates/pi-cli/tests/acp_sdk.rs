//! ACP mode driven by the official ACP TypeScript SDK's client
//! (`@agentclientprotocol/sdk`, installed from npm into `PI_ACP_SDK`, as
//! `.ci/run` does): initialize, a session, a prompt with an edit (its diff),
//! a permission question answered each way, cancel in the middle of a tool,
//! a slash command, mode and model, and the session loaded by a second
//! connection. Skips without node or the SDK, unless `PI_ACP_SDK_REQUIRED`
//! is set (CI sets it once the install succeeded).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

/// Asks before `echo` commands, as permission-gate asks before risky ones.
const ASKING_EXTENSION: &str = r#"export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash" || !event.input.command.startsWith("echo")) return;
    const ok = await ctx.ui.confirm("Run a command?", event.input.command);
    if (!ok) return { block: true, reason: "The user said no" };
  });
}
"#;

fn sdk() -> Option<PathBuf> {
    let dir = std::env::var_os("PI_ACP_SDK")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/pi-acp-sdk")))?;
    let ok = dir.join("node_modules/@agentclientprotocol/sdk/package.json").is_file()
        && std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("PI_ACP_SDK_REQUIRED").is_none(),
            "the ACP SDK is required but not installed in {dir:?}"
        );
        eprintln!("the ACP SDK is not installed in {dir:?}; skipping");
        return None;
    }
    Some(dir)
}

#[test]
fn the_official_client_drives_a_whole_session() {
    let Some(sdk) = sdk() else { return };
    let server = MockServer::start(vec![
        Turn::tool("edit", json!({"path": "a.txt", "edits": [{"oldText": "hello", "newText": "bye"}]})),
        Turn::text("edited"),
        Turn::tool("bash", json!({"command": "echo one > one.txt"})),
        Turn::text("ran"),
        Turn::tool("bash", json!({"command": "echo two > two.txt"})),
        Turn::text("refused"),
        Turn::tool("bash", json!({"command": "sleep 20"})),
    ]);
    let scratch = Scratch::new(&server);
    std::fs::write(scratch.work.join("a.txt"), "hello\n").unwrap();
    std::fs::write(scratch.work.join("ask.ts"), ASKING_EXTENSION).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp/client.mjs");
    let out = scratch
        .pi("node")
        .arg(&script)
        .arg(&sdk)
        .arg(env!("CARGO_BIN_EXE_pi"))
        .arg(&scratch.work)
        .args(["--offline", "--model", "mock/mock-1", "-e", "ask.ts"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let seen: Value = serde_json::from_slice(out.stdout.trim_ascii()).unwrap();
    let first = &seen["first"];
    assert_eq!(first["protocolVersion"], 1);
    assert_eq!(first["loadSession"], true);
    assert_eq!(first["stops"], json!(["end_turn", "end_turn", "end_turn", "cancelled", "end_turn"]), "{seen}");
    assert_eq!(first["diff"], json!({"type": "diff", "path": "a.txt", "oldText": "hello\n", "newText": "bye\n"}));
    assert_eq!(
        first["asked"],
        json!([["allow_once", "allow_always", "reject_once"], ["allow_once", "allow_always", "reject_once"]])
    );
    assert!(scratch.work.join("one.txt").exists(), "allowed: ran");
    assert!(!scratch.work.join("two.txt").exists(), "rejected: did not run");
    assert!(first["cancelMs"].as_u64().unwrap() < 15_000, "{seen}");
    assert!(first["said"].as_str().unwrap().starts_with("Session: "), "{seen}");
    for c in ["compact", "session", "name", "export"] {
        assert!(first["commands"].as_array().unwrap().contains(&json!(c)), "{c}: {seen}");
    }
    assert_eq!(first["configIds"], json!(["model", "thought_level"]));
    let load = &seen["load"];
    assert_eq!(load["users"], json!(["edit a.txt", "run one", "run two", "sleep"]), "{seen}");
    assert_eq!(load["tools"][0], "edit");
}
