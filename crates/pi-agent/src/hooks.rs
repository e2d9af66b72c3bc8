//! The extension points of the dispatch path: `tool_call` handlers (block,
//! mutate, terminate; a failing handler blocks) and `tool_result` handlers
//! (patch; a failing handler is reported and skipped). Requirements I1–I3.
//! Also the words of the agent's other hooks (compaction, `user_bash`, the
//! turn boundaries' proposals, the event object and the observer chain), so
//! the modules that run them need not reach the agent for them.

use futures::future::BoxFuture;
use pi_tools::Content;
use serde_json::{Map, Value};

use crate::tool::ToolDef;

/// What a hook of an extension decided about a compaction.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionHook {
    /// Do not compact.
    Cancel,
    /// Use this compaction (`summary`, `details`, `usage`…) instead of making one.
    Supply(Value),
}

/// What `user_bash` handlers see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserBashEvent {
    /// The command.
    pub command: String,
    /// `!!cmd`: the record stays out of the model's context.
    pub exclude_from_context: bool,
    /// The folder it runs in.
    pub cwd: std::path::PathBuf,
}

/// What one source's `user_bash` handlers said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserBashAnswer {
    /// The command's result, when a handler ran or answered it.
    pub result: Option<pi_tools::UserCommandResult>,
    /// Handlers that failed (reported; the next one is asked).
    pub errors: Vec<String>,
}

/// What a `tool_call` handler sees; `input` may be changed in place and later
/// handlers and the tool see the change (no re-validation).
#[derive(Debug, Clone)]
pub struct ToolCallEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The validated arguments, mutable.
    pub input: Value,
    /// The id of the call that made this nested call, if any.
    pub parent_tool_call_id: Option<String>,
    /// The called tool's definition as registered now (annotations,
    /// exposure), so a policy reads the live registry, tools registered
    /// after start-up included.
    pub definition: ToolDef,
    /// Where the tool comes from (`sourceInfo.path`: an extension's file, or
    /// `builtin:<name>`).
    pub source: String,
}

impl ToolCallEvent {
    /// The event of a call `id` to `tool` with validated `input`.
    pub fn new(id: &str, tool: &dyn crate::tool::AgentTool, input: Value, parent: Option<&str>) -> Self {
        ToolCallEvent {
            tool_call_id: id.to_string(),
            tool_name: tool.def().name.clone(),
            input,
            parent_tool_call_id: parent.map(str::to_string),
            definition: tool.def().clone(),
            source: tool.source_info_path(),
        }
    }
}

/// A `tool_call` handler's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallDecision {
    /// Refuse the call.
    pub block: bool,
    /// Why (sent to the model).
    pub reason: Option<String>,
    /// Ask the run to end after this batch.
    pub terminate: bool,
}

impl ToolCallDecision {
    /// Refuse the call, telling the model `reason`.
    pub fn block(reason: impl Into<String>) -> Self {
        ToolCallDecision { block: true, reason: Some(reason.into()), terminate: false }
    }
}

/// What a `tool_result` handler sees.
#[derive(Debug, Clone)]
pub struct ToolResultEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The arguments the tool ran with.
    pub input: Value,
    /// The result so far.
    pub content: Vec<Content>,
    /// Its details.
    pub details: Option<Value>,
    /// Whether it is an error.
    pub is_error: bool,
    /// The structured value programmatic callers receive, when any.
    pub structured_content: Option<Value>,
    /// Usage the tool caused, when any.
    pub usage: Option<Value>,
    /// Parent call id for nested calls.
    pub parent_tool_call_id: Option<String>,
}

/// A partial change to a result; absent fields keep their value.
#[derive(Debug, Clone, Default)]
pub struct ResultPatch {
    /// New content.
    pub content: Option<Vec<Content>>,
    /// New details.
    pub details: Option<Option<Value>>,
    /// New error flag.
    pub is_error: Option<bool>,
    /// Failures of some of the source's handlers, to report; the rest of the
    /// patch still applies (a source may run several handlers in a chain).
    pub errors: Vec<String>,
}

/// What a source's handlers of a lifecycle event gave back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// The changed value of a transforming event (`context`: the messages,
    /// `message_end`: the message); `None` when no handler changed it.
    pub value: Option<Value>,
    /// Failures of some of the handlers, to report.
    pub errors: Vec<String>,
}

/// A handler or hook from outside the agent failed: an extension's threw,
/// a shipped policy could not decide. Its `Display` is the handler's own
/// message, which the model (a blocked call's result) or the error report
/// shows as it is: free-form text from the handler, carried as it came.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HandlerError {
    /// The handler's own words.
    pub message: String,
}

