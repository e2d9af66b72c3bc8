//! The one path every tool call takes (design.md):
//!
//! look up (callable set) → prepare arguments → validate against the schema →
//! `tool_call` handlers (block / mutate / terminate; a failing handler blocks) →
//! execute → `tool_result` handlers (patch; a failing handler is reported, the
//! result kept) → result.
//!
//! Model calls, nested calls and (later) codemode and MCP all come through
//! [`Dispatcher::preflight`] and [`Dispatcher::run`]; nothing else runs a tool.

use crate::hook_event::HookEvent;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt as _;
use futures::future::BoxFuture;

use pi_ai::Usage;
use pi_tools::{ToolContext, ToolResult};
use serde_json::Value;

use crate::hooks::{Interceptor, ToolCallEvent, ToolResultEvent};
use crate::nested::{NestedCall, NestedCaller, NestedCalls, NestedRun, NestedScope, Pipeline};
use crate::registry::Registry;
use crate::text;
use crate::tool::{AgentTool, ExecutionMode, Invocation};
use crate::tool_changes::ToolChanges;

/// Progress of one call, for the event stream.
#[derive(Debug, Clone)]
pub enum ToolEvent {
    /// The call is about to be prepared (emitted before handlers run).
    Start {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as received.
        args: Value,
        /// Parent call id (nested calls).
        parent: Option<String>,
    },
    /// A partial result while the tool runs.
    Update {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments.
        args: Value,
        /// The partial result.
        partial: ToolResult,
        /// Parent call id.
        parent: Option<String>,
    },
    /// The call finished.
    End {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Final result.
        result: ToolResult,
        /// Milliseconds from start to end; `None` when the call failed before
        /// its tool ran (not found, invalid or blocked arguments).
        duration_ms: Option<u64>,
        /// Parent call id.
        parent: Option<String>,
    },
    /// A `tool_result` handler failed; the result was kept.
    HandlerError {
        /// The handler's source.
        source: String,
        /// Event name (`tool_result`).
        event: String,
        /// The failure.
        error: String,
    },
}

/// Receives [`ToolEvent`]s.
pub type ToolEventSink = Arc<dyn Fn(ToolEvent) + Send + Sync>;

/// Arguments as the model sent them: parsed JSON, or raw text that did not parse.
#[derive(Debug, Clone)]
pub enum RawArgs {
    /// Parsed JSON.
    Json(Value),
    /// Text that is not a JSON object: the parser's message, a blank line,
    /// `Received arguments:` and the raw text.
    Invalid {
        /// What the model is told after `Invalid arguments for tool "<name>": `.
        detail: String,
    },
}

/// One call to dispatch.
#[derive(Debug, Clone)]
pub struct CallRequest {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments.
    pub args: RawArgs,
    /// Parent call id for nested calls.
    pub parent: Option<String>,
}

/// A call that passed preflight and waits to run.
pub struct Ready {
    req: CallRequest,
    tool: Arc<dyn AgentTool>,
    args: Value,
    started: Instant,
    /// A handler asked the run to end after this batch.
    pub terminate: bool,
}

impl Ready {
    /// Whether the tool must run alone.
    pub fn sequential(&self) -> bool {
        self.tool.def().execution_mode == ExecutionMode::Sequential
    }
}

/// Why a call was refused before its tool ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No callable tool has the name.
    NotFound,
    /// The arguments did not parse or failed the schema.
    InvalidArguments,
    /// A `tool_call` handler blocked it (or failed, which blocks).
    Blocked,
}

/// The outcome of a finished call.
#[derive(Debug, Clone)]
pub struct Finished {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// The result the model gets.
    pub result: ToolResult,
    /// A handler asked for termination.
    pub terminate: bool,
    /// Milliseconds from start to end; `None` when the call failed before
    /// its tool ran.
    pub duration_ms: Option<u64>,
    /// The bounded record of the nested calls this call made (model-issued
    /// calls only; `None` when it made none). It belongs on the tool result
    /// message as `nestedCalls`.
    pub nested_calls: Option<NestedCalls>,
    /// Why the call was refused before its tool ran; `None` when it ran.
    pub refusal: Option<Refusal>,
}

