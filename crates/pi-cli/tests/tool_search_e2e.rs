#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! tool_search and the selection of codemode and tool_search through the
//! real binary: ranking, loading (declared from the next request, recorded
//! in the session, kept on resume), errors, `--tools '*'`, patterns,
//! modifiers, `defaultTools`, `-builtin:<name>` and `/reload`.

use crate::codemode_support;

use codemode_support::{Env, declared, tool_texts};
use pi_test_support::{MockServer, ToolCallSpec, Turn};
use serde_json::json;

fn search(query: serde_json::Value) -> ToolCallSpec {
    ToolCallSpec::new("tool_search", query)
}

#[test]
fn search_loads_the_matches_for_the_next_request_and_only_once() {
    let env = Env::new();
    let ext = env.fixture("deferred.ts");
    let server = MockServer::start(vec![
        Turn::tools(vec![search(json!({"query": "search issues"}))]),
        Turn::tools(vec![
            ToolCallSpec::new("gh__search_issues", json!({"repo": "a/b", "query": "x"})),
            search(json!({"query": "search issues"})),
            search(json!({"query": "  "})),
            search(json!({"query": "weather", "limit": 1.5})),
            search(json!({"query": "weather", "limit": 0})),
        ]),
        Turn::tools(vec![search(json!({"query": "notes weather pull requests", "limit": 5}))]),
        Turn::text("done"),
    ]);
    let out = env.run(&server, &["--no-session", "-e", &ext, "--tools", "+tool_search"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(declared(&server, 0), ["read", "bash", "edit", "write", "tool_search"], "not active by default");
    assert_eq!(
        declared(&server, 1),
        ["read", "bash", "edit", "write", "tool_search", "gh__search_issues", "gh__get_pull_request"]
    );
    let texts = tool_texts(&server);
    assert_eq!(
        texts[0],
        "Loaded 2 tools. They are available from your next call:\n- gh__search_issues: Search issues in a repository.\n- gh__get_pull_request: Fetch one pull request with its reviews."
    );
    assert_eq!(texts[1], "issues {\"repo\":\"a/b\",\"query\":\"x\"}", "a loaded tool is callable");
    assert_eq!(texts[2], "No matching tools found.", "loaded tools are no longer candidates");
    assert_eq!(texts[3], "query must not be empty");
    assert_eq!(texts[4], "limit must be a positive integer");
    assert_eq!(texts[5], "limit must be a positive integer");
    assert_eq!(
        texts[6],
        "Loaded 2 tools. They are available from your next call:\n- notes_add: Add a note to the notebook.\n- weather-now: Current weather for a city."
    );
}

#[test]
fn loaded_tools_are_recorded_and_kept_by_a_resumed_session() {
    let env = Env::new();
    let ext = env.fixture("deferred.ts");
    let sessions = env.dir.path().join("sessions");
    let s = sessions.to_str().unwrap();
    let server = MockServer::start(vec![Turn::tools(vec![search(json!({"query": "weather"}))]), Turn::text("done")]);
    env.run(&server, &["--session-dir", s, "-e", &ext, "--tools", "+tool_search"]);
    let files = codemode_support::session_files(&sessions);
    let records: Vec<serde_json::Value> = codemode_support::entries(&files[0])
        .into_iter()
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "system")
        .map(|e| e["message"].clone())
        .collect();
    // The first request records the whole loadout, the load a patch adding the tool.
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[1]["toolsAdded"].as_array().unwrap().len(), 1, "{records:?}");
    assert_eq!(records[1]["toolsAdded"][0]["name"], "weather-now");
    assert_eq!(records[1]["toolsAdded"][0]["description"], "Current weather for a city.");
    let server = MockServer::start(vec![Turn::text("again")]);
    env.run(&server, &["--session-dir", s, "--continue", "-e", &ext, "--tools", "+tool_search"]);
    assert_eq!(declared(&server, 0), ["read", "bash", "edit", "write", "tool_search", "weather-now"]);
    let request = &server.requests()[0].body;
    let sent = request["messages"].as_array().unwrap();
    assert!(sent.iter().all(|m| m["role"] != "system" || m["content"].as_str().is_some_and(|c| !c.is_empty())));
}

#[test]
fn an_allowlist_hides_deferred_tools_from_search_and_scripts() {
    let env = Env::new();
    let ext = env.fixture("deferred.ts");
    let server = MockServer::start(vec![
        Turn::tools(vec![
            search(json!({"query": "weather"})),
            ToolCallSpec::new("codemode", json!({"code": "return ALL_TOOLS.map(t => t.name)"})),
        ]),
        Turn::text("done"),
    ]);
    env.run(&server, &["--no-session", "-e", &ext, "--tools", "read,codemode,tool_search,gh__search_issues"]);
    assert_eq!(declared(&server, 0), ["read", "codemode", "tool_search", "gh__search_issues"]);
    let texts = tool_texts(&server);
    assert_eq!(texts[0], "No matching tools found.");
    assert!(texts[1].ends_with("[\"read\",\"gh__search_issues\"]"), "{}", texts[1]);
}

