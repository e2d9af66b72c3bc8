//! The messages between the Rust side of an extension and its engine
//! thread, as typed values: what Rust asks JavaScript to run ([`Call`],
//! [`Hook`]), what JavaScript asks the host for ([`HostOp`], answered later,
//! and [`HostSync`], answered at once). How they fail is in [`super::error`].
//! JSON crosses the boundary only as the payloads of these messages.

use std::sync::{Arc, Weak};

use pi_agent::AgentTool;
use serde_json::Value;

use super::config::{EngineConfig, Shared};
use super::error::{EngineError, OpError};
use crate::api::{CommandOp, SessionCall, ToolsApi, UiRequest};
use crate::node::child::ChildEvent;
use crate::tool_meta::ToolMeta;

/// What a call runs in the extension's JavaScript, answered by [`CallMsg::Done`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// The `tool_call` handlers.
    ToolCall,
    /// The `tool_result` handlers.
    ToolResult,
    /// The `project_trust` handlers.
    ProjectTrust,
    /// A registered tool's `execute`.
    Execute,
    /// The `user_bash` handlers.
    UserBash,
    /// The `session_before_compact` handlers.
    BeforeCompact,
    /// A registered command's handler (`pi.registerCommand`).
    Command,
    /// A keyboard shortcut's handler (`pi.registerShortcut`).
    Shortcut,
    /// The `input` handlers.
    Input,
    /// The `before_agent_start` handlers.
    BeforeAgentStart,
    /// The handlers of a notification event (`session_start`, …).
    Event(String),
}

impl Entry {
    /// The name the glue dispatches on.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Entry::ToolCall => "tool_call",
            Entry::ToolResult => "tool_result",
            Entry::ProjectTrust => "project_trust",
            Entry::Execute => "execute",
            Entry::UserBash => "user_bash",
            Entry::BeforeCompact => "session_before_compact",
            Entry::Command => "command",
            Entry::Shortcut => "shortcut",
            Entry::Input => "input",
            Entry::BeforeAgentStart => "before_agent_start",
            Entry::Event(name) => name,
        }
    }
}

/// A synchronous function of the glue, run in one turn and answered with JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hook {
    /// A tool's `prepareArguments`.
    PrepareArguments,
    /// A tool's `reachesTools`.
    ReachesTools,
    /// A tool's `prepareLoadout`.
    PrepareLoadout,
    /// The registered flags.
    Flags,
    /// The flags' values from the command line.
    SetFlags,
    /// The session's final trust decision (`ctx.isProjectTrusted()`).
    SetTrust,
    /// A shown component: `{id, op: "render" | "input" | "invalidate" | "dispose", …}`.
    Component,
    /// A command's `getArgumentCompletions`: `{prefix}`.
    Completions,
    /// A custom message renderer: `{message, expanded, width}`.
    RenderMessage,
    /// A tool's `renderCall`/`renderResult`: `{slot, args, result, …, width}`.
    RenderTool,
}

impl Hook {
    /// The glue's function name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Hook::PrepareArguments => "prepareArguments",
            Hook::ReachesTools => "reachesTools",
            Hook::PrepareLoadout => "prepareLoadout",
            Hook::Flags => "flags",
            Hook::SetFlags => "setFlags",
            Hook::SetTrust => "setTrust",
            Hook::Component => "component",
            Hook::Completions => "completions",
            Hook::RenderMessage => "renderMessage",
            Hook::RenderTool => "renderTool",
        }
    }
}

/// Where a hook's answer goes: an async waiter or a blocked engine thread.
pub(crate) type HookReply = Box<dyn FnOnce(Result<Value, EngineError>) + Send>;