/// Which set a call resolves against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// The model: active direct and model-only tools.
    Model,
    /// Another tool (`executeTool`): codemode/deferred and active direct tools.
    Nested,
}

/// Runs calls through the one pipeline.
#[derive(Clone)]
pub struct Dispatcher {
    /// The tools.
    pub registry: Registry,
    /// Handlers, in load order.
    pub interceptors: Vec<Arc<dyn Interceptor>>,
    /// Event receiver.
    pub sink: Option<ToolEventSink>,
    /// Tool-set changes from extensions, applied by the agent before each
    /// request; nested calls already reach pending registrations.
    pub tool_changes: ToolChanges,
}

impl Dispatcher {
    /// A dispatcher over `registry` with no handlers.
    pub fn new(registry: Registry) -> Self {
        Dispatcher { registry, interceptors: Vec::new(), sink: None, tool_changes: ToolChanges::default() }
    }

    pub(crate) fn emit(&self, ev: ToolEvent) {
        if let Some(s) = &self.sink {
            s(ev);
        }
    }

    /// Finish a call whose tool ran.
    fn finish(&self, req: &CallRequest, result: ToolResult, started: Instant, terminate: bool) -> Finished {
        self.finish_with(req, result, Some(started.elapsed().as_millis() as u64), terminate, None)
    }

    /// Finish a call that failed before its tool ran: an error result with
    /// empty `details` and no duration, as the reference records it.
    fn refuse(&self, req: &CallRequest, why: Refusal, message: String, terminate: bool) -> Finished {
        self.finish_with(req, ToolResult::thrown(message), None, terminate, Some(why))
    }

    fn finish_with(
        &self,
        req: &CallRequest,
        result: ToolResult,
        duration_ms: Option<u64>,
        terminate: bool,
        refusal: Option<Refusal>,
    ) -> Finished {
        Finished {
            id: req.id.clone(),
            name: req.name.clone(),
            result,
            terminate,
            duration_ms,
            nested_calls: None,
            refusal,
        }
    }

    /// The tool a nested call may reach, pending registrations included.
    pub(crate) fn nested_callable(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        let Some(t) = self.tool_changes.pending(name) else { return self.registry.nested_callable(name) };
        let d = t.def();
        let active = self.registry.active().iter().any(|n| n == name) || d.activates_on_registration();
        crate::registry::callable(d.exposure, active).then_some(t)
    }

    /// Look up, prepare, validate and run the `tool_call` handlers. A call
    /// that fails any step is finished here with its error result.
    pub async fn preflight(&self, req: CallRequest, caller: Caller) -> Result<Ready, Finished> {
        let started = Instant::now();
        let shown_args = match &req.args {
            RawArgs::Json(v) => v.clone(),
            RawArgs::Invalid { .. } => Value::Object(Default::default()),
        };
        // The handlers first, then the event, as the reference sends them.
        self.notify(HookEvent::ToolExecutionStart {
            tool_call_id: &req.id,
            tool_name: &req.name,
            args: &shown_args,
            parent_tool_call_id: req.parent.as_deref(),
        })
        .await;
        self.emit(ToolEvent::Start {
            id: req.id.clone(),
            name: req.name.clone(),
            args: shown_args,
            parent: req.parent.clone(),
        });
        let parent = req.parent.clone();
        let out = self.prepare(req, caller, started).await;
        if let Err(done) = &out {
            self.notify_end(done, parent.as_ref()).await;
        }
        out
    }

