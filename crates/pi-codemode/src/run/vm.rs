//! The VM side of a script: a fresh QuickJS runtime on its own thread, so a
//! script that computes never blocks the async runtime.
//!
//! The runtime has a 256 MB heap, a 512 KiB JavaScript stack, no module
//! loader, no timers and no host API but the runtime code's four functions.
//! Its interrupt handler polls a stop flag the host sets on a timeout, an
//! abort, or once the script's outcome is known; promise jobs are run in
//! batches with the same check between them, so `while (true) await null`
//! stops too. Messages go to the host as [`FromVm`]; tool results come back
//! as [`Settle`]. The thread ends when the host drops its handle.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, mpsc};

use rquickjs::context::EvalOptions;
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Object, Persistent, Runtime};
use tokio::sync::mpsc::UnboundedSender;

use super::error::VmError;
use crate::text;

/// The code that freezes the realm, with its texts filled in.
static HARDEN_SOURCE: LazyLock<String> =
    LazyLock::new(|| include_str!("harden.js").replace("__TEXTS__", &text::sandbox_texts().to_string()));

/// The runtime code with its texts and limits filled in.
static RUNTIME_SOURCE: LazyLock<String> = LazyLock::new(|| {
    include_str!("prelude.js")
        .replace("__TEXTS__", &text::sandbox_texts().to_string())
        .replace("__STORE_VALUE_LIMIT__", &text::MAX_STORE_VALUE_CHARS.to_string())
        .replace("__STORE_TOTAL_LIMIT__", &text::MAX_STORE_TOTAL_CHARS.to_string())
        .replace("__OUTPUT_CHARS_LIMIT__", &text::MAX_OUTPUT_CHARS.to_string())
        .replace("__OUTPUT_ITEMS_LIMIT__", &text::MAX_OUTPUT_ITEMS.to_string())
});

/// What a script starts with.
pub(crate) struct Launch {
    /// The script (without its options line).
    pub code: String,
    /// `[{name, jsName, description}]`.
    pub tools_json: String,
    /// `[{name, spread}]`.
    pub globals_json: String,
    /// `{key: JSON text}`.
    pub store_json: String,
}

/// One output item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    /// `text()`, a returned value (`console: false`) or a `console` line.
    Text { text: String, console: bool },
    /// `image()`: base64 data and the detected type.
    Image { data: String, mime: String },
}

/// A message from the VM.
#[derive(Debug)]
pub(crate) enum FromVm {
    /// The script called a tool (`tool`) or a host global; `args` is JSON.
    Call { id: u64, tool: bool, name: String, args: Option<String> },
    /// An output item.
    Output(Item),
    /// The script ended: `payload` is the returned value's JSON (`ok`) or the error's JSON.
    Done { ok: bool, payload: Option<String>, writes: Option<String> },
    /// The VM failed outside the script (the runtime could not start, a job failed).
    Crash(VmError),
}

/// A call's answer: a JSON value (`ok`) or an error message, with extra
/// properties for the `Error` as JSON.
#[derive(Debug)]
pub(crate) struct Settle {
    pub id: u64,
    pub ok: bool,
    pub payload: Option<String>,
    pub properties: Option<String>,
}

/// The host's handle; dropping it stops the VM and ends its thread.
pub(crate) struct Vm {
    tx: mpsc::Sender<Settle>,
    stop: Arc<AtomicBool>,
}

impl Vm {
    /// Hand a call's answer to the script.
    pub(crate) fn settle(&self, answer: Settle) {
        let _ = self.tx.send(answer);
    }

