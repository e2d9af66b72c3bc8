//! The engine thread: its state and its event loop. Each message enters
//! JavaScript for one *turn* under the time limit, then the promise jobs run;
//! a turn that runs too long or exhausts the heap stops the extension for
//! good (every call then fails with the reason).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Object, Runtime};
use serde_json::Value;

use super::host::{describe_caught, install, load_module, stderr_line};
use super::protocol::{CallMsg, CallSink, ChildEvent, EngineError, Msg};
use super::{Engine, EngineConfig};
use crate::api::ToolsApi;
use crate::memory::{HeapState, LimitedAllocator};
use crate::modules::{PiLoader, PiResolver};
use crate::text;
use crate::tool::{ExtTool, ToolMeta};

/// How far away "no deadline" is for the interrupt handler.
const NO_DEADLINE: Duration = Duration::from_secs(3600);

/// What the engine thread keeps between turns.
pub(crate) struct State {
    pub path: String,
    pub cfg: EngineConfig,
    /// Running calls and where their messages go (id 0: the load).
    pub calls: RefCell<HashMap<u64, CallSink>>,
    /// Outcomes reported during the current turn, delivered when it ends well.
    pub outbox: RefCell<Vec<(u64, Result<Value, EngineError>)>>,
    /// Messages to handle before reading the channel again.
    pub deferred: RefCell<VecDeque<Msg>>,
    pub timers: RefCell<HashMap<u64, Instant>>,
    /// The tools registered so far.
    pub tools: RefCell<Vec<ToolMeta>>,
    /// Tools registered after load, before the session's tools were bound.
    pub pending_tools: RefCell<Vec<ToolMeta>>,
    pub tools_api: RefCell<Option<Arc<dyn ToolsApi>>>,
    pub handle: RefCell<Weak<Engine>>,
    /// The factory finished.
    pub loaded: Cell<bool>,
    /// What the handle reads (events with handlers, commands, the session).
    pub shared: super::Shared,
    /// Why the extension stopped, once it has.
    pub poisoned: RefCell<Option<EngineError>>,
    /// The engine's own channel (for work finishing on other threads).
    pub tx: mpsc::Sender<Msg>,
    /// Child processes still running (`node:child_process`); dropping one kills it.
    pub children: RefCell<HashMap<u64, crate::node::child::Running>>,
    next_child: Cell<u64>,
    /// When the current turn's JavaScript must have paused.
    deadline: Rc<Cell<Instant>>,
}

impl State {
    /// A blocking host call returned: the time limit counts from now.
    pub(crate) fn restart_clock(&self) {
        self.deadline.set(Instant::now() + self.cfg.limits.time);
    }

    /// A new child process id.
    pub(crate) fn next_child(&self) -> u64 {
        let id = self.next_child.get() + 1;
        self.next_child.set(id);
        id
    }
}

/// The thread's body: build the runtime, install the host and the glue,
/// load the module (call 0), then serve messages until shutdown.
pub(super) fn run_thread(
    cfg: EngineConfig,
    rx: mpsc::Receiver<Msg>,
    tx: mpsc::Sender<Msg>,
    load_sink: CallSink,
    shared: super::Shared,
) {
    let path = cfg.path.to_string_lossy().into_owned();
    let fail = |m: String| {
        let _ = load_sink.send(CallMsg::Done(Err(EngineError::Js(text::load_failed(&m)))));
    };
    let heap = HeapState::default();
    let rt = match Runtime::new_with_alloc(LimitedAllocator::new(cfg.limits.memory, heap.clone())) {
        Ok(rt) => rt,
        Err(e) => return fail(e.to_string()),
    };
    rt.set_max_stack_size(crate::api::JS_STACK);
    let deadline = Rc::new(Cell::new(Instant::now() + NO_DEADLINE));
    let interrupted = Rc::new(Cell::new(false));
    {
        let (deadline, interrupted) = (deadline.clone(), interrupted.clone());
        rt.set_interrupt_handler(Some(Box::new(move || {
            let over = Instant::now() > deadline.get();
            if over {
                interrupted.set(true);
            }
            over
        })));
    }
    rt.set_loader(PiResolver, PiLoader);
    let context = match Context::full(&rt) {
        Ok(c) => c,
        Err(e) => return fail(e.to_string()),
    };
    let state = Rc::new(State {
        path,
        cfg,
        calls: RefCell::new(HashMap::new()),
        outbox: RefCell::new(Vec::new()),
        deferred: RefCell::new(VecDeque::new()),
        timers: RefCell::new(HashMap::new()),
        tools: RefCell::new(Vec::new()),
        pending_tools: RefCell::new(Vec::new()),
        tools_api: RefCell::new(None),
        handle: RefCell::new(Weak::new()),
        loaded: Cell::new(false),
        shared,
        poisoned: RefCell::new(None),
        tx,
        children: RefCell::new(HashMap::new()),
        next_child: Cell::new(0),
        deadline: deadline.clone(),
    });
    state.calls.borrow_mut().insert(0, load_sink);
    let looper = Looper { rt: &rt, context: &context, state: state.clone(), deadline, interrupted, heap };
    let started = looper.turn(|ctx| install(ctx, &state));
    if let Err(e) = started {
        let e = match e {
            EngineError::Js(m) => EngineError::Js(text::load_failed(&m)),
            other => other,
        };
        looper.finish_call(0, Err(e));
    } else if let Err(e) = looper.turn(|ctx| load_module(ctx, &state)) {
        looper.finish_call(0, Err(e));
    }
    looper.run(rx);
}

