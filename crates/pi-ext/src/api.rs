//! The host's public types: options, limits, and the traits pi implements for
//! extensions (dialogs, the tool registry).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use pi_agent::AgentTool;
use serde::Serialize;
use serde_json::Value;

/// Default time limit: JavaScript running this long without pausing (awaiting
/// a host operation or a timer) stops the extension.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(10);
/// Default memory limit of one extension's JavaScript heap.
pub const DEFAULT_MEMORY_LIMIT: usize = 256 * 1024 * 1024;
/// Stack of an extension's engine thread.
pub(crate) const ENGINE_THREAD_STACK: usize = 16 * 1024 * 1024;
/// JavaScript stack limit (deep recursion throws `RangeError`), well inside the thread's stack.
pub(crate) const JS_STACK: usize = 4 * 1024 * 1024;
/// After an abort, how long a tool's JavaScript may take to finish before the call ends anyway.
pub(crate) const ABORT_GRACE: Duration = Duration::from_secs(2);

/// The run mode extensions see as `ctx.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Interactive terminal UI (`"tui"`).
    Tui,
    /// RPC over stdin/stdout (`"rpc"`).
    Rpc,
    /// JSON event stream (`"json"`).
    Json,
    /// Print mode, `-p` (`"print"`).
    #[default]
    Print,
}

impl Mode {
    /// The name extensions see.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Tui => "tui",
            Mode::Rpc => "rpc",
            Mode::Json => "json",
            Mode::Print => "print",
        }
    }
}

/// Resource limits of one extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// JavaScript may run this long without pausing; then the extension is stopped.
    pub time: Duration,
    /// The JavaScript heap may grow to this many bytes; allocations beyond throw
    /// `InternalError: out of memory` inside the extension.
    pub memory: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { time: DEFAULT_TIME_LIMIT, memory: DEFAULT_MEMORY_LIMIT }
    }
}

/// How extensions are loaded and what their `ctx` says.
#[derive(Clone, Default)]
pub struct HostOptions {
    /// The session folder (`ctx.cwd`); relative extension paths resolve against it.
    pub cwd: PathBuf,
    /// `ctx.hasUI`: true in TUI and RPC modes. Without a UI, `select`/`input`
    /// resolve `undefined`, `confirm` resolves `false`, `notify` does nothing.
    pub has_ui: bool,
    /// `ctx.mode`.
    pub mode: Mode,
    /// Where dialogs and notifications go when `has_ui` is true (RPC:
    /// `extension_ui_request`). Without one, dialogs resolve as cancelled.
    pub ui: Option<Arc<dyn UiBridge>>,
    /// `ctx.isProjectTrusted()`.
    pub project_trusted: bool,
    /// Time and memory limits per extension.
    pub limits: Limits,
    /// The run's theme (`ctx.ui.theme`): one handle for every load of the
    /// run, set by the front end.
    pub theme: crate::ExtTheme,
    /// The check of the MCP servers extensions register
    /// (`pi.registerMcpServer`); without one every registration is kept.
    pub mcp_check: Option<Arc<crate::McpCheck>>,
    /// The extensions that hear one another's dialogs (`ui_prompt_start`,
    /// `ui_prompt_end`): those loaded with clones of one handle, so every
    /// load of a run gets the run's.
    pub prompt_spans: crate::PromptSpans,
}

