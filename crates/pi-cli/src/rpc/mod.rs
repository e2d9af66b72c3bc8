//! RPC mode: JSONL commands on standard input, responses and events on
//! standard output (LF framing; a trailing CR is stripped; U+2028/2029 are not
//! separators). Commands run while a prompt streams; responses carry the
//! command's `id` (first, as the reference writes it). Commands that change
//! the agent while a run holds it are answered once the run lets go; the
//! reading loop itself never waits for a run, so every command is read and
//! answered while one goes on. An `abort` reaches a run already accepted
//! but not started yet (see [`pi_agent::RunTicket`]). When standard input
//! closes, the run going on is aborted and pi ends.

pub(crate) mod bash;
mod model;
mod prompt;
mod session;
mod state;
pub(crate) mod ui;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pi_agent::{Agent, AgentEvent, AgentMessage};
use pi_runtime::{Command, Op, Outcome, Runtime};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::json_mode::{self, print_line as out};
use crate::text;
use pi_runtime::model_json::model_json;

/// What commands read while a run holds the agent (the conversation itself
/// is read from the session, which the agent records into as it goes).
#[derive(Default)]
struct Shared {
    streaming: AtomicBool,
    compacting: AtomicBool,
    /// Runs accepted that do not stream yet (a prompt arriving meanwhile is
    /// queued or refused as during streaming, not left waiting).
    runs: AtomicUsize,
}

/// What RPC mode shares with the parts of the run built before its loop
/// starts (the agent's event sink, the extensions' and policies' dialogs):
/// one per run, made in setup (cheap to clone).
#[derive(Clone, Default)]
pub(crate) struct Link {
    shared: Arc<Shared>,
    ui: Arc<ui::RpcUi>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("rpc::Link")
    }
}

impl Link {
    /// The dialog bridge: `extension_ui_request`s out, the client's answers in.
    pub(crate) fn ui(&self) -> Arc<ui::RpcUi> {
        self.ui.clone()
    }

    /// The event sink of RPC mode: print events, note streaming and compacting.
    pub(crate) fn sink(&self) -> Arc<dyn Fn(&AgentEvent) + Send + Sync> {
        let s = self.shared.clone();
        Arc::new(move |ev: &AgentEvent| {
            match ev {
                // As the reference: streaming from the run's start to its end; a
                // prompt sent once `agent_end` is out starts the next run (after
                // what the ending run still does: compaction, settle handlers).
                AgentEvent::AgentStart => s.streaming.store(true, Ordering::SeqCst),
                // A run that ends to be retried keeps the session streaming until the retry's run.
                AgentEvent::AgentEnd { will_retry: false, .. } | AgentEvent::AgentSettled { .. } => {
                    s.streaming.store(false, Ordering::SeqCst)
                }
                AgentEvent::CompactionStart { .. } => s.compacting.store(true, Ordering::SeqCst),
                AgentEvent::CompactionEnd { .. } => s.compacting.store(false, Ordering::SeqCst),
                _ => {}
            }
            json_mode::print_event(ev);
        })
    }
}

/// A response record: `id` first when the command had one (as the reference writes it).
pub(crate) fn response_head(id: &Option<Value>, command: &str) -> Value {
    let mut v = serde_json::Map::new();
    if let Some(id) = id {
        v.insert("id".into(), id.clone());
    }
    v.insert("type".into(), json!("response"));
    v.insert("command".into(), json!(command));
    Value::Object(v)
}

/// What a command answers: `Ok(None)` has no `data`.
// String error: the response's `error` text, the RPC contract (the reference's words).
pub(crate) type Answer = Result<Option<Value>, String>;

pub(crate) fn respond(id: &Option<Value>, command: &str, result: Answer) {
    let mut v = response_head(id, command);
    match result {
        Ok(data) => {
            v["success"] = json!(true);
            if let Some(d) = data {
                v["data"] = d;
            }
        }
        Err(e) => {
            v["success"] = json!(false);
            v["error"] = json!(e);
        }
    }
    out(&v);
}

/// A successful response whose `data` is JSON text written already (too
/// deep to hold as a value: a long session's tree).
pub(crate) fn respond_raw(id: &Option<Value>, command: &str, data: &str) {
    let head = response_head(id, command).to_string();
    let head = head.strip_suffix('}').unwrap_or(&head);
    json_mode::print_raw_line(&format!("{head},\"success\":true,\"data\":{data}}}"));
}

/// Print one event as the sink would.
pub(crate) fn event(ev: &AgentEvent) {
    json_mode::print_event(ev);
}

