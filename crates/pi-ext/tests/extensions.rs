//! Extensions as Pi users write them, driven through pi-agent's dispatcher
//! with the built-in tools in a temporary folder.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use pi_agent::{AgentTool, BuiltinTool, CallRequest, Caller, Dispatcher, Finished, RawArgs, Registry, ToolEvent};
use pi_ext::{
    ExtError, ExtensionHost, HostOptions, Limits, LoadedExtensions, Mode, NotifyLevel, ToolsApi, UiBridge, UiRequest,
    UiResponse,
};
use pi_tools::{Content, ToolContext};
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

struct Harness {
    dir: tempfile::TempDir,
    d: Dispatcher,
    loaded: LoadedExtensions,
    events: Arc<Mutex<Vec<ToolEvent>>>,
}

fn options(dir: &Path) -> HostOptions {
    HostOptions { cwd: dir.to_path_buf(), ..Default::default() }
}

async fn harness(fixtures: &[&str]) -> Harness {
    harness_with(fixtures, |_| {}).await
}

async fn harness_with(fixtures: &[&str], tweak: impl FnOnce(&mut HostOptions)) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/a.txt"), "hi\n").unwrap();
    std::fs::write(dir.path().join("f.txt"), "hello\n").unwrap();
    let mut opts = options(dir.path());
    tweak(&mut opts);
    let paths: Vec<PathBuf> = fixtures.iter().map(|f| fixture(f)).collect();
    let loaded = ExtensionHost::load(&paths, opts).await.unwrap_or_else(|e| panic!("{e}"));
    let mut reg = Registry::new();
    for t in BuiltinTool::all() {
        reg.register(t);
    }
    let mut active: Vec<String> = ["read", "bash", "edit", "write", "grep", "find", "ls"].map(String::from).to_vec();
    for t in &loaded.tools {
        reg.register(t.clone());
    }
    active.extend(reg.active().iter().cloned());
    reg.reset_active(&active);
    let mut d = Dispatcher::new(reg);
    d.interceptors = loaded.interceptors.clone();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    d.sink = Some(Arc::new(move |ev: ToolEvent| sink.lock().unwrap().push(ev)));
    Harness { dir, d, loaded, events }
}

impl Harness {
    fn ctx(&self) -> ToolContext {
        ToolContext::new(self.dir.path())
    }

    async fn call(&self, id: &str, name: &str, args: Value) -> Finished {
        let req = CallRequest { id: id.into(), name: name.into(), args: RawArgs::Json(args), parent: None };
        self.d.call(req, Caller::Model, &self.ctx()).await
    }

    fn handler_errors(&self) -> Vec<(String, String)> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                ToolEvent::HandlerError { source, error, .. } => Some((source.clone(), error.clone())),
                _ => None,
            })
            .collect()
    }
}

fn text(f: &Finished) -> String {
    f.result.text_content()
}

// ------------------------------------------------------------------ permission gate, protected paths

#[tokio::test]
async fn permission_gate_blocks_dangerous_commands_without_ui() {
    let h = harness(&["permission-gate.ts"]).await;
    for cmd in ["rm -rf /tmp/x", "sudo ls", "chmod 777 f.txt", "RM -R x"] {
        let f = h.call("c1", "bash", json!({"command": cmd})).await;
        assert!(f.result.is_error, "{cmd}");
        assert_eq!(text(&f), "Dangerous command blocked (no UI for confirmation)", "{cmd}");
    }
    let f = h.call("c2", "bash", json!({"command": "echo safe"})).await;
    assert!(!f.result.is_error);
    assert_eq!(text(&f), "safe\n");
}

/// A UI that answers dialogs from a script and records what it was asked.
#[derive(Default)]
struct ScriptedUi {
    answers: Mutex<Vec<UiResponse>>,
    asked: Mutex<Vec<UiRequest>>,
    notes: Mutex<Vec<(String, NotifyLevel)>>,
}

impl UiBridge for ScriptedUi {
    fn dialog(&self, request: UiRequest) -> BoxFuture<'static, UiResponse> {
        self.asked.lock().unwrap().push(request);
        let answer = self.answers.lock().unwrap().pop().unwrap_or(UiResponse::Cancelled);
        Box::pin(async move { answer })
    }
    fn notify(&self, message: &str, level: NotifyLevel) {
        self.notes.lock().unwrap().push((message.to_string(), level));
    }
}

#[tokio::test]
async fn permission_gate_asks_when_there_is_a_ui() {
    let ui = Arc::new(ScriptedUi::default());
    ui.answers.lock().unwrap().extend([
        UiResponse::Cancelled,
        UiResponse::Value("Yes".into()),
        UiResponse::Value("No".into()),
    ]);
    let bridge: Arc<dyn UiBridge> = ui.clone();
    let h = harness_with(&["permission-gate.ts"], |o| {
        o.has_ui = true;
        o.mode = Mode::Rpc;
        o.ui = Some(bridge);
    })
    .await;
    let f = h.call("c1", "bash", json!({"command": "sudo echo one"})).await;
    assert_eq!(text(&f), "Blocked by user");
    let f = h.call("c2", "bash", json!({"command": "echo two; sudo -n true 2>/dev/null; true"})).await;
    assert!(!f.result.is_error, "{}", text(&f));
    assert!(text(&f).starts_with("two"));
    let f = h.call("c3", "bash", json!({"command": "sudo echo three"})).await;
    assert_eq!(text(&f), "Blocked by user");
    let asked = ui.asked.lock().unwrap();
    assert_eq!(
        asked[0],
        UiRequest::Select {
            title: "⚠️ Dangerous command:\n\n  sudo echo one\n\nAllow?".into(),
            options: vec!["Yes".into(), "No".into()],
            timeout: None
        }
    );
    assert_eq!(
        serde_json::to_value(&asked[0]).unwrap(),
        json!({"method": "select", "title": "⚠️ Dangerous command:\n\n  sudo echo one\n\nAllow?", "options": ["Yes", "No"]})
    );
}