struct Looper<'r> {
    rt: &'r Runtime,
    context: &'r Context,
    state: Rc<State>,
    deadline: Rc<Cell<Instant>>,
    interrupted: Rc<Cell<bool>>,
    heap: HeapState,
}

/// The glue's internal function `name`.
pub(super) fn internal<'js>(ctx: &Ctx<'js>, name: &str) -> rquickjs::Result<Function<'js>> {
    let internal: Object = ctx.globals().get("__pi_internal")?;
    internal.get(name)
}

/// Call the glue's internal function `name` with `args`, one line for a throw.
fn call_internal<'js, A, R>(ctx: &Ctx<'js>, name: &str, args: A) -> Result<R, String>
where
    A: rquickjs::function::IntoArgs<'js>,
    R: rquickjs::FromJs<'js>,
{
    internal(ctx, name).and_then(|f| f.call::<A, R>(args)).catch(ctx).map_err(describe_caught)
}

impl Looper<'_> {
    /// One turn: run `f`, then the pending jobs, under the time limit.
    fn turn<R>(&self, f: impl FnOnce(&Ctx<'_>) -> Result<R, String>) -> Result<R, EngineError> {
        if let Some(p) = self.state.poisoned.borrow().clone() {
            return Err(p);
        }
        self.deadline.set(Instant::now() + self.state.cfg.limits.time);
        let out = self.context.with(|ctx| f(&ctx));
        self.drain_jobs();
        self.deadline.set(Instant::now() + NO_DEADLINE);
        let path = self.state.path.clone();
        let stop = if self.interrupted.get() {
            Some(EngineError::TimeLimit { path, limit: self.state.cfg.limits.time })
        } else if self.heap.take_hit() {
            Some(EngineError::OutOfMemory { path, limit: self.state.cfg.limits.memory })
        } else {
            None
        };
        if let Some(reason) = stop {
            // Outcomes of this turn are not trusted: every call gets the reason.
            self.state.outbox.borrow_mut().clear();
            self.poison(reason.clone());
            self.rt.run_gc();
            return Err(reason);
        }
        let finished: Vec<(u64, Result<Value, EngineError>)> = self.state.outbox.borrow_mut().drain(..).collect();
        for (id, result) in finished {
            self.finish_call(id, result);
        }
        out.map_err(EngineError::Js)
    }

    fn drain_jobs(&self) {
        loop {
            match self.rt.execute_pending_job() {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    if self.interrupted.get() {
                        break;
                    }
                    let message =
                        e.0.with(|ctx| describe_caught(CaughtError::from_error(&ctx, rquickjs::Error::Exception)));
                    stderr_line(&text::extension_error(&self.state.path, &message));
                }
            }
        }
    }

    /// The extension ran too long or out of memory: every call fails, no more JavaScript runs.
    fn poison(&self, reason: EngineError) {
        *self.state.poisoned.borrow_mut() = Some(reason.clone());
        let calls: Vec<CallSink> = self.state.calls.borrow_mut().drain().map(|(_, s)| s).collect();
        for sink in calls {
            let _ = sink.send(CallMsg::Done(Err(reason.clone())));
        }
        // The handler set stays as it was: a stopped extension's tool_call
        // handlers keep blocking (fail-safe), its other handlers report the error.
        self.state.timers.borrow_mut().clear();
    }

    fn finish_call(&self, id: u64, result: Result<Value, EngineError>) {
        let sink = self.state.calls.borrow_mut().remove(&id);
        if let Some(sink) = sink {
            let _ = sink.send(CallMsg::Done(result));
        }
    }

    fn run(&self, rx: mpsc::Receiver<Msg>) {
        loop {
            let next = self.state.deferred.borrow_mut().pop_front();
            let msg = match next {
                Some(m) => m,
                None => {
                    // A factory whose promise waits on nothing (no timer) can never finish.
                    if self.state.calls.borrow().contains_key(&0)
                        && self.state.timers.borrow().is_empty()
                        && self.state.children.borrow().is_empty()
                    {
                        self.finish_call(0, Err(EngineError::Js(text::load_failed(text::FACTORY_STALLED))));
                    }
                    let due = self.state.timers.borrow().values().min().copied();
                    let got = match due.map(|d| d.saturating_duration_since(Instant::now())) {
                        Some(w) => rx.recv_timeout(w),
                        None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                    };
                    match got {
                        Ok(m) => m,
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            self.fire_timers();
                            continue;
                        }
                        Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    }
                }
            };
            if !self.handle(msg) {
                return;
            }
        }
    }

    /// Hand a child process's output or exit to the glue (`__pi_node.childEvent`).
    fn child_event(&self, id: u64, event: ChildEvent) {
        let (kind, payload) = match event {
            ChildEvent::Data { stream, bytes } => {
                (if stream == 1 { "stdout" } else { "stderr" }, crate::node::latin1(&bytes))
            }
            ChildEvent::End { stream } => (if stream == 1 { "end-stdout" } else { "end-stderr" }, String::new()),
            ChildEvent::Exit { code, signal } => {
                if let Some(mut c) = self.state.children.borrow_mut().remove(&id) {
                    c.exited = true;
                }
                ("exit", serde_json::json!({"code": code, "signal": signal}).to_string())
            }
        };
        let _ = self.turn(|ctx| {
            let node: Object = ctx.globals().get("__pi_node").catch(ctx).map_err(describe_caught)?;
            let f: Function = node.get("childEvent").catch(ctx).map_err(describe_caught)?;
            f.call::<_, ()>((id as f64, kind, payload.as_str())).catch(ctx).map_err(describe_caught)
        });
    }

    fn fire_timers(&self) {
        let now = Instant::now();
        let mut due: Vec<(Instant, u64)> =
            self.state.timers.borrow().iter().filter(|(_, d)| **d <= now).map(|(id, d)| (*d, *id)).collect();
        due.sort();
        for (_, id) in due {
            self.state.timers.borrow_mut().remove(&id);
            let _ = self.turn(|ctx| call_internal::<_, ()>(ctx, "fireTimer", (id as f64,)));
        }
    }

    /// Handle one message; false ends the loop.
    fn handle(&self, msg: Msg) -> bool {
        match msg {
            Msg::Shutdown => return false,
            Msg::Handle(w) => *self.state.handle.borrow_mut() = w,
            Msg::Forget { id } => {
                self.state.calls.borrow_mut().remove(&id);
            }
            Msg::Bind(api, done) => {
                let pending: Vec<ToolMeta> = self.state.pending_tools.borrow_mut().drain(..).collect();
                if let Some(engine) = self.state.handle.borrow().upgrade() {
                    for meta in pending {
                        api.register_tool(Arc::new(ExtTool::new(engine.clone(), meta)));
                    }
                }
                *self.state.tools_api.borrow_mut() = Some(api);
                let _ = done.send(());
            }
            Msg::Invoke { id, call, payload, sink } => {
                if let Some(p) = self.state.poisoned.borrow().clone() {
                    let _ = sink.send(CallMsg::Done(Err(p)));
                    return true;
                }
                self.state.calls.borrow_mut().insert(id, sink);
                let (kind, text) = (call.as_str().to_string(), payload.to_string());
                let r =
                    self.turn(|ctx| call_internal::<_, ()>(ctx, "dispatch", (id as f64, kind.as_str(), text.as_str())));
                if let Err(e) = r {
                    self.finish_call(id, Err(e));
                }
            }
            Msg::Complete { op, result } => {
                let (ok, text) = match result {
                    Ok(answer) => (true, answer.to_glue()),
                    Err(e) => (false, e),
                };
                let _ = self.turn(|ctx| call_internal::<_, ()>(ctx, "complete", (op as f64, ok, text.as_str())));
            }
            Msg::OpUpdate { op, payload } => {
                let text = payload.to_string();
                let _ = self.turn(|ctx| call_internal::<_, ()>(ctx, "update", (op as f64, text.as_str())));
            }
            Msg::Child { id, event } => self.child_event(id, event),
            Msg::Abort { id } => {
                let _ = self.turn(|ctx| call_internal::<_, ()>(ctx, "abort", (id as f64,)));
            }
            Msg::Hook { hook, name, payload, reply } => {
                let text = payload.to_string();
                let out = self
                    .turn(|ctx| call_internal::<_, String>(ctx, hook.as_str(), (name.as_str(), text.as_str())))
                    .and_then(|json| serde_json::from_str(&json).map_err(|e| EngineError::Js(e.to_string())));
                reply(out);
            }
        }
        true
    }
}