/// A dialog an extension asks for (`ctx.ui.select/confirm/input/editor`). It
/// serialises as the fields of an RPC `extension_ui_request` (`method`, `title`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "method", rename_all = "camelCase")]
pub enum UiRequest {
    /// Choose one of `options`.
    Select {
        /// The prompt.
        title: String,
        /// The choices.
        options: Vec<String>,
        /// Milliseconds before it resolves as cancelled (enforced by the host too).
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Yes or no.
    Confirm {
        /// The prompt.
        title: String,
        /// The explanation.
        message: String,
        /// Milliseconds before it resolves as cancelled (enforced by the host too).
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// One line of text.
    Input {
        /// The prompt.
        title: String,
        /// Placeholder text.
        #[serde(skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        /// Milliseconds before it resolves as cancelled (enforced by the host too).
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Multi-line text.
    Editor {
        /// The prompt.
        title: String,
        /// Text to start with.
        #[serde(skip_serializing_if = "Option::is_none")]
        prefill: Option<String>,
    },
}

impl UiRequest {
    /// The method's name (`select`, …) and the title.
    pub(crate) fn kind_and_title(&self) -> (&'static str, String) {
        match self {
            UiRequest::Select { title, .. } => ("select", title.clone()),
            UiRequest::Confirm { title, .. } => ("confirm", title.clone()),
            UiRequest::Input { title, .. } => ("input", title.clone()),
            UiRequest::Editor { title, .. } => ("editor", title.clone()),
        }
    }
}

/// The answer to a [`UiRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiResponse {
    /// A chosen option or entered text (select, input, editor).
    Value(String),
    /// The answer to a confirm.
    Confirmed(bool),
    /// Dismissed or timed out: select/input/editor resolve `undefined`, confirm `false`.
    Cancelled,
}

/// Severity of `ctx.ui.notify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NotifyLevel {
    /// `"info"`.
    Info,
    /// `"warning"`.
    Warning,
    /// `"error"`.
    Error,
}

/// A fire-and-forget UI call of an extension (`ctx.ui.setStatus`, …).
#[derive(Debug, Clone, PartialEq)]
pub enum UiFire {
    /// `setStatus(key, text)`: `None` clears it.
    Status {
        /// The extension's key.
        key: String,
        /// The text.
        text: Option<String>,
    },
    /// `setWidget(key, lines, {placement})`: `None` clears it.
    Widget {
        /// The extension's key.
        key: String,
        /// The lines.
        lines: Option<Vec<String>>,
        /// `aboveEditor` or `belowEditor`, when given.
        placement: Option<String>,
    },
    /// `setTitle(title)`: the terminal's title.
    Title(String),
    /// `setEditorText(text)` and `pasteToEditor(text)`.
    EditorText(String),
    /// `setWorkingMessage(text)`: `None` restores the default.
    WorkingMessage(Option<String>),
    /// A component shown by `custom()` called its `done(result)`.
    ComponentDone {
        /// The component (see [`UiBridge::custom`]).
        id: u64,
        /// What `custom()` resolves.
        result: Value,
    },
    /// A component asked for a new frame (`tui.requestRender()`).
    Render,
}

/// An extension's component (pi-tui's contract) as a UI drives it: asked
/// for its lines at a width, fed key presses as the bytes a terminal sends.
/// The calls wait for the extension's engine (a short while at most: a busy
/// extension is drawn as it last was).
pub trait ExtComponent: Send {
    /// The lines at `width` columns.
    fn render(&mut self, width: u16) -> Vec<String>;
    /// A key press.
    fn handle_input(&mut self, data: &str);
    /// Forget cached output.
    fn invalidate(&mut self);
}

/// Where `setFooter`/`setHeader` put a component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentSlot {
    /// Instead of the footer.
    Footer,
    /// Instead of the header.
    Header,
}

/// Where extension dialogs go (implemented by pi's TUI or RPC mode).
pub trait UiBridge: Send + Sync {
    /// Show a dialog and wait for the answer.
    fn dialog(&self, request: UiRequest) -> BoxFuture<'static, UiResponse>;
    /// Show a notification (fire and forget).
    fn notify(&self, message: &str, level: NotifyLevel);
    /// A fire-and-forget call (a bridge that cannot show it ignores it).
    fn fire(&self, _call: UiFire) {}
    /// Show component `id` until it calls `done` ([`UiFire::ComponentDone`]
    /// with this id) or the UI closes it; what `custom()` resolves (`null`
    /// from a bridge that cannot show components).
    fn custom(&self, _id: u64, _component: Box<dyn ExtComponent>) -> BoxFuture<'static, Value> {
        Box::pin(async { Value::Null })
    }
    /// Put a component in `slot` (`None`: the built-in one again).
    fn place(&self, _slot: ComponentSlot, _component: Option<Box<dyn ExtComponent>>) {}
}