/// An asynchronous operation JavaScript asks of the host, performed by the
/// Rust future of the call that made it and answered with [`Msg::Complete`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HostOp {
    /// `ctx.ui.select/confirm/input/editor`.
    Dialog(UiRequest),
    /// `ctx.executeTool(name, args)`; `updates`: partial results are wanted.
    ExecuteTool {
        /// The tool.
        name: String,
        /// Its arguments.
        args: Value,
        /// Whether the caller listens to partial results.
        updates: bool,
    },
    /// One of pi's built-in tools run directly (`createBashTool(...).execute`
    /// and the other `create<Tool>Tool`s): the extension's own tool call
    /// already went through the dispatch pipeline.
    Builtin {
        /// The built-in's name.
        name: String,
        /// Its arguments.
        args: Value,
        /// Another working directory (a spawn hook's).
        cwd: Option<String>,
        /// Variables a spawn hook set (text) or removed (`None`).
        env: Vec<(String, Option<String>)>,
    },
    /// A command handler's session operation (`ctx.newSession()`, …).
    Command(CommandOp),
    /// `ctx.ui.custom()`: show component `id` until it is done.
    Custom {
        /// The component's id (from [`HostSync::NewComponent`]).
        id: u64,
    },
    /// An operation this host does not know.
    Unknown(String),
}

impl HostOp {
    /// The operation `kind` with its JSON `payload`, as the glue sends it.
    pub(crate) fn parse(kind: &str, payload: &str) -> HostOp {
        let p: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
        let title = || s("title").unwrap_or_default();
        let timeout = p.get("timeout").and_then(Value::as_u64);
        match kind {
            "select" => HostOp::Dialog(UiRequest::Select {
                title: title(),
                options: p
                    .get("options")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                    .unwrap_or_default(),
                timeout,
            }),
            "confirm" => HostOp::Dialog(UiRequest::Confirm {
                title: title(),
                message: s("message").unwrap_or_default(),
                timeout,
            }),
            "input" => HostOp::Dialog(UiRequest::Input { title: title(), placeholder: s("placeholder"), timeout }),
            "editor" => HostOp::Dialog(UiRequest::Editor { title: title(), prefill: s("prefill") }),
            "executeTool" => HostOp::ExecuteTool {
                name: s("name").unwrap_or_default(),
                args: p.get("args").cloned().unwrap_or_else(|| Value::Object(Default::default())),
                updates: p.get("updates").and_then(Value::as_bool) == Some(true),
            },
            "command" => match command_op(&p) {
                Some(op) => HostOp::Command(op),
                None => HostOp::Unknown(format!("command:{}", s("method").unwrap_or_default())),
            },
            "builtin" => HostOp::Builtin {
                name: s("name").unwrap_or_default(),
                args: p.get("args").cloned().unwrap_or_else(|| Value::Object(Default::default())),
                cwd: s("cwd"),
                env: p
                    .get("env")
                    .and_then(Value::as_object)
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().map(str::to_string))).collect())
                    .unwrap_or_default(),
            },
            "custom" => match p.get("id").and_then(Value::as_u64) {
                Some(id) => HostOp::Custom { id },
                None => HostOp::Unknown("custom".into()),
            },
            other => HostOp::Unknown(other.to_string()),
        }
    }

    /// The answer when the call that asked has already ended: dialogs as if
    /// cancelled, anything else fails.
    pub(crate) fn after_call_ended(&self) -> OpResult {
        match self {
            HostOp::Dialog(UiRequest::Confirm { .. }) => Ok(OpAnswer::Json(Value::Bool(false))),
            HostOp::Dialog(_) | HostOp::Custom { .. } => Ok(OpAnswer::Undefined),
            _ => Err(OpError::CallEnded),
        }
    }
}

/// A command handler's session operation from the glue's payload `{method, …}`.
fn command_op(p: &Value) -> Option<CommandOp> {
    let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    Some(match s("method")?.as_str() {
        "waitForIdle" => CommandOp::WaitForIdle,
        "newSession" => CommandOp::NewSession { parent: s("parentSession") },
        "fork" => CommandOp::Fork { entry_id: s("entryId")?, at: s("position").as_deref() == Some("at") },
        "switchSession" => CommandOp::SwitchSession(s("sessionPath")?),
        "navigateTree" => CommandOp::NavigateTree(s("targetId")?),
        "reload" => CommandOp::Reload,
        "complete" => CommandOp::Complete {
            model: p.get("model").cloned().unwrap_or(Value::Null),
            context: p.get("context").cloned().unwrap_or(Value::Null),
            options: p.get("options").cloned().unwrap_or(Value::Null),
        },
        _ => return None,
    })
}

