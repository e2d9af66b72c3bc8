//! Stubs shared by the pi-agent tests: tools whose behaviour is a closure,
//! interceptors whose handlers are closures, a log they write to, and an
//! agent over the faux provider that records its events.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use pi_agent::{
    Agent, AgentEvent, AgentTool, CallRequest, Dispatcher, ExecutionMode, Exposure, Interceptor, Invocation, Loadout,
    LoadoutChanges, RawArgs, Registry, ResultPatch, ToolCallDecision, ToolCallEvent, ToolDef, ToolEvent,
    ToolResultEvent,
};
use pi_ai::faux::{self, FauxProvider};
use pi_tools::{Annotations, ToolContext, ToolResult};
use serde_json::{Value, json};

/// Long enough never to be reached by a call that works, on any machine.
pub const PATIENCE: Duration = Duration::from_secs(20);

// ------------------------------------------------------------------ log

/// Lines written by stubs, in the order they were written.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn push(&self, line: impl Into<String>) {
        self.0.lock().unwrap().push(line.into());
    }
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

// ------------------------------------------------------------------ tools

/// What a stub tool does when it runs.
pub type ExecFn = Arc<dyn for<'a> Fn(Invocation<'a>) -> BoxFuture<'a, ToolResult> + Send + Sync>;

/// What a stub tool's `prepareLoadout` hook does.
pub type LoadoutFn =
    Arc<dyn for<'a> Fn(&'a Loadout) -> BoxFuture<'a, Result<LoadoutChanges, pi_agent::HandlerError>> + Send + Sync>;

/// A tool whose definition is data and whose behaviour is a closure.
pub struct Stub {
    def: ToolDef,
    exec: ExecFn,
    source: Option<String>,
    loadout: Option<LoadoutFn>,
}

/// A stub tool named `name`: direct, active on registration, parallel,
/// any object as arguments; by default it answers `<name> <args>`.
pub fn stub(name: &str) -> StubBuilder {
    StubBuilder {
        def: ToolDef {
            constrained_sampling: None,
            name: name.to_string(),
            description: format!("The {name} stub."),
            parameters: json!({"type": "object"}),
            prompt_snippet: None,
            prompt_guidelines: vec![],
            annotations: Annotations::default(),
            exposure: Exposure::Direct,
            default_active: true,
            execution_mode: ExecutionMode::Parallel,
            namespace: None,
        },
        exec: None,
        source: None,
        loadout: None,
    }
}

pub struct StubBuilder {
    def: ToolDef,
    exec: Option<ExecFn>,
    source: Option<String>,
    loadout: Option<LoadoutFn>,
}

impl StubBuilder {
    pub fn exposure(mut self, e: Exposure) -> Self {
        self.def.exposure = e;
        self
    }
    /// `defaultActive: false`.
    pub fn inactive(mut self) -> Self {
        self.def.default_active = false;
        self
    }
    pub fn sequential(mut self) -> Self {
        self.def.execution_mode = ExecutionMode::Sequential;
        self
    }
    pub fn params(mut self, schema: Value) -> Self {
        self.def.parameters = schema;
        self
    }
    pub fn description(mut self, d: &str) -> Self {
        self.def.description = d.to_string();
        self
    }
    pub fn annotations(mut self, a: Annotations) -> Self {
        self.def.annotations = a;
        self
    }
    pub fn source(mut self, path: &str) -> Self {
        self.source = Some(path.to_string());
        self
    }
    pub fn exec(
        mut self,
        f: impl for<'a> Fn(Invocation<'a>) -> BoxFuture<'a, ToolResult> + Send + Sync + 'static,
    ) -> Self {
        self.exec = Some(Arc::new(f));
        self
    }
    pub fn loadout(
        mut self,
        f: impl for<'a> Fn(&'a Loadout) -> BoxFuture<'a, Result<LoadoutChanges, pi_agent::HandlerError>>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.loadout = Some(Arc::new(f));
        self
    }
    pub fn build(self) -> Arc<dyn AgentTool> {
        let name = self.def.name.clone();
        let exec = self.exec.unwrap_or_else(|| {
            exec_fn(move |inv| {
                let text = format!("{name} {}", inv.args);
                Box::pin(async move { ToolResult::success(text) })
            })
        });
        Arc::new(Stub { def: self.def, exec, source: self.source, loadout: self.loadout })
    }
}

/// `f` as an [`ExecFn`] (the closure's signature comes from the bound).
pub fn exec_fn(f: impl for<'a> Fn(Invocation<'a>) -> BoxFuture<'a, ToolResult> + Send + Sync + 'static) -> ExecFn {
    Arc::new(f)
}

