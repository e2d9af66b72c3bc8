//! A message on its way in, in every mode (print, JSON, RPC, the terminal
//! UI), as the reference orders it: an extension command (`/name args`)
//! runs its handler and nothing goes to the model; otherwise the `input`
//! handlers may transform or handle it; what is left goes to the agent,
//! which expands `/skill:name` and templates. After a command or a prompt,
//! what the extensions asked for runs: the session they replaced, the
//! messages they sent, their user messages, a triggered turn, a reload.

use std::collections::VecDeque;

use pi_agent::{Agent, AgentEvent, Queue};
use pi_ai::{AssistantMessage, ContentBlock};
use pi_ext::{ExtensionError, InputOutcome};
use serde_json::Value;

use crate::ext_session::ExtSession;
use crate::model_select::NoApiKey;
use crate::reload::ReloadState;
use crate::session_event::SessionEvent;
use crate::text;

/// The `input` event's `source` for a message an extension sent.
const EXTENSION_SOURCE: &str = "extension";

/// What became of a message sent while a run streams ([`ExtSession::queue_routed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queueing {
    /// An extension command ran, or an `input` handler handled it.
    Handled,
    /// It joined its queue.
    Queued,
    /// Left for the model, with no queue to join (the caller refuses it).
    NoQueue,
}

/// Where a message goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// An extension command: the extension's path, the registered name, the arguments.
    Command {
        /// The extension's path.
        path: String,
        /// The registered name.
        name: String,
        /// The arguments.
        args: String,
    },
    /// An `input` handler handled it.
    Handled,
    /// To the model, as the `input` handlers left it.
    Prompt {
        /// The text.
        text: String,
        /// The images sent with it.
        images: Vec<ContentBlock>,
    },
}

/// A message to run: typed, from RPC, or an extension's.
#[derive(Debug)]
pub struct Incoming {
    /// The message's text.
    pub text: String,
    /// Images sent with it.
    pub images: Vec<ContentBlock>,
    /// `"interactive"`, `"rpc"` or `"extension"` (the `input` event's `source`).
    pub source: &'static str,
    /// Extension commands and templates apply (false for an extension's
    /// message without `expandPromptTemplates`).
    pub expand: bool,
}

impl Incoming {
    /// A message the user typed or sent.
    pub fn user(text: &str, images: Vec<ContentBlock>, source: &'static str) -> Incoming {
        Incoming { text: text.to_string(), images, source, expand: true }
    }
}

/// Run the handler of keyboard shortcut `key` (of the first extension that
/// registered it), then what it asked for, as after a command.
pub async fn shortcut(agent: &mut Agent, ext: &ExtSession, key: &str, reload: Option<&mut ReloadState>) {
    let scripts = ext.scripts();
    let owner = scripts.iter().flat_map(|l| l.shortcuts()).find(|(k, _, _)| k == key).map(|(_, _, path)| path);
    if let Some(path) = owner {
        for l in &scripts {
            if let Some(errors) = l.run_shortcut(&path, key).await {
                ext.report(errors);
                break;
            }
        }
    }
    settle_all(agent, ext, reload).await;
}

/// What extensions asked for outside a prompt (a shortcut, a command, a
/// background callback): [`settle`], then the messages it queued, in order.
/// They are the extensions': a refusal is reported as their error.
pub async fn settle_all(agent: &mut Agent, ext: &ExtSession, mut reload: Option<&mut ReloadState>) {
    let mut queue = VecDeque::new();
    settle(agent, ext, &mut queue, reload.as_deref_mut()).await;
    while let Some(m) = queue.pop_front() {
        let _answer = submit(agent, ext, m, reload.as_deref_mut()).await;
    }
}

impl ExtSession {
    /// Report failing handlers as the mode reports extension errors.
    pub fn report(&self, errors: Vec<ExtensionError>) {
        for e in errors {
            self.emit(&AgentEvent::ExtensionError { extension_path: e.path, event: e.event, error: e.error });
        }
    }

