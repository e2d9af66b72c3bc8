//! The engine thread: its runtime and the event loop its extensions share.
//! Each message enters JavaScript for one *turn* of one extension under its
//! time limit, then the pending promise jobs run; a turn that runs too long
//! or exhausts the heap stops that extension for good (every call of it then
//! fails with the reason) while the others go on.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Object, Runtime};
use serde_json::Value;

use super::config::{EngineConfig, Shared};
use super::error::{EngineError, LoadError};
use super::host::{install_realm, internal, load_module, start_extension};
use super::protocol::{CallMsg, CallSink, ExtId, Msg};
use super::state::{ON_REALM, Realm, State};
use crate::memory::{HeapState, LimitedAllocator};
use crate::modules::{PiLoader, PiResolver};
use crate::node::child::{ChildEvent, Running};
use crate::report::{describe_caught, stderr_line};
use crate::text;
use crate::tool_meta::ToolMeta;

/// How far away "no deadline" is for the interrupt handler.
const NO_DEADLINE: Duration = Duration::from_secs(3600);

/// The thread's body: build the runtime and the shared glue, then serve
/// messages until the last extension stopped after [`Msg::Sealed`].
pub(super) fn run_thread(
    realm_id: usize,
    limits: crate::api::Limits,
    cwd: std::path::PathBuf,
    rx: mpsc::Receiver<(ExtId, Msg)>,
    tx: mpsc::Sender<(ExtId, Msg)>,
) {
    ON_REALM.with(|r| r.set(realm_id));
    let heap = HeapState::default();
    let realm = Rc::new(Realm::new(Instant::now() + NO_DEADLINE, tx));
    let built = build_runtime(limits.memory, heap.clone(), realm.deadline.clone());
    let (rt, context, interrupted) = match built {
        Ok(b) => b,
        Err(e) => return refuse_all(rx, &LoadError::Runtime(std::sync::Arc::new(e))),
    };
    let looper =
        Looper { rt: &rt, context: &context, realm: realm.clone(), interrupted, heap, sealed: Cell::new(false) };
    let installed = context.with(|ctx| install_realm(&ctx, &realm, &cwd));
    looper.drain_jobs();
    if let Err(e) = installed {
        drop(looper);
        return refuse_all(rx, &e);
    }
    looper.run(rx);
    realm.exts.borrow_mut().clear();
    realm.deferred.borrow_mut().clear();
}

/// The runtime could not be built: every load fails with `why`.
fn refuse_all(rx: mpsc::Receiver<(ExtId, Msg)>, why: &LoadError) {
    let mut live = 0usize;
    let mut sealed = false;
    while let Ok((_, msg)) = rx.recv() {
        match msg {
            Msg::Start(_, load, _) => {
                live += 1;
                let _ = load.send(CallMsg::Done(Err(why.clone().into())));
            }
            Msg::Shutdown => live = live.saturating_sub(1),
            Msg::Sealed => sealed = true,
            Msg::Hook { reply, .. } => reply(Err(EngineError::NoAnswer)),
            Msg::Invoke { sink, .. } => {
                let _ = sink.send(CallMsg::Done(Err(why.clone().into())));
            }
            _ => {}
        }
        if sealed && live == 0 {
            return;
        }
    }
}

struct Looper<'r> {
    rt: &'r Runtime,
    context: &'r Context,
    realm: Rc<Realm>,
    interrupted: Rc<Cell<bool>>,
    heap: HeapState,
    sealed: Cell<bool>,
}

/// Call the realm's function `name` with `args`, one line for a throw.
fn call_realm<'js, A, R>(ctx: &Ctx<'js>, name: &str, args: A) -> Result<R, EngineError>
where
    A: rquickjs::function::IntoArgs<'js>,
    R: rquickjs::FromJs<'js>,
{
    (|| -> rquickjs::Result<R> {
        let realm: Object = ctx.globals().get("__pi_realm")?;
        let f: Function = realm.get(name)?;
        f.call::<A, R>(args)
    })()
    .catch(ctx)
    .map_err(thrown)
}