impl HandlerError {
    /// A failure with the handler's `message`.
    pub fn new(message: impl Into<String>) -> Self {
        HandlerError { message: message.into() }
    }
}

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        HandlerError { message }
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        HandlerError::new(message)
    }
}

/// A set of handlers from one source (an extension, a shipped policy).
pub trait Interceptor: Send + Sync {
    /// Where the handlers come from (for error reports).
    fn source(&self) -> &str;
    /// Before a call runs. `Err` blocks the call with the handler's message.
    fn on_tool_call<'a>(
        &'a self,
        _ev: &'a mut ToolCallEvent,
    ) -> BoxFuture<'a, Result<Option<ToolCallDecision>, HandlerError>> {
        Box::pin(async { Ok(None) })
    }
    /// Whether these handlers judge a call as it will run: their
    /// `tool_call` handlers are asked after every other source's, whatever
    /// the load order, so no later rewrite of the input escapes them (the
    /// shipped policies).
    fn judges_final_input(&self) -> bool {
        false
    }
    /// After a call ran. `Err` is reported and the result kept.
    fn on_tool_result<'a>(
        &'a self,
        _ev: &'a ToolResultEvent,
    ) -> BoxFuture<'a, Result<Option<ResultPatch>, HandlerError>> {
        Box::pin(async { Ok(None) })
    }
    /// Before a compaction (`session_before_compact`, the event as JSON):
    /// cancel it or supply the compaction. `Err` is reported, the next
    /// handler asked.
    fn on_before_compact<'a>(
        &'a self,
        _event: &'a Value,
    ) -> BoxFuture<'a, Result<Option<CompactionHook>, HandlerError>> {
        Box::pin(async { Ok(None) })
    }
    /// After a compaction (`session_compact`).
    fn on_compact<'a>(&'a self, _event: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    /// Whether a handler listens to lifecycle event `event` (`agent_start`,
    /// `turn_end`, `message_end`, `context`, `tool_execution_start`, …);
    /// nothing is built or awaited for an event no source listens to.
    fn listens(&self, _event: &str) -> bool {
        false
    }
    /// Run the handlers of lifecycle event `event` (`payload` is the event
    /// object, `type` included) and wait for them. A transforming event
    /// (`context`, `message_end`) answers with the changed value.
    fn observe<'a>(&'a self, _event: &'a str, _payload: Value) -> BoxFuture<'a, Observed> {
        Box::pin(async { Observed::default() })
    }
    /// Hand lifecycle event `event` to the handlers without waiting for them
    /// (`tool_execution_update`, from where nothing can wait).
    fn observe_later(&self, _event: &str, _payload: Value) {}
    /// Before a user command runs (`user_bash`): a result replaces the
    /// local run. `ctx` carries the abort signal, and partial results whose
    /// text is streamed output.
    fn on_user_bash<'a>(
        &'a self,
        _ev: &'a UserBashEvent,
        _ctx: &'a pi_tools::ToolContext,
    ) -> BoxFuture<'a, UserBashAnswer> {
        Box::pin(async { Default::default() })
    }
}

/// What the handlers of one turn boundary (`turn_end`, `agent_before_settle`)
/// proposed (appended by the agent, see `boundary.rs`).
#[derive(Debug, Default)]
pub(crate) struct Proposal {
    /// Draft session entries, in order.
    pub entries: Vec<Value>,
    /// Whether one more model request is asked for.
    pub cont: bool,
}

/// How a run or turn ended, as the reference names it.
pub(crate) fn outcome(stop: &pi_ai::StopReason) -> &'static str {
    match stop {
        pi_ai::StopReason::Aborted => "aborted",
        pi_ai::StopReason::Error => "error",
        _ => "completed",
    }
}

/// An event object: `type`, then `fields`.
pub(crate) fn event(kind: &str, fields: Value) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), kind.into());
    if let Value::Object(f) = fields {
        m.extend(f);
    }
    Value::Object(m)
}

/// Run the handlers of `kind` of every source in `sources` that listens, in
/// order, reporting failures through `report(source, kind, error)`. For a
/// transforming event the value under `key` chains from one source to the
/// next; the last change and the source that made it are returned.
pub(crate) async fn run_chain(
    sources: &[std::sync::Arc<dyn Interceptor>],
    report: &(dyn Fn(&str, &str, String) + Sync),
    kind: &str,
    mut payload: Value,
    key: Option<&str>,
) -> Option<(Value, String)> {
    let mut changed = None;
    for h in sources.iter().filter(|h| h.listens(kind)) {
        let out = h.observe(kind, payload.clone()).await;
        for error in out.errors {
            report(h.source(), kind, error);
        }
        if let (Some(k), Some(v)) = (key, out.value) {
            payload[k] = v.clone();
            changed = Some((v, h.source().to_string()));
        }
    }
    changed
}