    /// Run every extension's handlers of `event` and wait for them; their
    /// failures are reported.
    pub async fn notify(&self, event: &SessionEvent) {
        let (kind, payload) = (event.kind(), event.to_value());
        for l in self.scripts() {
            let errors = l.emit(kind, payload.clone()).await;
            self.report(errors);
        }
    }

    /// Decide where `m` goes: a command, handled, or the model.
    pub async fn route(&self, m: &Incoming, streaming_behavior: Option<&str>) -> Route {
        let scripts = self.scripts();
        if m.expand
            && let Some((path, name, args)) = crate::ext_commands::find_command(&scripts, &m.text)
        {
            return Route::Command { path, name, args };
        }
        let images: Vec<Value> = m.images.iter().filter_map(|i| serde_json::to_value(i).ok()).collect();
        let (outcome, errors) = pi_ext::run_input(&scripts, &m.text, images, m.source, streaming_behavior).await;
        self.report(errors);
        match outcome {
            InputOutcome::Handled => Route::Handled,
            InputOutcome::Continue { text, images } => Route::Prompt {
                text,
                images: images.into_iter().filter_map(|i| serde_json::from_value(i).ok()).collect(),
            },
        }
    }

    /// A message sent while a run streams, as the reference's `prompt` with
    /// a `streamingBehavior` takes it: an extension command runs, the `input`
    /// handlers (told `behaviour`) may handle or change it, and what is left
    /// joins `queue` with its images.
    pub async fn queue_routed(&self, m: &Incoming, behaviour: Option<&str>, queue: Option<&Queue>) -> Queueing {
        match self.route(m, behaviour).await {
            Route::Command { path, name, args } => {
                self.run_command(&path, &name, &args).await;
                Queueing::Handled
            }
            Route::Handled => Queueing::Handled,
            Route::Prompt { text, images } => {
                let Some(queue) = queue else { return Queueing::NoQueue };
                if let Ok(mut q) = queue.lock() {
                    q.push_back(pi_agent::Queued { text, images });
                }
                Queueing::Queued
            }
        }
    }

    /// Run a command's handler; its failures are reported.
    pub async fn run_command(&self, path: &str, name: &str, args: &str) {
        for l in self.scripts() {
            if let Some(errors) = l.run_command(path, name, args).await {
                self.report(errors);
                return;
            }
        }
    }
}

/// Run `first` as the reference runs a typed message (see the module), then
/// whatever the extensions asked for meanwhile. The last answer, if any; an
/// error when a prompt was refused ([`prompt_then`]), which ends the queue.
pub async fn submit(
    agent: &mut Agent,
    ext: &ExtSession,
    first: Incoming,
    mut reload: Option<&mut ReloadState>,
) -> Result<Option<AssistantMessage>, NoApiKey> {
    let mut queue = VecDeque::from([first]);
    let mut last = None;
    while let Some(m) = queue.pop_front() {
        agent.drain_inbox();
        // `/llama` needs the terminal UI; without one it does nothing, as in the reference.
        if m.expand && reload.as_ref().is_some_and(|r| r.llama_on) && crate::llama::is_command(&m.text) {
            continue;
        }
        match ext.route(&m, None).await {
            Route::Command { path, name, args } => ext.run_command(&path, &name, &args).await,
            Route::Handled => {}
            Route::Prompt { text, images } => match prompt(agent, ext, &text, images, m.expand).await {
                Ok(answer) => last = answer.or(last),
                // An extension's message: its refusal is an extension error, as the reference reports it.
                Err(error) if m.source == EXTENSION_SOURCE => ext.report(vec![ExtensionError {
                    path: text::RUNTIME_EXTENSION_PATH.to_string(),
                    event: text::SEND_USER_MESSAGE_EVENT.to_string(),
                    error: error.to_string(),
                }]),
                Err(error) => return Err(error),
            },
        }
        last = settle(agent, ext, &mut queue, reload.as_deref_mut()).await.or(last);
    }
    Ok(last)
}