#[test]
fn selection_treats_both_tools_as_the_reference() {
    let env = Env::new();
    let ext = env.fixture("direct.ts");
    let first = |args: &[&str]| {
        let server = MockServer::start(vec![Turn::text("done")]);
        let mut all = vec!["--no-session", "-e", &ext];
        all.extend_from_slice(args);
        env.run(&server, &all);
        declared(&server, 0)
    };
    let star =
        ["read", "bash", "powershell", "edit", "write", "grep", "find", "ls", "zz_direct", "codemode", "tool_search"];
    assert_eq!(first(&["--tools", "*"]), star);
    assert_eq!(first(&["--tools", "*_search,zz*,codemode"]), ["codemode", "zz_direct", "tool_search"]);
    assert_eq!(first(&["--tools", "l*,read"]), ["read", "ls"], "exact names first, then pattern matches");
    assert_eq!(
        first(&["--tools", "+codemode,+tool_search"]),
        ["read", "bash", "edit", "write", "codemode", "tool_search", "zz_direct"]
    );
    assert_eq!(first(&[]), ["read", "bash", "edit", "write", "zz_direct"], "both are off by default");
    env.settings(json!({"defaultTools": ["+codemode"]}));
    assert_eq!(first(&[]), ["read", "bash", "edit", "write", "codemode", "zz_direct"]);
    env.settings(json!({"extensions": ["-builtin:codemode"]}));
    assert_eq!(
        first(&["--tools", "*"]),
        ["read", "bash", "powershell", "edit", "write", "grep", "find", "ls", "zz_direct", "tool_search"]
    );
    env.settings(json!({}));
    let server = MockServer::start(vec![Turn::text("done")]);
    env.run(&server, &["--no-session", "--no-extensions", "--tools", "*"]);
    assert!(!declared(&server, 0).contains(&"codemode".to_string()), "--no-extensions disables the built-ins");
}

#[test]
fn an_extensions_own_codemode_replaces_the_built_in() {
    let env = Env::new();
    std::fs::write(
        env.work.join("mine.ts"),
        r#"import { Type } from "typebox";
export default function (pi: any) {
  pi.registerTool({ name: "codemode", label: "c", description: "my own", parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "mine" }], details: {} }) });
}"#,
    )
    .unwrap();
    let server = MockServer::start(vec![Turn::tool("codemode", json!({})), Turn::text("done")]);
    env.run(&server, &["--no-session", "-e", "./mine.ts", "--tools", "read,codemode"]);
    assert_eq!(declared(&server, 0), ["read", "codemode"]);
    assert_eq!(tool_texts(&server), ["mine"]);
}

#[test]
fn reload_enables_codemode_newly_added_to_default_tools() {
    use std::io::{BufRead, BufReader, Write};
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    env.settings(json!({}));
    // RPC reloads through an extension command's ctx.reload() (a typed /reload goes to the model, as the reference).
    let ext = env.work.join("reloader.js");
    let reloader = r#"export default function (pi) {
  pi.registerCommand("reload-now", { description: "Reload", handler: async (_args, ctx) => { await ctx.reload(); } });
}"#;
    std::fs::write(&ext, reloader).unwrap();
    let mut child = env
        .cmd(&["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1", "-e", ext.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Send a prompt until it is accepted (the previous run may still be
    // winding down), then wait for the record of `until`.
    let mut send = |message: &str, until: &str| {
        for attempt in 0..100 {
            writeln!(stdin, "{}", json!({"type": "prompt", "message": message, "id": attempt})).unwrap();
            let accepted = loop {
                let v: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
                if v["type"] == "response" && v["id"] == attempt {
                    break v["success"] == true;
                }
            };
            if accepted {
                if until != "response" {
                    loop {
                        let v: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
                        if v["type"] == until {
                            break;
                        }
                    }
                }
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("{message} never accepted");
    };
    send("hi", "agent_end");
    env.settings(json!({"defaultTools": ["+codemode"]}));
    send("/reload-now", "response");
    send("again", "agent_end");
    drop(stdin);
    let _ = child.wait();
    assert_eq!(declared(&server, 0), ["read", "bash", "edit", "write"]);
    assert_eq!(declared(&server, 1), ["read", "bash", "edit", "write", "codemode"]);
}
