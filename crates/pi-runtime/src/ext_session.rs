//! The session as script extensions see and change it (pi-ext's
//! [`SessionApi`]): `ctx.sessionManager` reads the session file's entries,
//! `ctx.modelRegistry` the configured models; `pi.appendEntry`,
//! `pi.setLabel` and session names write entries at once; custom messages
//! (`pi.sendMessage`) wait in the agent's inbox for the next request (during
//! a run steered or as follow-ups, asking for a turn); user messages
//! (`pi.sendUserMessage`) join the agent's queues during a run, and otherwise
//! wait, with `triggerTurn`, for the front end ([`crate::ext_input`]) to run
//! them once the command or prompt at hand ends.
//! What extensions call arrives through [`crate::session_api`].

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pi_agent::{
    AbortHandle, AgentEvent, AgentMessage, AgentOnly, Delivery, EventSink, Inbox, Queue, Queued, SharedSession,
    Waiting, queue_texts,
};
use pi_ext::{LoadedExtensions, SessionCall};
use serde_json::{Value, json};

use crate::session_error::SessionCallError;
use crate::session_event::SessionEvent;

/// What extensions asked for that the front end does once the command or
/// prompt at hand has ended.
#[derive(Debug, Default)]
pub struct Pending {
    /// User messages to run, in order.
    pub prompts: VecDeque<PendingPrompt>,
    /// A run without a user message (`sendMessage` with `triggerTurn`).
    pub trigger: bool,
    /// The session's contents were replaced: the agent takes them again.
    pub resync: bool,
    /// `ctx.reload()`.
    pub reload: bool,
    /// `ctx.compact()`: compact with these instructions.
    pub compact: Option<Option<String>>,
    /// A command replaced the session: the extensions loaded again (not
    /// yet in the agent) and the resource paths they add.
    pub replaced: Option<(crate::ext_reload::Renewed, pi_ext::DiscoveredResources)>,
}

/// A `sendUserMessage` content's text (a string, or its text blocks joined by
/// line breaks, as the reference) and its image blocks.
fn user_message_parts(content: &Value) -> (String, Vec<pi_ai::ContentBlock>) {
    match content {
        Value::String(s) => (s.clone(), Vec::new()),
        Value::Array(blocks) => {
            let texts: Vec<&str> =
                blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
            let images = blocks
                .iter()
                .filter(|b| b["type"] == "image")
                .filter_map(|b| serde_json::from_value::<pi_ai::ContentBlock>(b.clone()).ok())
                .collect();
            (texts.join("\n"), images)
        }
        _ => (String::new(), Vec::new()),
    }
}

/// A user message an extension sent while the session was idle.
#[derive(Debug)]
pub struct PendingPrompt {
    /// Its text blocks, joined by line breaks.
    pub text: String,
    /// Its image blocks.
    pub images: Vec<pi_ai::ContentBlock>,
    /// Extension commands and templates apply (`expandPromptTemplates`).
    pub expand: bool,
}

/// Whether a run is going on, shared by the front end and the extensions.
#[derive(Default)]
pub struct Busy {
    busy: AtomicBool,
    idle: tokio::sync::Notify,
}

impl Busy {
    /// A run starts or ends.
    pub fn set(&self, busy: bool) {
        self.busy.store(busy, Ordering::SeqCst);
        if !busy {
            self.idle.notify_waiters();
        }
    }