/// How far a message went, for a front end that answers as it goes (RPC
/// answers a `prompt` once it is handled, or once its run is about to start).
#[derive(Debug)]
pub enum Step {
    /// An extension command ran, or an `input` handler handled it.
    Handled,
    /// The `before_agent_start` handlers ran and the run starts.
    Started,
    /// Refused before it started: the provider has no credentials.
    Refused(NoApiKey),
}

/// Told each [`Step`] of a message as it happens.
pub struct StepSink(pub Box<dyn FnMut(Step) + Send>);

impl std::fmt::Debug for StepSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StepSink")
    }
}

/// Run `first` as RPC runs a `prompt`, telling `steps` how far it went: a
/// command's messages are recorded before it is told handled (one that asks
/// for a run goes in with the run); then whatever the extensions asked for,
/// as [`settle_all`] (with `steps` dropped first, so the front end knows the
/// message itself is done).
pub async fn submit_telling(
    agent: &mut Agent,
    ext: &ExtSession,
    first: Incoming,
    mut steps: StepSink,
    reload: Option<&mut ReloadState>,
) {
    let prompt = match ext.route(&first, None).await {
        Route::Command { path, name, args } => {
            ext.run_command(&path, &name, &args).await;
            let triggered = ext.pending.lock().is_ok_and(|p| p.trigger && p.prompts.is_empty());
            if !triggered {
                agent.drain_inbox();
            }
            (steps.0)(Step::Handled);
            None
        }
        Route::Handled => {
            (steps.0)(Step::Handled);
            None
        }
        Route::Prompt { text, images } => Some((text, images)),
    };
    if let Some((text, images)) = prompt {
        let started = || (steps.0)(Step::Started);
        if let Err(why) = prompt_then(agent, ext, &text, images, first.expand, started).await {
            (steps.0)(Step::Refused(why));
        }
    }
    drop(steps);
    settle_all(agent, ext, reload).await;
}

/// Run a prompt with the session marked busy; without `expand`, skills and
/// templates are not expanded (an extension's plain message).
pub async fn prompt(
    agent: &mut Agent,
    ext: &ExtSession,
    text: &str,
    images: Vec<ContentBlock>,
    expand: bool,
) -> Result<Option<AssistantMessage>, NoApiKey> {
    prompt_then(agent, ext, text, images, expand, || {}).await
}

/// [`prompt`], calling `started` once the `before_agent_start` handlers ran
/// and the run is about to start (RPC answers the prompt then, as the reference).
/// Refused (nothing sent, nothing recorded) when the model's provider has no
/// credentials, with the reference's words ([`crate::model_select::refusal`]).
pub async fn prompt_then(
    agent: &mut Agent,
    ext: &ExtSession,
    text: &str,
    images: Vec<ContentBlock>,
    expand: bool,
    started: impl FnOnce(),
) -> Result<Option<AssistantMessage>, NoApiKey> {
    if let Some(why) = crate::model_select::refusal(agent.model(), agent.api_key()) {
        return Err(why);
    }
    ext.busy.set(true);
    let expander = if expand { None } else { agent.take_expand_input() };
    // before_agent_start sees the message as the agent will send it.
    let expanded = agent.expand(text);
    let restore = before_run(agent, ext, pi_ext::RunOpening::User(expanded)).await;
    started();
    let last = agent.prompt_with_images(text, images).await;
    restore.undo(agent);
    if expander.is_some() {
        agent.set_expand_input(expander);
    }
    ext.busy.set(false);
    Ok(last)
}

/// The prompt and sections a run's `before_agent_start` handlers changed,
/// to restore after the run.
struct Restore {
    forced: Option<String>,
    sections: Option<(String, Option<pi_agent::PromptSections>)>,
}

