//! The loop: prompt → stream → tool calls → dispatch → results → next turn,
//! until the model stops, fails, is aborted, or every call of a batch asks to
//! terminate.

use crate::hook_event::{HookEvent, HookMessage};
use std::sync::Arc;
use std::time::Duration;

use pi_ai::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, ContextRef, Message, Model, StopReason, StreamOptions,
    ToolResultMessage, UserContent, UserMessage, now_ms,
};
use pi_tools::ToolContext;
use tokio_util::sync::CancellationToken;

use crate::abort::{AbortHandle, RunTicket};
use crate::dispatch::{CallRequest, Dispatcher, RawArgs, ToolEvent};
use crate::events::{AgentEvent, EventToolResult};
use crate::messages::{AgentMessage, converted_for_llm, llm_refs};
use crate::queues::{Inbox, Queue, Queued, queue_texts};
use crate::retry::{RetryDecision, RetrySettings};

/// Receives [`AgentEvent`]s.
pub type EventSink = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

/// A conversation with one model and one set of tools. Its fields are the
/// crate's own; front ends read and change it through the methods of
/// `access.rs`.
pub struct Agent {
    /// The conversation so far (agent-only messages included).
    pub(crate) messages: Vec<AgentMessage>,
    /// The system prompt sent with every request.
    pub(crate) system_prompt: String,
    /// The model.
    pub(crate) model: Model,
    /// Its API key, resolved.
    pub(crate) api_key: Option<String>,
    /// Resolves the key again before each request (refreshing OAuth
    /// tokens); without one, `api_key` is sent as it is.
    pub(crate) credentials: Option<crate::CredentialSource>,
    /// Thinking level (`off`, `low`, …), when the model reasons.
    pub(crate) thinking: Option<String>,
    /// Retry of failed requests.
    pub(crate) retry: RetrySettings,
    /// The tools and handlers.
    pub(crate) dispatcher: Dispatcher,
    /// Folder, session facts and the mutation queue handed to tools.
    pub(crate) tool_ctx: ToolContext,
    sink: EventSink,
    abort: AbortHandle,
    /// The ticket of the run the front end asked for, taken by the next
    /// [`Agent::prompt_with_images`]: an abort since the ticket ends that run.
    pub(crate) pending_run: Option<RunTicket>,
    /// Messages to inject after the current turn's tool calls (`steer`).
    pub(crate) steering: Queue,
    /// Messages to run after the current run ends (`follow_up`).
    pub(crate) follow_ups: Queue,
    /// Rebuilds the system prompt when the tool set changed (extensions'
    /// `setActiveTools`, late registrations); without one the prompt stays.
    pub(crate) prompt_builder: Option<PromptBuilder>,
    /// Told about every message [`Agent::record`] adds.
    pub(crate) on_record: Option<RecordFn>,
    /// The session every message is recorded into (in memory unless the
    /// front end gives one with a file).
    pub(crate) session: SharedSession,
    /// Told when the session file cannot be written.
    pub(crate) on_session_error: Option<SessionErrorFn>,
    /// Told when a run has settled, before `agent_settled` handlers run
    /// (work they ask for then finds the agent idle, as in the reference).
    pub(crate) on_settled: Option<Arc<dyn Fn() + Send + Sync>>,
    /// The system prompt as sections, when known (recorded as system messages).
    pub(crate) system_sections: Option<crate::PromptSections>,
    /// Settings a controller changes while a run holds the agent.
    pub(crate) live: crate::live::LiveSettings,
    /// The `compaction` settings.
    pub(crate) compaction: crate::compaction::CompactionSettings,
    /// Expands a user message before it is sent (`/skill:name`, prompt
    /// templates); also queued steering and follow-up messages.
    pub(crate) expand_input: Option<InputExpander>,
    /// Messages extensions sent (`pi.sendMessage`), recorded before the
    /// next model request or by [`Agent::drain_inbox`].
    pub(crate) inbox: Inbox,
    /// The system prompt as extensions read it (`ctx.getSystemPrompt()`):
    /// updated before every request.
    pub(crate) prompt_view: Arc<std::sync::Mutex<String>>,
    /// Message events held until their handlers ran (see [`Agent::notify_added`]).
    held_events: std::sync::Mutex<Option<Vec<AgentEvent>>>,
}

/// Expands a user message; `Err((path, error))`: a resource could not be
/// read (reported as an extension error, the message goes as typed).
pub type InputExpander = Arc<dyn Fn(&str) -> Result<String, (String, String)> + Send + Sync>;

/// Receives agent-only messages as they are recorded.
pub type RecordFn = Arc<dyn Fn(&AgentMessage) + Send + Sync>;

/// Builds the system prompt (as sections) for a registry's declared tools.
pub type PromptBuilder = Arc<dyn Fn(&crate::Registry) -> crate::PromptSections + Send + Sync>;

/// The session an agent records into, shared with the front end (RPC reads
/// entries and the tree from it).
pub type SharedSession = Arc<std::sync::Mutex<crate::session::Session>>;

/// Told when the session file cannot be written (the session goes on in memory).
pub type SessionErrorFn = Arc<dyn Fn(&crate::session::SessionError) + Send + Sync>;