/// A session call from the glue's payload `{kind, …}`; `None` for an unknown kind.
fn session_call(p: &Value) -> Option<SessionCall> {
    let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    let v = |k: &str| p.get(k).cloned().unwrap_or(Value::Null);
    Some(match s("kind")?.as_str() {
        "getEntries" => SessionCall::Entries,
        "getBranch" => SessionCall::Branch(s("id")),
        "getEntry" => SessionCall::Entry(s("id")?),
        "getLeafId" => SessionCall::LeafId,
        "getLabel" => SessionCall::Label(s("id")?),
        "getHeader" => SessionCall::Header,
        "getSessionFile" => SessionCall::SessionFile,
        "getSessionId" => SessionCall::SessionId,
        "getSessionDir" => SessionCall::SessionDir,
        "getSessionName" => SessionCall::SessionName,
        "getTree" => SessionCall::Tree,
        "appendEntry" => SessionCall::AppendEntry { custom_type: s("customType")?, data: v("data") },
        "sendMessage" => SessionCall::SendMessage { message: v("message"), options: v("options") },
        "sendUserMessage" => SessionCall::SendUserMessage {
            content: v("content"),
            options: v("options"),
            rejects: v("rejects").as_bool() == Some(true),
        },
        "setLabel" => SessionCall::SetLabel { id: s("id")?, label: s("label") },
        "setSessionName" => SessionCall::SetSessionName(s("name")?),
        "setModel" => SessionCall::SetModel { provider: s("provider")?, id: s("id")? },
        "setThinkingLevel" => SessionCall::SetThinkingLevel(s("level")?),
        "getContextUsage" => SessionCall::ContextUsage,
        "getSystemPrompt" => SessionCall::SystemPrompt,
        "compact" => SessionCall::Compact(s("customInstructions")),
        "getAll" => SessionCall::Models,
        "getAvailable" => SessionCall::AvailableModels,
        "find" => SessionCall::FindModel { provider: s("provider")?, id: s("id")? },
        "model" => SessionCall::CurrentModel,
        "thinkingLevel" => SessionCall::ThinkingLevel,
        "getCommands" => SessionCall::Commands,
        "appendMessage" => SessionCall::AppendMessage(v("message")),
        "isIdle" => SessionCall::IsIdle,
        "abort" => SessionCall::Abort,
        "shutdown" => SessionCall::Shutdown,
        "scopedModels" => SessionCall::ScopedModels,
        "hasPendingMessages" => SessionCall::HasPendingMessages,
        _ => return None,
    })
}

/// The value a host operation resolves to in JavaScript.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OpAnswer {
    /// `undefined` (a dismissed dialog).
    Undefined,
    /// A JSON value.
    Json(Value),
}

impl OpAnswer {
    /// The text the glue's `complete` takes: empty for `undefined`.
    pub(crate) fn to_glue(&self) -> String {
        match self {
            OpAnswer::Undefined => String::new(),
            OpAnswer::Json(v) => v.to_string(),
        }
    }
}

/// A host operation's outcome: the answer, or why JavaScript's promise is
/// rejected.
pub(crate) type OpResult = Result<OpAnswer, OpError>;