#[tokio::test]
async fn protected_paths_guard_write_and_edit() {
    let h = harness(&["protected-paths.ts"]).await;
    for (tool, path) in
        [("write", ".env"), ("write", "a/.git/config"), ("edit", "node_modules/x.js"), ("write", ".env.local")]
    {
        let args = if tool == "write" {
            json!({"path": path, "content": "x"})
        } else {
            json!({"path": path, "edits": [{"oldText": "a", "newText": "b"}]})
        };
        let f = h.call("c", tool, args).await;
        assert!(f.result.is_error);
        assert_eq!(text(&f), format!("Path \"{path}\" is protected"));
    }
    assert!(!h.dir.path().join(".env").exists());
    let f = h.call("c", "write", json!({"path": "ok.txt", "content": "x"})).await;
    assert!(!f.result.is_error, "{}", text(&f));
    let f = h.call("c", "read", json!({"path": ".env"})).await;
    assert!(text(&f).starts_with("ENOENT"), "reads are not guarded: {}", text(&f));
}

#[tokio::test]
async fn protected_paths_notify_with_a_ui() {
    let ui = Arc::new(ScriptedUi::default());
    let bridge: Arc<dyn UiBridge> = ui.clone();
    let h = harness_with(&["protected-paths.ts"], |o| {
        o.has_ui = true;
        o.ui = Some(bridge);
    })
    .await;
    let f = h.call("c", "write", json!({"path": ".env", "content": "x"})).await;
    assert_eq!(text(&f), "Path \".env\" is protected");
    assert_eq!(
        *ui.notes.lock().unwrap(),
        vec![("Blocked write to protected path: .env".to_string(), NotifyLevel::Warning)]
    );
}

/// The reference's own example files, unmodified, when the reference is installed here.
#[tokio::test]
async fn reference_examples_run_unmodified() {
    let dir = Path::new("/work/ref/node_modules/@earendil-works/pi-coding-agent/examples/extensions");
    if !dir.join("permission-gate.ts").exists() {
        eprintln!("skipped: the reference is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let paths = [dir.join("permission-gate.ts"), dir.join("protected-paths.ts")];
    let loaded = ExtensionHost::load(&paths, options(tmp.path())).await.unwrap();
    let mut reg = Registry::new();
    for t in BuiltinTool::all() {
        reg.register(t);
    }
    reg.set_active(&["bash".into(), "write".into()]);
    let mut d = Dispatcher::new(reg);
    d.interceptors = loaded.interceptors.clone();
    let ctx = ToolContext::new(tmp.path());
    let call = |name: &str, args: Value| CallRequest {
        id: "r".into(),
        name: name.into(),
        args: RawArgs::Json(args),
        parent: None,
    };
    let f = d.call(call("bash", json!({"command": "rm -rf x"})), Caller::Model, &ctx).await;
    assert_eq!(f.result.text_content(), "Dangerous command blocked (no UI for confirmation)");
    let f = d.call(call("write", json!({"path": ".env", "content": "x"})), Caller::Model, &ctx).await;
    assert_eq!(f.result.text_content(), "Path \".env\" is protected");
}

// ------------------------------------------------------------------ tools with TypeBox schemas

#[tokio::test]
async fn typebox_tool_registers_and_runs() {
    let h = harness(&["typebox-tool.ts"]).await;
    let greet = h.loaded.tools.iter().find(|t| t.def().name == "greet").unwrap();
    // The schema TypeBox 1.x and StringEnum build (key order as theirs).
    assert_eq!(
        serde_json::to_string(&greet.def().parameters).unwrap(),
        r#"{"type":"object","required":["name"],"properties":{"name":{"type":"string","description":"Name to greet"},"times":{"type":"integer","minimum":1,"description":"How often"},"loud":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}},"mood":{"type":"string","enum":["happy","grumpy"],"description":"Mood"},"style":{"anyOf":[{"type":"string","const":"plain"},{"type":"string","const":"fancy"}]}}}"#
    );
    let def = greet.def();
    assert_eq!(def.description, "Greet someone by name");
    assert_eq!(def.prompt_snippet.as_deref(), Some("Greet people"));
    assert_eq!(def.prompt_guidelines, vec!["Use greet when the user asks for a greeting."]);
    assert_eq!(def.annotations.read_only_hint, Some(true));
    assert!(h.d.registry.active().contains(&"greet".to_string()));
    // codemode exposure and defaultActive: false do not activate (X2).
    assert!(!h.d.registry.active().contains(&"schema_of_greet".to_string()));
    assert!(!h.d.registry.active().contains(&"failing".to_string()));

    let f = h.call("g1", "greet", json!({"name": "Ada", "times": "2", "loud": true})).await;
    assert!(!f.result.is_error, "{}", text(&f));
    assert_eq!(text(&f), "Hello, Ada! Hello, Ada!");
    assert_eq!(f.result.details, Some(json!({"params": {"name": "Ada", "times": 2, "loud": true}})));
    let updates: Vec<String> = h
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            ToolEvent::Update { id, partial, .. } if id == "g1" => Some(partial.text_content()),
            _ => None,
        })
        .collect();
    assert_eq!(updates, vec!["thinking"]);

    let f = h.call("g2", "greet", json!({"times": 1})).await;
    assert_eq!(
        text(&f),
        "Validation failed for tool \"greet\":\n  - name: missing\n\nReceived arguments:\n{\n  \"times\": 1\n}"
    );
    // Note: keywords beyond type/properties/required/items (enum, const, anyOf, minimum) are
    // not checked yet by pi-tools' validator; see docs/extensions.md.
}