impl Agent {
    /// A new agent; `sink` receives every event.
    pub fn new(
        model: Model,
        system_prompt: String,
        dispatcher: Dispatcher,
        tool_ctx: ToolContext,
        sink: EventSink,
    ) -> Self {
        let mut agent = Agent {
            messages: Vec::new(),
            system_prompt,
            model,
            api_key: None,
            credentials: None,
            thinking: None,
            retry: RetrySettings::default(),
            dispatcher,
            tool_ctx,
            sink,
            abort: AbortHandle::default(),
            pending_run: None,
            steering: Queue::default(),
            follow_ups: Queue::default(),
            prompt_builder: None,
            on_record: None,
            session: Arc::new(std::sync::Mutex::new(crate::session::Session::in_memory())),
            on_session_error: None,
            on_settled: None,
            system_sections: None,
            live: Default::default(),
            compaction: Default::default(),
            expand_input: None,
            inbox: Default::default(),
            prompt_view: Default::default(),
            held_events: Default::default(),
        };
        // Registrations made before the agent existed reach the registry (and
        // the extensions' view of it) at once; their loadout before the first request.
        agent.dispatcher.tool_changes.apply(&mut agent.dispatcher.registry);
        agent.wire_tool_events();
        agent
    }

    /// Apply the extensions' pending tool-set changes, run the `prepareLoadout`
    /// hooks of a changed set (reporting failed ones), and rebuild the system
    /// prompt when anything changed.
    pub async fn apply_tool_changes(&mut self) {
        let changed = self.dispatcher.tool_changes.apply(&mut self.dispatcher.registry);
        self.dispatcher.registry.refresh_loadout().await;
        for e in self.dispatcher.registry.take_loadout_errors() {
            self.emit(AgentEvent::ExtensionError {
                extension_path: e.source,
                event: "prepare_loadout".into(),
                error: e.error,
            });
        }
        if changed && let Some(build) = &self.prompt_builder {
            let sections = build(&self.dispatcher.registry);
            self.system_prompt = sections.text();
            self.system_sections = Some(sections);
        }
    }

    fn wire_tool_events(&mut self) {
        let sink = self.sink.clone();
        self.dispatcher.sink = Some(Arc::new(move |ev: ToolEvent| {
            let out = match ev {
                ToolEvent::Start { id, name, args, parent } => AgentEvent::ToolExecutionStart {
                    tool_call_id: id,
                    tool_name: name,
                    args,
                    parent_tool_call_id: parent,
                },
                ToolEvent::Update { id, name, args, partial, parent } => AgentEvent::ToolExecutionUpdate {
                    tool_call_id: id,
                    tool_name: name,
                    args,
                    partial_result: EventToolResult::from(&partial),
                    parent_tool_call_id: parent,
                },
                ToolEvent::End { id, name, result, duration_ms, parent } => AgentEvent::ToolExecutionEnd {
                    tool_call_id: id,
                    tool_name: name,
                    is_error: result.is_error,
                    result: EventToolResult::from(&result),
                    duration_ms,
                    parent_tool_call_id: parent,
                },
                ToolEvent::HandlerError { source, event, error } => {
                    AgentEvent::ExtensionError { extension_path: source, event, error }
                }
            };
            sink(&out);
        }));
    }

    /// A handle that aborts the current run (stream and tools).
    pub fn abort_handle(&self) -> AbortHandle {
        self.abort.clone()
    }

    /// Abort the current run.
    pub fn abort(&self) {
        self.abort.abort();
    }

    /// The abort signal of the current run.
    pub(crate) fn abort_token(&self) -> CancellationToken {
        self.abort.token()
    }

    /// A new abort signal for work of its own (a manual compaction), which
    /// an earlier abort does not cancel; tools see it too.
    pub(crate) fn fresh_abort(&mut self) -> CancellationToken {
        let token = self.abort.fresh();
        self.tool_ctx.abort = token.clone();
        token
    }

    pub(crate) fn emit(&self, ev: AgentEvent) {
        if let AgentEvent::MessageStart { .. }
        | AgentEvent::MessageEnd { .. }
        | AgentEvent::SystemMessageStart { .. }
        | AgentEvent::SystemMessageEnd { .. }
        | AgentEvent::AgentMessageStart { .. }
        | AgentEvent::AgentMessageEnd { .. }
        | AgentEvent::QueueUpdate { .. } = &ev
            && let Ok(mut held) = self.held_events.lock()
            && let Some(list) = held.as_mut()
        {
            list.push(ev);
            return;
        }
        (self.sink)(&ev);
    }

    /// Hold the start and end events of the messages added from now on
    /// (and the queue updates between them, in place) until
    /// [`Agent::notify_added`] sends each after its handlers.
    pub(crate) fn defer_message_events(&self) {
        if let Ok(mut held) = self.held_events.lock() {
            held.get_or_insert_with(Vec::new);
        }
    }

    /// The held message events (none held any more).
    pub(crate) fn take_held_events(&self) -> Vec<AgentEvent> {
        self.held_events.lock().ok().and_then(|mut h| h.take()).unwrap_or_default()
    }

    /// The declared tools as the model sees them.
    fn request_tools(&self) -> Vec<pi_ai::Tool> {
        self.dispatcher
            .registry
            .declared()
            .iter()
            .map(|t| pi_ai::Tool {
                name: t.def().name.clone(),
                description: self.dispatcher.registry.declared_description(t.as_ref()).to_string(),
                parameters: t.def().parameters.clone(),
                constrained_sampling: t.def().constrained_sampling.clone(),
            })
            .collect()
    }

