//! The agent of `pi`: the loop that turns a prompt into model requests and
//! tool calls, the tool registry (exposure, active, declared and callable
//! sets), the one dispatch pipeline every tool call takes, the system prompt
//! and the session files.
//!
//! `pi-agent` knows nothing of JavaScript, MCP or terminals: extensions reach
//! it through the [`Interceptor`] trait and by registering [`AgentTool`]s.
#![deny(missing_docs)]

mod abort;
mod access;
mod adopt;
mod agent;
mod boundary;
mod builder;
pub mod compaction;
mod context_system;
mod convert;
mod credentials;
mod dispatch;
mod events;
mod hook_event;
mod hooks;
mod inbox;
mod live;
mod loadout;
mod messages;
mod nested;
mod observe;
mod prompt;
mod prompt_images;
mod prompt_skills;
mod provider_events;
mod queues;
mod registry;
mod retry;
pub mod session;
mod settle;
mod system_message;
mod text;
mod tool;
mod tool_changes;
mod user_bash;

pub use abort::{AbortHandle, RunTicket};
pub use agent::{Agent, EventSink, InputExpander, PromptBuilder, RecordFn, SessionErrorFn, SharedSession};
pub use builder::AgentBuilder;
pub use credentials::{CredentialError, CredentialSource, RequestAuth};
pub use dispatch::{CallRequest, Caller, Dispatcher, Finished, RawArgs, Ready, Refusal, ToolEvent, ToolEventSink};
pub use events::{AgentEvent, EventToolResult};
pub use hook_event::{HookEvent, HookMessage};
pub use hooks::{HandlerError, Interceptor, Observed, ResultPatch, ToolCallDecision, ToolCallEvent, ToolResultEvent};
pub use live::{LiveSettings, ModelChoice, QUEUE_ALL, QUEUE_ONE_AT_A_TIME, ThinkingChoice};
pub use loadout::LoadoutError;
pub use messages::{
    AgentMessage, AgentOnly, BashExecutionMessage, CustomMessage, converted_for_llm, llm_refs, replay_tool_changes,
    to_llm,
};
pub use nested::{
    NESTED_MAX_ARGUMENT_BYTES_PER_CALL, NESTED_MAX_ARGUMENT_BYTES_TOTAL, NESTED_MAX_CALLS, NESTED_MAX_ERROR_CHARS,
    NestedCallEntry, NestedCaller, NestedCalls, NestedOutcome, NestedStatus,
};
/// A tool's `constrainedSampling` (part of [`ToolDef`]).
pub use pi_ai::ConstrainedSampling;
pub use prompt::{PromptInputs, PromptSections, build_prompt_sections, build_system_prompt};
pub use queues::{Delivery, Inbox, Queue, Queued, Waiting, queue_texts};
pub use registry::Registry;
pub use retry::{DEFAULT_MAX_RETRY_DELAY_MS, RetryDecision, RetrySettings, is_retryable};
pub use text::compaction_failed as compaction_failed_text;
pub use tool::{
    AgentTool, BuiltinTool, ExecutionMode, Exposure, Invocation, Loadout, LoadoutChanges, Namespace, Reach, ToolDef,
};
pub use tool_changes::ToolChanges;
pub use user_bash::{UserBashAnswer, UserBashEvent, run_user_bash};
