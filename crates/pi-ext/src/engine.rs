//! One extension's JavaScript engine: a QuickJS runtime on its own thread.
//!
//! The thread runs an event loop: a message (start a call, an operation
//! finished, a timer is due) enters JavaScript for one short *turn*, then the
//! pending promise jobs run. JavaScript never waits on Rust inside a turn: a
//! host operation (a dialog, `ctx.executeTool`) is handed to the Rust future of
//! the call that made it, and its answer comes back as a later message. So the
//! tokio runtime is never blocked by JavaScript, and a turn that runs longer
//! than the time limit is interrupted, which stops the extension.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, RwLock, Weak};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use pi_agent::NestedCaller;
use pi_tools::{ToolContext, ToolResult};
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Module, Object, Runtime};
use serde_json::{Value, json};
use tokio::sync::mpsc as tmpsc;

use crate::api::{Limits, Mode, NotifyLevel, ToolsApi, UiBridge, UiRequest, UiResponse};
use crate::convert;
use crate::memory::{HeapState, LimitedAllocator};
use crate::modules::{PiLoader, PiResolver};
use crate::text;
use crate::tool::{ExtTool, ToolMeta};

/// What the engine's Rust future of a call hears from JavaScript.
pub(crate) enum CallMsg {
    /// An asynchronous host operation to perform; answer with [`Msg::Complete`].
    Op { op: u64, kind: String, payload: String },
    /// A fire-and-forget message (a tool's partial result).
    Emit { payload: String },
    /// The call's outcome: JSON text, or an error message.
    Done(Result<String, String>),
}

type CallSink = tmpsc::UnboundedSender<CallMsg>;

pub(crate) enum Msg {
    Handle(Weak<Engine>),
    Invoke {
        id: u64,
        kind: String,
        payload: String,
        sink: CallSink,
    },
    Complete {
        op: u64,
        result: Result<String, String>,
    },
    OpUpdate {
        op: u64,
        payload: String,
    },
    Abort {
        id: u64,
    },
    Forget {
        id: u64,
    },
    /// Bind the session's tools; the engine answers once its pending registrations reached them.
    Bind(Arc<dyn ToolsApi>, mpsc::Sender<()>),
    /// Run a synchronous hook of a tool (`prepareArguments`, `reachesTools`,
    /// `prepareLoadout`): `__pi_internal[fun](name, payload)` returns JSON text.
    Sync {
        fun: &'static str,
        name: String,
        payload: String,
        reply: mpsc::Sender<Result<String, String>>,
    },
    Shutdown,
}

/// Settings of one engine.
pub(crate) struct EngineConfig {
    pub path: PathBuf,
    pub cwd: PathBuf,
    pub has_ui: bool,
    pub mode: Mode,
    pub project_trusted: bool,
    pub ui: Option<Arc<dyn UiBridge>>,
    pub limits: Limits,
}

/// The handle to a running engine; dropping the last one stops the thread.
pub(crate) struct Engine {
    tx: mpsc::Sender<Msg>,
    pub(crate) path: String,
    pub(crate) ui: Option<Arc<dyn UiBridge>>,
    pub(crate) limits: Limits,
    events: Arc<RwLock<HashSet<String>>>,
    next_call: AtomicU64,
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Shutdown);
    }
}

/// The facts a call's host operations need.
#[derive(Default)]
pub(crate) struct CallEnv<'a> {
    pub nested: Option<&'a NestedCaller<'a>>,
    pub tool_ctx: Option<&'a ToolContext>,
}