/// What RPC mode starts with, besides the agent.
pub(crate) struct RpcSetup {
    /// Every configured model.
    pub models: std::sync::Arc<[pi_config::ModelEntry]>,
    /// `--models` patterns: the models `cycle_model` goes through.
    pub scope: Option<Vec<String>>,
    /// The folder new sessions go to (`None`: in memory only).
    pub session_dir: Option<PathBuf>,
    /// The agent dir (`/mcp`'s user file).
    pub agent_dir: PathBuf,
    /// The session's MCP servers (`/mcp`).
    pub mcp: Option<Arc<pi_mcp::McpManager>>,
    /// `builtin:mcp` is loaded: `/mcp` is a command.
    pub mcp_on: bool,
    /// `builtin:llama.cpp` is loaded: `/llama` is one (it needs the terminal UI).
    pub llama_on: bool,
    /// The extensions' side of the session (commands, `input`, `get_commands`).
    pub ext: Arc<pi_runtime::ext_session::ExtSession>,
    /// The sink's and dialogs' shared state (made in setup).
    pub link: Link,
}

/// The state of an RPC session between commands.
pub(crate) struct Server {
    shared: Arc<Shared>,
    /// The session: one operation at a time holds it.
    runtime: Arc<tokio::sync::Mutex<Runtime>>,
    session: pi_agent::SharedSession,
    live: pi_agent::LiveSettings,
    abort: pi_agent::AbortHandle,
    steering: pi_agent::Queue,
    follow_ups: pi_agent::Queue,
    tool_ctx: pi_tools::ToolContext,
    /// The model and thinking level as last set (readable during a run).
    current: Arc<Mutex<(pi_ai::Model, String)>>,
    setup: Arc<RpcSetup>,
    bash: bash::BashContext,
    commands: bash::RunningCommands,
    /// The last run accepted: ends when its task (and the runs queued before it) ended.
    running: Option<RunDone>,
    /// The last message sent while a run streams: each waits for the one
    /// before, so they are queued in the order they came.
    queueing: Option<RunDone>,
}

/// Print the queues as they are now (`queue_update`).
fn announce_queues(steering: &pi_agent::Queue, follow_ups: &pi_agent::Queue) {
    let (steering, follow_up) = (pi_agent::queue_texts(steering), pi_agent::queue_texts(follow_ups));
    event(&AgentEvent::QueueUpdate { steering, follow_up });
}

/// Resolves once a run's task has ended; any number of waiters.
pub(crate) type RunDone = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

/// Serve commands until standard input closes, then wait for the current run.
pub(crate) async fn run(rt: Runtime, setup: RpcSetup) -> std::process::ExitCode {
    let mut server = Server::new(rt, setup);
    let shutdown = server.setup.ext.shutdown.clone();
    let idle_work = server.setup.ext.idle_work.clone();
    let mut lines = BufReader::new(tokio::io::stdin()).split(b'\n');
    loop {
        // `ctx.shutdown()`: once the command that asked has answered (and a
        // run going on has ended), pi ends as at the end of its input.
        let next = tokio::select! {
            biased;
            _ = shutdown.wait() => break,
            // What an extension sent while pi was idle goes out at once.
            _ = idle_work.notified() => {
                server.settle_idle();
                continue;
            }
            next = lines.next_segment() => next,
        };
        let Ok(Some(raw)) = next else { break };
        let line = String::from_utf8_lossy(&raw);
        let line = line.strip_suffix('\r').unwrap_or(&line);
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(cmd) => match cmd.get("type").and_then(Value::as_str) {
                Some(kind) => {
                    let id = cmd.get("id").cloned();
                    match Command::parse(&cmd) {
                        Ok(command) => server.handle(id, command).await,
                        // A missing or mistyped argument is named, never defaulted.
                        Err(e) => respond(&id, kind, Err(e.to_string())),
                    }
                }
                None => untyped(&cmd),
            },
            Err(e) => respond(&None, "parse", Err(text::rpc_parse_failed(&e.to_string()))),
        }
    }
    // The input is gone: nothing can read an answer, so the run going on is
    // aborted (as the reference ends at once) and given a moment to record.
    server.abort.abort();
    server.commands.abort_all();
    if let Some(done) = server.running.take() {
        let _ = tokio::time::timeout(text::RPC_EXIT_GRACE, done).await;
    }
    std::process::ExitCode::SUCCESS
}

/// A JSON line that names no command type (not an object, or no string
/// `type`): the reference's unknown-command answer, whose `command` is the
/// `type` given (absent when there is none).
fn untyped(cmd: &Value) {
    let id = cmd.get("id").cloned();
    let kind = cmd.get("type").filter(|t| !t.is_null());
    let mut v = serde_json::Map::new();
    if let Some(id) = id {
        v.insert("id".into(), id);
    }
    v.insert("type".into(), json!("response"));
    if let Some(k) = kind {
        v.insert("command".into(), k.clone());
    }
    v.insert("success".into(), json!(false));
    let shown = kind.map(Value::to_string).unwrap_or_else(|| text::RPC_NO_TYPE.into());
    v.insert("error".into(), json!(pi_runtime::text::unknown_command(&shown)));
    out(&Value::Object(v));
}