/// The session's tool registry as extensions see it (`pi.getAllTools()`,
/// `pi.getActiveTools()`, `pi.setActiveTools()`, tools registered after load).
/// Implemented by the agent; bound with [`crate::LoadedExtensions::bind_tools`].
///
/// The methods are called synchronously on an extension's engine thread while
/// its JavaScript runs: they must not wait for anything a tool call may hold
/// (do not keep a lock on the registry across a dispatch).
pub trait ToolsApi: Send + Sync {
    /// Every registered tool, hidden ones included.
    fn all_tools(&self) -> Vec<Arc<dyn AgentTool>>;
    /// The active tool names, in order.
    fn active_tools(&self) -> Vec<String>;
    /// Replace the active set (unknown and hidden names are ignored).
    fn set_active_tools(&self, names: &[String]);
    /// A tool an extension registered after loading (in a handler).
    fn register_tool(&self, tool: Arc<dyn AgentTool>);
}

/// What an extension reads or changes in the session synchronously
/// (`ctx.sessionManager`, `ctx.modelRegistry`, `ctx.model`, `pi.appendEntry`,
/// `pi.sendMessage`, `pi.sendUserMessage`, `pi.setLabel`, session names,
/// `pi.getCommands`). Entries and models cross as the reference's JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionCall {
    /// `getEntries()`: every entry, in file order.
    Entries,
    /// `getBranch(fromId?)`: the entries from the root to `fromId` (the leaf when absent).
    Branch(Option<String>),
    /// `getEntry(id)`.
    Entry(String),
    /// `getLeafId()`.
    LeafId,
    /// `getLabel(id)`.
    Label(String),
    /// `getHeader()`.
    Header,
    /// `getSessionFile()`.
    SessionFile,
    /// `getSessionId()`.
    SessionId,
    /// `getSessionDir()`.
    SessionDir,
    /// `getSessionName()` (also `pi.getSessionName()`).
    SessionName,
    /// `getTree()`.
    Tree,
    /// `pi.appendEntry(customType, data)`: a `custom` entry, not in the model's context.
    AppendEntry {
        /// The extension's type name.
        custom_type: String,
        /// Its data.
        data: Value,
    },
    /// `pi.sendMessage(message, options)`: a custom message for the model's context.
    SendMessage {
        /// `{customType, content, display, details}`.
        message: Value,
        /// `{triggerTurn, deliverAs}`.
        options: Value,
    },
    /// `pi.sendUserMessage(content, options)`: a user message, as if typed.
    SendUserMessage {
        /// A string or text/image blocks.
        content: Value,
        /// `{deliverAs, expandPromptTemplates}`.
        options: Value,
        /// The caller awaits it (a replaced session's `ctx.sendUserMessage`):
        /// a refusal is its error. Otherwise (`pi.sendUserMessage`) the
        /// refusal is reported as the runtime's extension error and the
        /// handler goes on, as the reference.
        rejects: bool,
    },
    /// `pi.setLabel(entryId, label)`; `None` clears it.
    SetLabel {
        /// The entry.
        id: String,
        /// The label.
        label: Option<String>,
    },
    /// `pi.setSessionName(name)`.
    SetSessionName(String),
    /// `pi.setModel(model)`: `true` when the model has credentials (it is
    /// used from the next request on), `false` otherwise.
    SetModel {
        /// The provider.
        provider: String,
        /// The model's id.
        id: String,
    },
    /// `pi.setThinkingLevel(level)` (clamped to the model).
    SetThinkingLevel(String),
    /// `ctx.getContextUsage()`: `{tokens, contextWindow, percent}`.
    ContextUsage,
    /// `ctx.getSystemPrompt()`.
    SystemPrompt,
    /// `ctx.compact({customInstructions})`: compact once the code that
    /// asked is done (not awaited).
    Compact(Option<String>),
    /// `ctx.modelRegistry.getAll()`.
    Models,
    /// `ctx.modelRegistry.getAvailable()`: the models with credentials.
    AvailableModels,
    /// `ctx.modelRegistry.find(provider, id)`.
    FindModel {
        /// The provider.
        provider: String,
        /// The model id.
        id: String,
    },
    /// `ctx.model`: the current model.
    CurrentModel,
    /// `ctx.thinkingLevel`, `pi.getThinkingLevel()`.
    ThinkingLevel,
    /// `pi.getCommands()`: the session's commands (extensions, templates, skills).
    Commands,
    /// `sessionManager.appendMessage(message)` in a new session's `setup`.
    AppendMessage(Value),
    /// `ctx.isIdle()`.
    IsIdle,
    /// `ctx.abort()`: abort the current run.
    Abort,
    /// `ctx.scopedModels`: the `--models` scope, `[{model, thinkingLevel}]`.
    ScopedModels,
    /// `ctx.hasPendingMessages()`: steering or follow-up messages wait.
    HasPendingMessages,
    /// `ctx.shutdown()`: end pi once it is idle (RPC, terminal UI; nothing in
    /// print and JSON modes, which end by themselves).
    Shutdown,
}