    /// Start the model request. The body is written from the conversation
    /// as it is held (borrowed, never copied) before this returns.
    fn start_request(
        &self,
        options: StreamOptions,
        view: Option<&crate::context_system::RequestView>,
    ) -> tokio::sync::mpsc::Receiver<AssistantMessageEvent> {
        let source = view.map_or(&self.messages[..], |v| &v.messages[..]);
        let converted = converted_for_llm(source);
        let own_tools;
        let tools = match view.and_then(|v| v.tools.as_ref()) {
            Some(t) => t,
            None => {
                own_tools = self.request_tools();
                &own_tools
            }
        };
        let system_prompt = view.and_then(|v| v.system_prompt.as_deref()).unwrap_or(&self.system_prompt);
        let context = ContextRef {
            system_prompt: Some(system_prompt)
                .filter(|p| !p.is_empty() || view.is_none_or(|v| v.system_prompt.is_none())),
            messages: llm_refs(source, &converted),
            tools,
        };
        pi_ai::stream_ref(&self.model, &context, options)
    }

    /// The credentials of the next request: from the credential source when
    /// there is one, else the key as it is.
    pub async fn request_auth(&self) -> Result<crate::RequestAuth, crate::CredentialError> {
        match &self.credentials {
            Some(source) => source(&self.model, self.api_key.as_deref()).await,
            None => Ok(crate::RequestAuth { api_key: self.api_key.clone(), headers: Default::default() }),
        }
    }

    /// One attempt at the model request, and the delay before the next one
    /// when the failure is worth a retry (see [`Agent::plan_retry`]).
    async fn stream_once(
        &self,
        retries_done: u32,
        context: Option<&crate::context_system::RequestView>,
    ) -> (AssistantMessage, Option<Duration>) {
        let auth = self.request_auth().await;
        let (api_key, headers) = match auth {
            Ok(a) => (a.api_key, a.headers),
            Err(e) => {
                let failed = AssistantMessage {
                    api: pi_ai::intern::intern(&self.model.api),
                    provider: pi_ai::intern::intern(&self.model.provider),
                    model: pi_ai::intern::intern(&self.model.id),
                    stop_reason: StopReason::Error,
                    error_message: Some(e.to_string().into()),
                    timestamp: now_ms(),
                    ..Default::default()
                };
                self.emit(AgentEvent::MessageStart { message: Message::Assistant(failed.clone()) });
                return (failed, None);
            }
        };
        let options = StreamOptions {
            api_key,
            signal: self.abort.token(),
            max_tokens: None,
            reasoning: self.thinking.clone(),
            headers,
            session_id: self.tool_ctx.session.session_id.clone(),
            hooks: crate::provider_events::ProviderEvents::for_request(&self.dispatcher, &self.model),
            ..StreamOptions::default()
        };
        let began = std::time::Instant::now();
        let mut rx = self.start_request(options, context);
        let mut started = false;
        let finish = |mut m: AssistantMessage, started: bool| {
            m.duration_ms = Some(began.elapsed().as_millis() as u64);
            m.thinking_level =
                Some(pi_ai::intern::intern(self.thinking.as_deref().unwrap_or(crate::text::THINKING_OFF)));
            let retry = self.plan_retry(&mut m, retries_done);
            if !started {
                // No `start` (an HTTP error, say): the message still starts, as the final one.
                self.emit(AgentEvent::MessageStart { message: Message::Assistant(m.clone()) });
            }
            (m, retry)
        };
        while let Some(ev) = rx.recv().await {
            match ev {
                AssistantMessageEvent::Done { message, .. } => return finish(message, started),
                AssistantMessageEvent::Error { error, .. } => return finish(error, started),
                AssistantMessageEvent::Start { partial } => {
                    if !started {
                        started = true;
                        let first = Message::Assistant(partial.snapshot());
                        self.notify(HookEvent::MessageStart { message: HookMessage::Llm(&first) }).await;
                        self.emit(AgentEvent::MessageStart { message: first });
                    }
                }
                other => {
                    let usage = other.usage();
                    if !started {
                        started = true;
                        let mut first = other.message();
                        first.content.clear();
                        let first = Message::Assistant(first);
                        self.notify(HookEvent::MessageStart { message: HookMessage::Llm(&first) }).await;
                        self.emit(AgentEvent::MessageStart { message: first });
                    }
                    if self.dispatcher.listening("message_update") {
                        let message = serde_json::to_value(Message::Assistant(other.message())).unwrap_or_default();
                        let mut ame = serde_json::to_value(&other).unwrap_or_default();
                        ame["partial"] = message.clone();
                        self.notify(HookEvent::MessageUpdate { message: &message, assistant_message_event: &ame })
                            .await;
                    }
                    self.emit(AgentEvent::MessageUpdate { usage, assistant_message_event: other });
                }
            }
        }
        let ended = AssistantMessage {
            api: pi_ai::intern::intern(&self.model.api),
            provider: pi_ai::intern::intern(&self.model.provider),
            model: pi_ai::intern::intern(&self.model.id),
            stop_reason: StopReason::Error,
            error_message: Some(crate::text::STREAM_ENDED_EARLY.into()),
            timestamp: now_ms(),
            ..Default::default()
        };
        finish(ended, started)
    }

