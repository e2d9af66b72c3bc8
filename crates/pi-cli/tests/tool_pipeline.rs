//! `pi tool` takes the one dispatch path: `-e` policies and extensions see
//! (and may block or change) its call, an `-e` extension's tool can be called
//! by name, and the exit status says how the call went.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::common;

use std::path::Path;

use common::{pi, write};
use serde_json::{Value, json};

/// `pi tool <args…>` in `dir`: the printed JSON (Null when none), stderr, the exit code.
fn tool(dir: &Path, args: &[&str]) -> (Value, String, i32) {
    let out = pi().arg("tool").args(args).arg("--cwd").arg(dir).output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (json, String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code().unwrap_or(-1))
}

fn text(v: &Value) -> &str {
    v["content"][0]["text"].as_str().unwrap_or("")
}

#[test]
fn a_shipped_policy_given_with_e_blocks_the_call_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    let command = json!({ "command": format!("rm -rf {}", victim.display()) }).to_string();
    let (v, _, code) = tool(dir.path(), &["bash", &command, "-e", "builtin:permission-gate"]);
    assert_eq!(code, 1);
    assert_eq!(v["isError"], true);
    assert_eq!(text(&v), "Dangerous command blocked (no UI for confirmation)");
    assert!(victim.exists(), "the command never ran");
    // Without the policy the same call runs.
    let (v, _, code) = tool(dir.path(), &["bash", &command]);
    assert_eq!((code, v["isError"].as_bool()), (0, Some(false)));
    assert!(!victim.exists());
}

#[test]
fn an_extensions_tool_call_handler_sees_and_changes_pi_tool_calls() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "watch.ts",
        r#"export default function (pi) {
  pi.on("tool_call", async (event) => {
    if (event.toolName === "read" && event.input.path === "secret.txt") {
      return { block: true, reason: `no ${event.toolName} of ${event.input.path} (${event.toolCallId})` };
    }
    if (event.toolName === "ls") event.input.path = "sub";
  });
}
"#,
    );
    write(dir.path(), "secret.txt", "s3cret");
    write(dir.path(), "sub/inner.txt", "x");
    let (v, _, code) = tool(dir.path(), &["read", r#"{"path": "secret.txt"}"#, "-e", "watch.ts"]);
    assert_eq!(code, 1);
    assert_eq!(text(&v), "no read of secret.txt (pi-tool-1)");
    let (v, _, code) = tool(dir.path(), &["ls", "{}", "--extension", "watch.ts"]);
    assert_eq!(code, 0);
    assert_eq!(text(&v), "inner.txt", "the handler's change of the input reached the tool");
}

#[test]
fn an_extensions_own_tool_is_callable_and_validated() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "greet.ts",
        r#"import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "greet", label: "Greet", description: "Greets",
    parameters: Type.Object({ who: Type.String() }),
    async execute(_id, p) { return { content: [{ type: "text", text: `hello ${p.who}` }], details: { who: p.who } }; },
  });
}
"#,
    );
    let (v, _, code) = tool(dir.path(), &["greet", r#"{"who": "pi"}"#, "-e", "greet.ts"]);
    assert_eq!((code, text(&v)), (0, "hello pi"));
    assert_eq!(v["details"], json!({ "who": "pi" }));
    let (v, stderr, code) = tool(dir.path(), &["greet", "{}", "-e", "greet.ts"]);
    assert_eq!((code, v), (2, Value::Null));
    assert!(stderr.contains("Validation failed for tool \"greet\""), "{stderr}");
    let (_, stderr, code) = tool(dir.path(), &["greet", "{}"]);
    assert_eq!(code, 2, "without the extension the tool does not exist");
    assert_eq!(stderr.trim(), "Unknown tool name: greet");
}

#[test]
fn a_failing_extension_stops_before_the_call() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.ts", "export default function () { throw new Error('nope'); }");
    write(dir.path(), "f.txt", "x");
    let (v, stderr, code) = tool(dir.path(), &["read", r#"{"path": "f.txt"}"#, "-e", "bad.ts"]);
    assert_eq!((code, v), (1, Value::Null));
    assert!(stderr.starts_with("Error: Failed to load extension") && stderr.contains("nope"), "{stderr}");
    let (_, stderr, code) = tool(dir.path(), &["read", "{}", "-e", "builtin:nope"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("builtin:nope"), "{stderr}");
}