/// A session operation only a command handler may ask for
/// (`ExtensionCommandContext`), performed asynchronously.
#[derive(Debug, Clone, PartialEq)]
pub enum CommandOp {
    /// `ctx.waitForIdle()`: resolves when no run is going on.
    WaitForIdle,
    /// `ctx.newSession({parentSession})`: a new session replaces the current one.
    NewSession {
        /// The parent session file recorded in the new header.
        parent: Option<String>,
    },
    /// `ctx.fork(entryId, {position})`: a new session with the branch
    /// before (`"before"`) or through (`"at"`) the entry.
    Fork {
        /// The entry.
        entry_id: String,
        /// Through the entry rather than before it.
        at: bool,
    },
    /// `ctx.switchSession(path)`.
    SwitchSession(String),
    /// `ctx.navigateTree(targetId, options)`.
    NavigateTree(String),
    /// `ctx.reload()`.
    Reload,
    /// `ctx.modelRegistry.complete(model, context, options)`: one request to
    /// a configured model, answered with the final assistant message (an
    /// error result when it fails). Allowed at any time, in any handler.
    Complete {
        /// The model (`{provider, id, …}` as `find` gives it).
        model: serde_json::Value,
        /// `{systemPrompt?, messages, tools?}`.
        context: serde_json::Value,
        /// `{maxTokens?, reasoning?/reasoningEffort?, sessionId?, headers?}`.
        options: serde_json::Value,
    },
}

/// The session as extensions see and change it. Implemented by pi; bound
/// with [`crate::LoadedExtensions::bind_session`] (before, reads are empty
/// and changes ignored).
///
/// [`SessionApi::call`] runs synchronously on an extension's engine thread
/// while its JavaScript runs: it must not wait for anything a run holds.
pub trait SessionApi: Send + Sync {
    /// Answer a read or make a change: `Ok(None)` is `undefined` in
    /// JavaScript, `Err` is thrown there.
    // String error: the message is what the extension's JavaScript is
    // thrown, as pi words it.
    fn call(&self, call: SessionCall) -> Result<Option<serde_json::Value>, String>;
    /// Perform a command handler's session operation; `Err` rejects its promise.
    // String error: the message the promise is rejected with, as pi words it.
    fn command(&self, op: CommandOp) -> BoxFuture<'static, Result<serde_json::Value, String>>;
}

/// A command an extension registered (`pi.registerCommand`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtCommand {
    /// The name without the slash (the registered one; see [`crate::command_names`]).
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The extension's path.
    pub path: String,
    /// It offers suggestions for its argument (`getArgumentCompletions`).
    pub completions: bool,
}

/// What the `input` handlers made of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum InputOutcome {
    /// Go on with this text and these images (transformed or not).
    Continue {
        /// The text.
        text: String,
        /// Image blocks (`{type: "image", data, mimeType}`).
        images: Vec<serde_json::Value>,
    },
    /// A handler handled it: nothing goes to the model.
    Handled,
}