impl AgentTool for Stub {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        (self.exec)(inv)
    }
    fn source_path(&self) -> Option<&str> {
        self.source.as_deref()
    }
    fn has_prepare_loadout(&self) -> bool {
        self.loadout.is_some()
    }
    fn prepare_loadout<'a>(
        &'a self,
        loadout: &'a Loadout,
    ) -> BoxFuture<'a, Result<LoadoutChanges, pi_agent::HandlerError>> {
        match &self.loadout {
            Some(f) => f(loadout),
            None => Box::pin(async { Ok(LoadoutChanges::default()) }),
        }
    }
}

/// A tool that writes `<name> ran <args>` to `log` and answers `<name> <args>`.
pub fn logged(name: &str, log: &Log) -> StubBuilder {
    let (log, n) = (log.clone(), name.to_string());
    stub(name).exec(move |inv| {
        let text = format!("{n} {}", inv.args);
        log.push(format!("{n} ran {}", inv.args));
        Box::pin(async move { ToolResult::success(text) })
    })
}

// ------------------------------------------------------------------ interceptors

type CallFn = Box<dyn Fn(&mut ToolCallEvent) -> Result<Option<ToolCallDecision>, pi_agent::HandlerError> + Send + Sync>;
type ResultFn = Box<dyn Fn(&ToolResultEvent) -> Result<Option<ResultPatch>, pi_agent::HandlerError> + Send + Sync>;

/// An interceptor whose `tool_call` and `tool_result` handlers are closures.
pub struct Hook {
    source: String,
    on_call: Option<CallFn>,
    on_result: Option<ResultFn>,
}

impl Hook {
    pub fn new(source: &str) -> Self {
        Hook { source: source.to_string(), on_call: None, on_result: None }
    }
    pub fn on_call(
        mut self,
        f: impl Fn(&mut ToolCallEvent) -> Result<Option<ToolCallDecision>, pi_agent::HandlerError> + Send + Sync + 'static,
    ) -> Self {
        self.on_call = Some(Box::new(f));
        self
    }
    pub fn on_result(
        mut self,
        f: impl Fn(&ToolResultEvent) -> Result<Option<ResultPatch>, pi_agent::HandlerError> + Send + Sync + 'static,
    ) -> Self {
        self.on_result = Some(Box::new(f));
        self
    }
    pub fn build(self) -> Arc<dyn Interceptor> {
        Arc::new(self)
    }
}

impl Interceptor for Hook {
    fn source(&self) -> &str {
        &self.source
    }
    fn on_tool_call<'a>(
        &'a self,
        ev: &'a mut ToolCallEvent,
    ) -> BoxFuture<'a, Result<Option<ToolCallDecision>, pi_agent::HandlerError>> {
        let out = match &self.on_call {
            Some(f) => f(ev),
            None => Ok(None),
        };
        Box::pin(async move { out })
    }
    fn on_tool_result<'a>(
        &'a self,
        ev: &'a ToolResultEvent,
    ) -> BoxFuture<'a, Result<Option<ResultPatch>, pi_agent::HandlerError>> {
        let out = match &self.on_result {
            Some(f) => f(ev),
            None => Ok(None),
        };
        Box::pin(async move { out })
    }
}

/// A handler that writes `<source> call <id>` (and `<source> result <id>`)
/// to `log` and lets everything through.
pub fn watcher(source: &str, log: &Log) -> Arc<dyn Interceptor> {
    let (a, b) = (log.clone(), log.clone());
    let (s1, s2) = (source.to_string(), source.to_string());
    Hook::new(source)
        .on_call(move |ev| {
            a.push(format!("{s1} call {}", ev.tool_call_id));
            Ok(None)
        })
        .on_result(move |ev| {
            b.push(format!("{s2} result {}", ev.tool_call_id));
            Ok(None)
        })
        .build()
}

// ------------------------------------------------------------------ dispatchers

/// A registry with `tools` registered in order.
pub fn registry(tools: Vec<Arc<dyn AgentTool>>) -> Registry {
    let mut r = Registry::new();
    for t in tools {
        r.register(t);
    }
    r
}

/// A dispatcher over `tools` with `hooks` as handlers, in order.
pub fn dispatcher(tools: Vec<Arc<dyn AgentTool>>, hooks: Vec<Arc<dyn Interceptor>>) -> Dispatcher {
    let mut d = Dispatcher::new(registry(tools));
    d.interceptors = hooks;
    d
}

/// Every [`ToolEvent`] the dispatcher emits, in order.
#[derive(Clone, Default)]
pub struct ToolEvents(Arc<Mutex<Vec<ToolEvent>>>);