#[tokio::test]
async fn tool_errors_become_error_results() {
    let mut h = harness(&["typebox-tool.ts"]).await;
    let mut active = h.d.registry.active().to_vec();
    active.push("failing".into());
    h.d.registry.set_active(&active);
    let f = h.call("f1", "failing", json!({"how": "error"})).await;
    assert!(f.result.is_error);
    assert_eq!(text(&f), "it broke");
    let f = h.call("f2", "failing", json!({"how": "string"})).await;
    assert_eq!(text(&f), "a plain string");
    let f = h.call("f3", "failing", json!({"how": "data"})).await;
    assert!(f.result.is_error);
    assert_eq!(text(&f), "kept data");
    assert_eq!(f.result.details, Some(json!({"partial": true})));
}

// ------------------------------------------------------------------ nested calls

#[tokio::test]
async fn execute_tool_goes_through_the_pipeline() {
    let h = harness(&["nested.ts", "permission-gate.ts"]).await;
    let calls = json!({"calls": [
        {"name": "read", "args": {"path": "f.txt"}},
        {"name": "nope", "args": {}},
        {"name": "bash", "args": {"command": "sudo true"}},
        {"name": "read", "args": {}},
        {"name": "run_tools", "args": {"calls": [{"name": "ls", "args": {"path": "sub"}}]}},
    ]});
    let f = h.call("T1", "run_tools", calls).await;
    assert!(!f.result.is_error, "{}", text(&f));
    assert_eq!(text(&f), "T1/1:ok | T1/2:error | T1/3:error | T1/4:error | T1/5:ok");
    let details = f.result.details.clone().unwrap();
    let outcomes = details["outcomes"].as_array().unwrap();
    assert_eq!(
        outcomes[0],
        json!({"toolCall": {"type": "toolCall", "id": "T1/1", "name": "read", "arguments": {"path": "f.txt"}},
               "result": {"content": [{"type": "text", "text": "hello\n"}], "structuredContent": "hello\n"}, "isError": false,
               "durationMs": outcomes[0]["durationMs"]})
    );
    assert!(outcomes[0]["durationMs"].is_u64());
    assert_eq!(
        outcomes[1]["result"],
        json!({"content": [{"type": "text", "text": "Tool nope not found"}], "details": {}})
    );
    assert!(outcomes[1].get("durationMs").is_none());
    assert_eq!(outcomes[2]["result"]["content"][0]["text"], "Dangerous command blocked (no UI for confirmation)");
    assert!(
        outcomes[3]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Validation failed for tool \"read\":")
    );
    let inner = &outcomes[4]["result"]["details"]["outcomes"][0];
    assert_eq!(inner["toolCall"]["id"], "T1/5/1");
    assert_eq!(inner["result"]["content"][0]["text"], "a.txt");
    // ctx.tools: the callable set (active direct tools and codemode/deferred ones).
    let tools: Vec<&str> = details["tools"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(tools.contains(&"read") && tools.contains(&"run_tools") && tools.contains(&"seen_calls"), "{tools:?}");

    // The handlers saw the nested calls with their parent ids.
    let seen = h.call("S", "seen_calls", json!({})).await.result.details.unwrap();
    let seen: Vec<(String, String, Option<String>)> = seen["seen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().into(),
                s["tool"].as_str().unwrap().into(),
                s["parent"].as_str().map(String::from),
            )
        })
        .collect();
    let expect =
        |id: &str, tool: &str, parent: Option<&str>| (id.to_string(), tool.to_string(), parent.map(String::from));
    assert_eq!(
        seen,
        vec![
            expect("T1", "run_tools", None),
            expect("T1/1", "read", Some("T1")),
            expect("T1/3", "bash", Some("T1")),
            expect("T1/5", "run_tools", Some("T1")),
            expect("T1/5/1", "ls", Some("T1/5")),
            expect("S", "seen_calls", None),
        ]
    );

    // The bounded record on the model-issued call (I5): never the results.
    let record = f.nested_calls.clone().unwrap();
    let record = serde_json::to_value(&record).unwrap();
    assert_eq!(record["complete"], true);
    let ids: Vec<&str> = record["calls"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["T1/1", "T1/2", "T1/3", "T1/4", "T1/5", "T1/5/1"]);
    assert_eq!(record["calls"][0]["status"], "ok");
    assert_eq!(record["calls"][0]["arguments"], json!({"path": "f.txt"}));
    assert_eq!(record["calls"][1]["status"], "error");
    assert_eq!(record["calls"][1]["error"], "Tool nope not found");
    assert!(record["calls"][0].get("result").is_none());

    // Events carry the parent id.
    let starts: Vec<(String, Option<String>)> = h
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            ToolEvent::Start { id, parent, .. } => Some((id.clone(), parent.clone())),
            _ => None,
        })
        .collect();
    assert!(starts.contains(&("T1/5/1".to_string(), Some("T1/5".to_string()))));
}

