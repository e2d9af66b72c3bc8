//! End-to-end: extension commands (`pi.registerCommand`), the `input`
//! event and the session API (`ctx.sessionManager`, `ctx.modelRegistry`,
//! `pi.appendEntry`, `pi.sendMessage`, `pi.sendUserMessage`, `pi.setLabel`,
//! `ctx.newSession`) through the real `pi` binary in print, JSON and RPC
//! modes, against the mock model server; and the reference's refusal of two
//! extensions registering one tool name.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::Write;
use std::process::{Output, Stdio};

use pi_test_support::{MockServer, Scratch, Turn, read_until, user_texts};
use serde_json::{Value, json};

const PI: &str = env!("CARGO_BIN_EXE_pi");

use crate::common::ext_fixture as fixture;

/// `pi <mode flags> -e commands.ts <messages>` in `s`.
fn run(s: &Scratch, mode: &[&str], messages: &[&str]) -> Output {
    let ext = fixture("commands.ts");
    let mut args = vec!["--offline", "--no-session", "--model", "mock/mock-1", "-e", &ext];
    args.extend_from_slice(mode);
    args.extend_from_slice(messages);
    s.pi(PI).args(&args).stdin(Stdio::null()).output().unwrap()
}

fn lines(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `data` of the JSON mode's `entry_appended` events of `custom_type`.
fn custom_entries(events: &[Value], custom_type: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "entry_appended" && e["entry"]["customType"] == custom_type)
        .map(|e| e["entry"]["data"].clone())
        .collect()
}

