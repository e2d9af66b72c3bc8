#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! codemode through the real binary against the mock model: each global,
//! each option, each result shape, the limits, store/load across calls and
//! a resumed session, blocked nested calls, and what the model is told
//! (`codemode.mode`, the inline budget). Expected texts are the reference's
//! (Pi 1.6.0), as recorded side by side.

use crate::codemode_support;

use codemode_support::{Env, declared, description, mask, result, script, tool_texts};
use pi_test_support::{MockServer, ToolCallSpec, Turn};
use serde_json::{Value, json};

const CM: &[&str] = &["--no-session", "--tools", "read,bash,ls,write,codemode"];

fn run_script(code: &str) -> (Env, String) {
    let env = Env::new();
    std::fs::write(env.work.join("a.txt"), "hello\nworld\n").unwrap();
    let server = MockServer::start(script(code));
    let out = env.run(&server, CM);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = result(&server);
    (env, text)
}

fn ok(body: &str) -> String {
    format!("Script completed\nWall time X seconds\nOutput:\n\n{body}")
}

fn failed(body: &str) -> String {
    format!("Script failed\nWall time X seconds\nOutput:\n\n{body}")
}

#[test]
fn tools_run_in_parallel_through_the_pipeline_and_resolve_per_tool() {
    let code = "const r = await Promise.allSettled([tools.read({path: 'a.txt'}), tools.bash({command: 'echo hi; exit 3'}), tools.ls({}), tools.write({path: 'n/x.txt', content: 'x'}), tools.read({path: 'nope'})]);\nreturn r.map(x => x.status === 'fulfilled' ? x.value : x.reason.message)";
    let (env, text) = run_script(code);
    let value: Value = serde_json::from_str(text.strip_prefix(&ok("")).unwrap()).unwrap();
    assert_eq!(value[0], "hello\nworld\n", "read resolves to its text");
    assert_eq!(value[1]["exit_code"], 3, "bash resolves to its structured result, also for a failing command");
    assert_eq!(value[1]["output"], "hi\n");
    assert!(value[2].as_str().unwrap().starts_with("a.txt"), "ls resolves to its text");
    assert_eq!(value[3], "Successfully wrote to n/x.txt");
    let missing = env.work.join("nope");
    assert_eq!(value[4], format!("ENOENT: no such file or directory, access '{}'", missing.display()));
}

#[test]
fn output_layout_text_console_return_and_errors() {
    let code = "text('a'); text(''); text({x: 1}); console.log('c', 1, {d: [2]}, null, undefined); console.error(new TypeError('t')); return 5";
    let (_, text) = run_script(code);
    let want = "==> text 1/4 <==\na\n==> text 2/4 <==\n==> text 3/4 <==\n{\"x\":1}\n==> text 4/4 <==\n5\n<console_output>\nc 1 {\"d\":[2]} null undefined\nTypeError: t\n    at <anonymous> (codemode.js:1:130)\n</console_output>";
    assert_eq!(text, ok(want));
    let (_, text) = run_script("text('kept'); await tools.bash({command: 'true'}); null.x");
    assert_eq!(
        text,
        failed(
            "kept\nScript error:\nTypeError: cannot read property 'x' of null\n    at <anonymous> (codemode.js:1:79)\n\nTool calls made before the failure (they are not undone): bash (ok)"
        )
    );
    let (_, text) = run_script("throw 'x'");
    assert_eq!(text, failed("Script error:\nError: x\n\nNo tool calls were made."));
    let (_, text) = run_script("const = 1;");
    assert_eq!(
        text,
        failed(
            "Script error:\nSyntaxError: variable name expected\n    at codemode.js:1:35\n\nNo tool calls were made."
        )
    );
    let (_, text) = run_script("text('before'); exit(); text('after')");
    assert_eq!(text, ok("before"));
}

#[test]
fn missing_tools_and_codemode_itself_name_what_exists() {
    let (_, text) = run_script("await tools.grep({pattern: 'x'})");
    assert_eq!(
        text,
        failed(
            "Script error:\nTypeError: tools.grep does not exist. Available: read, bash, write, ls. ALL_TOOLS lists every tool; searchTools(query) finds tools by topic. Check for a member with \"grep\" in tools.\n    at <anonymous> (codemode.js:1:35)\n\nNo tool calls were made."
        )
    );
    let (_, text) = run_script("await tools.codemode({code: '1'})");
    assert!(text.contains("TypeError: tools.codemode does not exist. Available: read, bash, write, ls."), "{text}");
    let (_, text) = run_script("try { tools.READ } catch (e) { return e.message }");
    assert_eq!(
        text,
        ok(
            "tools.READ does not exist. Did you mean tools.read? ALL_TOOLS lists every tool; searchTools(query) finds tools by topic. Check for a member with \"READ\" in tools."
        )
    );
    let (_, text) = run_script("return ALL_TOOLS.map(t => t.name)");
    assert_eq!(text, ok("[\"read\",\"bash\",\"write\",\"ls\"]"));
}