#[tokio::test]
async fn nested_calls_reach_codemode_tools_but_not_inactive_ones() {
    let h = harness(&["nested.ts", "typebox-tool.ts"]).await;
    let f = h
        .call(
            "N",
            "run_tools",
            json!({"calls": [{"name": "schema_of_greet", "args": {}}, {"name": "failing", "args": {"how": "x"}}]}),
        )
        .await;
    assert_eq!(text(&f), "N/1:ok | N/2:error");
    let details = f.result.details.unwrap();
    assert_eq!(details["outcomes"][1]["result"]["content"][0]["text"], "Tool failing not found");
    let schema: Value =
        serde_json::from_str(details["outcomes"][0]["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(schema["required"], json!(["name"]));
}

// ------------------------------------------------------------------ mutation, order, failures, terminate

#[tokio::test]
async fn handlers_mutate_input_in_load_order() {
    let h = harness(&["mutate-a.ts", "mutate-b.ts"]).await;
    let f = h.call("m1", "bash", json!({"command": "echo"})).await;
    assert_eq!(text(&f), "a b\n");
    let f = h.call("m2", "ls", json!({"path": "mut"})).await;
    assert_eq!(text(&f), "a.txt");
    let h = harness(&["mutate-b.ts", "mutate-a.ts"]).await;
    let f = h.call("m3", "bash", json!({"command": "echo"})).await;
    assert_eq!(text(&f), "b a\n");
}

#[tokio::test]
async fn a_throwing_tool_call_handler_blocks() {
    let h = harness(&["throwing.ts"]).await;
    let cases = [
        ("error", "boom error"),
        ("string", "Extension failed, blocking execution: boom string"),
        ("object", "Extension failed, blocking execution: [object Object]"),
        ("noreason", "Tool execution was blocked"),
    ];
    for (path, expected) in cases {
        let f = h.call("t", "ls", json!({"path": path})).await;
        assert!(f.result.is_error);
        assert_eq!(text(&f), expected);
    }
    // Engine messages differ from V8's; the call is blocked all the same.
    let f = h.call("t", "ls", json!({"path": "typeerror"})).await;
    assert!(f.result.is_error);
    assert!(text(&f).contains("foo"), "{}", text(&f));
}

#[tokio::test]
async fn a_throwing_tool_result_handler_is_reported_and_the_result_kept() {
    let h = harness(&["throwing.ts"]).await;
    let f = h.call("r1", "read", json!({"path": "f.txt"})).await;
    assert!(!f.result.is_error);
    assert_eq!(text(&f), "hello\n");
    // The next handler of the same extension still ran.
    assert_eq!(f.result.details, Some(json!({"patched": true})));
    let f = h.call("r2", "ls", json!({"path": "sub"})).await;
    assert_eq!(text(&f), "a.txt");
    let path = fixture("throwing.ts").to_string_lossy().into_owned();
    assert_eq!(
        h.handler_errors(),
        vec![(path.clone(), "result boom".to_string()), (path.clone(), "result string".to_string())]
    );
    assert_eq!(pi_ext::text::extension_error(&path, "result boom"), format!("Extension error ({path}): result boom"));
    let f = h.call("r3", "find", json!({"pattern": "*.txt"})).await;
    assert!(f.result.is_error);
    assert_eq!(f.result.content, vec![Content::Text { text: "replaced".into() }]);
}

#[tokio::test]
async fn terminate_from_a_blocking_handler_and_from_a_tool() {
    let h = harness(&["terminate.ts"]).await;
    let f = h.call("x1", "bash", json!({"command": "echo stop"})).await;
    assert!(f.terminate);
    assert_eq!(text(&f), "Stopping here");
    let f = h.call("x2", "bash", json!({"command": "echo go"})).await;
    assert!(!f.terminate);
    let f = h.call("x3", "finish", json!({})).await;
    assert!(f.terminate);
    assert_eq!(text(&f), "final answer");
}

// ------------------------------------------------------------------ limits

#[tokio::test]
async fn runaway_handlers_are_stopped_by_the_time_limit() {
    let limit = Duration::from_millis(300);
    let h =
        harness_with(&["runaway.ts", "mutate-a.ts"], |o| o.limits = Limits { time: limit, ..Limits::default() }).await;
    let path = fixture("runaway.ts").to_string_lossy().into_owned();
    let started = Instant::now();
    let f = h.call("l1", "ls", json!({"path": "loop"})).await;
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert!(f.result.is_error);
    assert_eq!(text(&f), pi_ext::text::time_limit(&path, limit));
    // The stopped extension blocks every later call (fail-safe) at once; the other still runs.
    let started = Instant::now();
    let f = h.call("l2", "bash", json!({"command": "echo"})).await;
    assert!(started.elapsed() < Duration::from_millis(200));
    assert_eq!(text(&f), pi_ext::text::time_limit(&path, limit));
}

#[tokio::test]
async fn endless_microtasks_and_tools_are_stopped_too() {
    let limit = Duration::from_millis(300);
    let path = fixture("runaway.ts").to_string_lossy().into_owned();
    let h = harness_with(&["runaway.ts"], |o| o.limits = Limits { time: limit, ..Limits::default() }).await;
    let f = h.call("l1", "ls", json!({"path": "microtasks"})).await;
    assert_eq!(text(&f), pi_ext::text::time_limit(&path, limit));
    let h = harness_with(&["runaway.ts"], |o| o.limits = Limits { time: limit, ..Limits::default() }).await;
    let f = h.call("s1", "spin", json!({})).await;
    assert!(f.result.is_error);
    assert_eq!(text(&f), pi_ext::text::time_limit(&path, limit));
}

#[tokio::test]
async fn endless_allocation_hits_the_memory_limit() {
    let limit = 32 * 1024 * 1024;
    let h = harness_with(&["runaway.ts", "mutate-a.ts"], |o| o.limits = Limits { memory: limit, ..Limits::default() })
        .await;
    let path = fixture("runaway.ts").to_string_lossy().into_owned();
    let started = Instant::now();
    let f = h.call("a1", "ls", json!({"path": "alloc"})).await;
    assert!(f.result.is_error);
    assert_eq!(text(&f), pi_ext::text::out_of_memory(&path, limit));
    assert!(started.elapsed() < Duration::from_secs(10));
    // The stopped extension blocks later calls; the other one still runs.
    let f = h.call("a2", "ls", json!({"path": "sub"})).await;
    assert_eq!(text(&f), pi_ext::text::out_of_memory(&path, limit));
    // At load time too.
    let src = h.dir.path().join("hog.ts");
    std::fs::write(&src, "const keep: string[] = []; for (;;) keep.push(\"y\".repeat(1 << 20) + keep.length);\nexport default function () {}").unwrap();
    let opts = HostOptions { limits: Limits { memory: limit, ..Limits::default() }, ..options(h.dir.path()) };
    let e = ExtensionHost::load(std::slice::from_ref(&src), opts).await.err().unwrap();
    assert_eq!(e.message, pi_ext::text::out_of_memory(&src.to_string_lossy(), limit));
}

// ------------------------------------------------------------------ lifecycle, trust, registry

#[tokio::test]
async fn session_events_and_project_trust() {
    let h = harness_with(&["trust-undecided.ts", "lifecycle.ts"], |o| o.mode = Mode::Json).await;
    let errors = h.loaded.session_start("startup").await;
    assert!(errors.is_empty(), "{errors:?}");
    let outcome = h.loaded.project_trust(Path::new("/some/project")).await;
    let undecided = fixture("trust-undecided.ts").to_string_lossy().into_owned();
    let lifecycle = fixture("lifecycle.ts").to_string_lossy().into_owned();
    assert_eq!(outcome.warnings, vec![format!("Extension \"{undecided}\" project_trust error: cannot decide")]);
    let decision = outcome.decision.unwrap();
    assert!(decision.trusted && decision.remember);
    assert_eq!(decision.path, lifecycle);
    let f = h.call("l", "lifecycle_log", json!({})).await;
    assert_eq!(text(&f), format!("start:startup:json:false:{}\ntrust:/some/project", h.dir.path().display()));
    let errors = h.loaded.session_shutdown("quit").await;
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].to_string(), format!("Extension error ({lifecycle}): cleanup failed"));
    assert_eq!(errors[0].event, "session_shutdown");
}