/// What JavaScript asks the host synchronously (answered within the turn).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HostSync {
    /// The events the extension handles now.
    Events(Vec<String>),
    /// `pi.registerTool(def)`: the definition's JSON.
    RegisterTool(Value),
    /// `pi.getAllTools()`.
    GetAllTools,
    /// The spec of a built-in tool (`create<Tool>Tool`): name, label, description, parameters.
    BuiltinSpec(String),
    /// Another extension's tool's `reachesTools(input)`.
    ReachesTools {
        /// The tool.
        name: String,
        /// The input.
        input: Value,
    },
    /// `pi.getActiveTools()`.
    GetActiveTools,
    /// `pi.setActiveTools(names)`.
    SetActiveTools(Vec<String>),
    /// `ctx.ui.notify(message, type)`.
    Notify {
        /// The text.
        message: String,
        /// `info`, `warning` or `error`.
        level: String,
    },
    /// A fire-and-forget `ctx.ui` call.
    Ui(crate::api::UiFire),
    /// `formatSize(bytes)`.
    FormatSize(f64),
    /// `truncateHead`/`truncateTail` and friends: the options object.
    Truncate(Value),
    /// `truncateLine(line, maxChars)`.
    TruncateLine {
        /// The line.
        line: String,
        /// The character limit, if given.
        max_chars: Option<u64>,
    },
    /// The commands the extension registered now: `[{name, description}]`.
    Commands(Vec<Value>),
    /// The keyboard shortcuts it registered now: `[{key, description}]`.
    Shortcuts(Vec<Value>),
    /// The custom message types it draws now.
    Renderers(Vec<String>),
    /// The custom entry types it draws now.
    EntryRenderers(Vec<String>),
    /// `pi.registerMcpServer(name, config)`: answered with what is wrong, or `null`.
    RegisterMcpServer {
        /// The server's name.
        name: String,
        /// Its `mcpServers` entry.
        config: Value,
    },
    /// The MCP servers it registered now: `[{name, config}]`.
    McpServers(Vec<Value>),
    /// The tools it draws (`renderCall`/`renderResult`) now.
    ToolRenderers(Vec<String>),
    /// A session read or change (`ctx.sessionManager`, `pi.appendEntry`, …).
    Session(SessionCall),
    /// A new component id (unique in the process).
    NewComponent,
    /// The theme (`ctx.ui.theme`).
    Theme,
    /// `setFooter`/`setHeader`: component `id` (`None`: the built-in one).
    Place {
        /// Where.
        slot: crate::api::ComponentSlot,
        /// The component.
        id: Option<u64>,
    },
    /// A request this host does not know (answered with `null`).
    Unknown(String),
}