#[test]
fn invalid_nested_arguments_reject_with_the_validation_error() {
    let code = "const out = []; for (const p of [tools.read(), tools.read({path: 5}), tools.read('a.txt'), tools.bash({command: 'x', timeout: 'soon'})]) { try { out.push(await p) } catch (e) { out.push(e.message) } } return out";
    let (env, text) = run_script(code);
    let v: Value = serde_json::from_str(text.strip_prefix(&ok("")).unwrap()).unwrap();
    assert_eq!(v[0], "Validation failed for tool \"read\":\n  - path: missing\n\nReceived arguments:\n{}");
    assert_eq!(v[1], format!("ENOENT: no such file or directory, access '{}'", env.work.join("5").display()));
    assert_eq!(
        v[2],
        "Validation failed for tool \"read\":\n  - root: expected object, got string\n\nReceived arguments:\n\"a.txt\""
    );
    assert!(v[3].as_str().unwrap().contains("timeout: expected number, got string"), "{v}");
}

#[test]
fn options_are_checked_before_running() {
    let cases = [
        (
            "const a = 1;\n// @options: {\"timeout_ms\": 5}\nreturn a",
            "The // @options: line must be the first line of the input; found one on line 2",
        ),
        (
            "// @options: {\"max_output_tokens\": -1}\nreturn 1",
            "@options field `max_output_tokens` must be a non-negative safe integer",
        ),
        (
            "// @options: {\"foo\": 1}\nreturn 1",
            "@options only supports `max_output_tokens` and `timeout_ms`; got `foo`",
        ),
        (
            "// @options: {nope}\nreturn 1",
            "@options must be valid JSON with supported fields `max_output_tokens` and `timeout_ms`: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
        ),
        (
            "// @options: {\"timeout_ms\": 0}\nreturn 1",
            "@options field `timeout_ms` must be a positive integer up to 2147483647",
        ),
        (
            "// @options: {\"timeout_ms\": 5}",
            "The @options line must be followed by JavaScript source on subsequent lines",
        ),
        (
            "  ",
            "Expected JavaScript source text (non-empty). Provide JS only, optionally with a first line `// @options: {\"max_output_tokens\": 1000}`.",
        ),
    ];
    for (code, want) in cases {
        let (_, text) = run_script(code);
        assert_eq!(text, want, "{code}");
    }
}

#[test]
fn timeout_stops_a_spinning_script_and_cancels_running_calls() {
    let (_, text) = run_script("// @options: {\"timeout_ms\": 300}\nwhile (true) {}");
    assert_eq!(
        text,
        failed("Script error:\nScript timed out: Execution timed out after 300 ms\n\nNo tool calls were made.")
    );
    let (_, text) = run_script("// @options: {\"timeout_ms\": 300}\nwhile (true) await null");
    assert!(text.contains("Script timed out: Execution timed out after 300 ms"), "{text}");
    let (_, text) = run_script("// @options: {\"timeout_ms\": 400}\nawait tools.bash({command: 'sleep 5'})");
    assert_eq!(
        text,
        failed(
            "Script error:\nScript timed out: Execution timed out after 400 ms\n\nTool calls made before the failure (they are not undone): bash (cancelled)"
        )
    );
    let (env, text) = run_script("tools.bash({command: 'sleep 2; touch late.txt'}); return 'early'");
    assert_eq!(text, ok("early"));
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert!(!env.work.join("late.txt").exists(), "a call still running when the script ended was cancelled");
}