impl Engine {
    /// Start an engine thread for `cfg.path`. Returns the handle and the
    /// receiver of the load call (id 0), which ends with the registered tools.
    pub(crate) fn start(cfg: EngineConfig) -> Result<(Arc<Engine>, tmpsc::UnboundedReceiver<CallMsg>), String> {
        let (tx, rx) = mpsc::channel();
        let (load_tx, load_rx) = tmpsc::unbounded_channel();
        let events = Arc::new(RwLock::new(HashSet::new()));
        let path = cfg.path.to_string_lossy().into_owned();
        let engine = Arc::new(Engine {
            tx: tx.clone(),
            path: path.clone(),
            ui: cfg.ui.clone(),
            limits: cfg.limits,
            events: events.clone(),
            next_call: AtomicU64::new(1),
        });
        let self_tx = tx.clone();
        std::thread::Builder::new()
            .name("pi-ext".into())
            .stack_size(crate::api::ENGINE_THREAD_STACK)
            .spawn(move || run_thread(cfg, rx, self_tx, load_tx, events))
            .map_err(|e| e.to_string())?;
        let _ = tx.send(Msg::Handle(Arc::downgrade(&engine)));
        Ok((engine, load_rx))
    }

    /// Whether the extension has a handler for `event`.
    pub(crate) fn handles(&self, event: &str) -> bool {
        self.events.read().map(|s| s.contains(event)).unwrap_or(false)
    }

    pub(crate) fn send(&self, msg: Msg) {
        let _ = self.tx.send(msg);
    }

    /// Run `kind` with `payload` in JavaScript and wait for its outcome,
    /// performing the host operations it asks for meanwhile.
    pub(crate) async fn invoke(&self, kind: &str, payload: String, env: &CallEnv<'_>) -> Result<String, String> {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (sink, mut rx) = tmpsc::unbounded_channel();
        if self.tx.send(Msg::Invoke { id, kind: kind.to_string(), payload, sink }).is_err() {
            return Err(text::stopped(&self.path));
        }
        let _forget = Forget { engine: self, id };
        let mut ops = FuturesUnordered::new();
        let abort = env.tool_ctx.map(|c| c.abort.clone());
        let mut abort_sent = false;
        let grace = tokio::time::sleep(Duration::from_secs(u64::MAX / 4));
        tokio::pin!(grace);
        loop {
            tokio::select! {
                msg = rx.recv() => match msg {
                    None => return Err(text::stopped(&self.path)),
                    Some(CallMsg::Done(r)) => return r,
                    Some(CallMsg::Op { op, kind, payload }) => {
                        ops.push(async move { (op, self.run_op(op, &kind, &payload, env).await) });
                    }
                    Some(CallMsg::Emit { payload }) => {
                        if let (Some(ctx), Ok(v)) = (env.tool_ctx, serde_json::from_str::<Value>(&payload))
                            && let Some(f) = &ctx.on_update
                        {
                            f(&convert::tool_result(&v));
                        }
                    }
                },
                Some((op, result)) = ops.next(), if !ops.is_empty() => {
                    let _ = self.tx.send(Msg::Complete { op, result });
                }
                _ = wait_cancel(abort.as_ref()), if !abort_sent && abort.is_some() => {
                    abort_sent = true;
                    let _ = self.tx.send(Msg::Abort { id });
                    grace.as_mut().reset(tokio::time::Instant::now() + crate::api::ABORT_GRACE);
                }
                _ = &mut grace, if abort_sent => {
                    return Err(pi_tools::ToolError::Aborted.to_string());
                }
            }
        }
    }