    /// After an attempt: the delay before the next one when it failed in a
    /// way worth a retry ([`RetrySettings::decide`]: by the failure's kind,
    /// after the server's `Retry-After` when it sent one). A server asking
    /// for a longer wait than allowed fails at once, its message prefixed
    /// with what it asked for.
    fn plan_retry(&self, m: &mut AssistantMessage, retries_done: u32) -> Option<Duration> {
        if m.stop_reason != StopReason::Error || !self.live.auto_retry() {
            return None;
        }
        match self.retry.decide(m.failure.as_deref(), retries_done) {
            RetryDecision::Retry(delay) => Some(delay),
            RetryDecision::GiveUp => None,
            RetryDecision::WaitTooLong(requested) => {
                let message = m.error_message.take().unwrap_or_default();
                m.error_message =
                    Some(crate::text::retry_delay_too_long(requested, self.retry.max_retry_delay_ms, &message).into());
                None
            }
        }
    }

    /// One model request (attempt `retries_done + 1`): the answer, and the
    /// delay before another attempt when it failed in a way worth a retry.
    async fn request(&self, retries_done: u32) -> (AssistantMessage, Option<Duration>) {
        self.publish_system_prompt();
        let context = crate::context_system::context_override(&self.dispatcher, &self.messages).await;
        let context = crate::context_system::context_with_system(&self.dispatcher, &self.messages, context).await;
        self.stream_once(retries_done, context.as_ref()).await
    }

    /// Retry `attempt` after a failed answer (session entry `failed`), as the
    /// reference: `auto_retry_start`, the failed answer omitted from the
    /// context (a `context_edit`), then the wait of `delay`; false when
    /// `abort_retry` cut the wait short (told as a failed `auto_retry_end`).
    /// An abort of the run lets the next attempt end at once.
    async fn wait_for_retry(&mut self, attempt: u32, delay: Duration, error: &str, failed: Option<&str>) -> bool {
        let live = self.live.clone();
        let aborted = live.retry_aborted();
        live.set_retry_waiting(true);
        self.emit(AgentEvent::AutoRetryStart {
            attempt,
            max_attempts: self.retry.max_retries,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error_message: error.to_string(),
        });
        self.omit(failed);
        let token = self.abort.token();
        let cancelled = tokio::select! {
            _ = tokio::time::sleep(delay) => false,
            _ = token.cancelled() => false,
            _ = aborted => true,
        };
        if cancelled {
            self.emit(AgentEvent::AutoRetryEnd {
                success: false,
                attempt,
                final_error: Some(crate::text::RETRY_CANCELLED.into()),
            });
        }
        live.set_retry_waiting(false);
        !cancelled
    }

    /// Run one user prompt to the end. Returns the last assistant message.
    pub async fn prompt(&mut self, text: &str) -> Option<AssistantMessage> {
        self.prompt_with_images(text, Vec::new()).await
    }

    /// [`Agent::prompt`] with images after the text (`@file` images), in
    /// one user message (prepared as `prompt_images` says). Past the
    /// compaction threshold the session is compacted first; after an answer
    /// that overflowed the context (or stopped early at the token limit) the
    /// failed attempt is omitted, the session compacted and the request made
    /// again once, as a fresh run.
    pub async fn prompt_with_images(&mut self, text: &str, images: Vec<ContentBlock>) -> Option<AssistantMessage> {
        let token = self.abort.start(self.pending_run.take());
        self.tool_ctx.abort = token.clone();
        self.auto_compact().await;
        let (text, images) = crate::prompt_images::prepare(self.expand(text), images);
        let mut opening = Some(crate::settle::Opening::user(text, images));
        let mut recovered = false;
        let last = loop {
            let (last, overflowed) = self.run(opening.take().unwrap_or_default(), &token).await;
            if token.is_cancelled() {
                break last;
            }
            match overflowed {
                Some(entry) if !recovered => {
                    recovered = true;
                    self.omit(entry.as_deref());
                    let reason = crate::compaction::CompactionReason::Overflow;
                    if self.compact(reason, None, true).await.is_ok() && !token.is_cancelled() {
                        continue;
                    }
                }
                _ => self.auto_compact().await,
            }
            break last;
        };
        self.settle_runs(last, &token).await
    }

    /// Compact when the context is past the threshold and there is
    /// something to compact (silently nothing otherwise).
    pub(crate) async fn auto_compact(&mut self) {
        if self.needs_compaction() && self.can_compact() {
            let _ = self.compact(crate::compaction::CompactionReason::Threshold, None, false).await;
        }
    }

