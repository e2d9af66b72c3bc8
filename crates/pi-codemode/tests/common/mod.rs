//! A dispatcher with read, bash, ls and codemode active over a scratch folder,
//! for running scripts through the one pipeline.
#![allow(dead_code)]

use std::sync::Arc;

use pi_agent::{AgentTool, BuiltinTool, CallRequest, Caller, Dispatcher, RawArgs, Registry, SharedSession};
use pi_codemode::{Codemode, CodemodeOptions, Mode, Models, Runtimes, Settings};
use pi_tools::{ToolContext, ToolName, ToolResult};
use serde_json::{Value, json};

pub struct Harness {
    pub dir: tempfile::TempDir,
    pub dispatcher: Dispatcher,
    pub ctx: ToolContext,
    pub store: SharedSession,
    next: std::sync::atomic::AtomicU32,
}

pub fn options(store: &SharedSession) -> CodemodeOptions {
    CodemodeOptions {
        settings: Settings::new(Mode::On, None),
        store: store.clone(),
        models: Arc::new(Models {
            chat: vec![json!({"id": "mock-1", "name": "mock-1", "api": "openai-completions", "provider": "mock"})],
            available: vec!["mock/mock-1".into()],
            chat_source: None,
        }),
        docs_path: "/docs/codemode.md".into(),
        runtimes: Runtimes::new(),
    }
}

impl Harness {
    pub fn new() -> Self {
        Self::with_tools(vec![])
    }

    pub fn with_tools(extra: Vec<Arc<dyn AgentTool>>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hello\nworld\n").unwrap();
        let store: SharedSession = Arc::new(std::sync::Mutex::new(pi_agent::session::Session::in_memory()));
        let mut registry = Registry::new();
        for name in [ToolName::Read, ToolName::Bash, ToolName::Ls] {
            registry.register(Arc::new(BuiltinTool::new(name)));
        }
        registry.register(Arc::new(Codemode::new(options(&store))));
        let mut active: Vec<String> = ["read", "bash", "ls", "codemode"].iter().map(|s| s.to_string()).collect();
        for t in extra {
            active.push(t.def().name.clone());
            registry.register(t);
        }
        registry.reset_active(&active);
        let ctx = ToolContext::new(dir.path().to_path_buf());
        Harness { dir, dispatcher: Dispatcher::new(registry), ctx, store, next: Default::default() }
    }

    pub async fn call(&self, code: &str) -> ToolResult {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let req = CallRequest {
            id: format!("call_{n}"),
            name: "codemode".into(),
            args: RawArgs::Json(json!({ "code": code })),
            parent: None,
        };
        self.dispatcher.call(req, Caller::Model, &self.ctx).await.result
    }

    /// The result's text with the wall time masked.
    pub async fn text(&self, code: &str) -> String {
        mask(&self.call(code).await.text_content())
    }
}

pub fn mask(s: &str) -> String {
    let mut out = String::new();
    for line in s.split_inclusive('\n') {
        if line.starts_with("Wall time ") && line.trim_end().ends_with(" seconds") {
            out.push_str("Wall time X seconds\n");
        } else {
            out.push_str(line);
        }
    }
    out
}

pub fn details(r: &ToolResult) -> Value {
    r.details.clone().unwrap_or(Value::Null)
}