impl Server {
    fn new(rt: Runtime, setup: RpcSetup) -> Server {
        let agent = rt.agent();
        let shared = setup.link.shared.clone();
        let (abort, steering, follow_ups) =
            (agent.abort_handle(), agent.steering().clone(), agent.follow_ups().clone());
        let tool_ctx = agent.tool_ctx().clone();
        let thinking = tool_ctx.session.reasoning_level.clone().unwrap_or_else(|| "off".into());
        let current = Arc::new(Mutex::new((agent.model().clone(), thinking)));
        let (session, live) = (agent.session().clone(), agent.live().clone());
        let interceptors = agent.dispatcher().interceptors.clone();
        let runtime = Arc::new(tokio::sync::Mutex::new(rt));
        let bash = bash::BashContext {
            interceptors,
            tool_ctx: tool_ctx.clone(),
            runtime: runtime.clone(),
            session: session.clone(),
            folder: Arc::new(Mutex::new(tool_ctx.cwd.clone())),
        };
        Server {
            shared,
            runtime,
            session,
            live,
            abort,
            steering,
            follow_ups,
            tool_ctx,
            current,
            setup: Arc::new(setup),
            bash,
            commands: Default::default(),
            running: None,
            queueing: None,
        }
    }

    fn streaming(&self) -> bool {
        self.shared.streaming.load(Ordering::SeqCst)
    }

    /// A run is going on or accepted and about to start.
    fn busy(&self) -> bool {
        self.streaming() || self.shared.runs.load(Ordering::SeqCst) > 0
    }

    /// The conversation: the session's active branch, as the model's context.
    fn messages(&self) -> Vec<AgentMessage> {
        self.session.lock().map(|s| s.context().messages).unwrap_or_default()
    }

    /// Run `f` on the agent once no run holds it, then answer.
    fn with_agent<F>(&self, id: Option<Value>, kind: String, f: F)
    where
        F: FnOnce(&mut Agent, &Shared) -> Answer + Send + 'static,
    {
        let (runtime, shared) = (self.runtime.clone(), self.shared.clone());
        tokio::spawn(async move {
            let answer = f(runtime.lock().await.agent_mut(), &shared);
            respond(&id, &kind, answer);
        });
    }