/// A fire-and-forget UI call as the glue sends it: `{method, …}`.
fn ui_fire(p: &Value) -> Option<crate::api::UiFire> {
    use crate::api::UiFire;
    let text = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    Some(match p.get("method")?.as_str()? {
        "setStatus" => UiFire::Status { key: text("key")?, text: text("text") },
        "setWidget" => UiFire::Widget {
            key: text("key")?,
            lines: p.get("lines").filter(|l| l.is_array()).map(strings),
            placement: text("placement"),
        },
        "setTitle" => UiFire::Title(text("title")?),
        "setEditorText" => UiFire::EditorText(text("text")?),
        "setWorkingMessage" => UiFire::WorkingMessage(text("text")),
        "componentDone" => UiFire::ComponentDone {
            id: p.get("id")?.as_u64()?,
            result: p.get("result").cloned().unwrap_or(Value::Null),
        },
        "render" => UiFire::Render,
        _ => return None,
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

impl HostSync {
    /// The request `kind` with its JSON `payload`, as the glue sends it.
    pub(crate) fn parse(kind: &str, payload: &str) -> HostSync {
        let p: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
        let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match kind {
            "events" => HostSync::Events(strings(&p)),
            "commands" => HostSync::Commands(p.as_array().cloned().unwrap_or_default()),
            "shortcuts" => HostSync::Shortcuts(p.as_array().cloned().unwrap_or_default()),
            "renderers" => HostSync::Renderers(strings(&p)),
            "entryRenderers" => HostSync::EntryRenderers(strings(&p)),
            "registerMcpServer" => {
                HostSync::RegisterMcpServer { name: s("name"), config: p.get("config").cloned().unwrap_or(Value::Null) }
            }
            "mcpServers" => HostSync::McpServers(p.as_array().cloned().unwrap_or_default()),
            "toolRenderers" => HostSync::ToolRenderers(strings(&p)),
            "session" => match session_call(&p) {
                Some(call) => HostSync::Session(call),
                None => HostSync::Unknown(format!("session:{}", s("kind"))),
            },
            "registerTool" => HostSync::RegisterTool(p),
            "getAllTools" => HostSync::GetAllTools,
            "reachesTools" => {
                HostSync::ReachesTools { name: s("name"), input: p.get("input").cloned().unwrap_or(Value::Null) }
            }
            "getActiveTools" => HostSync::GetActiveTools,
            "setActiveTools" => HostSync::SetActiveTools(strings(&p)),
            "notify" => HostSync::Notify { message: s("message"), level: s("type") },
            "newComponent" => HostSync::NewComponent,
            "theme" => HostSync::Theme,
            "place" => {
                let slot = if s("slot") == "header" {
                    crate::api::ComponentSlot::Header
                } else {
                    crate::api::ComponentSlot::Footer
                };
                HostSync::Place { slot, id: p.get("id").and_then(Value::as_u64) }
            }
            "ui" => match ui_fire(&p) {
                Some(call) => HostSync::Ui(call),
                None => HostSync::Unknown(format!("ui:{}", s("method"))),
            },
            "formatSize" => HostSync::FormatSize(p.as_f64().unwrap_or(0.0)),
            "builtinSpec" => HostSync::BuiltinSpec(p.as_str().unwrap_or("").to_string()),
            "truncate" => HostSync::Truncate(p),
            "truncateLine" => {
                HostSync::TruncateLine { line: s("line"), max_chars: p.get("maxChars").and_then(Value::as_u64) }
            }
            other => HostSync::Unknown(other.to_string()),
        }
    }
}

/// What the Rust future of a call hears from JavaScript.
pub(crate) enum CallMsg {
    /// A host operation to perform; answer with [`Msg::Complete`].
    Op {
        /// The operation's id.
        op: u64,
        /// What to do.
        request: HostOp,
    },
    /// A tool's partial result (fire and forget).
    Update(Value),
    /// The call's outcome.
    Done(Result<Value, EngineError>),
}

/// Receives a call's [`CallMsg`]s.
pub(crate) type CallSink = tokio::sync::mpsc::UnboundedSender<CallMsg>;

/// An extension of an engine (0: the engine itself).
pub(crate) type ExtId = u32;

/// The engine's side of the channel for one extension: what it sends is
/// about that extension.
#[derive(Clone)]
pub(crate) struct ExtSender {
    tx: std::sync::mpsc::Sender<(ExtId, Msg)>,
    ext: ExtId,
}

impl ExtSender {
    /// The sender for `ext` over `tx`.
    pub(crate) fn new(tx: std::sync::mpsc::Sender<(ExtId, Msg)>, ext: ExtId) -> Self {
        ExtSender { tx, ext }
    }

    /// Send `msg` about this extension; an error when the engine is gone.
    pub(crate) fn send(&self, msg: Msg) -> Result<(), ()> {
        self.tx.send((self.ext, msg)).map_err(|_| ())
    }
}

/// The extension's handle as its engine thread holds it (weakly: the
/// handle's owners decide when the extension stops). The tools the
/// extension registers after its load are made with it.
pub(crate) trait ExtHandle: Send + Sync {
    /// The engine thread's id.
    fn thread(&self) -> usize;
    /// Tool `meta`, run by this extension.
    fn tool(self: Arc<Self>, meta: ToolMeta) -> Arc<dyn AgentTool>;
}

/// What the engine thread is asked to do, about one extension.
pub(crate) enum Msg {
    /// Load an extension: its settings, where the load call's outcome goes,
    /// and what its handle reads.
    Start(Box<EngineConfig>, CallSink, Shared),
    /// No extension will be started any more: the thread ends when the last one stops.
    Sealed,
    /// The engine's own handle (for tools registered later).
    Handle(Weak<dyn ExtHandle>),
    /// Start a call.
    Invoke {
        /// The call's id.
        id: u64,
        /// What to run.
        call: Entry,
        /// Its JSON payload.
        payload: Value,
        /// Where its messages go.
        sink: CallSink,
    },
    /// A host operation finished.
    Complete {
        /// The operation.
        op: u64,
        /// Its outcome.
        result: OpResult,
    },
    /// A partial result of a nested call (`executeTool` with updates).
    OpUpdate {
        /// The operation.
        op: u64,
        /// The partial result.
        payload: Value,
    },
    /// Something happened to a child process the extension started.
    Child {
        /// The child's id (the glue's).
        id: u64,
        /// What happened.
        event: ChildEvent,
    },
    /// The call's abort signal fired.
    Abort {
        /// The call.
        id: u64,
    },
    /// The call's Rust side is gone: drop its sink.
    Forget {
        /// The call.
        id: u64,
    },
    /// Bind the session's tools; answered once the pending registrations reached them.
    Bind(Arc<dyn ToolsApi>, tokio::sync::oneshot::Sender<()>),
    /// Run a [`Hook`] of tool `name` (empty for hooks of the extension).
    Hook {
        /// Which.
        hook: Hook,
        /// The tool.
        name: String,
        /// The JSON input.
        payload: Value,
        /// Where the answer goes.
        reply: HookReply,
    },
    /// Stop the extension.
    Shutdown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_parse_and_answer_after_the_call_ended() {
        let confirm = HostOp::parse("confirm", r#"{"title":"t","message":"m","timeout":5}"#);
        assert_eq!(
            confirm,
            HostOp::Dialog(UiRequest::Confirm { title: "t".into(), message: "m".into(), timeout: Some(5) })
        );
        assert_eq!(confirm.after_call_ended(), Ok(OpAnswer::Json(Value::Bool(false))));
        assert_eq!(HostOp::parse("input", "{}").after_call_ended(), Ok(OpAnswer::Undefined));
        let exec = HostOp::parse("executeTool", r#"{"name":"read","updates":true}"#);
        assert_eq!(exec, HostOp::ExecuteTool { name: "read".into(), args: serde_json::json!({}), updates: true });
        assert_eq!(exec.after_call_ended(), Err(OpError::CallEnded));
        assert_eq!(HostOp::parse("nope", "not json"), HostOp::Unknown("nope".into()));
    }

    #[test]
    fn sync_requests_parse_bad_payloads_as_empty() {
        assert_eq!(HostSync::parse("events", r#"["tool_call", 3]"#), HostSync::Events(vec!["tool_call".into()]));
        assert_eq!(HostSync::parse("setActiveTools", "garbage"), HostSync::SetActiveTools(vec![]));
        assert_eq!(HostSync::parse("what", "{}"), HostSync::Unknown("what".into()));
        assert_eq!(HostSync::parse("session", r#"{"kind":"getLeafId"}"#), HostSync::Session(SessionCall::LeafId));
        assert_eq!(
            HostSync::parse("session", r#"{"kind":"appendEntry","customType":"s","data":{"n":1}}"#),
            HostSync::Session(SessionCall::AppendEntry { custom_type: "s".into(), data: serde_json::json!({"n": 1}) })
        );
        // A call missing what it needs, or of an unknown kind, is no call.
        assert_eq!(HostSync::parse("session", r#"{"kind":"getEntry"}"#), HostSync::Unknown("session:getEntry".into()));
        assert_eq!(HostSync::parse("session", "[1]"), HostSync::Unknown("session:".into()));
        assert_eq!(
            HostOp::parse("command", r#"{"method":"fork","entryId":"e1","position":"at"}"#),
            HostOp::Command(CommandOp::Fork { entry_id: "e1".into(), at: true })
        );
        assert_eq!(HostOp::parse("command", r#"{"method":"fork"}"#), HostOp::Unknown("command:fork".into()));
    }
}