    /// One run, `agent_start` to `agent_end`: the `opening` user messages
    /// (none when a recovered request is made again), then turns until the
    /// model stops. Returns the last answer and, when that answer
    /// overflowed the context, its session entry.
    pub(crate) async fn run(
        &mut self,
        opening: crate::settle::Opening,
        token: &tokio_util::sync::CancellationToken,
    ) -> (Option<AssistantMessage>, Option<Option<String>>) {
        let mut first_new = self.messages.len();
        self.notify(HookEvent::AgentStart {}).await;
        self.emit(AgentEvent::AgentStart);
        // Retries of a failed request so far; the next turn starts a new run (as the reference).
        let (mut retries, mut restart) = (0u32, false);
        let mut turn_index = 0u64;
        // A user message opens its turn: it is added after `turn_start`.
        let mut opening = Some(opening);
        let mut last;
        let mut overflowed = None;
        let mut first_turn = true;
        loop {
            // A run's first turn takes the steering messages waiting (sent
            // while it started), unless steering messages opened it.
            let mut poll_steering = first_turn || restart;
            if restart {
                restart = false;
                self.notify(HookEvent::AgentStart {}).await;
                self.emit(AgentEvent::AgentStart);
            } else if !first_turn {
                self.auto_compact().await;
            }
            let continues = !first_turn;
            first_turn = false;
            self.notify(HookEvent::TurnStart { turn_index, timestamp: now_ms() }).await;
            self.emit(AgentEvent::TurnStart);
            if let Some(guard) = &self.tool_ctx.change_guard {
                let tools = self.dispatcher.registry.active_tools();
                let may_change = tools.iter().any(|t| t.def().annotations.read_only_hint != Some(true));
                if continues {
                    guard.turn_continued(&self.tool_ctx, may_change);
                } else {
                    guard.turn_started(&self.tool_ctx, may_change);
                }
            }
            self.apply_choices();
            self.apply_tool_changes().await;
            let added_from = self.messages.len();
            // The new messages' events wait for their handlers (see `notify_added`).
            self.defer_message_events();
            self.sync_system_message();
            if let Some(o) = opening.take() {
                poll_steering &= o.queued != Some(true);
                self.push_opening(o);
            }
            // Messages extensions sent meanwhile go before the request (steering).
            self.drain_due();
            if poll_steering {
                self.push_steering();
            }
            self.notify_added(added_from).await;
            let (assistant, retry) = self.request(retries).await;
            let assistant = self.message_end(assistant).await;
            self.emit(AgentEvent::MessageEnd { message: Message::Assistant(assistant.clone()) });
            let answer_entry = self.add(Message::Assistant(assistant.clone()).into());
            last = Some(assistant.clone());
            if let Some(delay) = retry {
                // As the reference: the failed turn and run end, then a new run
                // tries again without the failed answer (omitted by a context edit).
                let ended = crate::hooks::outcome(&assistant.stop_reason);
                self.notify_turn_end(turn_index, &assistant, &[], answer_entry.clone(), Vec::new(), ended).await;
                self.emit(AgentEvent::TurnEnd { message: Message::Assistant(assistant.clone()), tool_results: vec![] });
                turn_index = 0;
                self.end_run(first_new, true).await;
                retries += 1;
                let error = assistant.error_message.clone().unwrap_or_default();
                if !self.wait_for_retry(retries, delay, &error, answer_entry.as_deref()).await {
                    return (last, overflowed);
                }
                first_new = self.messages.len();
                restart = true;
                continue;
            }
            if retries > 0 {
                let failed = assistant.stop_reason == StopReason::Error;
                self.emit(AgentEvent::AutoRetryEnd {
                    success: !failed,
                    attempt: retries,
                    final_error: failed.then(|| assistant.error_message.as_deref().unwrap_or_default().to_string()),
                });
                retries = 0;
            }
            let calls = tool_calls(&assistant);
            let stop = matches!(assistant.stop_reason, StopReason::Error | StopReason::Aborted);
            if stop || calls.is_empty() {
                let failed = calls.is_empty() && self.overflowed(&assistant);
                let ended = crate::hooks::outcome(&assistant.stop_reason);
                let proposal =
                    self.notify_turn_end(turn_index, &assistant, &[], answer_entry.clone(), Vec::new(), ended).await;
                // Error and aborted answers end the run whatever was proposed.
                let go_on = self
                    .settle_proposal("turn_end", crate::hooks::Proposal { cont: proposal.cont && !stop, ..proposal });
                self.emit(AgentEvent::TurnEnd { message: Message::Assistant(assistant.clone()), tool_results: vec![] });
                turn_index += 1;
                if failed {
                    overflowed = Some(answer_entry);
                    break;
                }
                // The run would stop: steered messages, else follow-ups, take another turn.
                if let Some(next) = if stop { None } else { self.next_waiting() } {
                    opening = Some(next);
                    continue;
                }
                if go_on && !token.is_cancelled() {
                    // One request on the conversation as it stands.
                    continue;
                }
                break;
            }
            let (results, result_entries, terminate) = self.run_calls(&assistant, calls).await;
            if let Some(guard) = &self.tool_ctx.change_guard {
                guard.turn_ended(&self.tool_ctx, answer_entry.as_deref()).await;
            }
            let ended = if token.is_cancelled() { "aborted" } else { "completed" };
            let proposal =
                self.notify_turn_end(turn_index, &assistant, &results, answer_entry, result_entries, ended).await;
            let go_on = self.settle_proposal("turn_end", proposal);
            self.emit(AgentEvent::TurnEnd {
                message: Message::Assistant(assistant.clone()),
                tool_results: results.clone(),
            });
            turn_index += 1;
            if terminate && !go_on {
                break;
            }
            // Steering messages open the next turn (after its `turn_start`),
            // an aborted one too (as the reference, which then answers nothing).
            let mut steered = self.take_queued(true).into_iter();
            if let Some(first) = steered.next() {
                let more = steered.collect();
                opening = Some(crate::settle::Opening::queued(first, more, true));
            }
            if token.is_cancelled() {
                last = Some(self.aborted_turn(turn_index, opening.take()).await);
                break;
            }
        }
        self.end_run(first_new, false).await;
        (last, overflowed)
    }