#[test]
fn a_command_runs_its_handler_and_sends_nothing_to_the_model() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let out = run(&s, &["-p"], &["/stats a  b"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(server.requests().is_empty(), "a command is not a prompt");

    let out = run(&s, &["--mode", "json"], &["/stats a  b"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = lines(&out);
    let data = custom_entries(&events, "stats-run");
    assert_eq!(data.len(), 1, "{events:?}");
    // The arguments are the text after the name; the session holds the start-up entries.
    assert_eq!(data[0]["args"], "a  b");
    assert_eq!(data[0]["branchTypes"], json!(["model_change", "thinking_level_change"]));
    assert_eq!(data[0]["entries"], 2);
    assert_eq!(data[0]["hasLeaf"], true);
    assert_eq!(data[0]["file"], Value::Null, "--no-session has no file");
    // The custom message enters the conversation with its events.
    let custom: Vec<&Value> = events.iter().filter(|e| e["message"]["role"] == "custom").collect();
    assert_eq!(custom.len(), 2, "message_start and message_end: {events:?}");
    assert_eq!(custom[0]["type"], "message_start");
    assert_eq!(custom[1]["message"]["customType"], "stats");
    assert_eq!(custom[1]["message"]["content"], "args=a  b");
    assert_eq!(custom[1]["message"]["details"], json!({"n": 1}));
    assert!(server.requests().is_empty());
}

#[test]
fn send_user_message_and_trigger_turn_reach_the_model_after_the_command() {
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    let s = Scratch::new(&server);
    let out = run(&s, &["-p"], &["/ask what now", "/poke"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "two\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(user_texts(&requests[0].body), ["asked: what now"]);
    // The triggered turn answers the conversation with the custom message in it (as a user message).
    let last = requests[1].body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user", "{last}");
    assert!(last.to_string().contains("poked"), "{last}");
}

#[test]
fn input_handlers_transform_or_handle_what_is_typed() {
    let server = MockServer::start(vec![Turn::text("ok")]);
    let s = Scratch::new(&server);
    let out = run(&s, &["-p"], &["ping", "?q hello", "ping"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "handled messages send nothing");
    assert_eq!(user_texts(&requests[0].body), ["Brief (interactive): hello"]);
}

#[test]
fn before_agent_start_replaces_the_system_prompt_for_the_run_and_adds_a_message() {
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    let s = Scratch::new(&server);
    let out = run(&s, &["-p"], &["sys: go", "plain"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    let system = |i: usize| requests[i].body["messages"][0]["content"].as_str().unwrap_or_default().to_string();
    assert!(system(0).ends_with("\n\nEXTRA RULES"), "{}", system(0));
    assert!(!system(1).contains("EXTRA RULES"), "only for the run that asked");
    assert_eq!(user_texts(&requests[0].body), ["sys: go", "injected context"]);
}

#[test]
fn model_registry_and_labels_read_the_real_session_and_models() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let out = run(&s, &["--mode", "json"], &["/models", "/label checkpoint"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = lines(&out);
    let models = &custom_entries(&events, "models")[0];
    assert_eq!(models["found"], "mock-1");
    assert_eq!(models["missing"], Value::Null);
    assert_eq!(models["current"], "mock-1");
    assert_eq!(models["thinking"], "off");
    assert!(models["all"].as_array().unwrap().contains(&json!("mock/mock-1")), "{models}");
    assert_eq!(models["available"], 1, "only the mock model has a key");
    // A label is written but not announced (as the reference: only `custom` entries are).
    let labels: Vec<&Value> = events.iter().filter(|e| e["entry"]["type"] == "label").collect();
    assert!(labels.is_empty(), "{events:?}");
    assert_eq!(custom_entries(&events, "label-read")[0]["label"], "checkpoint");
}

#[test]
fn a_failing_command_is_reported_and_the_run_goes_on() {
    let server = MockServer::start(vec![Turn::text("after"), Turn::text("as typed")]);
    let s = Scratch::new(&server);
    let out = run(&s, &["-p"], &["/boom", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("Extension error (") && err.contains("commands.ts): the command failed"), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "after\n");
    // An unknown command is a prompt, as typed.
    let out = run(&s, &["-p"], &["/nosuch x"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(user_texts(&server.requests()[1].body), ["/nosuch x"]);
}

#[test]
fn a_new_session_from_a_command_starts_empty_and_its_messages_go_there() {
    let server = MockServer::start(vec![Turn::text("first"), Turn::text("second")]);
    let s = Scratch::new(&server);
    let out = run(&s, &["-p"], &["hello", "/fresh"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(user_texts(&requests[1].body), ["new session (was other)"], "the old conversation is gone");
}

#[test]
fn rpc_lists_extension_commands_first_and_runs_them_as_handled() {
    let server = MockServer::start(vec![Turn::text("answer")]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("commands.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"get_commands"}}"#).unwrap();
    let r = read_until(&mut out, |v| v["id"] == "1");
    let commands = r["data"]["commands"].as_array().unwrap();
    let names: Vec<&str> = commands.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names[..7], ["stats", "ask", "models", "label", "boom", "fresh", "poke"], "{names:?}");
    assert_eq!(commands[0]["description"], "Show session statistics");
    assert_eq!(commands[0]["source"], "extension");
    assert_eq!(commands[0]["sourceInfo"]["path"], fixture("commands.ts"));
    assert!(commands[2].get("description").is_none(), "no description, no key");

    writeln!(stdin, r#"{{"id":"2","type":"prompt","message":"/stats x"}}"#).unwrap();
    let notify = read_until(&mut out, |v| v["type"] == "extension_ui_request");
    assert_eq!((notify["method"].as_str(), notify["message"].as_str()), (Some("notify"), Some("stats x")));
    let r = read_until(&mut out, |v| v["id"] == "2");
    assert_eq!(r["data"], json!({"disposition": "handled"}));
    writeln!(stdin, r#"{{"id":"3","type":"prompt","message":"ping"}}"#).unwrap();
    let r = read_until(&mut out, |v| v["id"] == "3");
    assert_eq!(r["data"], json!({"disposition": "handled"}));
    writeln!(stdin, r#"{{"id":"4","type":"prompt","message":"?q there"}}"#).unwrap();
    let r = read_until(&mut out, |v| v["id"] == "4");
    assert_eq!(r["data"], json!({"disposition": "started"}));
    read_until(&mut out, |v| v["type"] == "agent_settled");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    // The command's custom message is in the context (as a user message), then the transformed prompt.
    assert_eq!(user_texts(&requests[0].body), ["args=x", "Brief (rpc): there"]);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn a_second_extension_registering_a_tool_name_fails_to_load() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let (a, b) = (fixture("dup-a.ts"), fixture("dup-b.ts"));
    let args = ["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", &a, "-e", &b, "hi"];
    let out = s.pi(PI).args(args).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let want = format!(
        "Error: Failed to load extension \"{b}\": Tool \"dup\" conflicts with {a}\nHint: Start without extensions using \"pi -ne\".\n"
    );
    assert_eq!(stderr(&out), want);
    assert!(server.requests().is_empty());
}

#[test]
fn rpc_sends_the_fire_and_forget_ui_calls_as_the_reference() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("ui-calls.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"/ui"}}"#).unwrap();
    let mut records = Vec::new();
    loop {
        let mut v = read_until(&mut out, |v| v["type"] == "extension_ui_request" || v["id"] == "1");
        if v["id"] == "1" {
            break;
        }
        v.as_object_mut().unwrap().remove("id");
        v.as_object_mut().unwrap().remove("type");
        records.push(v);
    }
    // As the reference writes them (measured side by side); a cleared value
    // leaves its field out, a component widget and the working message are not sent.
    assert_eq!(
        records,
        [
            json!({"method": "setStatus", "statusKey": "k1", "statusText": "running"}),
            json!({"method": "setStatus", "statusKey": "k1"}),
            json!({"method": "setWidget", "widgetKey": "w1", "widgetLines": ["a", "b"]}),
            json!({"method": "setWidget", "widgetKey": "w2", "widgetLines": ["c"], "widgetPlacement": "belowEditor"}),
            json!({"method": "setWidget", "widgetKey": "w1"}),
            json!({"method": "setTitle", "title": "my title"}),
            json!({"method": "set_editor_text", "text": "prefill"}),
            json!({"method": "set_editor_text", "text": "pasted"}),
            json!({"method": "notify", "message": "getTheme=undefined setTheme=Theme switching not supported in RPC mode", "notifyType": "info"}),
        ]
    );
    drop(stdin);
    let _ = child.wait();

    // Without a UI nothing is sent and setTheme says so.
    let args = ["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", &fixture("ui-calls.ts"), "/ui"];
    let out = s.pi(PI).args(args).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}

#[test]
fn the_theme_styles_extension_text_as_the_references_does_in_print_mode() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let log = s.work.join("theme.json");
    let run = |colorterm: &str| {
        let args =
            ["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", &fixture("theme-probe.ts"), "/th"];
        let out = s
            .pi(PI)
            .args(args)
            .env("THEME_LOG", &log)
            .env("COLORTERM", colorterm)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str::<Value>(&std::fs::read_to_string(&log).unwrap()).unwrap()
    };
    // No theme setting: the system theme (measured side by side).
    let v = run("");
    assert_eq!(v["fg"], "\u{1b}[38;5;5mx\u{1b}[39m");
    assert_eq!(v["bg"], "\u{1b}[49my\u{1b}[49m");
    assert_eq!(v["dim"], "\u{1b}[39m\u{1b}[2md\u{1b}[22;39m");
    assert_eq!(v["bold"], "b", "attributes only in the terminal UI");
    assert_eq!(v["unknown"], "u");
    assert_eq!(v["mode"], "256color");
    // The `theme` setting, in the colour mode of the terminal.
    std::fs::write(s.agent_dir().join("settings.json"), r#"{"theme":"dark"}"#).unwrap();
    assert!(run("").get("fg").unwrap().as_str().unwrap().starts_with("\u{1b}[38;5;"));
    let v = run("truecolor");
    assert!(v["fg"].as_str().unwrap().starts_with("\u{1b}[38;2;"), "{v}");
    assert!(v["bg"].as_str().unwrap().starts_with("\u{1b}[48;2;"), "{v}");
    assert_eq!(v["mode"], "truecolor");
}

#[test]
fn navigate_tree_asks_before_moving_and_tells_after_as_the_reference() {
    let run = |cancel: bool| {
        let server = MockServer::start(vec![Turn::text("first answer")]);
        let s = Scratch::new(&server);
        let log = s.work.join("nav.log");
        let args =
            ["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", &fixture("nav-tree.ts"), "hi", "/nav"];
        let mut cmd = s.pi(PI);
        cmd.args(args).env("NAV_LOG", &log).stdin(Stdio::null());
        if cancel {
            cmd.env("NAV_CANCEL", "1");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        (String::from_utf8_lossy(&out.stdout).into_owned(), std::fs::read_to_string(&log).unwrap())
    };
    // To a user message: the leaf goes to its parent (the prompt's system
    // message), the abandoned answer is listed, and print mode has no
    // answer left to print (measured side by side).
    let (stdout, log) = run(false);
    assert_eq!(
        log,
        "before target=true common=true abandoned=assistant summary=false signal=object
tree keys=type,newLeafId,oldLeafId,summaryEntry,fromExtension old=true
result cancelled=false leaf=message:system
"
    );
    assert_eq!(stdout, "");
    let (stdout, log) = run(true);
    assert!(log.ends_with("result cancelled=true leaf=message:assistant\n"), "{log}");
    assert!(!log.contains("tree keys"), "{log}");
    assert_eq!(stdout.trim(), "first answer");
}

#[test]
fn a_section_added_to_the_prompt_options_reaches_the_system_prompt() {
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    let s = Scratch::new(&server);
    let log = s.work.join("options.json");
    let args = [
        "-p",
        "--offline",
        "--no-session",
        "--model",
        "mock/mock-1",
        "-e",
        &fixture("prompt-sections.ts"),
        "hi",
        "again",
    ];
    let out = s.pi(PI).args(args).env("OPTIONS_LOG", &log).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(seen["tools"], json!(["read", "bash", "edit", "write"]));
    assert_eq!(seen["snippet"], "Read file contents");
    for key in ["selectedTools", "toolSnippets", "toolGuidelines", "promptGuidelines", "sections", "cwd", "skills"] {
        assert!(seen["keys"].as_array().unwrap().contains(&json!(key)), "{key}: {seen}");
    }
    // Last in the prompt, every request (measured side by side with the
    // reference's prompt-customizer example).
    for r in server.requests() {
        let system = r.body["messages"][0]["content"].as_str().unwrap().to_string();
        assert!(system.ends_with("\n\n<tool_guidance>\n- read\n- bash\n- edit\n- write\n</tool_guidance>"), "{system}");
    }
}

#[test]
fn ctx_shutdown_ends_rpc_mode_after_the_command_answers_and_print_mode_goes_on() {
    let server = MockServer::start(vec![Turn::text("still here")]);
    let s = Scratch::new(&server);
    let log = s.work.join("shutdown.log");
    let mut cmd = s.pi(PI);
    cmd.args(["--mode", "rpc", "--offline", "--no-session", "--model", "mock/mock-1", "-e", &fixture("shutdown.ts")])
        .env("SHUTDOWN_LOG", &log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"/bye"}}"#).unwrap();
    let r = read_until(&mut out, |v| v["id"] == "1");
    assert_eq!(r["data"], json!({"disposition": "handled"}));
    // pi ends by itself, its input still open, as the reference does.
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "pi did not end");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "session_shutdown quit\n");
    drop(stdin);

    // Print mode ends by itself: the next message still runs.
    let args =
        ["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", &fixture("shutdown.ts"), "/bye", "hi"];
    let out = s.pi(PI).args(args).env("SHUTDOWN_LOG", &log).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "still here");
}

#[test]
fn scoped_models_follow_the_models_patterns_as_the_reference() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let models = json!({"providers": {"mock": {"baseUrl": format!("{}/v1", server.base_url()), "api": "openai-completions",
        "apiKey": "x", "models": [{"id": "mock-1"}, {"id": "mock-2", "reasoning": true}]}}});
    std::fs::write(s.agent_dir().join("models.json"), models.to_string()).unwrap();
    let args = [
        "-p",
        "--offline",
        "--no-session",
        "--model",
        "mock/mock-1",
        "--models",
        "mock-1,mock/mock-2:high,nosuch",
        "-e",
        &fixture("scoped.ts"),
        "/sc",
    ];
    let out = s.pi(PI).args(args).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(s.work.join("sc.json")).unwrap()).unwrap();
    // Measured side by side: both entries carry `thinkingLevel` (undefined unless pinned).
    assert_eq!(
        seen,
        json!({"scoped": [
            {"keys": ["model", "thinkingLevel"], "id": "mock-1"},
            {"keys": ["model", "thinkingLevel"], "id": "mock-2", "t": "high"}
        ], "pending": false})
    );
}

#[test]
fn a_session_replacement_keeps_module_state_and_reload_starts_it_over() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let args = [
        "-p",
        "--offline",
        "--no-session",
        "--model",
        "mock/mock-1",
        "-e",
        &fixture("module-state.ts"),
        "/fresh",
        "/rl",
        "/fresh",
    ];
    let out = s.pi(PI).args(args).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // As the reference (measured side by side): a new session runs the
    // factory again in the same module; /reload evaluates the module afresh.
    assert_eq!(
        std::fs::read_to_string(s.work.join("mod.log")).unwrap(),
        "session_start startup module=1 factory=1
session_start new module=2 factory=1
session_start reload module=1 factory=1
session_start new module=2 factory=1
"
    );
}

#[test]
fn dialogs_are_announced_by_ui_prompt_start_and_end() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("ui-prompt.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"/ask"}}"#).unwrap();
    let confirm = read_until(&mut out, |v| v["method"] == "confirm");
    writeln!(stdin, "{}", json!({"type": "extension_ui_response", "id": confirm["id"], "confirmed": true})).unwrap();
    let select = read_until(&mut out, |v| v["method"] == "select");
    writeln!(stdin, "{}", json!({"type": "extension_ui_response", "id": select["id"], "value": "x"})).unwrap();
    read_until(&mut out, |v| v["id"] == "1");
    drop(stdin);
    let _ = child.wait();
    // As the reference (measured side by side).
    assert_eq!(
        std::fs::read_to_string(s.work.join("uip.log")).unwrap(),
        r#"{"type":"ui_prompt_start","reason":"ui_prompt","kind":"confirm","title":"Sure?"}
{"type":"ui_prompt_end","reason":"ui_prompt","kind":"confirm","title":"Sure?"}
{"answer":true}
{"type":"ui_prompt_start","reason":"ui_prompt","kind":"select","title":"Pick"}
{"type":"ui_prompt_end","reason":"ui_prompt","kind":"select","title":"Pick"}
{"answer":"x"}
"#
    );
}

#[test]
fn a_run_a_custom_message_starts_fires_before_agent_start_with_it() {
    let server = MockServer::start(vec![Turn::text("answered")]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("trigger-start.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"/trig"}}"#).unwrap();
    read_until(&mut out, |v| v["type"] == "agent_settled");
    drop(stdin);
    let _ = child.wait();
    assert_eq!(std::fs::read_to_string(s.work.join("bas.log")).unwrap(), "custom kick\n");
    assert_eq!(user_texts(&server.requests()[0].body), ["kick it", "added by handler"]);
}

#[test]
fn rpc_model_commands_answer_after_model_select_handlers_and_not_for_the_same_model() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let models = json!({"providers": {"mock": {"baseUrl": format!("{}/v1", server.base_url()), "api": "openai-completions",
        "apiKey": "x", "models": [{"id": "mock-1"}, {"id": "mock-2"}]}}});
    std::fs::write(s.agent_dir().join("models.json"), models.to_string()).unwrap();
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("model-notify.ts")]);
    let mut next = |line: String| {
        writeln!(stdin, "{line}").unwrap();
        let mut seen = Vec::new();
        loop {
            let v = read_until(&mut out, |v| v["type"] == "response" || v["type"] == "extension_ui_request");
            if v["type"] == "response" {
                return seen;
            }
            seen.push(v["message"].as_str().unwrap().to_string());
        }
    };
    // As the reference (measured side by side): the model in use chosen
    // again is not announced; a change is heard before the answer.
    assert!(next(r#"{"id":"a","type":"set_model","provider":"mock","modelId":"mock-1"}"#.into()).is_empty());
    assert_eq!(
        next(r#"{"id":"b","type":"set_model","provider":"mock","modelId":"mock-2"}"#.into()),
        ["Model: mock/mock-2 (set)"]
    );
    assert_eq!(next(r#"{"id":"c","type":"cycle_model"}"#.into()), ["Model: mock/mock-1 (cycle)"]);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn rpc_records_a_commands_message_before_its_answer() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("send-custom.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"/sm"}}"#).unwrap();
    // As the reference: the custom message's events, then the answer.
    let first = read_until(&mut out, |v| v["type"] == "message_start" || v["id"] == "1");
    assert_eq!(first["type"], "message_start", "{first}");
    assert_eq!(first["message"]["customType"], "ctype");
    let end = read_until(&mut out, |v| v["type"] == "message_end" || v["id"] == "1");
    assert_eq!(end["type"], "message_end", "{end}");
    let answer = read_until(&mut out, |v| v["id"] == "1");
    assert_eq!(answer["data"], json!({"disposition": "handled"}));
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn rpc_records_follow_their_handlers_as_the_reference_writes_them() {
    let server = MockServer::start(vec![
        Turn::tools(vec![
            pi_test_support::ToolCallSpec::new("read", json!({"path": "nope.txt"})),
            pi_test_support::ToolCallSpec::new("ls", json!({})),
        ]),
        Turn::text("done"),
    ]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("event-order.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"prompt","message":"hi"}}"#).unwrap();
    let mut seen = Vec::new();
    loop {
        let v = read_until(&mut out, |_| true);
        let line = match v["type"].as_str().unwrap_or_default() {
            "extension_ui_request" => format!("ui {}", v["statusKey"].as_str().unwrap_or_default()),
            "response" => "response".to_string(),
            "message_update" => continue,
            "message_start" | "message_end" => {
                format!("{} {}", v["type"].as_str().unwrap(), v["message"]["role"].as_str().unwrap())
            }
            other => other.to_string(),
        };
        let settled = line == "agent_settled";
        seen.push(line);
        if settled {
            break;
        }
    }
    drop(stdin);
    let _ = child.wait();
    let at = |needle: &str| seen.iter().position(|l| l == needle).unwrap_or_else(|| panic!("{needle}: {seen:?}"));
    // Measured side by side: handlers first, then the record.
    assert!(at("ui before_agent_start") < at("response"), "{seen:?}");
    assert!(at("ui agent_start") < at("agent_start"), "{seen:?}");
    assert!(at("ui turn_start") < at("turn_start"), "{seen:?}");
    assert!(at("ui tool_execution_start") < at("tool_execution_start"), "{seen:?}");
    assert!(at("ui turn_end") < at("turn_end"), "{seen:?}");
    assert!(at("ui agent_settled") < at("agent_settled"), "{seen:?}");
    // The results' messages after both calls ended.
    let last_end = seen.iter().rposition(|l| l == "tool_execution_end").unwrap();
    assert!(at("message_start toolResult") > last_end, "{seen:?}");
}

#[test]
fn rpc_set_session_name_answers_after_the_handlers_heard_it() {
    let server = MockServer::start(vec![]);
    let s = Scratch::new(&server);
    let (mut child, mut stdin, mut out) = s.rpc(PI, &["-e", &fixture("session-name.ts")]);
    writeln!(stdin, r#"{{"id":"1","type":"set_session_name","name":"  my work "}}"#).unwrap();
    let changed = read_until(&mut out, |v| v["type"] == "session_info_changed");
    assert_eq!(changed["name"], "my work");
    // As the reference: the handler's notification, then the answer.
    let next = read_until(&mut out, |v| v["type"] == "extension_ui_request" || v["id"] == "1");
    assert_eq!(next["message"], "named my work", "{next}");
    let answer = read_until(&mut out, |v| v["id"] == "1");
    assert_eq!(answer["success"], true);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn a_message_sent_from_agent_settled_runs_after_it() {
    let server = MockServer::start(vec![Turn::text("first"), Turn::text("second")]);
    let s = Scratch::new(&server);
    let args = ["-p", "--offline", "--no-session", "--model", "mock/mock-1", "-e", &fixture("settled-send.ts"), "hi"];
    let out = s.pi(PI).args(args).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("Extension error"), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(user_texts(&requests[1].body), ["hi", "once more"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "second");
}