    /// One command.
    async fn handle(&mut self, id: Option<Value>, command: Command) {
        let kind = command.kind().to_string();
        match command {
            Command::Prompt { message, images, streaming_behavior } => {
                self.prompt(&id, &kind, message, images, streaming_behavior.map(|b| b.as_str())).await
            }
            Command::Steer { message, images } => self.queue_input(&id, &kind, message, images, true),
            Command::FollowUp { message, images } => self.queue_input(&id, &kind, message, images, false),
            Command::Abort => {
                self.abort.abort();
                self.commands.abort_all();
                // Answered once the runs accepted so far ended, without holding up the reading.
                let done = self.running.clone();
                tokio::spawn(async move {
                    if let Some(done) = done {
                        done.await;
                    }
                    respond(&id, &kind, Ok(None));
                });
            }
            Command::ClearQueue => {
                let drain = |q: &pi_agent::Queue| {
                    q.lock().map(|mut g| g.drain(..).map(|m| m.text).collect::<Vec<_>>()).unwrap_or_default()
                };
                let (steering, follow_up) = (drain(&self.steering), drain(&self.follow_ups));
                // The event first, as the reference prints it.
                self.queue_update();
                respond(&id, &kind, Ok(Some(json!({"steering": steering, "followUp": follow_up}))));
            }
            Command::GetState => respond(&id, &kind, Ok(Some(self.state()))),
            Command::GetMessages => respond(&id, &kind, Ok(Some(json!({"messages": self.messages()})))),
            Command::GetLastAssistantText => {
                // No answer yet: `{}`, as the reference's `undefined` text prints.
                let data = match state::last_assistant_text(&self.messages()) {
                    Some(t) => json!({"text": t}),
                    None => json!({}),
                };
                respond(&id, &kind, Ok(Some(data)))
            }
            Command::GetSessionStats => respond(&id, &kind, Ok(Some(self.stats()))),
            Command::GetAvailableModels => respond(&id, &kind, Ok(Some(self.available_models()))),
            Command::SetModel { .. }
            | Command::CycleModel
            | Command::SetThinkingLevel { .. }
            | Command::CycleThinkingLevel => self.model_command(id, command),
            Command::GetAvailableThinkingLevels => respond(&id, &kind, Ok(Some(self.thinking_levels()))),
            Command::SetSteeringMode { mode } => {
                self.live.set_steering_mode(mode.as_str());
                respond(&id, &kind, Ok(None));
            }
            Command::SetFollowUpMode { mode } => {
                self.live.set_follow_up_mode(mode.as_str());
                respond(&id, &kind, Ok(None));
            }
            Command::SetAutoCompaction { enabled } => {
                self.live.set_auto_compaction(enabled);
                respond(&id, &kind, Ok(None));
            }
            Command::SetAutoRetry { enabled } => {
                self.live.set_auto_retry(enabled);
                respond(&id, &kind, Ok(None));
            }
            // As the reference: answered right after the waiting retry's end is announced.
            Command::AbortRetry => self.live.abort_retry(move || respond(&id, &kind, Ok(None))),
            Command::GetCommands => respond(&id, &kind, Ok(Some(json!({"commands": self.setup.ext.commands()})))),
            Command::Compact { custom_instructions } => {
                let runtime = self.runtime.clone();
                tokio::spawn(async move {
                    let mut rt = runtime.lock().await;
                    let answer = match rt.apply(Op::Compact { instructions: custom_instructions }).await {
                        Ok(Outcome::Compacted(made)) => Ok(Some(made)),
                        Ok(_) => Ok(None),
                        Err(e) => Err(e.to_string()),
                    };
                    respond(&id, &kind, answer);
                });
            }
            Command::Undo { force, dry_run } => {
                let runtime = self.runtime.clone();
                tokio::spawn(async move {
                    let mut rt = runtime.lock().await;
                    let answer = if dry_run {
                        pi_runtime::undo::preview_undo(rt.agent())
                            .await
                            .map(|p| Some(p.json()))
                            .map_err(|e| e.to_string())
                    } else {
                        match rt.apply(Op::Undo { force }).await {
                            Ok(Outcome::Restored(Some(done))) => Ok(Some(done.json())),
                            Ok(_) => Ok(None),
                            Err(e) => Err(e.to_string()),
                        }
                    };
                    respond(&id, &kind, answer);
                });
            }
            Command::Rewind { entry_id, files, force } => {
                let runtime = self.runtime.clone();
                tokio::spawn(async move {
                    let mut rt = runtime.lock().await;
                    let (agent, ext) = rt.parts();
                    let answer = pi_runtime::undo::rewind_conversation(agent, ext, &entry_id, files, force)
                        .await
                        .map(Some)
                        .map_err(|e| e.to_string());
                    respond(&id, &kind, answer);
                });
            }
            Command::Bash { command, exclude_from_context } => {
                bash::start(&self.bash, &self.commands, id, command, exclude_from_context);
            }
            Command::AbortBash => {
                self.commands.abort_all();
                respond(&id, &kind, Ok(None));
            }
            Command::ExtensionUiResponse { id, answer } => self.setup.link.ui.answer(id.as_deref(), answer),
            Command::SetSessionName { name } => self.set_session_name(&id, &name).await,
            session => self.session_command(id, session),
        }
    }

    /// Print the queues as they are now (`queue_update`).
    fn queue_update(&self) {
        announce_queues(&self.steering, &self.follow_ups);
    }

    /// `get_state`.
    fn state(&self) -> Value {
        let (model, thinking) = self.current.lock().map(|c| c.clone()).unwrap_or_default();
        let count = self.messages().len();
        let pending =
            self.steering.lock().map(|q| q.len()).unwrap_or(0) + self.follow_ups.lock().map(|q| q.len()).unwrap_or(0);
        let (session_id, session_file, name) = match self.session.lock() {
            Ok(s) => (s.id().to_string(), s.path().map(|p| p.to_string_lossy().into_owned()), s.name()),
            Err(_) => Default::default(),
        };
        let mut data = json!({"model": model_json(&model), "thinkingLevel": thinking,
            "isStreaming": self.streaming(), "isCompacting": self.shared.compacting.load(Ordering::SeqCst),
            "steeringMode": self.live.steering_mode(), "followUpMode": self.live.follow_up_mode()});
        if let Some(f) = session_file {
            data["sessionFile"] = json!(f);
        }
        data["sessionId"] = json!(session_id);
        if let Some(n) = name {
            data["sessionName"] = json!(n);
        }
        data["autoCompactionEnabled"] = json!(self.live.auto_compaction());
        data["messageCount"] = json!(count);
        data["pendingMessageCount"] = json!(pending);
        data
    }

    /// `get_session_stats`.
    fn stats(&self) -> Value {
        let window = self.current.lock().map(|c| c.0.context_window).unwrap_or(0);
        let messages = self.messages();
        match self.session.lock() {
            Ok(s) => {
                let file = s.path().map(|p| p.to_string_lossy().into_owned());
                state::stats(&messages, s.entries(), (s.id(), file.as_deref()), window)
            }
            Err(_) => Value::Null,
        }
    }
}