    async fn run_op(&self, op: u64, kind: &str, payload: &str, env: &CallEnv<'_>) -> Result<String, String> {
        let p: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
        let timeout = p.get("timeout").and_then(Value::as_u64);
        let request = match kind {
            "select" => Some(UiRequest::Select {
                title: s("title").unwrap_or_default(),
                options: p
                    .get("options")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                    .unwrap_or_default(),
                timeout,
            }),
            "confirm" => Some(UiRequest::Confirm {
                title: s("title").unwrap_or_default(),
                message: s("message").unwrap_or_default(),
                timeout,
            }),
            "input" => {
                Some(UiRequest::Input { title: s("title").unwrap_or_default(), placeholder: s("placeholder"), timeout })
            }
            "editor" => Some(UiRequest::Editor { title: s("title").unwrap_or_default(), prefill: s("prefill") }),
            _ => None,
        };
        if let Some(request) = request {
            let is_confirm = matches!(request, UiRequest::Confirm { .. });
            let response = match &self.ui {
                None => UiResponse::Cancelled,
                Some(ui) => {
                    let fut = ui.dialog(request);
                    match timeout {
                        Some(ms) => {
                            tokio::time::timeout(Duration::from_millis(ms), fut).await.unwrap_or(UiResponse::Cancelled)
                        }
                        None => fut.await,
                    }
                }
            };
            // "" stands for `undefined`.
            return Ok(match (response, is_confirm) {
                (UiResponse::Confirmed(b), true) => b.to_string(),
                (_, true) => "false".into(),
                (UiResponse::Value(v), false) => Value::String(v).to_string(),
                (_, false) => String::new(),
            });
        }
        if kind == "executeTool" {
            let Some(nested) = env.nested else { return Err(text::CALL_ENDED.into()) };
            let name = s("name").unwrap_or_default();
            let args = p.get("args").cloned().unwrap_or(json!({}));
            let on_update: Option<pi_tools::UpdateFn> = if p.get("updates").and_then(Value::as_bool) == Some(true) {
                let tx = self.tx.clone();
                Some(Arc::new(move |partial: &ToolResult| {
                    let _ = tx.send(Msg::OpUpdate { op, payload: convert::result_json(partial).to_string() });
                }))
            } else {
                None
            };
            let outcome = nested.call(&name, args, on_update).await;
            return Ok(convert::outcome_json(&outcome).to_string());
        }
        Err(format!("unknown host operation {kind}"))
    }

    /// Run a synchronous hook of tool `name` (`fun` of the glue) and wait
    /// for its JSON answer; a hook that throws gives its message.
    pub(crate) fn call_sync(&self, fun: &'static str, name: &str, payload: &Value) -> Result<Value, String> {
        let (reply, rx) = mpsc::channel();
        let msg = Msg::Sync { fun, name: name.to_string(), payload: payload.to_string(), reply };
        self.tx.send(msg).map_err(|_| text::ENGINE_STOPPED.to_string())?;
        let out = rx
            .recv_timeout(self.limits.time + Duration::from_secs(1))
            .map_err(|_| text::ENGINE_STOPPED.to_string())??;
        serde_json::from_str(&out).map_err(|e| e.to_string())
    }
}

async fn wait_cancel(token: Option<&tokio_util::sync::CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

struct Forget<'a> {
    engine: &'a Engine,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        let _ = self.engine.tx.send(Msg::Forget { id: self.id });
    }
}

// ------------------------------------------------------------------ the thread

struct State {
    path: String,
    cfg: EngineConfig,
    calls: RefCell<HashMap<u64, CallSink>>,
    /// Outcomes reported during the current turn, delivered when it ends well.
    outbox: RefCell<Vec<(u64, Result<String, String>)>>,
    deferred: RefCell<VecDeque<Msg>>,
    timers: RefCell<HashMap<u64, Instant>>,
    tools: RefCell<Vec<ToolMeta>>,
    pending_tools: RefCell<Vec<ToolMeta>>,
    tools_api: RefCell<Option<Arc<dyn ToolsApi>>>,
    handle: RefCell<Weak<Engine>>,
    loaded: Cell<bool>,
    events: Arc<RwLock<HashSet<String>>>,
    poisoned: RefCell<Option<String>>,
}

