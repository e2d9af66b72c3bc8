//! Helpers for the policy tests: a dispatcher over the built-in tools with
//! one policy, and a fake UI that records what it was asked.
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use pi_agent::{BuiltinTool, CallRequest, Caller, Dispatcher, Finished, Interceptor, RawArgs, Registry};
use pi_policies::{Approver, NotifyKind};
use pi_tools::ToolContext;
use serde_json::Value;

/// Every built-in registered and active, with `policy` as the only handler.
pub fn dispatcher(policy: Arc<dyn Interceptor>) -> Dispatcher {
    let mut registry = Registry::new();
    for t in BuiltinTool::all() {
        registry.register(t);
    }
    let names: Vec<String> = registry.all().iter().map(|t| t.def().name.clone()).collect();
    registry.set_active(&names);
    let mut d = Dispatcher::new(registry);
    d.interceptors.push(policy);
    d
}

/// One call from the model, run through `batch`.
pub async fn call(d: &Dispatcher, cwd: &Path, name: &str, args: Value) -> Finished {
    let req = CallRequest { id: "call-1".into(), name: name.into(), args: RawArgs::Json(args), parent: None };
    let mut out = d.batch(vec![req], &ToolContext::new(cwd)).await;
    assert_eq!(out.len(), 1);
    out.remove(0)
}

/// One nested call (as `executeTool` makes it) with a parent id.
pub async fn nested(d: &Dispatcher, cwd: &Path, name: &str, args: Value) -> Finished {
    let req = CallRequest {
        id: "call-1/1".into(),
        name: name.into(),
        args: RawArgs::Json(args),
        parent: Some("call-1".into()),
    };
    d.call(req, Caller::Nested, &ToolContext::new(cwd)).await
}

/// Whether the call was refused with exactly `reason` as its whole text.
pub fn assert_blocked(f: &Finished, reason: &str) {
    assert!(f.result.is_error, "expected a blocked call, got {:?}", f.result.text_content());
    assert_eq!(f.result.text_content(), reason);
}

/// Whether the call ran and succeeded.
pub fn assert_ran(f: &Finished) {
    assert!(!f.result.is_error, "expected success, got {:?}", f.result.text_content());
}

/// What the fake UI was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// `confirm(title, message)`.
    Confirm(String, String),
    /// `select(title, options)`.
    Select(String, Vec<String>),
    /// `notify(message)` with its kind.
    Notify(String, NotifyKind),
}

/// A UI that gives fixed answers and records every question.
pub struct FakeUi {
    pub confirm: bool,
    pub select: Option<String>,
    pub asked: Mutex<Vec<Asked>>,
}

impl FakeUi {
    pub fn new(confirm: bool, select: Option<&str>) -> Arc<Self> {
        Arc::new(FakeUi { confirm, select: select.map(str::to_string), asked: Mutex::new(Vec::new()) })
    }
    pub fn asked(&self) -> Vec<Asked> {
        self.asked.lock().unwrap().clone()
    }
}

impl Approver for FakeUi {
    fn confirm<'a>(&'a self, title: &'a str, message: &'a str) -> BoxFuture<'a, bool> {
        self.asked.lock().unwrap().push(Asked::Confirm(title.into(), message.into()));
        Box::pin(async move { self.confirm })
    }
    fn select<'a>(&'a self, title: &'a str, options: &'a [&'a str]) -> BoxFuture<'a, Option<String>> {
        let options = options.iter().map(|s| s.to_string()).collect();
        self.asked.lock().unwrap().push(Asked::Select(title.into(), options));
        Box::pin(async move { self.select.clone() })
    }
    fn notify(&self, message: &str, kind: NotifyKind) {
        self.asked.lock().unwrap().push(Asked::Notify(message.into(), kind));
    }
}