    /// `tool_execution_end` of a finished call: its handlers, then the event.
    async fn notify_end(&self, f: &Finished, parent: Option<&String>) {
        let parent = parent.cloned();
        // The result is copied into the event only when a source listens.
        if self.listening("tool_execution_end") {
            self.notify(HookEvent::ToolExecutionEnd {
                tool_call_id: &f.id,
                tool_name: &f.name,
                result: crate::events::EventToolResult::from(&f.result),
                is_error: f.result.is_error,
                duration_ms: f.duration_ms,
                parent_tool_call_id: parent.as_deref(),
            })
            .await;
        }
        self.emit_end(f, parent);
    }

    /// The `End` event of a finished call.
    fn emit_end(&self, f: &Finished, parent: Option<String>) {
        self.emit(ToolEvent::End {
            id: f.id.clone(),
            name: f.name.clone(),
            result: f.result.clone(),
            duration_ms: f.duration_ms,
            parent,
        });
    }

    /// [`Dispatcher::preflight`] after `tool_execution_start`.
    async fn prepare(&self, req: CallRequest, caller: Caller, started: Instant) -> Result<Ready, Finished> {
        let tool = match caller {
            Caller::Model => self.registry.model_callable(&req.name),
            Caller::Nested => self.nested_callable(&req.name),
        };
        let Some(tool) = tool else {
            return Err(self.refuse(&req, Refusal::NotFound, text::tool_not_found(&req.name), false));
        };
        let parsed = match &req.args {
            RawArgs::Json(v) => v.clone(),
            RawArgs::Invalid { detail } => {
                return Err(self.refuse(
                    &req,
                    Refusal::InvalidArguments,
                    text::invalid_arguments(&req.name, detail),
                    false,
                ));
            }
        };
        let prepared = tool.prepare_arguments(parsed).await;
        let valid = match pi_tools::args::validate(&req.name, &tool.def().parameters, &prepared) {
            Ok(v) => v,
            Err(e) => return Err(self.refuse(&req, Refusal::InvalidArguments, e.to_string(), false)),
        };
        let mut ev = ToolCallEvent::new(&req.id, tool.as_ref(), valid, req.parent.as_deref());
        let terminate = false;
        // The judges last: they see the input every rewrite has made.
        let (rewriters, judges): (Vec<_>, Vec<_>) = self.interceptors.iter().partition(|h| !h.judges_final_input());
        for h in rewriters.into_iter().chain(judges) {
            match h.on_tool_call(&mut ev).await {
                Err(e) => return Err(self.refuse(&req, Refusal::Blocked, e.message, false)),
                Ok(Some(d)) if d.block => {
                    let reason = d.reason.unwrap_or_else(|| text::BLOCKED.to_string());
                    return Err(self.refuse(&req, Refusal::Blocked, reason, d.terminate));
                }
                // `terminate` counts only with a block (or from the tool itself), as the reference.
                Ok(_) => {}
            }
        }
        Ok(Ready { req, tool, args: ev.input, started, terminate })
    }

    /// Execute a prepared call and run the `tool_result` handlers. The
    /// result carries the record of the nested calls the tool made.
    pub async fn run(&self, ready: Ready, ctx: &ToolContext) -> Finished {
        let scope = Arc::new(NestedScope::default());
        let mut done = self.run_in_scope(ready, ctx, scope.clone(), false, None).await;
        done.nested_calls = scope.snapshot();
        if let Some(nested) = scope.usage() {
            let own = done.result.usage.as_ref().and_then(|u| serde_json::from_value::<Usage>(u.clone()).ok());
            let total = own.map(|u| u.combine(&nested)).unwrap_or(nested);
            done.result.usage = serde_json::to_value(total).ok();
        }
        done
    }