fn run_thread(
    cfg: EngineConfig,
    rx: mpsc::Receiver<Msg>,
    _self_tx: mpsc::Sender<Msg>,
    load_sink: CallSink,
    events: Arc<RwLock<HashSet<String>>>,
) {
    let path = cfg.path.to_string_lossy().into_owned();
    let fail = |m: String| {
        let _ = load_sink.send(CallMsg::Done(Err(m)));
    };
    let heap = HeapState::default();
    let rt = match Runtime::new_with_alloc(LimitedAllocator::new(cfg.limits.memory, heap.clone())) {
        Ok(rt) => rt,
        Err(e) => return fail(text::load_failed(&e.to_string())),
    };
    rt.set_max_stack_size(crate::api::JS_STACK);
    let deadline = Rc::new(Cell::new(Instant::now() + Duration::from_secs(3600)));
    let interrupted = Rc::new(Cell::new(false));
    {
        let (deadline, interrupted) = (deadline.clone(), interrupted.clone());
        rt.set_interrupt_handler(Some(Box::new(move || {
            if Instant::now() > deadline.get() {
                interrupted.set(true);
                true
            } else {
                false
            }
        })));
    }
    rt.set_loader(PiResolver, PiLoader);
    let context = match Context::full(&rt) {
        Ok(c) => c,
        Err(e) => return fail(text::load_failed(&e.to_string())),
    };
    let state = Rc::new(State {
        path: path.clone(),
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
        events,
        poisoned: RefCell::new(None),
    });
    state.calls.borrow_mut().insert(0, load_sink);
    let looper = Looper { rt: &rt, context: &context, state: state.clone(), deadline, interrupted, heap };

    // Install the host functions and the glue, then load the module.
    let started = looper.turn(|ctx| install(ctx, &state));
    if let Err(e) = started {
        looper.finish_call(0, Err(text::load_failed(&e)));
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

impl Looper<'_> {
    /// One turn: run `f`, then the pending jobs, under the time limit.
    fn turn<R>(&self, f: impl FnOnce(&Ctx<'_>) -> Result<R, String>) -> Result<R, String> {
        if let Some(p) = self.state.poisoned.borrow().clone() {
            return Err(p);
        }
        self.deadline.set(Instant::now() + self.state.cfg.limits.time);
        let out = self.context.with(|ctx| f(&ctx));
        self.drain_jobs();
        self.deadline.set(Instant::now() + Duration::from_secs(3600));
        let stop = if self.interrupted.get() {
            Some(text::time_limit(&self.state.path, self.state.cfg.limits.time))
        } else if self.heap.take_hit() {
            Some(text::out_of_memory(&self.state.path, self.state.cfg.limits.memory))
        } else {
            None
        };
        if let Some(message) = stop {
            // Outcomes of this turn are not trusted: every call gets the reason.
            self.state.outbox.borrow_mut().clear();
            self.poison(message.clone());
            self.rt.run_gc();
            return Err(message);
        }
        let finished: Vec<(u64, Result<String, String>)> = self.state.outbox.borrow_mut().drain(..).collect();
        for (id, result) in finished {
            self.finish_call(id, result);
        }
        out
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
    fn poison(&self, message: String) {
        *self.state.poisoned.borrow_mut() = Some(message.clone());
        let calls: Vec<CallSink> = self.state.calls.borrow_mut().drain().map(|(_, s)| s).collect();
        for sink in calls {
            let _ = sink.send(CallMsg::Done(Err(message.clone())));
        }
        // The handler set stays as it was: a stopped extension's tool_call
        // handlers keep blocking (fail-safe), its other handlers report the error.
        self.state.timers.borrow_mut().clear();
    }

    fn finish_call(&self, id: u64, result: Result<String, String>) {
        let sink = self.state.calls.borrow_mut().remove(&id);
        if let Some(sink) = sink {
            let _ = sink.send(CallMsg::Done(result));
        }
    }

    fn internal<'js>(ctx: &Ctx<'js>, name: &str) -> rquickjs::Result<Function<'js>> {
        let internal: Object = ctx.globals().get("__pi_internal")?;
        internal.get(name)
    }

    fn run(&self, rx: mpsc::Receiver<Msg>) {
        loop {
            let next = self.state.deferred.borrow_mut().pop_front();
            let msg = match next {
                Some(m) => m,
                None => {
                    // A factory whose promise waits on nothing (no timer) can never finish.
                    if self.state.calls.borrow().contains_key(&0) && self.state.timers.borrow().is_empty() {
                        self.finish_call(0, Err(text::load_failed(text::FACTORY_STALLED)));
                    }
                    let due = self.state.timers.borrow().values().min().copied();
                    let wait = due.map(|d| d.saturating_duration_since(Instant::now()));
                    let got = match wait {
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

    fn fire_timers(&self) {
        let now = Instant::now();
        let mut due: Vec<(Instant, u64)> =
            self.state.timers.borrow().iter().filter(|(_, d)| **d <= now).map(|(id, d)| (*d, *id)).collect();
        due.sort();
        for (_, id) in due {
            self.state.timers.borrow_mut().remove(&id);
            let _ = self.turn(|ctx| {
                Self::internal(ctx, "fireTimer")
                    .and_then(|f| f.call::<_, ()>((id as f64,)))
                    .catch(ctx)
                    .map_err(describe_caught)
            });
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
            Msg::Invoke { id, kind, payload, sink } => {
                if let Some(p) = self.state.poisoned.borrow().clone() {
                    let _ = sink.send(CallMsg::Done(Err(p)));
                    return true;
                }
                self.state.calls.borrow_mut().insert(id, sink);
                let r = self.turn(|ctx| {
                    Self::internal(ctx, "dispatch")
                        .and_then(|f| f.call::<_, ()>((id as f64, kind.as_str(), payload.as_str())))
                        .catch(ctx)
                        .map_err(describe_caught)
                });
                if let Err(e) = r {
                    self.finish_call(id, Err(e));
                }
            }
            Msg::Complete { op, result } => {
                let (ok, text) = match result {
                    Ok(t) => (true, t),
                    Err(e) => (false, e),
                };
                let _ = self.turn(|ctx| {
                    Self::internal(ctx, "complete")
                        .and_then(|f| f.call::<_, ()>((op as f64, ok, text.as_str())))
                        .catch(ctx)
                        .map_err(describe_caught)
                });
            }
            Msg::OpUpdate { op, payload } => {
                let _ = self.turn(|ctx| {
                    Self::internal(ctx, "update")
                        .and_then(|f| f.call::<_, ()>((op as f64, payload.as_str())))
                        .catch(ctx)
                        .map_err(describe_caught)
                });
            }
            Msg::Abort { id } => {
                let _ = self.turn(|ctx| {
                    Self::internal(ctx, "abort")
                        .and_then(|f| f.call::<_, ()>((id as f64,)))
                        .catch(ctx)
                        .map_err(describe_caught)
                });
            }
            Msg::Sync { fun, name, payload, reply } => {
                let out = self.turn(|ctx| {
                    Self::internal(ctx, fun)
                        .and_then(|f| f.call::<_, String>((name.as_str(), payload.as_str())))
                        .catch(ctx)
                        .map_err(describe_caught)
                });
                let _ = reply.send(out);
            }
        }
        true
    }
}

/// One line on stderr; a closed stderr is ignored (never a panic).
pub(crate) fn stderr_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A caught JavaScript error as one line: `Name: message` for errors, the value otherwise.
fn describe_caught(e: CaughtError<'_>) -> String {
    match e {
        CaughtError::Exception(ex) => {
            let name: Option<String> = ex.get("name").ok();
            let message = ex.message().unwrap_or_default();
            match name {
                Some(n) if !n.is_empty() => format!("{n}: {message}"),
                _ => message,
            }
        }
        CaughtError::Value(v) => v.as_string().and_then(|s| s.to_string().ok()).unwrap_or_else(|| format!("{v:?}")),
        CaughtError::Error(e) => e.to_string(),
    }
}

const BOOTSTRAP: &str = include_str!("js/bootstrap.js");

/// Install the host functions and run the glue.
fn install(ctx: &Ctx<'_>, state: &Rc<State>) -> Result<(), String> {
    let host = host_object(ctx, state).catch(ctx).map_err(describe_caught)?;
    let config = Object::new(ctx.clone()).catch(ctx).map_err(describe_caught)?;
    let cwd = state.cfg.cwd.to_string_lossy().into_owned();
    (|| -> rquickjs::Result<()> {
        config.set("cwd", cwd.as_str())?;
        config.set("mode", state.cfg.mode.as_str())?;
        config.set("hasUI", state.cfg.has_ui)?;
        config.set("projectTrusted", state.cfg.project_trusted)?;
        config.set("path", state.path.as_str())?;
        Ok(())
    })()
    .catch(ctx)
    .map_err(describe_caught)?;
    let glue: Function = ctx.eval(BOOTSTRAP).catch(ctx).map_err(describe_caught)?;
    glue.call::<_, ()>((host, config)).catch(ctx).map_err(describe_caught)?;
    Ok(())
}

fn host_object<'js>(ctx: &Ctx<'js>, state: &Rc<State>) -> rquickjs::Result<Object<'js>> {
    let host = Object::new(ctx.clone())?;
    {
        let state = state.clone();
        host.set(
            "done",
            Function::new(ctx.clone(), move |id: f64, ok: bool, payload: String| {
                let id = id as u64;
                let result = if ok { Ok(payload) } else { Err(payload) };
                let result = if id == 0 { finish_load(&state, result) } else { result };
                state.outbox.borrow_mut().push((id, result));
            })?,
        )?;
    }
    {
        let state = state.clone();
        host.set(
            "op",
            Function::new(ctx.clone(), move |id: f64, op: f64, kind: String, payload: String| {
                let (id, op) = (id as u64, op as u64);
                let sent = state
                    .calls
                    .borrow()
                    .get(&id)
                    .map(|s| s.send(CallMsg::Op { op, kind: kind.clone(), payload }).is_ok())
                    .unwrap_or(false);
                if !sent {
                    // The call has ended: dialogs answer as if cancelled, executeTool fails.
                    let result = match kind.as_str() {
                        "confirm" => Ok("false".to_string()),
                        "select" | "input" | "editor" => Ok(String::new()),
                        _ => Err(text::CALL_ENDED.to_string()),
                    };
                    state.deferred.borrow_mut().push_back(Msg::Complete { op, result });
                }
            })?,
        )?;
    }
    {
        let state = state.clone();
        host.set(
            "emit",
            Function::new(ctx.clone(), move |id: f64, _kind: String, payload: String| {
                if let Some(s) = state.calls.borrow().get(&(id as u64)) {
                    let _ = s.send(CallMsg::Emit { payload });
                }
            })?,
        )?;
    }
    {
        let state = state.clone();
        host.set(
            "sync",
            Function::new(ctx.clone(), move |kind: String, payload: String| -> String {
                host_sync(&state, &kind, &payload)
            })?,
        )?;
    }
    host.set("log", Function::new(ctx.clone(), |_level: String, message: String| stderr_line(&message))?)?;
    {
        let state = state.clone();
        host.set(
            "timer",
            Function::new(ctx.clone(), move |id: f64, ms: f64| {
                let ms = if ms.is_finite() && ms > 0.0 { ms.min(1e12) } else { 0.0 };
                state
                    .timers
                    .borrow_mut()
                    .insert(id as u64, Instant::now() + Duration::from_micros((ms * 1000.0) as u64));
            })?,
        )?;
    }
    {
        let state = state.clone();
        host.set(
            "clearTimer",
            Function::new(ctx.clone(), move |id: f64| {
                state.timers.borrow_mut().remove(&(id as u64));
            })?,
        )?;
    }
    Ok(host)
}

/// The factory finished: on success the payload becomes the registered tools.
fn finish_load(state: &State, result: Result<String, String>) -> Result<String, String> {
    match result {
        Ok(_) => {
            state.loaded.set(true);
            Ok(Value::Array(state.tools.borrow().iter().map(|m| m.raw.clone()).collect()).to_string())
        }
        Err(e) if e == "\u{0}not-a-factory" => Err(text::not_a_factory(&state.path)),
        Err(e) => Err(text::load_failed(&e)),
    }
}

fn host_sync(state: &State, kind: &str, payload: &str) -> String {
    let p: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
    let api = state.tools_api.borrow().clone();
    let out = match kind {
        "events" => {
            let names: HashSet<String> = p
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            if state.poisoned.borrow().is_none()
                && let Ok(mut e) = state.events.write()
            {
                *e = names;
            }
            Value::Null
        }
        "registerTool" => {
            let meta = ToolMeta::from_json(&p, &state.path);
            {
                let mut tools = state.tools.borrow_mut();
                match tools.iter().position(|t| t.def.name == meta.def.name) {
                    Some(i) => tools[i] = meta.clone(),
                    None => tools.push(meta.clone()),
                }
            }
            if state.loaded.get() {
                match (&api, state.handle.borrow().upgrade()) {
                    (Some(api), Some(engine)) => api.register_tool(Arc::new(ExtTool::new(engine, meta))),
                    _ => state.pending_tools.borrow_mut().push(meta),
                }
            }
            Value::Null
        }
        "getAllTools" => match &api {
            Some(api) => Value::Array(api.all_tools().iter().map(|t| convert::tool_info(t.as_ref())).collect()),
            None => Value::Array(vec![]),
        },
        "reachesTools" => {
            let name = p.get("name").and_then(Value::as_str).unwrap_or("");
            let input = p.get("input").cloned().unwrap_or(Value::Null);
            let tool = api.as_ref().and_then(|a| a.all_tools().into_iter().find(|t| t.def().name == name));
            match tool.and_then(|t| t.reaches_tools(&input)) {
                Some(r) => convert::reach_json(&r),
                None => Value::Null,
            }
        }
        "getActiveTools" => match &api {
            Some(api) => json!(api.active_tools()),
            None => json!([]),
        },
        "setActiveTools" => {
            if let Some(api) = &api {
                let names: Vec<String> = p
                    .as_array()
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                api.set_active_tools(&names);
            }
            Value::Null
        }
        "notify" => {
            if let Some(ui) = &state.cfg.ui {
                let level = match p.get("type").and_then(Value::as_str) {
                    Some("warning") => NotifyLevel::Warning,
                    Some("error") => NotifyLevel::Error,
                    _ => NotifyLevel::Info,
                };
                ui.notify(p.get("message").and_then(Value::as_str).unwrap_or(""), level);
            }
            Value::Null
        }
        "formatSize" => Value::String(pi_tools::truncate::format_size(p.as_f64().unwrap_or(0.0).max(0.0) as usize)),
        "truncate" => convert::truncation(&p),
        "truncateLine" => {
            let line = p.get("line").and_then(Value::as_str).unwrap_or("");
            let max =
                p.get("maxChars").and_then(Value::as_u64).unwrap_or(pi_tools::limits::GREP_MAX_LINE_LENGTH as u64);
            let (text, cut) = pi_tools::truncate::truncate_line(line, max as usize);
            json!({"text": text, "wasTruncated": cut})
        }
        _ => Value::Null,
    };
    out.to_string()
}

/// Declare and evaluate the extension's module, then call its factory (call 0).
fn load_module(ctx: &Ctx<'_>, state: &State) -> Result<(), String> {
    let path = &state.cfg.path;
    let source = std::fs::read_to_string(path).map_err(|e| text::load_failed(&e.to_string()))?;
    let js = crate::strip::to_javascript(path, &source).map_err(|e| text::load_failed(&e))?;
    let name = state.path.clone();
    let declared =
        Module::declare(ctx.clone(), name, js).catch(ctx).map_err(|e| text::load_failed(&describe_caught(e)))?;
    let (module, promise) = declared.eval().catch(ctx).map_err(|e| text::load_failed(&describe_caught(e)))?;
    let namespace = module.namespace().catch(ctx).map_err(|e| text::load_failed(&describe_caught(e)))?;
    let f = Looper::internal(ctx, "load").catch(ctx).map_err(|e| text::load_failed(&describe_caught(e)))?;
    f.call::<_, ()>((0.0, promise, namespace)).catch(ctx).map_err(|e| text::load_failed(&describe_caught(e)))?;
    Ok(())
}
