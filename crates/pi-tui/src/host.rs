//! How the UI and the program hosting it talk: the UI sends [`Request`]s
//! (run a prompt, a user command, switch the model, a command the host owns),
//! the host sends [`Update`]s (the agent's events, command output, extension
//! UI calls). Instant controls (abort, steering and follow-up queues) are
//! shared directly through [`Controls`].
//!
//! Extensions reach the UI through a [`UiHandle`]: dialogs, notifications,
//! statuses, widgets and custom components rendered at a width.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use pi_agent::{AbortHandle, AgentEvent, Queue};
use tokio::sync::{mpsc, oneshot};

/// Severity of a notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Information (dim).
    Info,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

/// What the UI asks the host to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Run a prompt (the agent is idle).
    Prompt(String),
    /// Run a user command (`!cmd`; `exclude`: `!!cmd`).
    Bash {
        /// The command.
        command: String,
        /// Keep its record out of the model's context.
        exclude: bool,
    },
    /// Stop the running user command.
    AbortBash,
    /// Use this model (`provider`, `id`); `save` also makes it the default.
    SetModel {
        /// Provider.
        provider: String,
        /// Model id.
        id: String,
        /// Save as `defaultProvider`/`defaultModel`.
        save: bool,
    },
    /// Use this thinking level.
    SetThinking(String),
    /// A slash command the host owns (`/reload`, `/new`, an extension's).
    Command {
        /// Its name, without the slash.
        name: String,
        /// What followed it.
        args: String,
    },
    /// Write a user setting (`/settings`).
    SaveSetting {
        /// The key path.
        path: Vec<String>,
        /// The value.
        value: serde_json::Value,
    },
    /// Ask for the files of the project (for `@` completion).
    ListFiles,
    /// An extension's keyboard shortcut was pressed (the key as it registered it).
    Shortcut(String),
    /// The user quit.
    Quit,
}

/// A model the UI can show and choose.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModelInfo {
    /// Provider.
    pub provider: String,
    /// Id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Whether it reasons (thinking levels apply).
    pub reasoning: bool,
    /// Context window in tokens.
    pub context_window: u64,
}

/// Completes a command's argument: given the text typed after `/name `,
/// the suggestions (`None`: none). Called while the user types, so it must
/// answer quickly.
#[derive(Clone)]
pub struct ArgumentCompleter(pub Arc<CompleteFn>);

/// The function behind an [`ArgumentCompleter`].
pub type CompleteFn = dyn Fn(&str) -> Option<Vec<crate::complete::Item>> + Send + Sync;

impl std::fmt::Debug for ArgumentCompleter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArgumentCompleter")
    }
}

impl PartialEq for ArgumentCompleter {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ArgumentCompleter {}

/// Draws an extension's custom message (`registerMessageRenderer`): the
/// message (as JSON), expanded or not, at a width; `None` to draw it the
/// default way.
#[derive(Clone)]
pub struct MessageRenderer(pub Arc<RenderFn>);

/// The function behind a [`MessageRenderer`].
pub type RenderFn = dyn Fn(&serde_json::Value, bool, u16) -> Option<Vec<String>> + Send + Sync;

impl std::fmt::Debug for MessageRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MessageRenderer")
    }
}

/// Draws one slot of an extension tool's row (`renderCall`/`renderResult`):
/// given the slot (`"call"` or `"result"`), the request (call id, args,
/// result, partial/expanded/error flags, as JSON) and a width, its lines;
/// `None` to draw that slot the default way.
#[derive(Clone)]
pub struct ToolRenderer(pub Arc<ToolRenderFn>);

/// The function behind a [`ToolRenderer`].
pub type ToolRenderFn = dyn Fn(&str, &serde_json::Value, u16) -> Option<Vec<String>> + Send + Sync;

impl std::fmt::Debug for ToolRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolRenderer")
    }
}

