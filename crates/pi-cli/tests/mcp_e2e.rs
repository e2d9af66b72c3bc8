#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! MCP servers through the real binary against the mock model, with the npm
//! test servers `@modelcontextprotocol/server-everything` and
//! `server-filesystem` (installed by `.ci/run` into `$PI_MCP_SERVERS`; the
//! tests that need them skip with a note when they are absent). Expected
//! texts are the reference's (Pi 1.6.0), as recorded side by side.

use crate::codemode_support;

use std::path::PathBuf;

use codemode_support::{Env, declared, mask, tool_texts};
use pi_test_support::{MockServer, ToolCallSpec, Turn};
use serde_json::{Value, json};

/// The folder with `node_modules/@modelcontextprotocol/…`, if installed.
fn servers() -> Option<PathBuf> {
    let candidates = [std::env::var_os("PI_MCP_SERVERS").map(PathBuf::from), Some(PathBuf::from("/tmp/mcp-servers"))];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js").is_file());
    if found.is_none() {
        eprintln!("note: MCP test servers not installed (set PI_MCP_SERVERS, see .ci/run); skipping");
    }
    found
}

fn everything(dir: &std::path::Path) -> Value {
    json!({"command": "node", "args": [dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")]})
}

fn filesystem(dir: &std::path::Path) -> Value {
    json!({"command": "node", "args": [dir.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), "."]})
}

fn with(mut entry: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        entry[k] = v.clone();
    }
    entry
}

fn mcp_json(env: &Env, servers: Value) {
    std::fs::write(env.agent_dir().join("mcp.json"), json!({"mcpServers": servers}).to_string()).unwrap();
}

fn system_prompt(server: &MockServer) -> String {
    server.requests()[0].body["messages"][0]["content"].as_str().unwrap().to_string()
}

fn codemode(code: &str) -> Turn {
    Turn::tool("codemode", json!({ "code": code }))
}

fn ok(body: &str) -> String {
    format!("Script completed\nWall time X seconds\nOutput:\n\n{body}")
}

#[test]
fn by_default_servers_are_reached_from_codemode_and_listed_in_the_prompt() {
    let Some(dir) = servers() else { return };
    let env = Env::new();
    std::fs::write(env.work.join("a.txt"), "hello\n").unwrap();
    mcp_json(
        &env,
        json!({"everything": with(everything(&dir), json!({"description": "Test server\nmore"})), "fs": filesystem(&dir)}),
    );
    let code = "const [a, b, c] = await Promise.all([tools.mcp__everything__echo({message: 'hi'}), tools.mcp__everything__get_sum({a: 1, b: 2}), tools.mcp__fs__read_text_file({path: 'a.txt'})]); return [a, b, c];";
    let server = MockServer::start(vec![codemode(code), Turn::text("done")]);
    let out = env.run(&server, &["--no-session"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(declared(&server, 0), ["read", "bash", "edit", "write", "codemode"], "no MCP tool is declared");
    let prompt = system_prompt(&server);
    assert!(
        prompt.ends_with("<mcp_servers>\nMCP servers whose tools are not declared to you. Call the tools of `codemode` servers from codemode scripts.\n- mcp__everything (codemode): Test server\n- mcp__fs (codemode)\n</mcp_servers>"),
        "{prompt}"
    );
    let want = r#"[{"content":[{"type":"text","text":"Echo: hi"}]},{"content":[{"type":"text","text":"The sum of 1 and 2 is 3."}]},{"content":[{"type":"text","text":"hello\n"}],"structuredContent":{"content":"hello\n"}}]"#;
    assert_eq!(mask(&tool_texts(&server)[0]), ok(want));
}

#[test]
fn direct_and_tool_exposure_declare_tools_and_errors_reach_the_model() {
    let Some(dir) = servers() else { return };
    let env = Env::new();
    std::fs::write(env.work.join("a.txt"), "hello\n").unwrap();
    let big: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    std::fs::write(env.work.join("big.txt"), &big).unwrap();
    let ev =
        with(everything(&dir), json!({"toolExposure": {"echo": "direct", "get-*": "direct", "get_sum": "hidden"}}));
    mcp_json(&env, json!({"everything": ev, "fs": with(filesystem(&dir), json!({"exposure": "direct"}))}));
    let calls = vec![
        ToolCallSpec::new("mcp__everything__echo", json!({"message": "hi"})),
        ToolCallSpec::new("mcp__everything__get_sum", json!({"a": 2, "b": 3})),
        ToolCallSpec::new("mcp__fs__read_text_file", json!({"path": "big.txt"})),
        ToolCallSpec::new("mcp__everything__get_sum", json!({"a": "x"})),
    ];
    let server = MockServer::start(vec![Turn::tools(calls), Turn::text("done")]);
    let out = env.run(&server, &["--no-session"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names = declared(&server, 0);
    assert!(
        names.contains(&"mcp__everything__echo".to_string()) && names.contains(&"mcp__everything__get_sum".to_string())
    );
    assert!(names.contains(&"mcp__fs__read_text_file".to_string()), "{names:?}");
    assert!(
        !names.contains(&"mcp__everything__toggle_simulated_logging".to_string()),
        "codemode tools stay undeclared"
    );
    let texts = tool_texts(&server);
    assert_eq!(texts[0], "Echo: hi");
    assert_eq!(texts[1], "The sum of 2 and 3 is 5.");
    assert!(
        texts[2].starts_with(
            "Warning: truncated output (original token count: 27224)\nTotal output lines: 20000\n\n1\n2\n"
        ),
        "{}",
        &texts[2][..100]
    );
    let path = texts[2].rsplit("[Full output: ").next().unwrap().split(" (read it").next().unwrap();
    assert!(std::path::Path::new(path).starts_with(&env.tmp), "{path}");
    assert_eq!(std::fs::read_to_string(path).unwrap(), big);
    assert_eq!(
        texts[3],
        "Validation failed for tool \"mcp__everything__get_sum\":\n  - b: missing\n  - a: expected number, got string\n\nReceived arguments:\n{\n  \"a\": \"x\"\n}",
        "arguments are checked against the server's schema before the call, as the reference does"
    );
}

#[test]
fn deferred_servers_are_found_with_tool_search() {
    let Some(dir) = servers() else { return };
    let env = Env::new();
    mcp_json(&env, json!({"everything": with(everything(&dir), json!({"exposure": "deferred"}))}));
    let turns = vec![
        Turn::tool("tool_search", json!({"query": "sum two numbers"})),
        Turn::tool("mcp__everything__get_sum", json!({"a": 2, "b": 3})),
        Turn::text("done"),
    ];
    let server = MockServer::start(turns);
    let out = env.run(&server, &["--no-session"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(declared(&server, 0), ["read", "bash", "edit", "write", "tool_search"]);
    assert!(declared(&server, 1).contains(&"mcp__everything__get_sum".to_string()), "{:?}", declared(&server, 1));
    let texts = tool_texts(&server);
    assert_eq!(texts.last().unwrap(), "The sum of 2 and 3 is 5.");
}

#[test]
fn selection_flags_and_no_mcp() {
    let Some(dir) = servers() else { return };
    let env = Env::new();
    mcp_json(&env, json!({"everything": with(everything(&dir), json!({"toolExposure": {"echo": "direct"}}))}));
    let turns = || {
        vec![
            Turn::tools(vec![
                ToolCallSpec::new("mcp__everything__echo", json!({"message": "hi"})),
                ToolCallSpec::new(
                    "codemode",
                    json!({"code": "return await tools.mcp__everything__get_sum({a: 1, b: 1})"}),
                ),
            ]),
            Turn::text("done"),
        ]
    };
    let server = MockServer::start(turns());
    env.run(&server, &["--no-session", "--tools", "read,codemode"]);
    assert_eq!(declared(&server, 0), ["read", "codemode"], "an allowlist leaves direct MCP tools undeclared");
    let texts = tool_texts(&server);
    assert_eq!(texts[0], "Tool mcp__everything__echo not found");
    assert_eq!(mask(&texts[1]), ok(r#"{"content":[{"type":"text","text":"The sum of 1 and 1 is 2."}]}"#));

    // The resource tools of a `direct` server are direct too: a plain
    // allowlist leaves them undeclared like its other direct tools (S6).
    mcp_json(&env, json!({"everything": with(everything(&dir), json!({"exposure": "direct"}))}));
    let calls = vec![ToolCallSpec::new("list_mcp_resources", json!({"server": "everything"}))];
    let server = MockServer::start(vec![Turn::tools(calls), Turn::text("done")]);
    env.run(&server, &["--no-session", "--tools", "read,codemode"]);
    assert_eq!(declared(&server, 0), ["read", "codemode"], "no resource tool declared");
    assert_eq!(tool_texts(&server), ["Tool list_mcp_resources not found"]);
    let server = MockServer::start(vec![Turn::text("done")]);
    env.run(&server, &["--no-session", "--tools", "read,list_mcp_resources"]);
    assert_eq!(declared(&server, 0), ["read", "list_mcp_resources"], "named in the allowlist, it is declared");
    mcp_json(&env, json!({"everything": with(everything(&dir), json!({"toolExposure": {"echo": "direct"}}))}));

    let server = MockServer::start(turns());
    env.run(&server, &["--no-session", "--exclude-tools", "mcp__*"]);
    let texts = tool_texts(&server);
    assert_eq!(texts[0], "Tool mcp__everything__echo not found");
    assert!(
        mask(&texts[1]).contains("tools.mcp__everything__get_sum is not a function")
            || mask(&texts[1]).contains("does not exist"),
        "{}",
        texts[1]
    );

    for flags in [&["--no-session", "--no-mcp"][..], &["--no-session", "--no-extensions"][..]] {
        let server = MockServer::start(vec![Turn::text("done")]);
        env.run(&server, flags);
        assert!(!system_prompt(&server).contains("<mcp_servers>"), "{flags:?}");
        assert!(!declared(&server, 0).iter().any(|n| n.starts_with("mcp__") || n == "codemode"), "{flags:?}");
    }
    env.settings(json!({"extensions": ["-builtin:mcp"]}));
    let server = MockServer::start(vec![Turn::text("done")]);
    env.run(&server, &["--no-session"]);
    assert!(!system_prompt(&server).contains("<mcp_servers>"), "-builtin:mcp turns it off");
}

#[test]
fn a_policy_blocks_mcp_calls_directly_and_inside_scripts() {
    let Some(dir) = servers() else { return };
    let env = Env::new();
    mcp_json(&env, json!({"everything": with(everything(&dir), json!({"toolExposure": {"echo": "direct"}}))}));
    let ext = env.work.join("block.ts");
    std::fs::write(
        &ext,
        "export default function (pi) { pi.on('tool_call', (e) => e.toolName.startsWith('mcp__everything__') ? { block: true, reason: 'no MCP ' + e.toolName + ' parent ' + (e.parentToolCallId ? 'set' : 'none') } : undefined); }",
    )
    .unwrap();
    let turns = vec![
        Turn::tools(vec![
            ToolCallSpec::new("mcp__everything__echo", json!({"message": "hi"})),
            ToolCallSpec::new("codemode", json!({"code": "return await tools.mcp__everything__get_sum({a: 1, b: 1})"})),
        ]),
        Turn::text("done"),
    ];
    let server = MockServer::start(turns);
    let out = env.run(&server, &["--no-session", "-e", ext.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let texts = tool_texts(&server);
    assert_eq!(texts[0], "no MCP mcp__everything__echo parent none");
    assert!(texts[1].contains("no MCP mcp__everything__get_sum parent set"), "{}", texts[1]);
}

#[test]
fn the_project_file_counts_only_when_trusted_and_bad_entries_are_named() {
    let Some(dir) = servers() else { return };
    let env = Env::new();
    mcp_json(&env, json!({"everything": everything(&dir), "bad.name": {"command": "x"}}));
    std::fs::create_dir_all(env.work.join(".pi")).unwrap();
    let project = json!({"mcpServers": {"everything": {"exposure": "direct"}}});
    std::fs::write(env.work.join(".pi/mcp.json"), project.to_string()).unwrap();
    let server = MockServer::start(vec![Turn::text("done")]);
    let out = env.run(&server, &["--no-session"]);
    assert!(!declared(&server, 0).iter().any(|n| n.starts_with("mcp__")), "untrusted: ignored");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("mcp.json: mcpServers.bad.name: invalid server name"), "{stderr}");
    let server = MockServer::start(vec![Turn::text("done")]);
    env.run(&server, &["--no-session", "--approve"]);
    assert!(
        declared(&server, 0).contains(&"mcp__everything__echo".to_string()),
        "trusted: the override makes it direct"
    );
}

#[test]
fn mcp_add_remove_and_list() {
    let env = Env::new();
    let run = |args: &[&str]| env.cmd(args).output().unwrap();
    let file = env.agent_dir().join("mcp.json");
    std::fs::write(&file, r#"{"other": {"keep": true}, "mcpServers": {"x": {"command": "true"}}}"#).unwrap();
    let out = run(&[
        "mcp",
        "add",
        "web",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--bearer-token-env-var",
        "TOK",
        "--exposure",
        "direct",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("Added global MCP server \"web\" in {}.\nCheck it with: pi mcp list\n", file.display())
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["other"], json!({"keep": true}), "unrelated content stays");
    assert_eq!(
        v["mcpServers"]["web"],
        json!({"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOK}"}, "exposure": "direct"})
    );
    let out = run(&["mcp", "add", "bad.name", "--", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid server name \"bad.name\""));
    let out = run(&["mcp", "remove", "web"]);
    assert!(out.status.success());
    let out = run(&["mcp", "remove", "web"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("No global MCP server named \"web\" in {}.\n", file.display())
    );
    let out = run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(1), "x is not an MCP server");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("x: failed (codemode, global)\n  true\n"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let Some(dir) = servers() else { return };
    let cmd: Vec<String> = ["mcp", "add", "ev", "--env", "A=1", "--", "node"]
        .iter()
        .map(|s| s.to_string())
        .chain([dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js").display().to_string()])
        .collect();
    let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
    assert!(run(&cmd).status.success());
    assert!(run(&["mcp", "remove", "x"]).status.success());
    let out = run(&["mcp", "list"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.starts_with("ev: connected, ") && stdout.contains("  tools: echo, "), "{stdout}");
}

#[test]
fn an_extension_registers_a_server_that_connects_with_the_session() {
    let Some(dir) = servers() else { return };
    let env = Env::new();
    let server =
        MockServer::start(vec![Turn::tool("mcp__everything__echo", json!({"message": "hi"})), Turn::text("ok")]);
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let ext = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extensions/mcp-register.ts");
    let script = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let out = env
        .cmd(&["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", ext.to_str().unwrap(), "go"])
        .env("MCP_EVERYTHING", &script)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // As the reference (measured side by side): the server's direct tools
    // are declared at the first request, and the call reaches it.
    let tools = declared(&server, 0);
    assert!(tools.contains(&"mcp__everything__echo".to_string()), "{tools:?}");
    assert!(!tools.iter().any(|t| t.starts_with("mcp__everything__get")), "{tools:?}");
    assert_eq!(tool_texts(&server)[0], "Echo: hi");
    let path = ext.to_string_lossy();
    assert_eq!(
        std::fs::read_to_string(env.work.join("reg.log")).unwrap(),
        format!(
            "Invalid MCP server registered by extension \"{path}\": invalid server name \"bad name\" (use letters, digits, \"_\" and \"-\")
Invalid MCP server registered by extension \"{path}\": server \"nocmd\" needs either \"command\" (stdio) or \"url\" (streamable HTTP)
Invalid MCP server registered by extension \"{path}\": server \"num\" must be an object
"
        )
    );
}

#[test]
fn direct_tools_are_declared_server_by_server_in_the_order_they_answered() {
    // Which server answers first is a race (as in the reference); the order
    // itself is proved with fixture servers in pi-mcp/tests/fixture.rs.
    let Some(dir) = servers() else { return };
    for order in [["fs", "everything"], ["everything", "fs"]] {
        let env = Env::new();
        let entry = |name: &str| {
            let e = if name == "fs" { filesystem(&dir) } else { everything(&dir) };
            with(e, json!({"exposure": "direct"}))
        };
        let mut servers = serde_json::Map::new();
        for name in order {
            servers.insert(name.to_string(), entry(name));
        }
        mcp_json(&env, Value::Object(servers));
        let server = MockServer::start(vec![Turn::text("ok")]);
        let out = env.run(&server, &["--no-session"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let servers_seen: Vec<String> = declared(&server, 0)
            .into_iter()
            .filter_map(|t| t.strip_prefix("mcp__").and_then(|r| r.split("__").next()).map(str::to_string))
            .fold(Vec::new(), |mut acc, s| {
                if acc.last() != Some(&s) {
                    acc.push(s);
                }
                acc
            });
        let mut sorted = servers_seen.clone();
        sorted.sort();
        assert_eq!(sorted, ["everything", "fs"], "each server's tools together: {servers_seen:?}");
    }
}

#[test]
fn tool_search_ranks_a_servers_deferred_tools_as_the_reference() {
    let Some(dir) = servers() else { return };
    // The server's `initialize` instructions are part of its namespace text, as
    // in the reference: a word they mention matches every tool of the server a
    // little (and the tools that name it first).
    let search = |query: &str| {
        let env = Env::new();
        mcp_json(&env, json!({"everything": with(everything(&dir), json!({"exposure": "deferred"}))}));
        let server = MockServer::start(vec![Turn::tool("tool_search", json!({"query": query})), Turn::text("done")]);
        let out = env.run(&server, &["--no-session"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        tool_texts(&server).remove(0)
    };
    // Recorded with Pi 1.6.0 and server-everything 2026.8.31.
    assert_eq!(
        search("echo message"),
        "Loaded 8 tools. They are available from your next call:
- mcp__everything__echo: Echoes back the input string
- mcp__everything__get_annotated_message: Demonstrates how annotations can be used to provide metadata about content.
- mcp__everything__get_env: Returns all environment variables, helpful for debugging MCP server configuration
- mcp__everything__get_resource_links: Returns up to ten resource links that reference different types of resources
- mcp__everything__get_resource_reference: Returns a resource reference that can be used by MCP clients
- mcp__everything__get_structured_content: Returns structured content along with an output schema for client data validation
- mcp__everything__get_sum: Returns the sum of two numbers
- mcp__everything__get_tiny_image: Returns a tiny MCP logo image."
    );
    let annotated = search("annotated message");
    let lines: Vec<&str> = annotated.lines().collect();
    assert!(
        lines[1].starts_with("- mcp__everything__get_annotated_message:")
            && lines[2].starts_with("- mcp__everything__echo:"),
        "{annotated}"
    );
}