    /// A run is going on.
    pub fn get(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    /// Wait until no run is going on.
    pub async fn wait_idle(&self) {
        loop {
            let notified = self.idle.notified();
            if !self.get() {
                return;
            }
            notified.await;
        }
    }
}

/// The session's side of the extensions, shared by every engine.
pub struct ExtSession {
    /// The session the agent writes.
    pub session: SharedSession,
    /// Where the session's events go (the front end).
    pub sink: EventSink,
    /// Custom messages waiting for the next request.
    pub inbox: Inbox,
    /// Steering messages for the run going on.
    pub steering: Queue,
    /// Follow-up messages for after the run.
    pub follow_ups: Queue,
    /// Aborts the run going on.
    pub abort: AbortHandle,
    /// Every configured model.
    pub models: Arc<[pi_config::ModelEntry]>,
    /// The current model and thinking level.
    pub current: Mutex<(pi_ai::Model, String)>,
    /// The working folder.
    pub cwd: PathBuf,
    /// The agent dir.
    pub agent_dir: PathBuf,
    /// Where sessions are stored (`None`: in memory only).
    pub session_dir: Option<PathBuf>,
    /// A run is going on.
    pub busy: Arc<Busy>,
    /// What the front end does next.
    pub pending: Mutex<Pending>,
    /// The script extensions loaded now, in load order (they hold this too:
    /// [`ExtSession::take_scripts`] ends the cycle when pi exits).
    scripts: Mutex<Vec<Arc<LoadedExtensions>>>,
    /// The commands of the skills and templates (`get_commands` entries).
    pub resource_commands: Mutex<Vec<Value>>,
    /// Where model and thinking-level choices go to the agent.
    pub live: pi_agent::LiveSettings,
    /// The system prompt as the agent last sent it.
    pub prompt_view: Arc<Mutex<String>>,
    /// This session itself (for the operations that outlive a call).
    pub me: std::sync::Weak<ExtSession>,
    /// How the extensions were loaded (to load them again on a replacement).
    pub plan: std::sync::OnceLock<std::sync::Weak<crate::ext_reload::ExtPlan>>,
    /// The `--models` patterns (`ctx.scopedModels`).
    pub scope: Vec<String>,
    /// The packages' extension files (their commands' `sourceInfo`).
    pub packages: Vec<pi_config::packages::PackageResource>,
    /// `ctx.shutdown()` was called (the RPC loop and the terminal UI end
    /// once idle; print and JSON modes end by themselves).
    pub shutdown: Arc<ShutdownRequest>,
    /// An extension sent a message or asked for a run while pi was idle
    /// (RPC delivers it at once, as the reference does).
    pub idle_work: Arc<tokio::sync::Notify>,
}

/// An extension asked pi to end (`ctx.shutdown()`).
#[derive(Default)]
pub struct ShutdownRequest {
    requested: AtomicBool,
    notify: tokio::sync::Notify,
}

impl ShutdownRequest {
    /// Ask for it.
    pub fn request(&self) {
        self.requested.store(true, Ordering::SeqCst);
        self.notify.notify_one();
    }

    /// Whether it was asked for.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    /// Wait until it is asked for.
    pub async fn wait(&self) {
        if !self.requested() {
            self.notify.notified().await;
        }
    }
}

/// What [`ExtSession::new`] takes from the agent being built.
pub struct SessionParts {
    /// The session the agent writes.
    pub session: SharedSession,
    /// Where the session's events go (the front end).
    pub sink: EventSink,
    /// Custom messages waiting for the next request.
    pub inbox: Inbox,
    /// Steering messages for the run going on.
    pub steering: Queue,
    /// Follow-up messages for after the run.
    pub follow_ups: Queue,
    /// Aborts the run going on.
    pub abort: AbortHandle,
    /// Every configured model.
    pub models: Arc<[pi_config::ModelEntry]>,
    /// The current model and thinking level.
    pub current: (pi_ai::Model, String),
    /// The working folder.
    pub cwd: PathBuf,
    /// The agent dir.
    pub agent_dir: PathBuf,
    /// Where sessions are stored (`None`: in memory only).
    pub session_dir: Option<PathBuf>,
    /// Where model and thinking-level choices go to the agent.
    pub live: pi_agent::LiveSettings,
    /// The system prompt as the agent last sent it.
    pub prompt_view: Arc<Mutex<String>>,
    /// The `--models` patterns (`ctx.scopedModels`).
    pub scope: Vec<String>,
    /// The packages' extension files (their commands' `sourceInfo`).
    pub packages: Vec<pi_config::packages::PackageResource>,
}

impl ExtSession {
    /// The extensions' view of a session.
    pub fn new(p: SessionParts) -> Arc<ExtSession> {
        Arc::new_cyclic(|me| ExtSession {
            me: me.clone(),
            plan: std::sync::OnceLock::new(),
            session: p.session,
            sink: p.sink,
            inbox: p.inbox,
            steering: p.steering,
            follow_ups: p.follow_ups,
            abort: p.abort,
            models: p.models,
            current: Mutex::new(p.current),
            cwd: p.cwd,
            agent_dir: p.agent_dir,
            session_dir: p.session_dir,
            busy: Arc::default(),
            pending: Mutex::default(),
            scripts: Mutex::default(),
            resource_commands: Mutex::default(),
            live: p.live,
            prompt_view: p.prompt_view,
            scope: p.scope,
            packages: p.packages,
            shutdown: Arc::default(),
            idle_work: Arc::default(),
        })
    }