    /// `agent_end` with the run's messages (from `first_new`); `will_retry`
    /// when a retry follows.
    ///
    /// The event borrows the run's messages for as long as the front end
    /// reads it (they are moved out and back, not copied: a long run's
    /// messages are most of the conversation).
    async fn end_run(&mut self, first_new: usize, will_retry: bool) {
        if let Some(guard) = &self.tool_ctx.change_guard {
            guard.settle().await;
        }
        let from = first_new.min(self.messages.len());
        self.notify(HookEvent::AgentEnd { messages: &self.messages[from..] }).await;
        let mut all = std::mem::take(&mut self.messages);
        let first_new = first_new.min(all.len());
        // The smaller side is set aside (one run in a long session, or the
        // few messages before a long run); the other keeps its allocation.
        let head_aside = first_new <= all.len() - first_new;
        let (run, aside) = if head_aside {
            let head: Vec<AgentMessage> = all.drain(..first_new).collect();
            (all, head)
        } else {
            let run = all.split_off(first_new);
            (run, all)
        };
        let ev = AgentEvent::AgentEnd { messages: run, will_retry };
        // Not held like message events: `emit` would keep it.
        (self.sink)(&ev);
        let mut run = match ev {
            AgentEvent::AgentEnd { messages, .. } => messages,
            _ => Vec::new(),
        };
        self.messages = if head_aside {
            run.splice(0..0, aside);
            run
        } else {
            let mut head = aside;
            head.append(&mut run);
            head
        };
    }

    /// Run the calls of `assistant` (refused when the answer was cut by the
    /// token limit) and record their results: the results, their session
    /// entries, and whether every call asked to end the run.
    async fn run_calls(
        &mut self,
        assistant: &AssistantMessage,
        calls: Vec<CallRequest>,
    ) -> (Vec<ToolResultMessage>, Vec<String>, bool) {
        // Each result enters the conversation as it is final (in call
        // order; see `Dispatcher::batch`), a terminated batch's too.
        let mut results: Vec<ToolResultMessage> = Vec::new();
        let cut = assistant.stop_reason == StopReason::Length;
        let sink = self.sink.clone();
        let mut done = |f: &crate::dispatch::Finished| {
            let msg = result_message(f);
            if cut {
                // Refused calls are answered one by one, as the reference does.
                let m = Message::ToolResult(msg.clone());
                sink(&AgentEvent::MessageStart { message: m.clone() });
                sink(&AgentEvent::MessageEnd { message: m });
            }
            results.push(msg);
        };
        let finished = if cut {
            self.dispatcher.refuse_truncated(calls, &mut done)
        } else {
            self.dispatcher.batch_with(calls, &self.tool_ctx, &mut done).await
        };
        let terminate = !finished.is_empty() && finished.iter().all(|f| f.terminate);
        let results_from = self.messages.len();
        let mut result_entries = Vec::new();
        // Each result's events after its handlers, once the batch is done (as the reference).
        if !cut {
            self.defer_message_events();
        }
        for r in &results {
            if !cut {
                let m = Message::ToolResult(r.clone());
                self.emit(AgentEvent::MessageStart { message: m.clone() });
                self.emit(AgentEvent::MessageEnd { message: m });
            }
            result_entries.extend(self.add(Message::ToolResult(r.clone()).into()));
        }
        self.notify_added(results_from).await;
        (results, result_entries, terminate)
    }
}

/// The tool calls of an answer, as the dispatcher takes them.
fn tool_calls(assistant: &AssistantMessage) -> Vec<CallRequest> {
    assistant
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolCall(call) => Some(CallRequest {
                id: call.id.clone(),
                name: call.name.to_string(),
                args: match &call.arguments_error {
                    Some(detail) => RawArgs::Invalid { detail: detail.to_string() },
                    None => RawArgs::Json(call.arguments.clone()),
                },
                parent: None,
            }),
            _ => None,
        })
        .collect()
}

/// The tool result message of a finished call.
fn result_message(f: &crate::dispatch::Finished) -> ToolResultMessage {
    ToolResultMessage {
        tool_call_id: f.id.clone(),
        tool_name: pi_ai::intern::intern(&f.name),
        content: f.result.content.iter().map(crate::convert::content_block).collect(),
        details: f.result.details.clone().map(Box::new),
        is_error: f.result.is_error,
        duration_ms: f.duration_ms,
        nested_calls: f.nested_calls.as_ref().and_then(|n| serde_json::to_value(n).ok()).map(Box::new),
        usage: f.result.usage.as_ref().and_then(|u| serde_json::from_value(u.clone()).ok()),
        timestamp: now_ms(),
    }
}

impl Agent {
    /// Take the queued steering (or follow-up) messages due now: all of
    /// them in mode `all`, else the first (announced as each starts, see
    /// [`Agent::push_opening`]).
    pub(crate) fn take_queued(&mut self, steering: bool) -> Vec<Queued> {
        let (queue, mode) = if steering {
            (&self.steering, self.live.steering_mode())
        } else {
            (&self.follow_ups, self.live.follow_up_mode())
        };
        match queue.lock() {
            Ok(mut q) if mode == crate::live::QUEUE_ALL => q.drain(..).collect(),
            Ok(mut q) => q.pop_front().into_iter().collect(),
            Err(_) => Vec::new(),
        }
    }