struct SharedRegistry(Mutex<Registry>);

impl ToolsApi for SharedRegistry {
    fn all_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        self.0.lock().unwrap().all().to_vec()
    }
    fn active_tools(&self) -> Vec<String> {
        self.0.lock().unwrap().active().to_vec()
    }
    fn set_active_tools(&self, names: &[String]) {
        self.0.lock().unwrap().set_active(names)
    }
    fn register_tool(&self, tool: Arc<dyn AgentTool>) {
        self.0.lock().unwrap().register(tool)
    }
}

#[tokio::test]
async fn extensions_read_and_change_the_registry() {
    let ui = Arc::new(ScriptedUi::default());
    ui.answers.lock().unwrap().push(UiResponse::Confirmed(false));
    let bridge: Arc<dyn UiBridge> = ui.clone();
    let h = harness_with(&["tools-api.ts"], |o| {
        o.has_ui = true;
        o.ui = Some(bridge);
    })
    .await;
    let shared = Arc::new(SharedRegistry(Mutex::new(h.d.registry.clone())));
    h.loaded.bind_tools(shared.clone()).await;
    // loadout is read-only: no question asked.
    let f = h.call("t1", "loadout", json!({})).await;
    assert_eq!(text(&f), "read,bash,edit,write,grep,find,ls,loadout");
    let mine = &f.result.details.as_ref().unwrap()["mine"];
    let ls = &mine[0];
    assert_eq!(ls["name"], "ls");
    assert_eq!(ls["exposure"], "direct");
    assert!(ls.get("promptGuidelines").is_none());
    assert_eq!(
        ls["sourceInfo"],
        json!({"path": "builtin:ls", "source": "builtin", "scope": "temporary", "origin": "top-level"})
    );
    let loadout = &mine[1];
    assert_eq!(loadout["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(loadout["parameters"]["properties"]["add"], json!({"type": "string"}));
    assert_eq!(loadout["sourceInfo"]["path"], fixture("tools-api.ts").to_string_lossy().as_ref());
    assert!(ui.asked.lock().unwrap().is_empty());
    let f = h.call("t2", "loadout", json!({"add": "powershell"})).await;
    assert_eq!(text(&f), "read,bash,edit,write,grep,find,ls,loadout,powershell");
    // bash has no read-only hint: the Codex-like heuristic asks, the answer is no.
    let f = h.call("t3", "bash", json!({"command": "echo"})).await;
    assert_eq!(text(&f), "bash was not approved");
    assert_eq!(
        *ui.asked.lock().unwrap(),
        vec![UiRequest::Confirm { title: "Allow tool call?".into(), message: "bash".into(), timeout: None }]
    );
}

// ------------------------------------------------------------------ loading

async fn load_error(dir: &Path, file: &str, source: &str) -> ExtError {
    let path = dir.join(file);
    std::fs::write(&path, source).unwrap();
    let mut opts = options(dir);
    opts.limits.time = Duration::from_millis(300);
    match ExtensionHost::load(&[path], opts).await {
        Ok(_) => panic!("{file} loaded"),
        Err(e) => e,
    }
}

#[tokio::test]
async fn load_failures_name_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = |f: &str| d.join(f).to_string_lossy().into_owned();

    let e = ExtensionHost::load(&[PathBuf::from("missing.ts")], options(d)).await.err().unwrap();
    assert_eq!(
        e.to_string(),
        format!("Failed to load extension \"{0}\": Extension path does not exist: {0}", p("missing.ts"))
    );

    let e = load_error(d, "nodefault.ts", "export const a = 1;").await;
    assert_eq!(
        e.to_string(),
        format!(
            "Failed to load extension \"{0}\": Extension does not export a valid factory function: {0}",
            p("nodefault.ts")
        )
    );
    let e = load_error(d, "notfn.ts", "export default 42;").await;
    assert_eq!(e.message, format!("Extension does not export a valid factory function: {}", p("notfn.ts")));

    let e =
        load_error(d, "throws.ts", "export default function (pi: any) { throw new Error(\"factory boom\"); }").await;
    assert_eq!(
        e.to_string(),
        format!("Failed to load extension \"{}\": Failed to load extension: factory boom", p("throws.ts"))
    );
    let e = load_error(d, "rejects.js", "export default async function (pi) { await 0; throw \"async boom\"; }").await;
    assert_eq!(e.message, "Failed to load extension: async boom");

    let e = load_error(d, "syntax.ts", "export default function (pi: any) {\n  const x = ;\n}\n").await;
    assert!(e.message.starts_with("Failed to load extension: ParseError: "), "{}", e.message);
    assert!(e.message.ends_with(&format!("{}:2:13", p("syntax.ts"))), "{}", e.message);
    let e = load_error(d, "syntax.js", "export default function (pi) { const x = ; }").await;
    assert!(e.message.starts_with("Failed to load extension: SyntaxError: "), "{}", e.message);

    // Node's built-ins pi does not provide import (as stand-ins); a call says what it was.
    let e =
        load_error(d, "http.ts", "import { request } from \"node:http\";\nexport default function () { request(); }")
            .await;
    assert!(
        e.message.contains("request from \"node:http\" is not available in pi's extension engine"),
        "{}",
        e.message
    );
    // A native addon names itself and the importer (the engine cannot run it).
    std::fs::create_dir_all(d.join("node_modules/addon")).unwrap();
    std::fs::write(d.join("node_modules/addon/package.json"), r#"{"name": "addon", "main": "addon.node"}"#).unwrap();
    std::fs::write(d.join("node_modules/addon/addon.node"), b"\x7fELF\x02\x01").unwrap();
    let e = load_error(d, "native.ts", "import a from \"addon\";\nexport default function () { a; }").await;
    assert!(
        e.message.contains(&format!(
            "Native addon {} imported from {} cannot run in pi's extension engine",
            d.join("node_modules/addon/addon.node").display(),
            p("native.ts")
        )),
        "{}",
        e.message
    );
    let e = load_error(d, "nosuch.ts", "import x from \"node:nosuch\";\nexport default function () { x; }").await;
    assert!(e.message.contains("Node.js built-in module 'node:nosuch' is not available"), "{}", e.message);
    let e = load_error(d, "pkg.ts", "import z from \"zod\";\nexport default function () { z; }").await;
    assert!(e.message.contains("Cannot find package 'zod'"), "{}", e.message);
    let e = load_error(d, "rel.ts", "import { x } from \"./nothere\";\nexport default function () { x; }").await;
    assert!(e.message.contains("Cannot find module './nothere'"), "{}", e.message);
    // Long paths: the message is whole (the engine's own throw cuts at 256 bytes).
    let deep = d.join("a-folder-with-a-long-name-".repeat(6));
    std::fs::create_dir_all(&deep).unwrap();
    let e = load_error(&deep, "deep.ts", "import x from \"node:nosuch\";\nexport default function () { x; }").await;
    let importer = deep.join("deep.ts").display().to_string();
    assert!(e.message.len() > 300, "{}", e.message);
    assert!(e.message.contains(&format!("from '{importer}'")), "{}", e.message);
    assert!(e.message.contains("Node.js built-in module 'node:nosuch' is not available"), "{}", e.message);
    let e = load_error(d, "toplevel.ts", "throw new TypeError(\"top\");\nexport default function () {}").await;
    assert_eq!(e.message, "Failed to load extension: top");
    let e = load_error(d, "hang.ts", "export default async function () { await new Promise(() => {}); }").await;
    assert_eq!(e.message, pi_ext::text::load_failed(pi_ext::text::FACTORY_STALLED));
    let e = load_error(d, "loop.ts", "export default function () { for (;;) {} }").await;
    assert!(e.message.contains("exceeded its time limit"), "{}", e.message);
}

#[tokio::test]
async fn folders_and_node_path() {
    let dir = tempfile::tempdir().unwrap();
    let ext = dir.path().join("my-ext");
    std::fs::create_dir_all(ext.join("src")).unwrap();
    std::fs::write(
        ext.join("src/index.ts"),
        r#"import { join, basename, relative, resolve } from "node:path";
import path from "path";
import { CONFIG_DIR_NAME, truncateHead, formatSize } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
export default function (pi: any) {
  pi.registerTool({ name: "where", label: "w", description: "d", parameters: Type.Object({}),
    async execute(_id: string, _p: unknown, _s: unknown, _u: unknown, ctx: any) {
      const t = truncateHead("a\nb\nc", { maxLines: 2 });
      const text = [join(ctx.cwd, CONFIG_DIR_NAME, "x.json"), basename("/a/b.ts", ".ts"), relative("/a/b", "/a/c/d"),
        resolve("q"), path.dirname("/x/y/z"), t.content, String(t.truncated), t.truncatedBy, formatSize(2048)].join("|");
      return { content: [{ type: "text", text }], details: {} };
    } });
}
"#,
    )
    .unwrap();
    std::fs::write(ext.join("package.json"), r#"{"name":"x","pi":{"extensions":["./src/index.ts"]}}"#).unwrap();
    let loaded = ExtensionHost::load(&[PathBuf::from("my-ext")], options(dir.path())).await.unwrap();
    assert_eq!(loaded.paths(), vec![ext.join("src/index.ts").to_string_lossy().into_owned()]);
    let mut reg = Registry::new();
    reg.register(loaded.tools[0].clone());
    let d = Dispatcher::new(reg);
    let req = CallRequest { id: "w".into(), name: "where".into(), args: RawArgs::Json(json!({})), parent: None };
    let f = d.call(req, Caller::Model, &ToolContext::new(dir.path())).await;
    let cwd = dir.path().display();
    assert_eq!(f.result.text_content(), format!("{cwd}/.pi/x.json|b|../c/d|{cwd}/q|/x/y|a\nb|true|lines|2.0KB"));
}

#[tokio::test]
async fn a_tool_name_is_the_last_registration_within_one_extension_and_a_conflict_across_two() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |desc: &str| {
        format!(
            "export default function (pi: any) {{ for (const d of [\"{desc} 1\", \"{desc} 2\"]) pi.registerTool({{ name: \"dup\", label: \"d\", description: d, parameters: {{ type: \"object\", properties: {{}} }}, async execute() {{ return {{ content: [] }}; }} }}); }}"
        )
    };
    std::fs::write(dir.path().join("one.ts"), tool("first")).unwrap();
    std::fs::write(dir.path().join("two.ts"), tool("second")).unwrap();
    let loaded = ExtensionHost::load(&["one.ts".into()], options(dir.path())).await.unwrap();
    assert_eq!(loaded.tools.len(), 1);
    assert_eq!(loaded.tools[0].def().description, "first 2");
    // A second extension registering the name fails to load, naming the first (as the reference).
    let err = match ExtensionHost::load(&["one.ts".into(), "two.ts".into()], options(dir.path())).await {
        Err(e) => e,
        Ok(_) => panic!("a conflicting tool name loaded"),
    };
    let (one, two) = (dir.path().join("one.ts"), dir.path().join("two.ts"));
    assert_eq!(err.path, two.to_string_lossy());
    assert_eq!(err.message, format!("Tool \"dup\" conflicts with {}", one.to_string_lossy()));
    // Loaded separately (a user extension, then a project one), the check is the same.
    let first = std::sync::Arc::new(loaded);
    let second = ExtensionHost::load(&["two.ts".into()], options(dir.path())).await.unwrap();
    let err = pi_ext::check_conflicts(&[first], &second).unwrap_err();
    assert_eq!(err.path, two.to_string_lossy());
}

// ------------------------------------------------------------------ waiting, aborts, preparation

#[tokio::test]
async fn extensions_loaded_together_share_one_realm_and_separate_loads_do_not() {
    // As in the reference's one Node.js process: one global scope, one instance of each module.
    let h = harness(&["realm-a.ts", "realm-b.ts"]).await;
    let f = h.call("r1", "realm_probe", json!({})).await;
    assert_eq!(text(&f), r#"{"shared":"a","sameTypebox":true}"#);
    // A separate load (a trusted project's extensions) has its own engine.
    let first = ExtensionHost::load(&[fixture("realm-a.ts")], options(h.dir.path())).await.unwrap();
    let h = harness(&["realm-b.ts"]).await;
    let f = h.call("r2", "realm_probe", json!({})).await;
    assert_eq!(text(&f), r#"{"shared":null,"sameTypebox":false}"#);
    drop(first);
}

#[tokio::test]
async fn a_factory_awaiting_commands_loads() {
    // The child's exit can be told before its output ends: the factory still waits on something.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("awaits.js");
    std::fs::write(
        &src,
        r#"import { execFile } from "node:child_process";
import { promisify } from "node:util";
export default async function (pi) {
  for (let i = 0; i < 10; i++) await pi.exec("sh", ["-c", "echo " + i]);
  const { stdout } = await promisify(execFile)("sh", ["-c", "echo done"]);
  if (stdout !== "done\n") throw new Error("got " + stdout);
}"#,
    )
    .unwrap();
    let loaded = ExtensionHost::load(&[src], options(dir.path())).await;
    assert!(loaded.is_ok(), "{:?}", loaded.err());
}

#[tokio::test]
async fn tools_of_one_extension_run_concurrently() {
    let h = harness(&["async-tools.ts"]).await;
    let reqs: Vec<CallRequest> = (0..3)
        .map(|i| CallRequest {
            id: format!("p{i}"),
            name: "sleepy".into(),
            args: RawArgs::Json(json!({"ms": 200})),
            parent: None,
        })
        .collect();
    let started = Instant::now();
    let done = h.d.batch(reqs, &h.ctx()).await;
    let took = started.elapsed();
    let texts: Vec<String> = done.iter().map(text).collect();
    assert_eq!(texts, vec!["slept p0", "slept p1", "slept p2"]);
    assert!(took < Duration::from_millis(550), "{took:?}");
    let f = h.call("t", "ticks", json!({})).await;
    assert_eq!(text(&f), "3");
}

#[tokio::test]
async fn aborts_reach_the_tool_and_end_the_call() {
    let h = harness(&["async-tools.ts"]).await;
    let ctx = h.ctx();
    let token = ctx.abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        token.cancel();
    });
    let req = CallRequest { id: "a1".into(), name: "wait_abort".into(), args: RawArgs::Json(json!({})), parent: None };
    let f = h.d.call(req, Caller::Model, &ctx).await;
    assert_eq!(text(&f), "aborted cleanly: true");

    let ctx = h.ctx();
    let token = ctx.abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        token.cancel();
    });
    let started = Instant::now();
    let req =
        CallRequest { id: "a2".into(), name: "ignore_abort".into(), args: RawArgs::Json(json!({})), parent: None };
    let f = h.d.call(req, Caller::Model, &ctx).await;
    assert!(f.result.is_error);
    assert_eq!(text(&f), "Operation aborted");
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
}