    /// Bind `scripts` to this session (they read and change it from now on).
    pub fn bind(self: &Arc<Self>, scripts: &[Arc<LoadedExtensions>]) {
        if let Ok(mut s) = self.scripts.lock() {
            *s = scripts.to_vec();
        }
        for l in scripts {
            l.bind_session(self.clone());
        }
    }

    /// The script extensions bound now.
    pub fn scripts(&self) -> Vec<Arc<LoadedExtensions>> {
        self.scripts.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// How the extensions were loaded (set once, after start-up).
    pub fn set_plan(&self, plan: &Arc<crate::ext_reload::ExtPlan>) {
        let _ = self.plan.set(Arc::downgrade(plan));
    }

    /// The script extensions, no longer bound (pi exits).
    pub fn take_scripts(&self) -> Vec<Arc<LoadedExtensions>> {
        self.scripts.lock().map(|mut s| std::mem::take(&mut *s)).unwrap_or_default()
    }

    /// Send an event as the agent's sink does (the mode's output).
    pub fn emit(&self, ev: &AgentEvent) {
        (self.sink)(ev);
    }

    /// Take what the front end is to do next.
    pub fn take_pending(&self) -> Pending {
        self.pending.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default()
    }

    /// Change what the front end is to do next.
    pub fn with_pending(&self, f: impl FnOnce(&mut Pending)) {
        if let Ok(mut p) = self.pending.lock() {
            f(&mut p);
        }
    }

    /// The commands of the skills and templates (`ReloadState::commands`,
    /// after start-up and every reload).
    pub fn set_resource_commands(&self, commands: Vec<Value>) {
        if let Ok(mut c) = self.resource_commands.lock() {
            *c = commands;
        }
    }

    /// Every command the session has: the extensions', then the skills' and templates'.
    pub fn commands(&self) -> Vec<Value> {
        let origins =
            crate::ext_commands::Origins { agent_dir: &self.agent_dir, cwd: &self.cwd, packages: &self.packages };
        let mut out = crate::ext_commands::extension_commands(&self.scripts(), Some(&origins));
        out.extend(self.resource_commands.lock().map(|c| c.clone()).unwrap_or_default());
        out
    }

    /// Answer a read of the session (`ctx.sessionManager`); `None` when `call` is not one.
    pub fn read(&self, call: &SessionCall) -> Option<Value> {
        let s = self.session.lock().ok()?;
        let entries =
            |list: Vec<&pi_agent::session::Entry>| Value::Array(list.into_iter().map(|e| e.value()).collect());
        match call {
            SessionCall::Entries => Some(entries(s.entries().iter().collect())),
            SessionCall::Branch(from) => Some(entries(match from {
                Some(id) => s.branch_to(Some(id.as_str())),
                None => s.branch(),
            })),
            SessionCall::Entry(id) => s.get(id).map(|e| e.value()),
            SessionCall::LeafId => Some(s.leaf_id().map_or(Value::Null, |l| json!(l))),
            SessionCall::Label(id) => s
                .entries()
                .iter()
                .rev()
                .map(|e| e.value())
                .find(|e| e["type"] == "label" && e["targetId"] == id.as_str())
                .and_then(|e| e.get("label").filter(|l| l.is_string()).cloned()),
            SessionCall::Header => Some(s.header().clone()),
            SessionCall::SessionFile => s.path().map(|p| json!(p.to_string_lossy())),
            SessionCall::SessionId => Some(json!(s.id())),
            SessionCall::SessionDir => {
                Some(json!(s.path().and_then(|p| p.parent()).map(|p| p.to_string_lossy().into_owned())))
            }
            SessionCall::SessionName => s.name().map(|n| json!(n)),
            // As text, read by the glue: a long conversation's tree is too deep for a value.
            SessionCall::Tree => Some(Value::String(s.tree_json())),
            _ => None,
        }
    }

    /// Answer a read of the models (`ctx.modelRegistry`); `None` when `call` is not one.
    pub fn models(&self, call: &SessionCall) -> Option<Value> {
        let json_of = |e: &pi_config::ModelEntry| crate::model_json::model_json(&crate::model_select::ai_model(e));
        match call {
            SessionCall::Models => Some(Value::Array(self.models.iter().map(json_of).collect())),
            SessionCall::AvailableModels => {
                Some(Value::Array(crate::model_select::available(&self.models).into_iter().map(json_of).collect()))
            }
            SessionCall::FindModel { provider, id } => {
                self.models.iter().find(|m| m.provider == *provider && m.id == *id).map(json_of)
            }
            SessionCall::CurrentModel => self.current.lock().ok().map(|c| crate::model_json::model_json(&c.0)),
            SessionCall::ThinkingLevel => self.current.lock().ok().map(|c| json!(c.1)),
            _ => None,
        }
    }

    /// `pi.setModel`: the model is used from the next request on (its
    /// thinking level clamped); `false` when it is unknown or has no key.
    pub fn set_model(&self, provider: &str, id: &str) -> bool {
        let Some(entry) = self.models.iter().find(|m| m.provider == provider && m.id == id) else { return false };
        let Some(api_key) = crate::model_select::api_key_for(entry, None).ok().flatten() else { return false };
        let Ok(mut current) = self.current.lock() else { return false };
        let model = crate::model_select::ai_model(entry);
        let level = crate::model_select::clamp_thinking_level(entry, &current.1).to_string();
        let thinking = (level != current.1)
            .then(|| pi_agent::ThinkingChoice { level: level.clone(), previous: current.1.clone() });
        if let Some(t) = &thinking {
            self.announce(&SessionEvent::ThinkingLevelSelect {
                level: t.level.clone(),
                previous_level: t.previous.clone(),
            });
        }
        let event = SessionEvent::ModelSelect {
            model: crate::model_json::model_json(&model),
            previous_model: crate::model_json::model_json(&current.0),
            source: "set",
        };
        let changed = current.0.provider != model.provider || current.0.id != model.id;
        self.live.choose_model(pi_agent::ModelChoice { model: model.clone(), api_key: Some(api_key), thinking });
        *current = (model, level);
        // The model in use chosen again is not announced (as the reference).
        if changed {
            self.announce(&event);
        }
        true
    }

    /// `ctx.scopedModels`: the models of the `--models` patterns that have
    /// a key, in pattern order, with the thinking level a pattern pins.
    pub fn scoped_models(&self) -> Value {
        let available: Vec<pi_config::ModelEntry> =
            crate::model_select::available(&self.models).into_iter().cloned().collect();
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for p in &self.scope {
            if let Some((m, thinking)) = crate::model_select::find(&available, p, None)
                && !seen.contains(&(m.provider.clone(), m.id.clone()))
            {
                seen.push((m.provider.clone(), m.id.clone()));
                let model = crate::model_json::model_json(&crate::model_select::ai_model(m));
                out.push(json!({"model": model, "thinkingLevel": thinking}));
            }
        }
        Value::Array(out)
    }

    /// `ctx.getContextUsage()`: the last answer's reported total against the
    /// model's window (`tokens` null right after a compaction, 0 before any
    /// answer), as the reference measures it; `undefined` without a window.
    pub fn context_usage(&self) -> Option<Value> {
        let window = self.current.lock().ok()?.0.context_window;
        if window == 0 {
            return None;
        }
        let s = self.session.lock().ok()?;
        let mut tokens = Some(0);
        for e in s.branch().into_iter().rev() {
            let v = e.value();
            if v["type"] == "compaction" {
                tokens = None;
                break;
            }
            let total = v["message"]["usage"]["totalTokens"].as_u64().unwrap_or(0);
            if v["type"] == "message" && v["message"]["role"] == "assistant" && total > 0 {
                tokens = Some(total);
                break;
            }
        }
        Some(match tokens {
            Some(t) => json!({"tokens": t, "contextWindow": window, "percent": t as f64 / window as f64 * 100.0}),
            None => json!({"tokens": Value::Null, "contextWindow": window, "percent": Value::Null}),
        })
    }

    /// Hand `event` to every extension without waiting (a change made while
    /// their code runs: `model_select`, `thinking_level_select`,
    /// `session_info_changed`).
    pub fn announce(&self, event: &SessionEvent) {
        let (kind, payload) = (event.kind(), event.to_value());
        for l in self.scripts() {
            l.post(kind, payload.clone());
        }
    }

    /// `pi.setThinkingLevel`: clamped to the current model, used from the next request on.
    pub fn set_thinking(&self, level: &str) {
        let Ok(mut current) = self.current.lock() else { return };
        let entry = self.models.iter().find(|m| m.provider == current.0.provider && m.id == current.0.id);
        let level = match entry {
            Some(e) => crate::model_select::clamp_thinking_level(e, level).to_string(),
            None => level.to_string(),
        };
        if level != current.1 {
            self.announce(&SessionEvent::ThinkingLevelSelect {
                level: level.clone(),
                previous_level: current.1.clone(),
            });
            self.live.choose_thinking(pi_agent::ThinkingChoice { level: level.clone(), previous: current.1.clone() });
            current.1 = level;
        }
    }

    /// Append an entry now and announce it (`entry_appended`).
    pub fn append(&self, kind: &str, fields: Value) -> Result<Option<Value>, SessionCallError> {
        let entry = {
            let mut s = self.session.lock()?;
            let id = s.append(kind, fields)?;
            s.get(&id).map(|e| e.value())
        };
        // Only an extension's own entry (`custom`) is announced, as the
        // reference does (labels and names are not).
        if let Some(entry) = entry.filter(|_| kind == "custom") {
            (self.sink)(&AgentEvent::EntryAppended { entry });
        }
        Ok(None)
    }

    /// `pi.sendMessage`: queue a custom message, and a run when `triggerTurn` asks for one while idle.
    pub fn send_message(&self, message: &Value, options: &Value) -> Result<Option<Value>, SessionCallError> {
        let deliver = options["deliverAs"].as_str();
        let trigger = options["triggerTurn"].as_bool();
        let busy = self.busy.get();
        // As the reference: during a run a message is steered (or queued as
        // a follow-up) and asks for a turn unless `triggerTurn` is false.
        let delivery = match deliver {
            // Held for the next prompt, idle or not.
            Some("nextTurn") => Delivery::NextTurn,
            _ if !busy || trigger == Some(false) => Delivery::NextRequest,
            Some("followUp") => Delivery::FollowUp,
            _ => Delivery::Steer,
        };
        self.queue_custom_as(message, delivery);
        if trigger == Some(true) && deliver != Some("nextTurn") && !busy {
            self.with_pending(|p| p.trigger = true);
        }
        if !self.busy.get() {
            self.idle_work.notify_one();
        }
        Ok(None)
    }

    /// A custom message (`{customType, content, display, details}`) for the
    /// agent's inbox: it enters the conversation before the next request.
    pub fn queue_custom(&self, message: &Value) {
        self.queue_custom_as(message, Delivery::NextRequest);
    }

    /// [`ExtSession::queue_custom`], entering as `delivery` says.
    fn queue_custom_as(&self, message: &Value, delivery: Delivery) {
        let custom = pi_agent::CustomMessage {
            custom_type: message["customType"].as_str().unwrap_or_default().to_string(),
            content: message.get("content").cloned().unwrap_or(json!("")),
            display: message["display"].as_bool().unwrap_or(false),
            details: message.get("details").cloned().filter(|d| !d.is_null()).map(Box::new),
            timestamp: pi_ai::now_ms(),
        };
        if let Ok(mut q) = self.inbox.lock() {
            q.push_back(Waiting { message: AgentMessage::Agent(AgentOnly::Custom(custom)), delivery });
        }
    }

    /// `pi.sendUserMessage`: a user message to run once the command or prompt at hand ends (steered or queued while streaming, as `deliverAs` says).
    pub fn send_user_message(&self, content: &Value, options: &Value) -> Result<Option<Value>, SessionCallError> {
        let (message, images) = user_message_parts(content);
        let expand = options["expandPromptTemplates"].as_bool() == Some(true);
        if self.busy.get() {
            let queue = match options["deliverAs"].as_str() {
                Some("steer") => &self.steering,
                Some("followUp") => &self.follow_ups,
                _ => return Err(SessionCallError::WhileStreaming),
            };
            if let Ok(mut q) = queue.lock() {
                q.push_back(Queued { text: message, images });
            }
            // As the reference: the queues are announced when a message joins them.
            let (steering, follow_up) = (queue_texts(&self.steering), queue_texts(&self.follow_ups));
            self.emit(&AgentEvent::QueueUpdate { steering, follow_up });
            return Ok(None);
        }
        self.with_pending(|p| p.prompts.push_back(PendingPrompt { text: message, images, expand }));
        self.idle_work.notify_one();
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_messages_text_blocks_join_by_lines_and_its_images_come_along() {
        let content = json!([
            {"type": "text", "text": "first"},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
            {"type": "text", "text": "second"},
            {"type": "image", "mimeType": "image/png"},
        ]);
        let (text, images) = user_message_parts(&content);
        assert_eq!(text, "first\nsecond");
        assert_eq!(images.len(), 1, "a block that is not an image is left out");
        assert_eq!(serde_json::to_value(&images[0]).unwrap()["data"], "aGk=");
        assert_eq!(user_message_parts(&json!("plain")).0, "plain");
        assert_eq!(user_message_parts(&json!(7)), (String::new(), Vec::new()));
    }
}