/// A command the host adds (extensions, templates, skills, its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// The name, without the slash.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its argument, as a hint (`<path>`).
    pub argument_hint: Option<String>,
    /// A prompt template or skill: the typed line goes to the host as a
    /// prompt (the host expands it), not as a command.
    pub prompt: bool,
    /// Suggestions for its argument, if it offers them.
    pub arguments: Option<ArgumentCompleter>,
}

/// The rows of one filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeView {
    /// Shown under the list while this view is on (`[no-tools]`; empty for the default).
    pub tag: String,
    /// What each row shows.
    pub labels: Vec<String>,
    /// What each row answers.
    pub values: Vec<String>,
    /// The row selected first (the current point).
    pub start: usize,
    /// Each row's entry's label, if it has one (what label editing starts from).
    pub entry_labels: Vec<Option<String>>,
}

impl TreeView {
    /// Row `i`'s entry's label, or nothing.
    pub fn current_label(&self, i: usize) -> String {
        self.entry_labels.get(i).cloned().flatten().unwrap_or_default()
    }
}

/// A dialog an extension (or a policy) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogRequest {
    /// Choose one of `options`.
    Select {
        /// The question.
        title: String,
        /// The choices.
        options: Vec<String>,
    },
    /// Yes or no.
    Confirm {
        /// The question.
        title: String,
        /// The explanation.
        message: String,
    },
    /// One line of text.
    Input {
        /// The question.
        title: String,
        /// Shown while empty.
        placeholder: Option<String>,
    },
    /// Several lines of text.
    Editor {
        /// The question.
        title: String,
        /// Text to start with.
        prefill: Option<String>,
    },
    /// `/tree`'s navigator: one row of one of `views` (switched with the
    /// `app.tree.filter.*` keys; typing filters the rows); the answer is the
    /// row's value.
    Tree {
        /// The question.
        title: String,
        /// The rows under each filter, in the order the cycle keys go.
        views: Vec<TreeView>,
        /// The view shown first.
        view: usize,
    },
    /// One of the sessions (`/resume`): the session picker; the answer is
    /// the chosen session's file.
    Sessions {
        /// The sessions, most recently active first.
        sessions: Vec<pi_agent::session::SessionInfo>,
        /// Now, in ms since the epoch (the ages shown).
        now_ms: i64,
    },
}

/// The answer to a [`DialogRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogAnswer {
    /// The chosen option or the entered text.
    Value(String),
    /// Yes or no.
    Confirmed(bool),
    /// The tree navigator: a new label for `entry` (`None`: remove it),
    /// typed while filter `view` was on.
    Label {
        /// The entry labelled.
        entry: String,
        /// Its label.
        label: Option<String>,
        /// The navigator's view then (to reopen it there).
        view: usize,
    },
    /// Dismissed.
    Cancelled,
}

/// A pi-tui-style component from an extension: rendered at a width as lines
/// (SGR styling allowed, everything else stripped), fed key presses as the
/// bytes a terminal sends.
pub trait Component: Send {
    /// The lines at `width` columns.
    fn render(&mut self, width: u16) -> Vec<String>;
    /// A key press (`data` as a terminal sends it, e.g. `"\x1b[A"`).
    fn handle_input(&mut self, _data: &str) {}
    /// Forget cached output (the theme or the size changed).
    fn invalidate(&mut self) {}
}

/// What a custom component can do while it is shown.
#[derive(Clone)]
pub struct ComponentHandle {
    done: Arc<Mutex<Option<oneshot::Sender<serde_json::Value>>>>,
    redraw: mpsc::UnboundedSender<Update>,
}

impl ComponentHandle {
    /// Close the component with its result.
    pub fn done(&self, value: serde_json::Value) {
        if let Some(tx) = self.done.lock().ok().and_then(|mut g| g.take()) {
            let _ = tx.send(value);
        }
        let _ = self.redraw.send(Update::Redraw);
    }

    /// Ask for a new frame (the component's state changed).
    pub fn request_render(&self) {
        let _ = self.redraw.send(Update::Redraw);
    }