    /// A user message as it is sent (see [`Agent::expand_input`]).
    pub fn expand(&self, text: &str) -> String {
        let Some(expand) = &self.expand_input else { return text.to_string() };
        match expand(text) {
            Ok(t) => t,
            Err((extension_path, error)) => {
                let event = crate::text::SKILL_EXPANSION_EVENT.to_string();
                self.emit(AgentEvent::ExtensionError { extension_path, event, error });
                text.to_string()
            }
        }
    }

    /// Announce the queues as they are now.
    pub fn emit_queue_update(&self) {
        self.emit(AgentEvent::QueueUpdate {
            steering: queue_texts(&self.steering),
            follow_up: queue_texts(&self.follow_ups),
        });
    }

    /// Announce the queues with `pending` (taken from the steering queue, or
    /// the follow-ups, and not yet started) still at the front of theirs.
    pub(crate) fn emit_queue_update_with(&self, steering: bool, pending: &[Queued]) {
        let list = |q: &Queue, front: bool| {
            let mut l: Vec<String> = if front { pending.iter().map(|m| m.text.clone()).collect() } else { Vec::new() };
            l.extend(queue_texts(q));
            l
        };
        let (steering_list, follow_up) = (list(&self.steering, steering), list(&self.follow_ups, !steering));
        self.emit(AgentEvent::QueueUpdate { steering: steering_list, follow_up });
    }
}

impl Agent {
    /// Record a user message (its text, then `images`) with its events.
    pub(crate) fn push_user_with(&mut self, text: &str, images: Vec<ContentBlock>) {
        let mut message = UserMessage::text(text);
        if let UserContent::Blocks(blocks) = &mut message.content {
            blocks.extend(images);
        }
        let user = Message::User(message);
        self.emit(AgentEvent::MessageStart { message: user.clone() });
        self.emit(AgentEvent::MessageEnd { message: user.clone() });
        self.add(user.into());
    }

    /// Add a message to the conversation and the session; its entry id.
    pub(crate) fn add(&mut self, message: AgentMessage) -> Option<String> {
        let mut id = None;
        if let Ok(mut s) = self.session.lock() {
            let appended = match &message {
                // An extension's message has an entry type of its own, as the reference writes it.
                AgentMessage::Agent(crate::messages::AgentOnly::Custom(c)) => {
                    s.append("custom_message", c.entry_fields())
                }
                _ => s.append_message(&message),
            };
            match appended {
                Ok(i) => id = Some(i),
                Err(e) => {
                    s.detach_file();
                    if let Some(f) = &self.on_session_error {
                        f(&e);
                    }
                }
            }
        }
        self.messages.push(message);
        id
    }

    /// Whether an answer says the context no longer fits (an overflow error,
    /// or a `length` stop below the output limit), with recovery allowed.
    fn overflowed(&self, m: &AssistantMessage) -> bool {
        let auto = self.compaction.enabled && self.live.auto_compaction();
        let short_length = m.stop_reason == StopReason::Length && m.usage.output < self.model.max_tokens.max(1);
        auto && (crate::compaction::is_context_overflow(m, self.model.context_window) || short_length)
    }

    /// Leave the last message (entry `id`) out of the model's context: a
    /// `context_edit` omits it in the session; it leaves the conversation.
    fn omit(&mut self, id: Option<&str>) {
        let entry = match (id, self.session.lock()) {
            (Some(id), Ok(mut s)) => s
                .append("context_edit", serde_json::json!({"targetId": id, "replacement": null}))
                .ok()
                .and_then(|new| s.get(&new).map(crate::session::Entry::value)),
            _ => None,
        };
        if let Some(entry) = entry {
            self.emit(AgentEvent::EntryAppended { entry });
        }
        self.messages.pop();
    }

    /// Add an agent-only message (a user command's record) to the
    /// conversation and the session; [`Agent::on_record`] is told.
    pub fn record(&mut self, message: AgentMessage) {
        if let Some(f) = &self.on_record {
            f(&message);
        }
        self.add(message);
    }

    /// Record the system prompt and declared tools when they differ from
    /// what the conversation's system messages say (the first request of a
    /// session records them whole; later changes as a patch), as the
    /// reference does; the message's events are emitted.
    fn sync_system_message(&mut self) {
        let Some(sections) = &self.system_sections else { return };
        let tools: Vec<serde_json::Value> = self
            .dispatcher
            .registry
            .declared()
            .iter()
            .map(|t| {
                let mut tool = serde_json::json!({
                    "name": t.def().name,
                    "description": self.dispatcher.registry.declared_description(t.as_ref()),
                    "parameters": t.def().parameters,
                });
                if let (Some(cs), Some(obj)) = (&t.def().constrained_sampling, tool.as_object_mut()) {
                    obj.insert("constrainedSampling".into(), cs.to_json());
                }
                tool
            })
            .collect();
        let Some(patch) = crate::system_message::patch(&self.messages, sections, &tools) else { return };
        let message = AgentMessage::Agent(crate::messages::AgentOnly::System(patch));
        let value = serde_json::to_value(&message).unwrap_or_default();
        self.emit(AgentEvent::SystemMessageStart { message: value.clone() });
        self.emit(AgentEvent::SystemMessageEnd { message: value });
        self.add(message);
    }
}