    /// [`Dispatcher::run`] inside a nested-call scope: `holds_queue` when the
    /// caller holds the sequential queue; `extra_update` also receives partial results.
    pub(crate) async fn run_in_scope(
        &self,
        ready: Ready,
        ctx: &ToolContext,
        scope: Arc<NestedScope>,
        holds_queue: bool,
        extra_update: Option<pi_tools::UpdateFn>,
    ) -> Finished {
        let Ready { req, tool, args, started, terminate } = ready;
        let mut ctx = ctx.clone();
        let observers = self.listening("tool_execution_update").then(|| self.interceptors.clone());
        if self.sink.is_some() || extra_update.is_some() || observers.is_some() {
            let sink = self.sink.clone();
            let (id, name, a, parent) = (req.id.clone(), req.name.clone(), args.clone(), req.parent.clone());
            ctx.on_update = Some(Arc::new(move |partial: &ToolResult| {
                if let Some(f) = &extra_update {
                    f(partial);
                }
                if let Some(observers) = &observers {
                    let update = HookEvent::ToolExecutionUpdate {
                        tool_call_id: &id,
                        tool_name: &name,
                        args: &a,
                        partial_result: crate::events::EventToolResult::from(partial),
                        parent_tool_call_id: parent.as_deref(),
                    }
                    .to_value();
                    for h in observers.iter().filter(|h| h.listens("tool_execution_update")) {
                        h.observe_later("tool_execution_update", update.clone());
                    }
                }
                if let Some(sink) = &sink {
                    sink(ToolEvent::Update {
                        id: id.clone(),
                        name: name.clone(),
                        args: a.clone(),
                        partial: partial.clone(),
                        parent: parent.clone(),
                    })
                }
            }));
        }
        let nested =
            NestedCaller { pipeline: self, parent: &req.id, ctx: &ctx, scope, next: Default::default(), holds_queue };
        let wants_end = std::sync::atomic::AtomicBool::new(false);
        let inv = Invocation {
            call_id: &req.id,
            args: args.clone(),
            ctx: &ctx,
            nested: Some(nested),
            terminate: Some(&wants_end),
        };
        // A call that may change files: the checkpoint first (B11).
        if let Some(guard) = &ctx.change_guard
            && tool.def().annotations.read_only_hint != Some(true)
        {
            guard.before_change(&ctx).await;
        }
        // A tool that panics (a bug in it) fails this call with a short
        // error; the session goes on.
        let mut result = match std::panic::AssertUnwindSafe(tool.execute(inv)).catch_unwind().await {
            Ok(r) => r,
            Err(_) => ToolResult::thrown(text::tool_panicked(&req.name)),
        };
        let terminate = terminate || wants_end.load(std::sync::atomic::Ordering::Relaxed);
        if !self.interceptors.is_empty() {
            let mut ev = ToolResultEvent {
                tool_call_id: req.id.clone(),
                tool_name: req.name.clone(),
                input: args,
                content: result.content.clone(),
                details: result.details.clone(),
                is_error: result.is_error,
                structured_content: result.structured.clone(),
                usage: result.usage.clone(),
                parent_tool_call_id: req.parent.clone(),
            };
            for h in &self.interceptors {
                match h.on_tool_result(&ev).await {
                    Ok(Some(p)) => {
                        for error in p.errors {
                            self.emit(ToolEvent::HandlerError {
                                source: h.source().to_string(),
                                event: "tool_result".into(),
                                error,
                            });
                        }
                        if let Some(c) = p.content {
                            ev.content = c;
                            result.structured = None;
                        }
                        if let Some(d) = p.details {
                            ev.details = d;
                        }
                        if let Some(e) = p.is_error {
                            ev.is_error = e;
                        }
                    }
                    Ok(None) => {}
                    Err(error) => self.emit(ToolEvent::HandlerError {
                        source: h.source().to_string(),
                        event: "tool_result".into(),
                        error: error.message,
                    }),
                }
            }
            result.content = ev.content;
            result.details = ev.details;
            result.is_error = ev.is_error;
        }
        let done = self.finish(&req, result, started, terminate);
        self.notify_end(&done, req.parent.as_ref()).await;
        done
    }

    /// Preflight and run one call (nested calls and single calls).
    pub async fn call(&self, req: CallRequest, caller: Caller, ctx: &ToolContext) -> Finished {
        match self.preflight(req, caller).await {
            Ok(ready) => self.run(ready, ctx).await,
            Err(done) => done,
        }
    }