#[test]
fn output_over_budget_keeps_start_and_end_and_spills_to_a_private_file() {
    let (env, text) = run_script(
        "// @options: {\"max_output_tokens\": 10}\nfor (let i = 0; i < 20; i++) text('line ' + i); return 'end'",
    );
    let (head, path) = text.rsplit_once("\n\n[Full output: ").unwrap();
    assert_eq!(
        head,
        ok(
            "Warning: truncated output (original token count: 136)\nTotal output lines: 42\n\n==> text 1/21 <==\nli…126 tokens truncated…> text 21/21 <==\nend"
        )
    );
    let path = path.strip_suffix(" (read with offset/limit)]").unwrap();
    assert!(path.starts_with(env.tmp.join("pi-codemode-").to_str().unwrap()) && path.ends_with(".txt"), "{path}");
    let full = std::fs::read_to_string(path).unwrap();
    assert!(full.starts_with("==> text 1/21 <==\nline 0\n") && full.ends_with("==> text 21/21 <==\nend"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(path).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn images_are_shown_and_saved_beside_the_result() {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let env = Env::new();
    let code = format!(
        "text('pic'); image('data:image/png;base64,{png}'); try {{ image('http://x/y.png') }} catch (e) {{ text(e.message) }}"
    );
    let server = MockServer::start(script(&code));
    env.run(&server, CM);
    // The mock model takes no images, so the image itself is left out of the request.
    let text = result(&server);
    let (head, rest) = text.split_once("[Image saved to ").unwrap();
    assert_eq!(head, ok("==> text 1/2 <==\npic\n"));
    let omitted = " (image/png, 70B)]\n(tool image omitted: model does not support images)\n";
    let (path, rest) = rest.split_once(omitted).unwrap();
    assert!(path.starts_with(env.tmp.join("pi-codemode-").to_str().unwrap()) && path.ends_with(".png"), "{path}");
    assert_eq!(std::fs::read(path).unwrap().len(), 70);
    let remote = "remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
    assert_eq!(rest, format!("==> text 2/2 <==\n{remote}"));
}

#[test]
fn store_and_load_persist_across_calls_and_a_resumed_session() {
    let env = Env::new();
    let sessions = env.dir.path().join("sessions");
    let s = sessions.to_str().unwrap();
    let server = MockServer::start(vec![
        Turn::tool("codemode", json!({"code": "store('n', 1); store('gone', true); return load('n')"})),
        Turn::tool("codemode", json!({"code": "store('n', 99); throw new Error('no')"})),
        Turn::tool("codemode", json!({"code": "store('gone', undefined); return [load('n'), load('gone')]"})),
        Turn::text("done"),
    ]);
    let out = env.run(&server, &["--session-dir", s, "--tools", "read,codemode"]);
    assert!(out.status.success());
    let texts: Vec<String> = tool_texts(&server).iter().map(|t| mask(t)).collect();
    assert_eq!(texts[0], ok("1"));
    assert!(texts[1].starts_with(&failed("Script error:\nError: no")));
    assert_eq!(texts[2], ok("[1,null]"), "a failed script's writes are dropped; undefined deletes");
    let files = codemode_support::session_files(&sessions);
    let store_entries: Vec<Value> = codemode_support::entries(&files[0])
        .into_iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "codemode-store")
        .map(|e| e["data"].clone())
        .collect();
    assert_eq!(
        store_entries,
        vec![json!({"set": {"n": 1, "gone": true}, "delete": []}), json!({"set": {}, "delete": ["gone"]})]
    );
    let server = MockServer::start(script("return [load('n'), load('gone')]"));
    let out = env.run(&server, &["--session-dir", s, "--continue", "--tools", "read,codemode"]);
    assert!(out.status.success());
    assert_eq!(mask(tool_texts(&server).last().unwrap()), ok("[1,null]"), "a resumed session keeps its values");
}

#[test]
fn store_limits_and_errors() {
    let code = "const out = []; for (const f of [() => store(1, 2), () => load(null), () => store('f', () => 1), () => store('big', 'x'.repeat(262144)), () => { for (let i = 0; i < 5; i++) store('k' + i, 'x'.repeat(262100)) }]) { try { f() } catch (e) { out.push(e.name + ': ' + e.message) } } return out";
    let (_, text) = run_script(code);
    let v: Value = serde_json::from_str(text.strip_prefix(&ok("")).unwrap()).unwrap();
    let hint = "store() is for small state such as IDs or summaries. Show images with image(), keep large data in variables, or write it to a file with a tool.";
    assert_eq!(
        v,
        json!([
            "TypeError: store() key must be a string",
            "TypeError: load() key must be a string",
            "TypeError: store(\"f\") value is not JSON-serializable",
            format!(
                "RangeError: store(\"big\") value has 262146 characters of JSON, more than the limit of 262144. {hint}"
            ),
            format!(
                "RangeError: store is full: stored values would exceed 1048576 characters of JSON. Delete keys with store(key, undefined). {hint}"
            ),
        ])
    );
}

#[test]
fn a_blocked_nested_call_rejects_with_the_handler_reason() {
    let env = Env::new();
    let ext = env.fixture("block-bash.ts");
    let code = "const r = await Promise.allSettled([tools.bash({command: 'rm -rf x'}), tools.bash({command: 'echo ok'})]);\nreturn r.map(x => x.status + ': ' + (x.reason ? x.reason.message : x.value.output))";
    let server = MockServer::start(script(code));
    let out = env.run(&server, &["--no-session", "-e", &ext, "--tools", "bash,codemode", "--mode", "json"]);
    assert!(out.status.success());
    assert_eq!(
        result(&server),
        ok("[\"rejected: rm is not allowed here (call_0_0/1 in call_0_0)\",\"fulfilled: ok\\n\"]")
    );
    let events: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let nested_starts: Vec<&Value> =
        events.iter().filter(|e| e["type"] == "tool_execution_start" && e["parentToolCallId"] == "call_0_0").collect();
    assert_eq!(nested_starts.len(), 2, "nested calls carry the codemode call as parent");
    let record = events
        .iter()
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
        .map(|e| e["message"]["nestedCalls"].clone())
        .unwrap();
    assert_eq!(record["calls"][0]["id"], "call_0_0/1");
    assert_eq!(record["calls"][0]["status"], "error");
    assert_eq!(record["calls"][0]["error"], "rm is not allowed here (call_0_0/1 in call_0_0)");
    assert_eq!(record["complete"], true);
}

#[test]
fn mode_on_annotates_declared_tools_and_only_hides_them() {
    let env = Env::new();
    let ext = env.fixture("deferred.ts");
    let server = MockServer::start(vec![Turn::text("done")]);
    env.run(&server, &["--no-session", "-e", &ext, "--tools", "read,bash,codemode"]);
    assert_eq!(declared(&server, 0), ["read", "bash", "codemode"]);
    assert!(description(&server, 0, "bash").ends_with("\n\nCodemode: `tools.bash(args)` resolves to `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`."));
    let cm = description(&server, 0, "codemode");
    assert!(!cm.contains("Nested tools:"), "with an allowlist the extension's tools are not registered: {cm}");
    env.settings(json!({"codemode": {"mode": "only"}}));
    let server = MockServer::start(vec![Turn::text("done")]);
    env.run(&server, &["--no-session", "-e", &ext, "--tools", "+codemode"]);
    assert_eq!(declared(&server, 0), ["codemode"], "only: active direct tools are hidden");
    let cm = description(&server, 0, "codemode");
    for heading in [
        "### `read`",
        "### `bash`",
        "### `edit`",
        "### `write`",
        "### `weather_now` (`weather-now`)",
        "## notes\nPersonal notebook",
        "### `notes_add`",
    ] {
        assert!(cm.contains(heading), "{heading} missing: {cm}");
    }
    assert!(!cm.contains("gh__"), "deferred tools are never listed");
    assert!(cm.contains("\n- Prefer metric units.\n"), "guidelines travel with declarations");
}

#[test]
fn the_inline_budget_lists_what_fits_round_robin() {
    let env = Env::new();
    let ext = env.fixture("deferred.ts");
    let listing = |budget: f64| {
        env.settings(json!({"codemode": {"inlineBudget": budget}}));
        let server = MockServer::start(vec![Turn::text("done")]);
        env.run(&server, &["--no-session", "-e", &ext, "--tools", "+codemode"]);
        let cm = description(&server, 0, "codemode");
        cm.split_once("\n\nNested tools:\n\n").map(|(_, l)| l.to_string()).unwrap_or_default()
    };
    assert_eq!(listing(0.0), "## notes (tools not listed)\nPersonal notebook", "0 lists only namespaces");
    // weather-now's section costs 48 estimated tokens, notes_add's 33: the
    // first group drops out, the namespace still places its tool.
    let some = listing(40.0);
    assert!(some.starts_with("## notes\nPersonal notebook\n\n### `notes_add`") && !some.contains("weather"), "{some}");
    let all = listing(3000.0);
    assert!(all.starts_with("### `weather_now` (`weather-now`)") && all.contains("### `notes_add`"), "{all}");
}

#[test]
fn discovery_globals_find_unlisted_tools() {
    let env = Env::new();
    let ext = env.fixture("deferred.ts");
    let code = "return [(await searchTools('issues')).map(t => t.name), (await searchTools('note', {namespace: 'notes'})).map(t => t.name), await describeNamespace('gh'), (await describeTool('weather-now')).split('\\n')[0], await describeTool('nope'), await tools['weather-now']({city: 'Oslo'})]";
    let server = MockServer::start(script(code));
    env.run(&server, &["--no-session", "-e", &ext, "--tools", "+codemode"]);
    let text = result(&server);
    let v: Value = serde_json::from_str(text.strip_prefix(&ok("")).unwrap()).unwrap();
    assert_eq!(v[0], json!(["gh__search_issues", "gh__get_pull_request"]), "the namespace mentions issues too");
    assert_eq!(v[1], json!(["notes_add"]));
    assert_eq!(
        v[2],
        json!({"name": "gh", "description": "GitHub issues and pull requests", "instructions": "Use owner/repo form.", "tools": ["gh__search_issues", "gh__get_pull_request"]})
    );
    assert_eq!(v[3], "Current weather for a city.");
    assert_eq!(v[4], Value::Null);
    assert_eq!(v[5], "weather {\"city\":\"Oslo\"}");
}

#[test]
fn models_list_pis_models_and_answer_classify_with_an_error() {
    let code = "return [(await models.getModelsOfType('chat', 'mock')).map(m => m.id), await models.getModelOfType('image', 'mock', 'mock-1'), await models.classify({provider: 'typesafe', id: 'jev-latest'}, {state: {}, questions: {q: {type: 'bool', instructions: 'i', criteria: {true: 'y', false: 'n'}}}})]";
    let (_, text) = run_script(code);
    let v: Value = serde_json::from_str(text.strip_prefix(&ok("")).unwrap()).unwrap();
    assert_eq!(v[0], json!(["mock-1"]));
    assert_eq!(v[1], Value::Null);
    assert_eq!(v[2]["stopReason"], "error");
    assert!(
        v[2]["errorMessage"].as_str().unwrap().starts_with("Classifier models are not available in this build of pi")
    );
    let (_, text) = run_script("await models.classify({provider: 'mock', id: 'mock-1'}, {})");
    assert!(text.contains("Error: \"mock/mock-1\" is a chat model, not a classifier model."), "{text}");
}

#[test]
fn tool_calls_from_one_codemode_call_count_in_parallel() {
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::new(
                "codemode",
                json!({"code": "return (await tools.bash({command: 'sleep 1; echo a'})).output"}),
            ),
            ToolCallSpec::new(
                "codemode",
                json!({"code": "return (await tools.bash({command: 'sleep 1; echo b'})).output"}),
            ),
        ]),
        Turn::text("done"),
    ]);
    let started = std::time::Instant::now();
    env.run(&server, CM);
    assert!(started.elapsed() < std::time::Duration::from_millis(1900), "two scripts ran side by side");
    let texts: Vec<String> = tool_texts(&server).iter().map(|t| mask(t)).collect();
    assert_eq!(texts, [ok("a\n"), ok("b\n")]);
}

