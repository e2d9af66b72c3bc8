//! The agent loop's events as extensions and the shipped policies hear them,
//! one definition each with the reference's names and fields (`type` in
//! snake case, fields in camel case, in the reference's order). An event
//! borrows what it tells of, so building one costs nothing; it becomes JSON
//! only for a source that listens ([`HookEvent::to_value`]). The session's
//! own events (model and tree changes, restores) are the runtime's.

use serde::Serialize;
use serde_json::Value;

use crate::events::EventToolResult;
use crate::messages::AgentMessage;

/// A message an event carries, however the agent holds it.
#[derive(Debug, Clone, Copy)]
pub enum HookMessage<'a> {
    /// A message the model reads.
    Llm(&'a pi_ai::Message),
    /// Already as JSON.
    Json(&'a Value),
}

impl Serialize for HookMessage<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HookMessage::Llm(m) => m.serialize(s),
            HookMessage::Json(v) => v.serialize(s),
        }
    }
}

/// An event of the agent loop.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum HookEvent<'a> {
    /// A run starts.
    AgentStart {},
    /// A run ended, with its messages.
    AgentEnd {
        /// The run's messages.
        messages: &'a [AgentMessage],
    },
    /// The agent is idle again.
    AgentSettled {
        /// The run was aborted.
        aborted: bool,
    },
    /// A turn starts.
    TurnStart {
        /// Its index in the run.
        turn_index: u64,
        /// When (milliseconds since the epoch).
        timestamp: i64,
    },
    /// A message enters the conversation (an answer: as it starts streaming).
    MessageStart {
        /// The message.
        message: HookMessage<'a>,
    },
    /// An answer streams.
    MessageUpdate {
        /// The answer so far.
        message: &'a Value,
        /// The stream event, with the answer so far as `partial`.
        assistant_message_event: &'a Value,
    },
    /// A message is complete (an answer's handlers may replace it).
    MessageEnd {
        /// The message.
        message: HookMessage<'a>,
    },
    /// The conversation about to be sent (handlers may replace it).
    Context {
        /// The messages, system messages left out.
        messages: Vec<&'a AgentMessage>,
    },
    /// A tool call starts.
    ToolExecutionStart {
        /// The call's id.
        tool_call_id: &'a str,
        /// The tool.
        tool_name: &'a str,
        /// Its arguments as given.
        args: &'a Value,
        /// The call that made this one (nested calls).
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<&'a str>,
    },
    /// A tool call reports progress.
    ToolExecutionUpdate {
        /// The call's id.
        tool_call_id: &'a str,
        /// The tool.
        tool_name: &'a str,
        /// Its arguments.
        args: &'a Value,
        /// The result so far.
        partial_result: EventToolResult,
        /// The call that made this one (nested calls).
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<&'a str>,
    },
    /// A tool call ended.
    ToolExecutionEnd {
        /// The call's id.
        tool_call_id: &'a str,
        /// The tool.
        tool_name: &'a str,
        /// Its result.
        result: EventToolResult,
        /// It failed.
        is_error: bool,
        /// How long it ran.
        #[serde(skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
        /// The call that made this one (nested calls).
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<&'a str>,
    },
    /// A compaction is about to run (a handler may cancel it or supply its own).
    SessionBeforeCompact {
        /// What would be summarized and kept, and the settings.
        preparation: Value,
        /// The branch's entries (left empty when no source listens).
        branch_entries: Vec<Value>,
        /// The user's instructions.
        custom_instructions: Option<&'a str>,
        /// `manual`, `threshold` or `overflow`.
        reason: &'static str,
        /// The request that overflowed is sent again after it.
        will_retry: bool,
    },
    /// A compaction was saved.
    SessionCompact {
        /// Its session entry.
        compaction_entry: Option<Value>,
        /// An extension supplied it.
        from_extension: bool,
        /// `manual`, `threshold` or `overflow`.
        reason: &'static str,
        /// The request that overflowed is sent again after it.
        will_retry: bool,
    },
    /// A message typed or sent, before it is routed (handlers may
    /// transform or handle it).
    Input {
        /// Its text.
        text: &'a str,
        /// `interactive`, `rpc` or `extension`.
        source: &'a str,
        /// Images sent with it.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        images: Vec<Value>,
        /// How RPC queues it while a run streams (`steer`, `followUp`).
        #[serde(skip_serializing_if = "Option::is_none")]
        streaming_behavior: Option<&'a str>,
    },
    /// A run a user message opens is about to start (handlers may change
    /// the prompt, add messages or sections).
    #[serde(rename = "before_agent_start")]
    BeforeAgentStartUser {
        /// `user`.
        message_type: &'static str,
        /// The message as the agent will send it.
        prompt: &'a str,
        /// Its images (none: images are not passed on).
        images: [Value; 0],
        /// The system prompt.
        system_prompt: &'a str,
        /// The facts it is built from.
        system_prompt_options: Value,
    },
    /// A run a custom message opens is about to start.
    #[serde(rename = "before_agent_start")]
    BeforeAgentStartCustom {
        /// `custom`.
        message_type: &'static str,
        /// The custom message.
        message: Value,
        /// The system prompt.
        system_prompt: &'a str,
        /// The facts it is built from.
        system_prompt_options: Value,
    },
    /// A tool call is about to run (handlers may block it or change its input).
    ToolCall {
        /// The tool.
        tool_name: &'a str,
        /// The call's id.
        tool_call_id: &'a str,
        /// Its arguments.
        input: &'a Value,
        /// The call that made this one (nested calls).
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<&'a str>,
    },
    /// A tool call's result (handlers may patch it).
    ToolResult {
        /// The tool.
        tool_name: &'a str,
        /// The call's id.
        tool_call_id: &'a str,
        /// Its arguments.
        input: &'a Value,
        /// The result's content.
        content: &'a [pi_tools::Content],
        /// Its details.
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<&'a Value>,
        /// Its structured output.
        #[serde(skip_serializing_if = "Option::is_none")]
        structured_content: Option<&'a Value>,
        /// It failed.
        is_error: bool,
        /// What a nested model call cost.
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<&'a Value>,
        /// The call that made this one (nested calls).
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<&'a str>,
    },
    /// A command the user typed with `!` (handlers may run it themselves).
    UserBash {
        /// The command.
        command: &'a str,
        /// `!!`: its record stays out of the model's context.
        exclude_from_context: bool,
        /// The folder it runs in.
        cwd: String,
    },
    /// Whether to trust the project folder (handlers may decide).
    ProjectTrust {
        /// The folder.
        cwd: String,
    },
    /// The skills and prompt templates extensions add.
    ResourcesDiscover {
        /// The working folder.
        cwd: String,
        /// `startup` or `reload`.
        reason: &'a str,
    },
    /// A turn ended (handlers may propose entries or a continuation).
    TurnEnd {
        /// Its index in the run.
        turn_index: u64,
        /// Its answer.
        message: HookMessage<'a>,
        /// Its tool results.
        tool_results: Vec<Value>,
        /// The answer's session entry.
        message_entry_id: Option<String>,
        /// The results' session entries.
        tool_result_entry_ids: Vec<String>,
        /// What every turn boundary carries (the branch, the context, what
        /// was proposed so far).
        #[serde(flatten)]
        boundary: Value,
    },
}