    /// A batch from one assistant message, as the reference runs it. When a
    /// call names a sequential tool, each call is preflighted and run before
    /// the next, and `done` hears of it at once. Otherwise every call is
    /// preflighted in order, the ready ones run in parallel, and `done` hears
    /// of each in call order once all have finished.
    pub async fn batch_with(
        &self,
        reqs: Vec<CallRequest>,
        ctx: &ToolContext,
        done: &mut (dyn FnMut(&Finished) + Send),
    ) -> Vec<Finished> {
        let sequential = reqs.iter().any(|r| {
            self.registry.model_callable(&r.name).is_some_and(|t| t.def().execution_mode == ExecutionMode::Sequential)
        });
        if sequential {
            let mut out = Vec::with_capacity(reqs.len());
            for req in reqs {
                let f = self.call(req, Caller::Model, ctx).await;
                done(&f);
                out.push(f);
            }
            return out;
        }
        let mut slots: Vec<Option<Finished>> = Vec::with_capacity(reqs.len());
        let mut ready = Vec::new();
        for req in reqs {
            match self.preflight(req, Caller::Model).await {
                Ok(r) => {
                    ready.push((slots.len(), r));
                    slots.push(None);
                }
                Err(done) => slots.push(Some(done)),
            }
        }
        let futs = ready.into_iter().map(|(i, r)| async move { (i, self.run(r, ctx).await) });
        for (i, f) in futures::future::join_all(futs).await {
            slots[i] = Some(f);
        }
        let out: Vec<Finished> = slots.into_iter().flatten().collect();
        for f in &out {
            done(f);
        }
        out
    }

    /// [`Dispatcher::batch_with`] without listening: the finished calls, in call order.
    pub async fn batch(&self, reqs: Vec<CallRequest>, ctx: &ToolContext) -> Vec<Finished> {
        self.batch_with(reqs, ctx, &mut |_| {}).await
    }

    /// The calls of an answer cut by the output token limit: none runs, each
    /// gets the reference's error (its arguments may be cut), in order.
    pub fn refuse_truncated(&self, reqs: Vec<CallRequest>, done: &mut (dyn FnMut(&Finished) + Send)) -> Vec<Finished> {
        let mut out = Vec::with_capacity(reqs.len());
        for req in reqs {
            self.emit(ToolEvent::Start {
                id: req.id.clone(),
                name: req.name.clone(),
                args: match &req.args {
                    RawArgs::Json(v) => v.clone(),
                    RawArgs::Invalid { .. } => Value::Object(Default::default()),
                },
                parent: None,
            });
            let f = self.refuse(&req, Refusal::InvalidArguments, text::truncated_call(&req.name), false);
            self.emit_end(&f, None);
            done(&f);
            out.push(f);
        }
        out
    }
}

impl Pipeline for Dispatcher {
    fn nested_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        self.tool_changes
            .all_with(self.registry.all())
            .into_iter()
            .filter(|t| self.nested_callable(&t.def().name).is_some())
            .collect()
    }

    fn tool_changes(&self) -> &ToolChanges {
        &self.tool_changes
    }

    fn is_sequential(&self, name: &str) -> bool {
        self.registry.get(name).is_some_and(|t| t.def().execution_mode == ExecutionMode::Sequential)
    }

    fn call_nested<'a>(&'a self, call: NestedCall<'a>) -> BoxFuture<'a, NestedRun> {
        Box::pin(async move {
            let NestedCall { id, name, args, parent, ctx, scope, holds_queue, on_update } = call;
            let req = CallRequest { id, name, args: RawArgs::Json(args), parent: Some(parent.to_string()) };
            let (finished, ran) = match self.preflight(req, Caller::Nested).await {
                Ok(ready) => (self.run_in_scope(ready, ctx, scope, holds_queue, on_update).await, true),
                Err(done) => (done, false),
            };
            NestedRun { result: finished.result, duration_ms: finished.duration_ms, ran }
        })
    }
}