impl Restore {
    fn undo(self, agent: &mut Agent) {
        if let Some(p) = self.forced {
            agent.set_system_prompt(p);
        }
        if let Some((prompt, sections)) = self.sections {
            agent.set_system_prompt(prompt);
            agent.set_system_sections(sections);
        }
    }
}

/// Run the `before_agent_start` handlers before a run `opening` starts:
/// the messages they add are queued, the prompt they force or the sections
/// they add hold for this run.
async fn before_run(agent: &mut Agent, ext: &ExtSession, opening: pi_ext::RunOpening) -> Restore {
    let options = crate::prompt_options::options(agent);
    let before = pi_ext::run_before_agent_start(&ext.scripts(), opening, agent.system_prompt(), options).await;
    ext.report(before.errors);
    for m in &before.messages {
        ext.queue_custom(m);
    }
    let extra = crate::prompt_options::custom_sections(&before.options);
    let sections = crate::prompt_options::apply(agent, extra, before.system_prompt.is_some());
    let forced = before.system_prompt.map(|p| agent.replace_system_prompt(p));
    Restore { forced, sections }
}

/// After a command or a prompt: take the replaced session, record the
/// messages sent, reload when asked, queue the user messages and run a
/// triggered turn, until nothing is left. The last answer of a triggered turn.
pub async fn settle(
    agent: &mut Agent,
    ext: &ExtSession,
    queue: &mut VecDeque<Incoming>,
    mut reload: Option<&mut ReloadState>,
) -> Option<AssistantMessage> {
    let mut last = None;
    loop {
        let p = ext.take_pending();
        if p.resync {
            agent.resync_session();
        }
        if let (Some(renewed), Some(state)) = (p.replaced, reload.as_deref_mut()) {
            for w in crate::session_events::install(agent, state, renewed).await {
                eprintln!("{w}");
            }
        }
        // A message that asks for a run goes in with it, as the reference
        // records it: after `agent_start`, `turn_start` and the system message.
        let triggered = p.trigger && p.prompts.is_empty() && queue.is_empty();
        if !triggered {
            agent.drain_inbox();
        }
        if p.reload
            && let Some(state) = reload.as_deref_mut()
        {
            let _ = crate::reload::reload(agent, state).await;
        }
        if let Some(instructions) = p.compact {
            // Not awaited by the extension; a failure is reported as compactions report theirs.
            ext.busy.set(true);
            let reason = pi_agent::compaction::CompactionReason::Manual;
            if let Err(message) = agent.compact(reason, instructions.as_deref(), false).await {
                let event = SessionEvent::SessionCompactFailed {
                    reason: reason.as_str(),
                    error_message: message.to_string(),
                    aborted: false,
                    will_retry: false,
                    from_extension: false,
                };
                ext.notify(&event).await;
            }
            ext.busy.set(false);
        }
        for m in p.prompts {
            queue.push_back(Incoming { text: m.text, images: m.images, source: EXTENSION_SOURCE, expand: m.expand });
        }
        if !(p.trigger && queue.is_empty()) {
            return last;
        }
        ext.busy.set(true);
        // The custom message that asked for the run opens it (as the reference's
        // event says): still waiting in the inbox, or already recorded.
        let waiting: Vec<pi_agent::AgentMessage> =
            agent.inbox().lock().map(|q| q.iter().map(|w| w.message.clone()).collect()).unwrap_or_default();
        let opening = waiting.iter().rev().chain(agent.messages().iter().rev()).find_map(|m| match m {
            pi_agent::AgentMessage::Agent(pi_agent::AgentOnly::Custom(_)) => serde_json::to_value(m).ok(),
            _ => None,
        });
        let restore = match opening {
            Some(message) => Some(before_run(agent, ext, pi_ext::RunOpening::Custom(message)).await),
            None => None,
        };
        last = agent.continue_run().await.or(last);
        if let Some(r) = restore {
            r.undo(agent);
        }
        ext.busy.set(false);
    }
}
