//! `approval` through the dispatcher (beyond.md B6): calls the annotations do
//! not mark as harmless are asked about, refused without a UI, and refused
//! when the user says no; harmless calls are never asked about.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Asked, FakeUi, assert_blocked, assert_ran, call, dispatcher, nested};
use futures::future::BoxFuture;
use pi_agent::{AgentTool, Dispatcher, ExecutionMode, Exposure, Invocation, ToolDef};
use pi_policies::{Approver, PolicyOptions, builtin};
use pi_tools::{Annotations, ToolResult};
use serde_json::json;

fn approval(cwd: &Path, ui: Option<Arc<dyn Approver>>) -> Dispatcher {
    let opts = PolicyOptions { cwd: cwd.to_path_buf(), ui };
    dispatcher(builtin("approval", opts).unwrap())
}

#[tokio::test]
async fn without_ui_changing_calls_are_refused_and_reading_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.txt"), "hello\n").unwrap();
    let d = approval(root, None);
    let f = call(&d, root, "write", json!({ "path": "b.txt", "content": "x" })).await;
    assert_blocked(&f, "Blocked: write needs approval but no UI is available (approval policy)");
    assert!(!root.join("b.txt").exists());
    let f =
        call(&d, root, "edit", json!({ "path": "a.txt", "edits": [{ "oldText": "hello", "newText": "bye" }] })).await;
    assert_blocked(&f, "Blocked: edit needs approval but no UI is available (approval policy)");
    let f = call(&d, root, "bash", json!({ "command": "echo x > c.txt" })).await;
    assert_blocked(&f, "Blocked: bash needs approval but no UI is available (approval policy)");
    assert!(!root.join("c.txt").exists());
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "hello\n");
    for (tool, args) in [
        ("read", json!({ "path": "a.txt" })),
        ("ls", json!({})),
        ("grep", json!({ "pattern": "hello" })),
        ("find", json!({ "pattern": "*.txt" })),
    ] {
        assert_ran(&call(&d, root, tool, args).await);
    }
}

#[tokio::test]
async fn with_ui_yes_runs_and_no_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let yes = FakeUi::new(true, None);
    let d = approval(root, Some(yes.clone()));
    assert_ran(&call(&d, root, "write", json!({ "path": "b.txt", "content": "x" })).await);
    assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "x");
    assert_eq!(
        yes.asked(),
        vec![Asked::Confirm("Allow tool call?".into(), "write\n\n{\"path\":\"b.txt\",\"content\":\"x\"}".into())]
    );
    // Reading asks nothing.
    assert_ran(&call(&d, root, "read", json!({ "path": "b.txt" })).await);
    assert_eq!(yes.asked().len(), 1);

    let no = FakeUi::new(false, Some("Yes"));
    let d = approval(root, Some(no.clone()));
    let f = call(&d, root, "bash", json!({ "command": "echo y > b.txt" })).await;
    assert_blocked(&f, "bash was not approved");
    assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "x");
    assert_eq!(no.asked().len(), 1);
}

#[tokio::test]
async fn long_arguments_are_cut_in_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let ui = FakeUi::new(false, None);
    let d = approval(dir.path(), Some(ui.clone()));
    let content = "y".repeat(100_000);
    call(&d, dir.path(), "write", json!({ "path": "big.txt", "content": content })).await;
    let Asked::Confirm(_, message) = &ui.asked()[0] else { panic!("not a confirm") };
    assert!(message.len() < pi_policies::APPROVAL_ARGS_MAX_BYTES + 100, "{}", message.len());
    assert!(message.starts_with("write\n\n{\"path\":\"big.txt\""));
    assert!(message.contains("chars truncated"));
}

#[tokio::test]
async fn nested_calls_are_asked_about_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = approval(dir.path(), None);
    let f = nested(&d, dir.path(), "write", json!({ "path": "b.txt", "content": "x" })).await;
    assert_blocked(&f, "Blocked: write needs approval but no UI is available (approval policy)");
    assert!(!dir.path().join("b.txt").exists());
}

/// A tool with given annotations that counts its runs.
struct Probe {
    def: ToolDef,
    runs: Arc<AtomicUsize>,
}

impl Probe {
    fn tool(name: &str, annotations: Annotations, runs: Arc<AtomicUsize>) -> Arc<dyn AgentTool> {
        Arc::new(Probe {
            def: ToolDef {
                constrained_sampling: None,
                name: name.into(),
                description: "probe".into(),
                parameters: json!({ "type": "object", "properties": {} }),
                prompt_snippet: None,
                prompt_guidelines: Vec::new(),
                annotations,
                exposure: Exposure::Direct,
                default_active: true,
                execution_mode: ExecutionMode::Parallel,
                namespace: None,
            },
            runs,
        })
    }
}

impl AgentTool for Probe {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn execute<'a>(&'a self, _inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { ToolResult::success("ran") })
    }
}

#[tokio::test]
async fn annotations_come_from_the_live_registry() {
    let dir = tempfile::tempdir().unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let read_only = Annotations { read_only_hint: Some(true), ..Default::default() };
    let closed = Annotations {
        read_only_hint: Some(false),
        destructive_hint: Some(false),
        open_world_hint: Some(false),
        ..Default::default()
    };
    let web = Annotations { read_only_hint: Some(false), destructive_hint: Some(false), ..Default::default() };
    let mut registry = pi_agent::Registry::new();
    for (name, a) in [("lookup", read_only), ("counter", closed), ("fetch", web), ("mystery", Annotations::default())] {
        registry.register(Probe::tool(name, a, runs.clone()));
    }
    let opts = PolicyOptions::new(dir.path());
    let mut d = Dispatcher::new(registry.clone());
    d.interceptors.push(builtin("approval", opts).unwrap());
    assert_ran(&call(&d, dir.path(), "lookup", json!({})).await);
    assert_ran(&call(&d, dir.path(), "counter", json!({})).await);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    // Open world (missing = true) and every hint missing: asked, so refused here.
    let f = call(&d, dir.path(), "fetch", json!({})).await;
    assert_blocked(&f, "Blocked: fetch needs approval but no UI is available (approval policy)");
    let f = call(&d, dir.path(), "mystery", json!({})).await;
    assert_blocked(&f, "Blocked: mystery needs approval but no UI is available (approval policy)");
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    // A tool registered after the policy was built is judged by its own hints.
    registry.register(Probe::tool(
        "late",
        Annotations { read_only_hint: Some(true), ..Default::default() },
        runs.clone(),
    ));
    registry.register(Probe::tool("late-writer", Annotations::default(), runs.clone()));
    d.registry = registry;
    assert_ran(&call(&d, dir.path(), "late", json!({})).await);
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    let f = call(&d, dir.path(), "late-writer", json!({})).await;
    assert_blocked(&f, "Blocked: late-writer needs approval but no UI is available (approval policy)");
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}