    /// Whether `done` was called.
    pub fn is_done(&self) -> bool {
        self.done.lock().map(|g| g.is_none()).unwrap_or(true)
    }
}

/// Builds a component once the UI can show it.
pub type ComponentFactory = Box<dyn FnOnce(ComponentHandle) -> Box<dyn Component> + Send>;

/// Where widget lines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WidgetPlace {
    /// Above the editor.
    Above,
    /// Below the editor.
    Below,
}

/// A UI call from an extension.
pub enum UiCall {
    /// Show a dialog; the answer goes to `reply`.
    Dialog(DialogRequest, oneshot::Sender<DialogAnswer>),
    /// A notification.
    Notify(Level, String),
    /// Set (or clear) a status in the footer.
    Status(String, Option<String>),
    /// Set (or clear) widget lines near the editor.
    Widget(String, Option<Vec<String>>, WidgetPlace),
    /// The working message (`None`: the default).
    WorkingMessage(Option<String>),
    /// Replace the editor's text.
    EditorText(String),
    /// Show a custom component until it calls `done`.
    Custom(ComponentFactory, oneshot::Sender<serde_json::Value>),
    /// Replace the footer with a component (`None`: the built-in footer).
    Footer(Option<ComponentFactory>),
    /// Replace the header with a component (`None`: the built-in header).
    Header(Option<ComponentFactory>),
}

impl std::fmt::Debug for UiCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UiCall::Dialog(r, _) => write!(f, "Dialog({r:?})"),
            UiCall::Notify(l, m) => write!(f, "Notify({l:?}, {m:?})"),
            UiCall::Status(k, v) => write!(f, "Status({k:?}, {v:?})"),
            UiCall::Widget(k, v, p) => write!(f, "Widget({k:?}, {v:?}, {p:?})"),
            UiCall::WorkingMessage(m) => write!(f, "WorkingMessage({m:?})"),
            UiCall::EditorText(t) => write!(f, "EditorText({t:?})"),
            UiCall::Custom(..) => write!(f, "Custom"),
            UiCall::Footer(c) => write!(f, "Footer({})", c.is_some()),
            UiCall::Header(c) => write!(f, "Header({})", c.is_some()),
        }
    }
}

/// What the host tells the UI.
#[derive(Debug)]
pub enum Update {
    /// An agent event.
    Agent(Box<AgentEvent>),
    /// Output of the running user command.
    BashOutput(String),
    /// The user command ended.
    BashDone {
        /// Its exit code.
        exit_code: Option<i32>,
        /// Stopped by the user.
        cancelled: bool,
        /// Where its full output was saved.
        full_output_path: Option<String>,
    },
    /// The model changed.
    Model(ModelInfo),
    /// The thinking level changed (`None`: off).
    Thinking(Option<String>),
    /// A notice for the transcript.
    Notice(Level, String),
    /// Markdown for the transcript (command output).
    Markdown(String),
    /// The session's name changed.
    SessionName(Option<String>),
    /// The session now runs in this folder (one resumed from another folder).
    Folder(std::path::PathBuf),
    /// A new session: the transcript starts over.
    Reset,
    /// Another session (a fork or a clone): the transcript shows its
    /// messages, and the editor holds `editor` when given.
    Session {
        /// The session's conversation.
        history: Vec<pi_agent::AgentMessage>,
        /// New text for the editor.
        editor: Option<String>,
    },
    /// Keys and themes read again (after `/reload`).
    Look {
        /// The keys.
        keys: Box<crate::keys::Keybindings>,
        /// The themes.
        themes: Box<crate::theme::ThemeCatalog>,
    },
    /// The host's commands changed (after `/reload`).
    Commands(Vec<CommandInfo>),
    /// The extensions' keyboard shortcuts: `(key, description)`, first
    /// registration first.
    Shortcuts(Vec<(String, String)>),
    /// The extensions' custom message renderers, by `customType`.
    Renderers(std::collections::HashMap<String, MessageRenderer>),
    /// The extensions' tool renderers, by tool name.
    ToolRenderers(std::collections::HashMap<String, ToolRenderer>),
    /// The extensions' renderers of their `custom` session entries, by `customType`.
    EntryRenderers(std::collections::HashMap<String, MessageRenderer>),
    /// The project's files, for `@` completion.
    Files(Vec<String>),
    /// The host finished a request (prompt, user command or command).
    Done,
    /// An extension UI call.
    Ui(UiCall),
    /// Draw again.
    Redraw,
    /// Quit.
    Exit,
}