/// Call extension `ext`'s internal function `name` with `args`, one line for a throw.
fn call_internal<'js, A, R>(ctx: &Ctx<'js>, ext: ExtId, name: &str, args: A) -> Result<R, EngineError>
where
    A: rquickjs::function::IntoArgs<'js>,
    R: rquickjs::FromJs<'js>,
{
    internal(ctx, ext, name).and_then(|f| f.call::<A, R>(args)).catch(ctx).map_err(thrown)
}

impl Looper<'_> {
    /// One turn of `state`'s extension: run `f`, then the pending jobs, under its time limit.
    fn turn<R>(&self, state: &Rc<State>, f: impl FnOnce(&Ctx<'_>) -> Result<R, EngineError>) -> Result<R, EngineError> {
        if let Some(p) = state.poisoned.borrow().clone() {
            return Err(p);
        }
        self.realm.current.set(state.id);
        self.interrupted.set(false);
        self.realm.deadline.set(Instant::now() + state.cfg.limits.time);
        let out = self.context.with(|ctx| f(&ctx));
        self.drain_jobs();
        self.realm.deadline.set(Instant::now() + NO_DEADLINE);
        self.realm.current.set(0);
        let path = state.path.clone();
        let stop = if self.interrupted.get() {
            Some(EngineError::TimeLimit { path, limit: state.cfg.limits.time })
        } else if self.heap.take_hit() {
            Some(EngineError::OutOfMemory { path, limit: state.cfg.limits.memory })
        } else {
            None
        };
        if let Some(reason) = stop {
            // Outcomes of this turn are not trusted: every call gets the reason.
            state.outbox.borrow_mut().clear();
            self.poison(state, reason.clone());
            self.rt.run_gc();
            self.deliver();
            return Err(reason);
        }
        self.deliver();
        out
    }

    /// Hand the outcomes reported during the turn to their calls (any extension's).
    fn deliver(&self) {
        let states: Vec<Rc<State>> = self.realm.exts.borrow().values().cloned().collect();
        for state in states {
            let finished: Vec<(u64, Result<Value, EngineError>)> = state.outbox.borrow_mut().drain(..).collect();
            for (id, result) in finished {
                finish_call(&state, id, result);
            }
        }
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
                    let path = self.realm.current_state().map(|s| s.path.clone()).unwrap_or_default();
                    stderr_line(&text::extension_error(&path, &message));
                }
            }
        }
    }

    /// The extension ran too long or out of memory: every call fails, no more of its JavaScript runs.
    fn poison(&self, state: &State, reason: EngineError) {
        *state.poisoned.borrow_mut() = Some(reason.clone());
        let calls: Vec<CallSink> = state.calls.borrow_mut().drain().map(|(_, s)| s).collect();
        for sink in calls {
            let _ = sink.send(CallMsg::Done(Err(reason.clone())));
        }
        // The handler set stays as it was: a stopped extension's tool_call
        // handlers keep blocking (fail-safe), its other handlers report the error.
        state.timers.borrow_mut().clear();
    }

    fn run(&self, rx: mpsc::Receiver<(ExtId, Msg)>) {
        loop {
            let next = self.realm.deferred.borrow_mut().pop_front();
            let (ext, msg) = match next {
                Some(m) => m,
                None => {
                    self.fail_stalled_loads();
                    let due = self.next_due();
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
            self.handle(ext, msg);
            if self.sealed.get() && self.realm.exts.borrow().is_empty() {
                return;
            }
        }
    }

    /// A factory whose promise waits on nothing (no timer, no child process) can never finish.
    fn fail_stalled_loads(&self) {
        let states: Vec<Rc<State>> = self.realm.exts.borrow().values().cloned().collect();
        for s in states {
            if s.calls.borrow().contains_key(&0) && s.timers.borrow().is_empty() && s.children.borrow().is_empty() {
                finish_call(&s, 0, Err(LoadError::Stalled.into()));
            }
        }
    }

    /// When the next timer of any extension is due.
    fn next_due(&self) -> Option<Instant> {
        self.realm.exts.borrow().values().filter_map(|s| s.timers.borrow().values().min().copied()).min()
    }

    /// Hand a child process's output or exit to the glue (`__pi_node.childEvent`).
    /// The child is kept until its exit and both stream ends were told (a
    /// factory waiting for its output is waiting on something).
    fn child_event(&self, state: &Rc<State>, id: u64, event: ChildEvent) {
        let update = |f: &dyn Fn(&mut Running)| {
            let mut children = state.children.borrow_mut();
            if let Some(c) = children.get_mut(&id) {
                f(c);
                if c.done() {
                    children.remove(&id);
                }
            }
        };
        let (kind, payload) = match event {
            ChildEvent::Data { stream, bytes } => {
                (if stream == 1 { "stdout" } else { "stderr" }, crate::node::latin1(&bytes))
            }
            ChildEvent::End { stream } => {
                update(&|c| c.open_streams = c.open_streams.saturating_sub(1));
                (if stream == 1 { "end-stdout" } else { "end-stderr" }, String::new())
            }
            ChildEvent::Exit { code, signal } => {
                update(&|c| c.exited = true);
                ("exit", serde_json::json!({"code": code, "signal": signal}).to_string())
            }
        };
        let _ = self.turn(state, |ctx| {
            let node: Object = ctx.globals().get("__pi_node").catch(ctx).map_err(thrown)?;
            let f: Function = node.get("childEvent").catch(ctx).map_err(thrown)?;
            f.call::<_, ()>((id as f64, kind, payload.as_str())).catch(ctx).map_err(thrown)
        });
    }

    fn fire_timers(&self) {
        let now = Instant::now();
        let mut due: Vec<(Instant, u64, Rc<State>)> = Vec::new();
        for s in self.realm.exts.borrow().values() {
            for (id, d) in s.timers.borrow().iter() {
                if *d <= now {
                    due.push((*d, *id, s.clone()));
                }
            }
        }
        due.sort_by_key(|(d, id, _)| (*d, *id));
        for (_, id, state) in due {
            if state.timers.borrow_mut().remove(&id).is_none() {
                continue;
            }
            let _ = self.turn(&state, |ctx| call_realm::<_, ()>(ctx, "fireTimer", (id as f64,)));
        }
    }

    /// Load extension `ext`: its glue, its module, its factory (call 0).
    fn start(&self, ext: ExtId, cfg: EngineConfig, load: CallSink, shared: Shared) {
        let state = Rc::new(State::new(&self.realm, ext, cfg, load, shared));
        self.realm.exts.borrow_mut().insert(ext, state.clone());
        let started = self.turn(&state, |ctx| Ok(start_extension(ctx, &state)?));
        if let Err(e) = started {
            finish_call(&state, 0, Err(e));
        } else if let Err(e) = self.turn(&state, |ctx| Ok(load_module(ctx, &state)?)) {
            finish_call(&state, 0, Err(e));
        }
    }

    /// The extension `ext` stops: its children are killed, its timers dropped,
    /// its glue forgotten (its module's objects go when nothing holds them).
    fn stop(&self, ext: ExtId) {
        let Some(state) = self.realm.exts.borrow_mut().remove(&ext) else { return };
        state.timers.borrow_mut().clear();
        state.children.borrow_mut().clear();
        state.calls.borrow_mut().clear();
        let _ = self.context.with(|ctx| call_realm::<_, ()>(&ctx, "forget", (ext,)));
    }

    /// Handle one message about extension `ext`.
    fn handle(&self, ext: ExtId, msg: Msg) {
        let msg = match msg {
            Msg::Start(cfg, load, shared) => return self.start(ext, *cfg, load, shared),
            Msg::Sealed => return self.sealed.set(true),
            Msg::Shutdown => return self.stop(ext),
            other => other,
        };
        let state = self.realm.exts.borrow().get(&ext).cloned();
        let Some(state) = state else {
            // The extension stopped: calls and hooks end at once.
            match msg {
                Msg::Invoke { sink, .. } => {
                    let _ = sink.send(CallMsg::Done(Err(EngineError::NoAnswer)));
                }
                Msg::Hook { reply, .. } => reply(Err(EngineError::NoAnswer)),
                Msg::Bind(_, done) => {
                    let _ = done.send(());
                }
                _ => {}
            }
            return;
        };
        self.handle_for(&state, msg);
    }

    fn handle_for(&self, state: &Rc<State>, msg: Msg) {
        let ext = state.id;
        match msg {
            Msg::Start(..) | Msg::Sealed | Msg::Shutdown => {}
            Msg::Handle(w) => *state.handle.borrow_mut() = Some(w),
            Msg::Forget { id } => {
                state.calls.borrow_mut().remove(&id);
            }
            Msg::Bind(api, done) => {
                let pending: Vec<ToolMeta> = state.pending_tools.borrow_mut().drain(..).collect();
                if let Some(engine) = state.handle() {
                    for meta in pending {
                        api.register_tool(engine.clone().tool(meta));
                    }
                }
                *state.tools_api.borrow_mut() = Some(api);
                let _ = done.send(());
            }
            Msg::Invoke { id, call, payload, sink } => {
                if let Some(p) = state.poisoned.borrow().clone() {
                    let _ = sink.send(CallMsg::Done(Err(p)));
                    return;
                }
                state.calls.borrow_mut().insert(id, sink);
                let (kind, text) = (call.as_str().to_string(), payload.to_string());
                let r = self.turn(state, |ctx| {
                    call_internal::<_, ()>(ctx, ext, "dispatch", (id as f64, kind.as_str(), text.as_str()))
                });
                if let Err(e) = r {
                    finish_call(state, id, Err(e));
                }
            }
            Msg::Complete { op, result } => {
                let (ok, text) = match result {
                    Ok(answer) => (true, answer.to_glue()),
                    Err(e) => (false, e.to_string()),
                };
                let _ = self
                    .turn(state, |ctx| call_internal::<_, ()>(ctx, ext, "complete", (op as f64, ok, text.as_str())));
            }
            Msg::OpUpdate { op, payload } => {
                let text = payload.to_string();
                let _ = self.turn(state, |ctx| call_internal::<_, ()>(ctx, ext, "update", (op as f64, text.as_str())));
            }
            Msg::Child { id, event } => self.child_event(state, id, event),
            Msg::Abort { id } => {
                let _ = self.turn(state, |ctx| call_internal::<_, ()>(ctx, ext, "abort", (id as f64,)));
            }
            Msg::Hook { hook, name, payload, reply } => {
                let text = payload.to_string();
                let out = self
                    .turn(state, |ctx| {
                        call_internal::<_, String>(ctx, ext, hook.as_str(), (name.as_str(), text.as_str()))
                    })
                    .and_then(|json| serde_json::from_str(&json).map_err(|e| EngineError::Js(e.to_string())));
                reply(out);
            }
        }
    }
}

/// The runtime (heap limit, stack limit, interrupt handler, module loader)
/// and its context; the flag the interrupt handler sets when it stops a turn.
pub(super) fn build_runtime(
    memory: usize,
    heap: HeapState,
    deadline: Rc<Cell<Instant>>,
) -> rquickjs::Result<(Runtime, Context, Rc<Cell<bool>>)> {
    let rt = Runtime::new_with_alloc(LimitedAllocator::new(memory, heap))?;
    rt.set_max_stack_size(crate::api::JS_STACK);
    let interrupted = Rc::new(Cell::new(false));
    {
        let interrupted = interrupted.clone();
        rt.set_interrupt_handler(Some(Box::new(move || {
            let over = Instant::now() > deadline.get();
            if over {
                interrupted.set(true);
            }
            over
        })));
    }
    rt.set_loader(PiResolver, PiLoader);
    let context = Context::full(&rt)?;
    Ok((rt, context, interrupted))
}

/// A caught throw as the error of the call whose turn it ended.
fn thrown(e: CaughtError<'_>) -> EngineError {
    EngineError::Js(describe_caught(e))
}

fn finish_call(state: &State, id: u64, result: Result<Value, EngineError>) {
    let sink = state.calls.borrow_mut().remove(&id);
    if let Some(sink) = sink
        && let Err(unheard) = sink.send(CallMsg::Done(result))
        && let CallMsg::Done(Ok(outcome)) = unheard.0
    {
        // Nobody waits for this call (a posted notification): its handlers' failures go to stderr.
        for e in outcome.get("errors").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            stderr_line(&text::extension_error(&state.path, e));
        }
    }
}