impl ToolEvents {
    pub fn attach(d: &mut Dispatcher) -> Self {
        let events = ToolEvents::default();
        let e = events.clone();
        d.sink = Some(Arc::new(move |ev| e.0.lock().unwrap().push(ev)));
        events
    }
    pub fn all(&self) -> Vec<ToolEvent> {
        self.0.lock().unwrap().clone()
    }
    /// `start <id>`, `update <id>`, `end <id>`, `handler_error <source>`.
    pub fn summary(&self) -> Vec<String> {
        self.all()
            .iter()
            .map(|e| match e {
                ToolEvent::Start { id, .. } => format!("start {id}"),
                ToolEvent::Update { id, .. } => format!("update {id}"),
                ToolEvent::End { id, .. } => format!("end {id}"),
                ToolEvent::HandlerError { source, .. } => format!("handler_error {source}"),
            })
            .collect()
    }
}

/// A call from the model (or, with a parent, a nested call) with JSON arguments.
pub fn req(id: &str, name: &str, args: Value) -> CallRequest {
    CallRequest { id: id.into(), name: name.into(), args: RawArgs::Json(args), parent: None }
}

/// A context for stub tools (they touch no files).
pub fn ctx() -> ToolContext {
    ToolContext::new(std::env::temp_dir())
}

// ------------------------------------------------------------------ agent

/// Every [`AgentEvent`] of an agent, in order.
#[derive(Clone, Default)]
pub struct AgentEvents(Arc<Mutex<Vec<AgentEvent>>>);

impl AgentEvents {
    pub fn all(&self) -> Vec<AgentEvent> {
        self.0.lock().unwrap().clone()
    }
    /// Event types in order, runs of `message_update` collapsed into one,
    /// `message_start`/`message_end` with the message's role
    /// (`message_end:toolResult`), tool events with the call id.
    pub fn kinds(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in self.all() {
            let v = serde_json::to_value(&e).unwrap();
            let t = v["type"].as_str().unwrap().to_string();
            let k = match t.as_str() {
                "message_start" | "message_end" => format!("{t}:{}", v["message"]["role"].as_str().unwrap()),
                "tool_execution_start" | "tool_execution_update" | "tool_execution_end" => {
                    format!("{t}:{}", v["toolCallId"].as_str().unwrap())
                }
                _ => t,
            };
            if k == "message_update" && out.last().is_some_and(|l| l == "message_update") {
                continue;
            }
            out.push(k);
        }
        out
    }
}

/// An agent over the faux provider `provider` (a name no other test uses)
/// with `dispatcher`, system prompt `system`, recording its events.
pub fn agent(provider: &str, dispatcher: Dispatcher) -> (Agent, FauxProvider, AgentEvents) {
    agent_with(provider, dispatcher, |b| b)
}

/// [`agent`], with what `configure` gives the builder (callbacks, settings).
pub fn agent_with(
    provider: &str,
    dispatcher: Dispatcher,
    configure: impl FnOnce(pi_agent::AgentBuilder) -> pi_agent::AgentBuilder,
) -> (Agent, FauxProvider, AgentEvents) {
    let faux = faux::register(provider);
    let events = AgentEvents::default();
    let e = events.clone();
    let sink: pi_agent::EventSink = Arc::new(move |ev: &AgentEvent| e.0.lock().unwrap().push(ev.clone()));
    let agent = configure(Agent::builder(faux.model(), "system".into(), dispatcher, ctx(), sink)).build();
    (agent, faux, events)
}

/// The names of the tools a request declared.
pub fn declared(c: &pi_ai::Context) -> Vec<String> {
    c.tools.iter().map(|t| t.name.clone()).collect()
}

/// The texts of the tool results a request carried, as `<id>: <text>`.
pub fn tool_results(c: &pi_ai::Context) -> Vec<String> {
    c.messages
        .iter()
        .filter_map(|m| match m {
            pi_ai::Message::ToolResult(r) => {
                let text: Vec<String> = r
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        pi_ai::ContentBlock::Text { text } => Some(text.clone()),
                        _ => None,
                    })
                    .collect();
                Some(format!("{}: {}", r.tool_call_id, text.join("\n")))
            }
            _ => None,
        })
        .collect()
}

/// An assistant answer calling each `(id, tool, args)`.
pub fn calls(list: &[(&str, &str, Value)]) -> pi_ai::AssistantMessage {
    faux::assistant_message(list.iter().map(|(id, name, args)| faux::tool_call(name, args.clone(), Some(id))).collect())
}

/// An assistant answer with only `text`.
pub fn says(text: &str) -> pi_ai::AssistantMessage {
    faux::assistant_message(vec![faux::text(text)])
}