    /// Interrupt the script wherever it is; it will not run again.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Drop for Vm {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What a runtime needs to run one script, handed to the thread that runs it.
pub(crate) struct Job {
    pub launch: Launch,
    pub events: UnboundedSender<FromVm>,
    pub answers: mpsc::Receiver<Settle>,
    /// The admission slot, held until the runtime is gone.
    pub slot: tokio::sync::OwnedSemaphorePermit,
}

/// Start `launch` holding `slot` until its runtime is gone; its messages go
/// to `events`. A runtime made ready in advance ([`super::warm`]) is used
/// when there is one; another is then prepared for the next script.
pub(crate) fn start(
    launch: Launch,
    events: UnboundedSender<FromVm>,
    slot: tokio::sync::OwnedSemaphorePermit,
) -> std::io::Result<Vm> {
    let (tx, answers) = mpsc::channel();
    let mut job = Job { launch, events, answers, slot };
    if let Some(spare) = super::warm::take() {
        match spare.jobs.send(job) {
            Ok(()) => {
                super::warm::replenish();
                return Ok(Vm { tx, stop: spare.stop });
            }
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    thread("pi-codemode").spawn(move || {
        let ran = prepare(flag).and_then(|ready| run(ready, &job.launch, &job.events, job.answers));
        if let Err(message) = ran {
            let _ = job.events.send(FromVm::Crash(message));
        }
        // The runtime is gone: its slot is free for the next script.
        drop(job.slot);
    })?;
    super::warm::replenish();
    Ok(Vm { tx, stop })
}

/// A thread for a script's runtime.
pub(crate) fn thread(name: &str) -> std::thread::Builder {
    std::thread::Builder::new().name(name.into()).stack_size(text::SCRIPT_THREAD_STACK)
}

/// A runtime ready for a script: limits set, the realm frozen, the runtime
/// code compiled. It lives on the thread that made it.
pub(crate) struct Ready {
    rt: Runtime,
    context: Context,
    factory: Persistent<Function<'static>>,
    pub stop: Arc<AtomicBool>,
}

/// Make a runtime ready; `stop` interrupts whatever runs in it.
pub(crate) fn prepare(stop: Arc<AtomicBool>) -> Result<Ready, VmError> {
    let rt = Runtime::new()?;
    rt.set_memory_limit(text::MEMORY_LIMIT_BYTES);
    rt.set_max_stack_size(text::JS_STACK_BYTES);
    let flag = stop.clone();
    rt.set_interrupt_handler(Some(Box::new(move || flag.load(Ordering::Relaxed))));
    let context = Context::full(&rt)?;
    let factory = context.with(|ctx| -> Result<Persistent<Function<'static>>, VmError> {
        ctx.eval_with_options::<(), _>(HARDEN_SOURCE.as_str(), runtime_options())
            .catch(&ctx)
            .map_err(VmError::thrown)?;
        let factory: Function =
            ctx.eval_with_options(RUNTIME_SOURCE.as_str(), runtime_options()).catch(&ctx).map_err(VmError::thrown)?;
        Ok(Persistent::save(&ctx, factory))
    })?;
    Ok(Ready { rt, context, factory, stop })
}

fn runtime_options() -> EvalOptions {
    let mut options = EvalOptions::default();
    options.filename = Some(text::RUNTIME_FILE.into());
    options
}

/// A caught JavaScript error as `{name, message, stack}` JSON, the stack
/// starting with `Name: message` as the runtime code writes it.
fn exception_json(e: CaughtError<'_>) -> String {
    let (name, message, stack) = match &e {
        CaughtError::Exception(ex) => {
            let name: String = ex.get("name").unwrap_or_else(|_| "Error".into());
            let message = ex.message().unwrap_or_default();
            let stack = ex.stack().unwrap_or_default();
            (name, message, stack)
        }
        other => ("Error".into(), other.to_string(), String::new()),
    };
    let head = if message.is_empty() { name.clone() } else { format!("{name}: {message}") };
    let stack = stack.trim_end();
    let full = if stack.is_empty() { head } else { format!("{head}\n{stack}") };
    serde_json::json!({"name": name, "message": message, "stack": full}).to_string()
}

fn host_object<'js>(ctx: &Ctx<'js>, events: &UnboundedSender<FromVm>) -> rquickjs::Result<Object<'js>> {
    let host = Object::new(ctx.clone())?;
    for (key, tool) in [("call", true), ("global", false)] {
        let tx = events.clone();
        let f = move |id: f64, name: String, has_args: bool, args: String| {
            let args = has_args.then_some(args);
            let _ = tx.send(FromVm::Call { id: id as u64, tool, name, args });
        };
        host.set(key, Function::new(ctx.clone(), f)?)?;
    }
    let tx = events.clone();
    let output = move |kind: String, data: String, mime: String| {
        let item = match kind.as_str() {
            "image" => Item::Image { data, mime },
            "console" => Item::Text { text: data, console: true },
            _ => Item::Text { text: data, console: false },
        };
        let _ = tx.send(FromVm::Output(item));
    };
    host.set("output", Function::new(ctx.clone(), output)?)?;
    let tx = events.clone();
    let done = move |ok: bool, has_payload: bool, payload: String, writes: String| {
        let writes = (ok && !writes.is_empty()).then_some(writes);
        let _ = tx.send(FromVm::Done { ok, payload: has_payload.then_some(payload), writes });
    };
    host.set("done", Function::new(ctx.clone(), done)?)?;
    Ok(host)
}