#[tokio::test]
async fn prepare_arguments_runs_before_validation() {
    let h = harness(&["async-tools.ts"]).await;
    let f = h.call("x", "legacy", json!({"old": 7})).await;
    assert_eq!(text(&f), "value=7");
    let f = h.call("y", "legacy", json!({"value": "v"})).await;
    assert_eq!(text(&f), "value=v");
    let f = h.call("z", "legacy", json!({})).await;
    assert!(text(&f).starts_with("Validation failed for tool \"legacy\":\n  - value: missing"), "{}", text(&f));
}

#[tokio::test]
async fn dropped_hosts_stop_their_engines() {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let loaded = ExtensionHost::load(&[fixture("async-tools.ts")], options(dir.path())).await.unwrap();
        drop(loaded);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
}

// ------------------------------------------------------------------ exposure (X1–X3)

#[tokio::test]
async fn exposure_decides_activation_and_reach() {
    let h = harness(&["exposure.ts"]).await;
    let active = h.d.registry.active().to_vec();
    for name in ["x_direct", "x_model_only", "x_call"] {
        assert!(active.contains(&name.to_string()), "{name} {active:?}");
    }
    for name in ["x_codemode", "x_deferred", "x_hidden", "x_withdrawn"] {
        assert!(!active.contains(&name.to_string()), "{name}");
    }
    let withdrawn = h.loaded.tools.iter().find(|t| t.def().name == "x_withdrawn").unwrap();
    assert_eq!(withdrawn.def().description, "gone");
    // The model reaches active direct and model-only tools only.
    for (name, ok) in [
        ("x_direct", true),
        ("x_model_only", true),
        ("x_codemode", false),
        ("x_deferred", false),
        ("x_hidden", false),
        ("x_withdrawn", false),
    ] {
        let f = h.call("m", name, json!({})).await;
        assert_eq!(!f.result.is_error, ok, "{name}: {}", text(&f));
        if !ok {
            assert_eq!(text(&f), format!("Tool {name} not found"));
        }
    }
    // Other tools reach codemode, deferred and active direct tools; never model-only or hidden.
    for (name, ok) in [
        ("x_direct", true),
        ("x_codemode", true),
        ("x_deferred", true),
        ("x_model_only", false),
        ("x_hidden", false),
        ("x_withdrawn", false),
    ] {
        let f = h.call("n", "x_call", json!({"name": name})).await;
        assert_eq!(!f.result.is_error, ok, "{name}: {}", text(&f));
        if !ok {
            assert_eq!(text(&f), format!("Tool {name} not found"));
        }
    }
}