impl HookEvent<'_> {
    /// The event's name (its `type`).
    pub fn kind(&self) -> &'static str {
        match self {
            HookEvent::AgentStart {} => "agent_start",
            HookEvent::AgentEnd { .. } => "agent_end",
            HookEvent::AgentSettled { .. } => "agent_settled",
            HookEvent::TurnStart { .. } => "turn_start",
            HookEvent::MessageStart { .. } => "message_start",
            HookEvent::MessageUpdate { .. } => "message_update",
            HookEvent::MessageEnd { .. } => "message_end",
            HookEvent::Context { .. } => "context",
            HookEvent::ToolExecutionStart { .. } => "tool_execution_start",
            HookEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            HookEvent::ToolExecutionEnd { .. } => "tool_execution_end",
            HookEvent::TurnEnd { .. } => "turn_end",
            HookEvent::SessionBeforeCompact { .. } => "session_before_compact",
            HookEvent::Input { .. } => "input",
            HookEvent::BeforeAgentStartUser { .. } | HookEvent::BeforeAgentStartCustom { .. } => "before_agent_start",
            HookEvent::ToolCall { .. } => "tool_call",
            HookEvent::ToolResult { .. } => "tool_result",
            HookEvent::UserBash { .. } => "user_bash",
            HookEvent::ProjectTrust { .. } => "project_trust",
            HookEvent::ResourcesDiscover { .. } => "resources_discover",
            HookEvent::SessionCompact { .. } => "session_compact",
        }
    }

    /// The event as sources receive it (`type` first).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_read_as_the_references_in_its_order() {
        let args = json!({"path": "a"});
        let text = |e: HookEvent<'_>| {
            let v = e.to_value();
            assert_eq!(v["type"], e.kind());
            v.to_string()
        };
        assert_eq!(text(HookEvent::AgentStart {}), r#"{"type":"agent_start"}"#);
        assert_eq!(text(HookEvent::AgentSettled { aborted: true }), r#"{"type":"agent_settled","aborted":true}"#);
        assert_eq!(
            text(HookEvent::TurnStart { turn_index: 2, timestamp: 5 }),
            r#"{"type":"turn_start","turnIndex":2,"timestamp":5}"#
        );
        assert_eq!(
            text(HookEvent::ToolExecutionStart {
                tool_call_id: "c1",
                tool_name: "read",
                args: &args,
                parent_tool_call_id: None
            }),
            r#"{"type":"tool_execution_start","toolCallId":"c1","toolName":"read","args":{"path":"a"}}"#
        );
        assert_eq!(
            text(HookEvent::ToolExecutionStart {
                tool_call_id: "c2",
                tool_name: "read",
                args: &args,
                parent_tool_call_id: Some("c1")
            }),
            r#"{"type":"tool_execution_start","toolCallId":"c2","toolName":"read","args":{"path":"a"},"parentToolCallId":"c1"}"#
        );
        assert_eq!(
            text(HookEvent::SessionCompact {
                compaction_entry: Some(json!({"id": "e"})),
                from_extension: false,
                reason: "manual",
                will_retry: false
            }),
            r#"{"type":"session_compact","compactionEntry":{"id":"e"},"fromExtension":false,"reason":"manual","willRetry":false}"#
        );
        assert_eq!(
            text(HookEvent::SessionBeforeCompact {
                preparation: json!({}),
                branch_entries: vec![],
                custom_instructions: None,
                reason: "threshold",
                will_retry: true
            }),
            r#"{"type":"session_before_compact","preparation":{},"branchEntries":[],"customInstructions":null,"reason":"threshold","willRetry":true}"#
        );
        assert_eq!(
            text(HookEvent::Input { text: "hi", source: "rpc", images: vec![], streaming_behavior: Some("steer") }),
            r#"{"type":"input","text":"hi","source":"rpc","streamingBehavior":"steer"}"#
        );
        assert_eq!(
            text(HookEvent::BeforeAgentStartUser {
                message_type: "user",
                prompt: "go",
                images: [],
                system_prompt: "s",
                system_prompt_options: json!({})
            }),
            r#"{"type":"before_agent_start","messageType":"user","prompt":"go","images":[],"systemPrompt":"s","systemPromptOptions":{}}"#
        );
        let content = [pi_tools::Content::Text { text: "ok".into() }];
        assert_eq!(
            text(HookEvent::ToolResult {
                tool_name: "read",
                tool_call_id: "c1",
                input: &args,
                content: &content,
                details: None,
                structured_content: None,
                is_error: false,
                usage: None,
                parent_tool_call_id: None
            }),
            r#"{"type":"tool_result","toolName":"read","toolCallId":"c1","input":{"path":"a"},"content":[{"type":"text","text":"ok"}],"isError":false}"#
        );
        let message = json!({"role": "user"});
        assert_eq!(
            text(HookEvent::TurnEnd {
                turn_index: 0,
                message: HookMessage::Json(&message),
                tool_results: vec![],
                message_entry_id: None,
                tool_result_entry_ids: vec![],
                boundary: json!({"entries": [], "continue": false}),
            }),
            r#"{"type":"turn_end","turnIndex":0,"message":{"role":"user"},"toolResults":[],"messageEntryId":null,"toolResultEntryIds":[],"entries":[],"continue":false}"#
        );
    }
}
