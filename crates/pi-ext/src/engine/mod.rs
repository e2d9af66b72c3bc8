//! The JavaScript engine extensions run in: a QuickJS runtime on its own
//! thread ([`realm`]), shared by the extensions loaded together, and the
//! handle ([`Engine`]) through which pi talks to one of them.
//!
//! The thread runs an event loop ([`looper`]): a message (start a call, an
//! operation finished, a timer is due) enters JavaScript for one short *turn*
//! of one extension,
//! then the pending promise jobs run. JavaScript never waits on Rust inside a
//! turn: a host operation (a dialog, `ctx.executeTool`) is handed to the Rust
//! future of the call that made it, and its answer comes back as a later
//! message. So the tokio runtime is never blocked by JavaScript, and a turn
//! that runs longer than the time limit is interrupted, which stops the
//! extension. The messages are typed ([`protocol`]); the host functions
//! JavaScript calls live in [`host`].

pub(crate) mod component;
mod config;
pub(crate) mod error;
mod host;
mod looper;
pub(crate) mod prompt_span;
pub(crate) mod protocol;
pub(crate) mod realm;
mod state;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use pi_agent::NestedCaller;
use pi_tools::{ToolContext, ToolResult};
use serde_json::Value;
use tokio::sync::mpsc as tmpsc;

use crate::api::{Limits, UiBridge, UiResponse};
use crate::convert;
pub(crate) use config::{EngineConfig, Shared};
use error::{EngineError, OpError};
use prompt_span::PromptSpans;
use protocol::{CallMsg, Entry, ExtSender, Hook, HostOp, Msg, OpAnswer, OpResult};
pub(crate) use realm::EngineThread;

/// Ends the open prompt span when dropped (the dialog answered, timed out
/// or was given up).
struct SpanEnd<'a>(&'a PromptSpans);

impl Drop for SpanEnd<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// The handle to one extension in its engine; dropping the last one stops
/// the extension (and the thread, once every extension of it stopped).
pub(crate) struct Engine {
    tx: ExtSender,
    /// The engine thread's id.
    pub(crate) thread: usize,
    pub(crate) path: String,
    cwd: PathBuf,
    pub(crate) ui: Option<Arc<dyn UiBridge>>,
    pub(crate) limits: Limits,
    /// The run's prompt spans, which this extension hears and opens.
    spans: PromptSpans,
    shared: Shared,
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
    /// Start extension `cfg.path` in `thread`. Returns the handle and the
    /// receiver of the load call (id 0), which ends with the registered tools.
    pub(crate) fn start(
        thread: &EngineThread,
        cfg: EngineConfig,
    ) -> Result<(Arc<Engine>, tmpsc::UnboundedReceiver<CallMsg>), EngineError> {
        let (load_tx, load_rx) = tmpsc::unbounded_channel();
        let shared = Shared::default();
        let path = cfg.path.to_string_lossy().into_owned();
        let tx = thread.new_extension();
        let engine = Arc::new(Engine {
            tx: tx.clone(),
            thread: thread.id,
            path: path.clone(),
            cwd: cfg.cwd.clone(),
            ui: cfg.ui.clone(),
            limits: cfg.limits,
            spans: cfg.prompt_spans.clone(),
            shared: shared.clone(),
            next_call: AtomicU64::new(1),
        });
        tx.send(Msg::Start(Box::new(cfg), load_tx, shared)).map_err(|_| EngineError::NoAnswer)?;
        let handle: std::sync::Weak<Engine> = Arc::downgrade(&engine);
        let _ = tx.send(Msg::Handle(handle));
        engine.spans.register(&engine);
        Ok((engine, load_rx))
    }

    /// Whether the extension has a handler for `event`.
    pub(crate) fn handles(&self, event: &str) -> bool {
        self.shared.events.read().map(|s| s.contains(event)).unwrap_or(false)
    }