/// Install the runtime code and start the script; the runtime's `settle`
/// and `stalled` are kept for later turns.
fn begin<'js>(
    ctx: &Ctx<'js>,
    factory: &Persistent<Function<'static>>,
    launch: &Launch,
    events: &UnboundedSender<FromVm>,
) -> Result<Persistent<Object<'static>>, VmError> {
    let caught = VmError::thrown;
    let factory = factory.clone().restore(ctx)?;
    let host = host_object(ctx, events).catch(ctx).map_err(caught)?;
    let api: Object = factory
        .call((host, launch.tools_json.as_str(), launch.globals_json.as_str(), launch.store_json.as_str()))
        .catch(ctx)
        .map_err(caught)?;
    let kept = Persistent::save(ctx, api.clone());
    let mut options = EvalOptions::default();
    options.filename = Some(text::SCRIPT_FILE.into());
    options.strict = false;
    let source = format!("{}{}{}", text::SCRIPT_PREFIX, launch.code, text::SCRIPT_SUFFIX);
    match ctx.eval_with_options::<Function, _>(source, options).catch(ctx) {
        Ok(script) => {
            let run: Function = api.get("run").catch(ctx).map_err(caught)?;
            run.call::<_, ()>((script,)).catch(ctx).map_err(caught)?;
        }
        Err(e) => {
            let payload = exception_json(e);
            let _ = events.send(FromVm::Done { ok: false, payload: Some(payload), writes: None });
        }
    }
    Ok(kept)
}

/// Run `launch` in a ready runtime until the host lets go of it.
pub(crate) fn run(
    ready: Ready,
    launch: &Launch,
    events: &UnboundedSender<FromVm>,
    rx: mpsc::Receiver<Settle>,
) -> Result<(), VmError> {
    let Ready { rt, context, factory, stop } = ready;
    let stopped = || stop.load(Ordering::SeqCst);
    let api = match context.with(|ctx| begin(&ctx, &factory, launch, events)) {
        Ok(api) => api,
        Err(_) if stopped() => return Ok(()),
        Err(e) => return Err(e),
    };
    drain(&rt, &context, &api, &stop)?;
    while let Ok(answer) = rx.recv() {
        if stopped() {
            return Ok(());
        }
        let settled = context.with(|ctx| -> Result<(), VmError> {
            let api = api.clone().restore(&ctx)?;
            let settle: Function = api.get("settle").catch(&ctx).map_err(VmError::thrown)?;
            let args = (answer.id as f64, answer.ok, answer.payload, answer.properties);
            settle.call::<_, ()>(args).catch(&ctx).map_err(VmError::thrown)
        });
        match settled {
            Err(_) if stopped() => return Ok(()),
            Err(e) => return Err(e),
            Ok(()) => drain(&rt, &context, &api, &stop)?,
        }
    }
    Ok(())
}

/// Run the promise jobs until none is left (checking for a stop between
/// batches), then fail a script that waits on nothing.
fn drain(rt: &Runtime, context: &Context, api: &Persistent<Object<'static>>, stop: &AtomicBool) -> Result<(), VmError> {
    let mut jobs = 0usize;
    loop {
        if stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        match rt.execute_pending_job() {
            Ok(true) => {}
            Ok(false) => break,
            Err(_) if stop.load(Ordering::SeqCst) => return Ok(()),
            Err(_) => return Err(VmError::JobFailed),
        }
        jobs += 1;
        if jobs.is_multiple_of(text::JOBS_PER_STOP_CHECK) && stop.load(Ordering::SeqCst) {
            return Ok(());
        }
    }
    context.with(|ctx| -> Result<(), VmError> {
        let api = api.clone().restore(&ctx)?;
        let stalled: Function = api.get("stalled").catch(&ctx).map_err(VmError::thrown)?;
        stalled.call::<_, bool>(()).catch(&ctx).map(|_| ()).map_err(VmError::thrown)
    })
}