#[tokio::test]
async fn tools_registered_after_loading_reach_the_registry() {
    let h = harness(&["exposure.ts"]).await;
    let shared = Arc::new(SharedRegistry(Mutex::new(h.d.registry.clone())));
    h.loaded.bind_tools(shared.clone()).await;
    assert!(h.loaded.session_start("startup").await.is_empty());
    {
        let reg = shared.0.lock().unwrap();
        assert!(reg.get("x_late").is_some());
        assert!(reg.active().contains(&"x_late".to_string()));
    }
    let mut d = h.d.clone();
    d.registry = shared.0.lock().unwrap().clone();
    let ctx = h.ctx();
    let req =
        |name: &str| CallRequest { id: "l".into(), name: name.into(), args: RawArgs::Json(json!({})), parent: None };
    assert_eq!(d.call(req("x_late"), Caller::Model, &ctx).await.result.text_content(), "late");
    assert_eq!(d.call(req("x_withdraw_late"), Caller::Model, &ctx).await.result.text_content(), "withdrawn");
    let reg = shared.0.lock().unwrap();
    assert_eq!(reg.get("x_late").unwrap().def().exposure, pi_agent::Exposure::Hidden);
    assert!(!reg.active().contains(&"x_late".to_string()));
}

#[tokio::test]
async fn values_that_do_not_survive_json_end_the_call_with_an_error() {
    let h = harness(&["hostile.ts"]).await;
    for path in ["cycle", "bigint"] {
        let f = h.call("h", "ls", json!({"path": path})).await;
        assert!(f.result.is_error, "{path}");
        assert!(!text(&f).is_empty(), "{path}");
    }
    let f = h.call("h", "ls", json!({"path": "getter"})).await;
    assert!(f.result.is_error);
    // Deep recursion is a RangeError in the extension, not a crash of pi.
    let f = h.call("h", "ls", json!({"path": "recurse"})).await;
    assert!(f.result.is_error);
    assert!(text(&f).contains("stack"), "{}", text(&f));
    let f = h.call("h", "cyclic_result", json!({})).await;
    assert!(f.result.is_error, "{}", text(&f));
    // An extension that replaces JSON does not break the host's glue.
    let f = h.call("h", "ls", json!({"path": "json"})).await;
    assert!(f.result.is_error, "json is not a folder");
    let f = h.call("h", "ls", json!({"path": "sub"})).await;
    assert_eq!(text(&f), "a.txt");
}