    /// The commands the extension registered: `[{name, description}]`.
    pub(crate) fn commands(&self) -> Vec<Value> {
        self.shared.commands.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// The MCP servers the extension registered: `[{name, config}]`.
    pub(crate) fn mcp_servers(&self) -> Vec<Value> {
        self.shared.mcp_servers.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// The tools the extension draws.
    pub(crate) fn tool_renderers(&self) -> Vec<String> {
        self.shared.tool_renderers.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// The custom entry types the extension draws.
    pub(crate) fn entry_renderers(&self) -> Vec<String> {
        self.shared.entry_renderers.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// The custom message types the extension draws.
    pub(crate) fn renderers(&self) -> Vec<String> {
        self.shared.renderers.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// The keyboard shortcuts the extension registered: `[{key, description}]`.
    pub(crate) fn shortcuts(&self) -> Vec<Value> {
        self.shared.shortcuts.read().map(|c| c.clone()).unwrap_or_default()
    }

    /// Bind the session (reads and changes of `ctx.sessionManager`, `pi.appendEntry`, …).
    pub(crate) fn bind_session(&self, api: Arc<dyn crate::api::SessionApi>) {
        if let Ok(mut s) = self.shared.session.write() {
            *s = Some(api);
        }
    }

    fn session(&self) -> Option<Arc<dyn crate::api::SessionApi>> {
        self.shared.session.read().ok().and_then(|s| s.clone())
    }

    pub(crate) fn send(&self, msg: Msg) {
        let _ = self.tx.send(msg);
    }

    fn stopped(&self) -> EngineError {
        EngineError::Stopped { path: self.path.clone() }
    }

    /// Run `call` with `payload` in JavaScript and wait for its outcome,
    /// performing the host operations it asks for meanwhile.
    pub(crate) async fn invoke(&self, call: Entry, payload: Value, env: &CallEnv<'_>) -> Result<Value, EngineError> {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (sink, mut rx) = tmpsc::unbounded_channel();
        if self.tx.send(Msg::Invoke { id, call, payload, sink }).is_err() {
            return Err(self.stopped());
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
                    None => return Err(self.stopped()),
                    Some(CallMsg::Done(r)) => return r,
                    Some(CallMsg::Op { op, request }) => {
                        ops.push(async move { (op, self.run_op(op, request, env).await) });
                    }
                    Some(CallMsg::Update(partial)) => {
                        if let Some(f) = env.tool_ctx.and_then(|c| c.on_update.as_ref()) {
                            f(&convert::tool_result(&partial));
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
                _ = &mut grace, if abort_sent => return Err(EngineError::Aborted),
            }
        }
    }

    /// Run `call` with `payload` without waiting for it (its host operations
    /// are answered as for a call that ended; its outcome is dropped).
    pub(crate) fn post(&self, call: Entry, payload: Value) {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (sink, _) = tmpsc::unbounded_channel();
        let _ = self.tx.send(Msg::Invoke { id, call, payload, sink });
    }

    /// Perform one host operation for a running call.
    async fn run_op(&self, op: u64, request: HostOp, env: &CallEnv<'_>) -> OpResult {
        match request {
            HostOp::Custom { id } => {
                let Some(ui) = &self.ui else { return Ok(OpAnswer::Undefined) };
                let component = component::JsComponent::new(self.tx.clone(), self.thread, id);
                let shown = ui.custom(id, Box::new(component));
                self.spans.begin(prompt_span::CUSTOM, "");
                let _span = SpanEnd(&self.spans);
                match shown.await {
                    Value::Null => Ok(OpAnswer::Undefined),
                    v => Ok(OpAnswer::Json(v)),
                }
            }
            HostOp::Dialog(request) => {
                let is_confirm = matches!(request, crate::api::UiRequest::Confirm { .. });
                let timeout = match &request {
                    crate::api::UiRequest::Select { timeout, .. }
                    | crate::api::UiRequest::Confirm { timeout, .. }
                    | crate::api::UiRequest::Input { timeout, .. } => *timeout,
                    crate::api::UiRequest::Editor { .. } => None,
                };
                let response = match &self.ui {
                    None => UiResponse::Cancelled,
                    Some(ui) => {
                        let (kind, title) = request.kind_and_title();
                        self.spans.begin(kind, &title);
                        let _span = SpanEnd(&self.spans);
                        let fut = ui.dialog(request);
                        match timeout {
                            Some(ms) => tokio::time::timeout(Duration::from_millis(ms), fut)
                                .await
                                .unwrap_or(UiResponse::Cancelled),
                            None => fut.await,
                        }
                    }
                };
                Ok(match (response, is_confirm) {
                    (UiResponse::Confirmed(b), true) => OpAnswer::Json(Value::Bool(b)),
                    (_, true) => OpAnswer::Json(Value::Bool(false)),
                    (UiResponse::Value(v), false) => OpAnswer::Json(Value::String(v)),
                    (_, false) => OpAnswer::Undefined,
                })
            }
            HostOp::ExecuteTool { name, args, updates } => {
                let Some(nested) = env.nested else { return Err(OpError::CallEnded) };
                let on_update: Option<pi_tools::UpdateFn> = if updates {
                    let tx = self.tx.clone();
                    Some(Arc::new(move |partial: &ToolResult| {
                        let _ = tx.send(Msg::OpUpdate { op, payload: convert::result_json(partial) });
                    }))
                } else {
                    None
                };
                let outcome = nested.call(&name, args, on_update).await;
                Ok(OpAnswer::Json(convert::outcome_json(&outcome)))
            }
            HostOp::Builtin { name, args, cwd, env: overrides } => {
                let tool: pi_tools::ToolName = name.parse()?;
                let mut ctx = match env.tool_ctx {
                    Some(c) => c.clone(),
                    None => ToolContext::new(self.cwd.clone()),
                };
                if let Some(cwd) = cwd {
                    ctx.cwd = ctx.cwd.join(cwd);
                }
                ctx.session.env_overrides.extend(overrides);
                match pi_tools::execute_validated(tool, args, &ctx).await {
                    // A failed command rejects with its text, as the reference's tools throw.
                    Ok(result) if result.is_error => Err(OpError::ToolFailed(
                        result
                            .content
                            .iter()
                            .filter_map(|c| match c {
                                pi_tools::Content::Text { text } => Some(text.as_str()),
                                _ => None,
                            })
                            .collect::<Vec<_>>()
                            .join("\n"),
                    )),
                    Ok(result) => Ok(OpAnswer::Json(convert::result_json(&result))),
                    Err(e) => Err(e.into()),
                }
            }
            HostOp::Command(op) => match self.session() {
                Some(api) => api.command(op).await.map(OpAnswer::Json).map_err(OpError::Session),
                None => Err(OpError::NoSession),
            },
            HostOp::Unknown(kind) => Err(OpError::Unknown(kind)),
        }
    }

    /// How long a hook may take: the time limit plus a second.
    fn hook_wait(&self) -> Duration {
        self.limits.time + Duration::from_secs(1)
    }

    /// Run `hook` of tool `name` (empty: the extension's own) and wait for
    /// its JSON answer without blocking the runtime; a hook that throws gives
    /// its message.
    pub(crate) async fn hook(&self, hook: Hook, name: &str, payload: Value) -> Result<Value, EngineError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let reply = Box::new(move |r| {
            let _ = tx.send(r);
        });
        let msg = Msg::Hook { hook, name: name.to_string(), payload, reply };
        self.tx.send(msg).map_err(|_| self.stopped())?;
        match tokio::time::timeout(self.hook_wait(), rx).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err(self.stopped()),
            Err(_) => Err(EngineError::NoAnswer),
        }
    }

    /// [`Engine::hook`] for a caller that may block: another engine's
    /// thread asking from inside its JavaScript (never the runtime). Asked
    /// from this engine's own thread it answers [`EngineError::NoAnswer`] at
    /// once (the glue calls the tools of its own engine directly).
    pub(crate) fn hook_blocking(&self, hook: Hook, name: &str, payload: Value) -> Result<Value, EngineError> {
        self.hook_blocking_within(hook, name, payload, self.hook_wait())
    }

    /// [`Engine::hook_blocking`], waiting at most `wait`.
    pub(crate) fn hook_blocking_within(
        &self,
        hook: Hook,
        name: &str,
        payload: Value,
        wait: Duration,
    ) -> Result<Value, EngineError> {
        if state::ON_REALM.with(|r| r.get()) == self.thread {
            return Err(EngineError::NoAnswer);
        }
        let (tx, rx) = mpsc::channel();
        let reply = Box::new(move |r| {
            let _ = tx.send(r);
        });
        let msg = Msg::Hook { hook, name: name.to_string(), payload, reply };
        self.tx.send(msg).map_err(|_| self.stopped())?;
        rx.recv_timeout(wait).map_err(|_| EngineError::NoAnswer)?
    }

    /// Give the extension the session's tools; returns once the tools it
    /// registered before reached them.
    pub(crate) async fn bind(&self, api: Arc<dyn crate::api::ToolsApi>) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.send(Msg::Bind(api, tx));
        let _ = tokio::time::timeout(self.hook_wait(), rx).await;
    }
}

async fn wait_cancel(token: Option<&tokio_util::sync::CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

/// Tells the engine a call's Rust side is gone (finished or dropped).
struct Forget<'a> {
    engine: &'a Engine,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        let _ = self.engine.tx.send(Msg::Forget { id: self.id });
    }
}

impl prompt_span::Listener for Engine {
    fn handles(&self, event: &str) -> bool {
        Engine::handles(self, event)
    }

    fn post_event(&self, event: &str, payload: Value) {
        self.post(Entry::Event(event.to_string()), payload);
    }
}