#[test]
fn at_most_two_scripts_run_at_once_and_a_deadline_counts_the_wait() {
    let calls = |n: usize| {
        let mut c: Vec<ToolCallSpec> = (0..n)
            .map(|i| {
                ToolCallSpec::new(
                    "codemode",
                    json!({"code": format!("await tools.bash({{command: 'sleep 2'}}); return {i}")}),
                )
            })
            .collect();
        c.push(ToolCallSpec::new("codemode", json!({"code": "// @options: {\"timeout_ms\": 700}\nreturn 'last'"})));
        vec![Turn::tools(c), Turn::text("done")]
    };
    let env = Env::new();
    let server = MockServer::start(calls(2));
    env.run(&server, CM);
    let texts: Vec<String> = tool_texts(&server).iter().map(|t| mask(t)).collect();
    assert_eq!(texts[..2], [ok("0"), ok("1")]);
    assert_eq!(
        texts[2],
        failed(
            "Script error:\nScript timed out: Execution timed out after 700 ms while waiting for a free codemode worker\n\nThe script did not start."
        )
    );
    // PI_CODEMODE_MAX_WORKERS raises the limit.
    let server = MockServer::start(calls(2));
    server.write_models_json(&env.agent_dir(), "openai-completions");
    let mut args = vec!["-p", "--offline", "--model", "mock/mock-1"];
    args.extend_from_slice(CM);
    args.push("go");
    let out = env.cmd(&args).env("PI_CODEMODE_MAX_WORKERS", "3").stdin(std::process::Stdio::null()).output().unwrap();
    assert!(out.status.success());
    assert_eq!(mask(&tool_texts(&server)[2]), ok("last"));
}

#[test]
fn an_extension_tool_with_an_output_schema_resolves_to_its_structured_content() {
    let env = Env::new();
    let ext = env.fixture("structured.ts");
    let server = MockServer::start(script("return [await tools.stats({}), await tools.stats({fail: true})]"));
    env.run(&server, &["--no-session", "-e", &ext, "--tools", "+codemode"]);
    assert_eq!(result(&server), ok("[{\"count\":2,\"items\":[\"a\",\"b\"]},{\"count\":1,\"items\":[\"x\"]}]"));
}