#[tokio::test]
async fn catastrophic_regex_backtracking_is_stopped_by_the_time_limit() {
    let limit = Duration::from_millis(300);
    let h = harness_with(&["hostile.ts"], |o| o.limits = Limits { time: limit, ..Limits::default() }).await;
    let started = Instant::now();
    let f = h.call("r", "ls", json!({"path": "regex"})).await;
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(text(&f), pi_ext::text::time_limit(&fixture("hostile.ts").to_string_lossy(), limit));
}

#[tokio::test]
async fn extensions_loaded_together_share_one_event_bus() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.ts");
    let b = dir.path().join("b.ts");
    std::fs::write(
        &a,
        "export default function (pi: any) { pi.events.on(\"config\", (req: any) => req.reply(\"b-42\")); }",
    )
    .unwrap();
    std::fs::write(
        &b,
        r#"export default function (pi: any) {
  let answer = "none";
  pi.events.emit("config", { reply: (v: string) => { answer = v; } });
  pi.registerTool({ name: "answer", label: "a", description: "d", parameters: { type: "object", properties: {} },
    async execute() { return { content: [{ type: "text", text: answer }] }; } });
}"#,
    )
    .unwrap();
    let loaded = ExtensionHost::load(&[a, b], options(dir.path())).await.unwrap_or_else(|e| panic!("{e}"));
    let mut reg = Registry::new();
    for t in &loaded.tools {
        reg.register(t.clone());
    }
    reg.reset_active(&["answer".to_string()]);
    let d = Dispatcher::new(reg);
    let req = CallRequest { id: "c".into(), name: "answer".into(), args: RawArgs::Json(json!({})), parent: None };
    let done = d.call(req, Caller::Model, &ToolContext::new(dir.path())).await;
    assert_eq!(text(&done), "b-42", "the second extension heard the first one's handler");
}