/// The controls that act at once, whatever the agent is doing.
#[derive(Clone, Default)]
pub struct Controls {
    /// Aborts the run.
    pub abort: AbortHandle,
    /// Messages injected after the current turn.
    pub steering: Queue,
    /// Messages run after the run ends.
    pub follow_ups: Queue,
    /// Where a message typed while a run streams goes first (`true`: a
    /// follow-up): the front end's extension commands and `input` handlers,
    /// which then queue what is left. `None`: straight to its queue.
    pub route: Option<QueueRoute>,
}

/// See [`Controls::route`].
pub type QueueRoute = std::sync::Arc<dyn Fn(bool, String) + Send + Sync>;

impl Controls {
    /// Copies of both queues.
    pub fn queued(&self) -> (Vec<String>, Vec<String>) {
        (pi_agent::queue_texts(&self.steering), pi_agent::queue_texts(&self.follow_ups))
    }

    /// Empty both queues; their messages, steering first.
    pub fn drain(&self) -> Vec<String> {
        let take = |q: &Queue| q.lock().map(|mut g| std::mem::take(&mut *g)).unwrap_or_else(|_| VecDeque::new());
        take(&self.steering).into_iter().chain(take(&self.follow_ups)).map(|m| m.text).collect()
    }

    /// Queue a message (through [`Controls::route`] when there is one).
    pub fn push(&self, follow_up: bool, text: String) {
        if let Some(route) = &self.route {
            return route(follow_up, text);
        }
        let q = if follow_up { &self.follow_ups } else { &self.steering };
        if let Ok(mut g) = q.lock() {
            g.push_back(pi_agent::Queued::text(text));
        }
    }
}

/// The extensions' way into the UI (cheap to clone, usable from any thread).
#[derive(Clone, Debug)]
pub struct UiHandle {
    tx: mpsc::UnboundedSender<Update>,
}

impl UiHandle {
    /// A handle sending to `tx`.
    pub fn new(tx: mpsc::UnboundedSender<Update>) -> UiHandle {
        UiHandle { tx }
    }

    /// Show a dialog and wait for its answer (cancelled when the UI is gone).
    pub async fn dialog(&self, request: DialogRequest) -> DialogAnswer {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Update::Ui(UiCall::Dialog(request, tx))).is_err() {
            return DialogAnswer::Cancelled;
        }
        rx.await.unwrap_or(DialogAnswer::Cancelled)
    }

    /// Show a custom component until it calls `done`; its result (`null` when
    /// the UI is gone).
    pub async fn custom(&self, factory: ComponentFactory) -> serde_json::Value {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Update::Ui(UiCall::Custom(factory, tx))).is_err() {
            return serde_json::Value::Null;
        }
        rx.await.unwrap_or(serde_json::Value::Null)
    }

    /// Send a UI call that needs no answer.
    pub fn send(&self, call: UiCall) {
        let _ = self.tx.send(Update::Ui(call));
    }

    /// Ask for a new frame.
    pub fn redraw(&self) {
        let _ = self.tx.send(Update::Redraw);
    }

    /// A handle for a component being shown.
    pub(crate) fn component_handle(&self, done: oneshot::Sender<serde_json::Value>) -> ComponentHandle {
        ComponentHandle { done: Arc::new(Mutex::new(Some(done))), redraw: self.tx.clone() }
    }
}
