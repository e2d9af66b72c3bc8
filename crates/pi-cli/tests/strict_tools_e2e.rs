//! End-to-end: strict tool declarations (`constrainedSampling`) through the
//! `pi` binary against the mock model on each wire API, as the reference
//! declares them (measured with Pi 1.6.0 against a scripted server).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn};
use serde_json::{Value, json};

/// A scratch install whose model has `compat`, on `api`.
fn setup(server: &MockServer, api: &str, compat: Value) -> Scratch {
    let s = Scratch::new(server);
    server.write_models_json_with(&s.agent_dir(), api, json!({"compat": compat}));
    s
}

fn run(s: &Scratch, args: &[&str]) -> Output {
    s.pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The declared tools of the first request, by name, as `(name, tool)`.
fn declared(server: &MockServer) -> Vec<(String, Value)> {
    let body = &server.requests()[0].body;
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t.get("function").unwrap_or(t)["name"].as_str().unwrap().to_string();
            (name, t.clone())
        })
        .collect()
}

fn tool<'a>(tools: &'a [(String, Value)], name: &str) -> &'a Value {
    &tools.iter().find(|(n, _)| n == name).unwrap().1
}

const STRICT_READ: &str = r#"{"type":"object","required":["path","offset","limit"],"properties":{"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},"offset":{"anyOf":[{"type":"number","description":"Line number to start reading from (1-indexed)"},{"type":"null"}]},"limit":{"anyOf":[{"type":"number","description":"Maximum number of lines to read"},{"type":"null"}]}},"additionalProperties":false}"#;

#[test]
fn completions_with_strict_mode_send_strict_schemas_and_null_means_absent() {
    let server = MockServer::start(vec![
        Turn::tool("read", json!({"path": "f.txt", "offset": 2, "limit": null})),
        Turn::text("done"),
    ]);
    let s = setup(&server, "openai-completions", json!({"supportsStrictMode": true}));
    std::fs::write(s.work.join("f.txt"), "a\nb\nc\n").unwrap();
    let out = run(&s, &["--tools", "read,bash,grep", "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tools = declared(&server);
    let read = &tool(&tools, "read")["function"];
    assert_eq!(read["strict"], json!(true));
    assert_eq!(serde_json::to_string(&read["parameters"]).unwrap(), STRICT_READ);
    assert_eq!(tool(&tools, "bash")["function"]["strict"], json!(true));
    // grep does not ask for strict sampling: declared as it is, `strict: false`.
    let grep = &tool(&tools, "grep")["function"];
    assert_eq!(grep["strict"], json!(false));
    assert!(grep["parameters"].get("additionalProperties").is_none());
    // The optional `limit` sent as null reads as absent.
    let second = &server.requests()[1].body;
    let result = second["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(result["content"], "b\nc\n");
}

#[test]
fn without_the_switch_no_tool_has_a_strict_key_but_the_system_message_records_the_wish() {
    let server = MockServer::start(vec![Turn::text("done")]);
    let s = setup(&server, "openai-completions", json!({}));
    let out = run(&s, &["--mode", "json", "--tools", "read,grep", "go"]);
    assert!(out.status.success());
    for (name, t) in declared(&server) {
        assert!(t["function"].get("strict").is_none(), "{name}: {t}");
    }
    let system = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "system")
        .unwrap();
    let added = system["message"]["toolsAdded"].as_array().unwrap();
    assert_eq!(added[0]["name"], "read");
    assert_eq!(added[0]["constrainedSampling"], json!({"type": "json_schema", "strict": "prefer"}));
    // Key order as the reference's: after `parameters`.
    let keys: Vec<&String> = added[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "parameters", "constrainedSampling"]);
    assert!(added[1].get("constrainedSampling").is_none(), "grep: {}", added[1]);
}

#[test]
fn anthropic_and_responses_declare_strict_tools_their_way() {
    let server = MockServer::start(vec![Turn::text("done")]);
    let s = setup(&server, "anthropic-messages", json!({"supportsStrictTools": true}));
    run(&s, &["--tools", "read,grep", "go"]);
    let tools = declared(&server);
    let read = tool(&tools, "read");
    let keys: Vec<&String> = read.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "eager_input_streaming", "strict", "input_schema"]);
    assert_eq!(serde_json::to_string(&read["input_schema"]).unwrap(), STRICT_READ);
    assert!(tool(&tools, "grep").get("strict").is_none());

    let server = MockServer::start(vec![Turn::text("done")]);
    let s = setup(&server, "openai-responses", json!({"supportsStrictMode": true}));
    run(&s, &["--tools", "read,grep", "go"]);
    let tools = declared(&server);
    let read = tool(&tools, "read");
    assert_eq!((&read["type"], &read["strict"]), (&json!("function"), &json!(true)));
    assert_eq!(serde_json::to_string(&read["parameters"]).unwrap(), STRICT_READ);
    assert_eq!(tool(&tools, "grep")["strict"], json!(false));
}

/// An extension registering tools with `constrainedSampling`.
const EXTENSION: &str = r#"
export default function (pi) {
  const tool = (name, parameters, constrainedSampling) => pi.registerTool({
    name, label: name, description: name, parameters, constrainedSampling,
    async execute() { return { content: [{ type: "text", text: "ok" }], details: {} }; },
  });
  const open = { type: "object", properties: { a: { type: "object", patternProperties: { "^x": { type: "string" } } } } };
  tool("prefers", open, { type: "json_schema", strict: "prefer" });
  tool("closed", { type: "object", properties: { a: { type: "string" } } }, { type: "json_schema", strict: "prefer" });
  if (process.env.REQUIRE_OPEN) tool("requires", open, { type: "json_schema", strict: "require" });
}
"#;

#[test]
fn an_extension_tool_prefers_or_requires_strict_sampling() {
    let server = MockServer::start(vec![Turn::text("done")]);
    let s = setup(&server, "openai-completions", json!({"supportsStrictMode": true}));
    let ext = s.work.join("cs.js");
    std::fs::write(&ext, EXTENSION).unwrap();
    let ext = ext.to_str().unwrap();
    let out = run(&s, &["-e", ext, "--tools", "prefers,closed", "go"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tools = declared(&server);
    // A schema strict mode cannot express falls back to the plain one.
    let prefers = &tool(&tools, "prefers")["function"];
    assert_eq!(prefers["strict"], json!(false));
    assert!(prefers["parameters"]["properties"]["a"].get("patternProperties").is_some());
    let closed = &tool(&tools, "closed")["function"];
    assert_eq!(closed["strict"], json!(true));
    assert_eq!(closed["parameters"]["properties"]["a"], json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));

    // Requiring it: the request fails before anything is sent, with the reason.
    let server = MockServer::start(vec![Turn::text("done")]);
    let s = setup(&server, "openai-completions", json!({"supportsStrictMode": true}));
    let out = s
        .pi(env!("CARGO_BIN_EXE_pi"))
        .args(["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", ext, "go"])
        .env("REQUIRE_OPEN", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "Tool \"requires\" requires JSON-schema constrained sampling, but patternProperties schemas are unsupported."
    );
    assert!(server.requests().is_empty());
}