#[cfg(test)]
mod retry_tests {
    use std::sync::Mutex;
    use std::time::Instant;

    use pi_ai::{Failure, FailureKind, faux};

    use super::*;
    use crate::Registry;

    /// An agent on a faux provider named `name`, and the events it sends.
    fn agent(name: &str, retry: RetrySettings) -> (Agent, faux::FauxProvider, Arc<Mutex<Vec<AgentEvent>>>) {
        let provider = faux::register(name);
        let events = Arc::new(Mutex::new(Vec::new()));
        let seen = events.clone();
        let sink: EventSink = Arc::new(move |e: &AgentEvent| seen.lock().unwrap().push(e.clone()));
        let tool_ctx = ToolContext::new(std::env::temp_dir());
        let mut agent = Agent::new(provider.model(), String::new(), Dispatcher::new(Registry::new()), tool_ctx, sink);
        agent.retry = retry;
        (agent, provider, events)
    }

    fn status(code: u16, wait_ms: Option<u64>) -> Failure {
        Failure { kind: FailureKind::Status(code), retry_after: wait_ms.map(Duration::from_millis) }
    }

    fn retry_starts(events: &Mutex<Vec<AgentEvent>>) -> Vec<(u32, u64, String)> {
        events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::AutoRetryStart { attempt, delay_ms, error_message, .. } => {
                    Some((*attempt, *delay_ms, error_message.clone()))
                }
                _ => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn failures_are_retried_by_kind_not_by_words() {
        let quick = RetrySettings { base_delay_ms: 1, ..Default::default() };
        let (mut a, f, events) = agent("retry-kind", quick);
        f.set_responses(vec![
            faux::failure_message("400 max_tokens above 5000, connection reset", status(400, None)),
            faux::failure_message("401 connection refused for this key", status(401, None)),
            faux::error_message("503 overloaded, network error, timed out"),
            faux::assistant_message(vec![faux::text("never asked for")]),
        ]);
        for _ in 0..3 {
            let m = a.prompt("go").await.unwrap();
            assert_eq!(m.stop_reason, StopReason::Error);
        }
        assert!(retry_starts(&events).is_empty());
        assert_eq!(f.pending_count(), 1);

        // The transient kinds are retried, with the doubling backoff.
        let (mut a, f, events) = agent("retry-transient", quick);
        f.set_responses(vec![
            faux::failure_message("whatever it says", status(503, None)),
            faux::failure_message("cut", Failure::new(FailureKind::StreamCut)),
            faux::failure_message("no route", Failure::new(FailureKind::Connection)),
            faux::assistant_message(vec![faux::text("third time lucky")]),
        ]);
        let m = a.prompt("go").await.unwrap();
        assert_eq!(m.text(), "third time lucky");
        let starts = retry_starts(&events);
        assert_eq!(starts.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>(), [(1, 1), (2, 2), (3, 4)]);
    }

    #[tokio::test]
    async fn the_servers_wait_replaces_the_backoff() {
        let slow_backoff = RetrySettings { base_delay_ms: 30_000, ..Default::default() };
        let (mut a, f, events) = agent("retry-after", slow_backoff);
        f.set_responses(vec![
            faux::failure_message("429 slow down", status(429, Some(50))),
            faux::assistant_message(vec![faux::text("ok")]),
        ]);
        let t = Instant::now();
        let m = a.prompt("go").await.unwrap();
        assert_eq!(m.text(), "ok");
        assert!(t.elapsed() >= Duration::from_millis(50) && t.elapsed() < Duration::from_secs(10));
        assert_eq!(retry_starts(&events), [(1, 50, "429 slow down".to_string())]);
    }

    #[tokio::test]
    async fn a_wait_past_the_limit_fails_at_once_with_the_servers_message() {
        let (mut a, f, events) = agent("retry-too-long", RetrySettings::default());
        f.set_responses(vec![
            faux::failure_message("429 quota", status(429, Some(3_600_000))),
            faux::assistant_message(vec![faux::text("never asked for")]),
        ]);
        let t = Instant::now();
        let m = a.prompt("go").await.unwrap();
        assert!(t.elapsed() < Duration::from_secs(10));
        let want = "Server requested 3600s retry delay (max: 60s). 429 quota";
        assert_eq!(m.error_message.as_deref(), Some(want));
        assert!(retry_starts(&events).is_empty());
        // No event shows the message without what the server asked for.
        let words: Vec<String> = events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::MessageStart { message: Message::Assistant(m) }
                | AgentEvent::MessageEnd { message: Message::Assistant(m) } => {
                    m.error_message.as_deref().map(String::from)
                }
                _ => None,
            })
            .collect();
        assert_eq!(words, [want]);

        // With the limit off, the wait is taken as asked (here a short one past a 0 s limit).
        let unlimited = RetrySettings { max_retry_delay_ms: 0, ..Default::default() };
        let (mut a, f, _) = agent("retry-unlimited", unlimited);
        f.set_responses(vec![
            faux::failure_message("503", status(503, Some(20))),
            faux::assistant_message(vec![faux::text("ok")]),
        ]);
        assert_eq!(a.prompt("go").await.unwrap().text(), "ok");
    }
}
