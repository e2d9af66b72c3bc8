//! The JSON shape of every agent event, as JSON and RPC mode print it (one
//! object per line, `type` first): one fixed value of each `AgentEvent`
//! variant, and a `message_update` for each kind of streaming delta, each
//! compared with its insta snapshot (`tests/snapshots/`). The snapshots
//! show the line pretty-printed; the keys and their order are the line's.
//!
//! The variants are listed once, in `events!`, which also writes a `match`
//! over the enum with no wildcard arm: a new variant does not compile until
//! it has a value here, and so a snapshot.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeSet;

use pi_agent::{AgentEvent, AgentMessage, AgentOnly, BashExecutionMessage, CustomMessage, EventToolResult};
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, Cost, Message, StopReason, ToolCall, ToolResultMessage,
    Usage, UserContent, UserMessage,
};
use serde_json::{Value, json};

/// Milliseconds since the epoch of every message here (2026-01-02T03:04:05.678Z).
const T0: i64 = 1_767_323_045_678;
/// The call every tool event is about.
const CALL_ID: &str = "call_0_0";

/// One event's line as JSON mode prints it, pretty-printed.
fn printed(ev: &impl serde::Serialize) -> String {
    let line = serde_json::to_string(ev).unwrap();
    assert!(!line.contains('\n'), "one line per event: {line}");
    // Re-reading keeps the key order (serde_json's `preserve_order`).
    let v: Value = serde_json::from_str(&line).unwrap();
    serde_json::to_string_pretty(&v).unwrap()
}

fn usage(input: u64, output: u64) -> Usage {
    // Prices of $3 / $15 per million tokens.
    let (ci, co) = (input as f64 * 3e-6, output as f64 * 15e-6);
    Usage {
        input,
        output,
        cache_read: 0,
        cache_write: 0,
        reasoning: Some(0),
        total_tokens: input + output,
        cost: Cost {
            input: ci,
            output: co,
            cache_read: 0.0,
            cache_write: 0.0,
            total: ci + co,
            total_from_provider: Some(false),
        },
        cache_write_1h: None,
    }
}

fn user() -> Message {
    Message::User(UserMessage {
        content: UserContent::Blocks(vec![ContentBlock::text("Read hello.txt")]),
        timestamp: T0,
    })
}

/// The assistant message of a turn: `content`, stopping for `stop`.
fn assistant(content: Vec<ContentBlock>, stop: StopReason) -> AssistantMessage {
    AssistantMessage {
        content,
        api: "openai-completions".into(),
        provider: "mock".into(),
        model: "mock-1".into(),
        usage: Box::new(usage(120, 30)),
        stop_reason: stop,
        timestamp: T0 + 10,
        response_id: Some("chatcmpl-0".into()),
        response_model: None,
        raw_stop_reason: Some(if stop == StopReason::ToolUse { "tool_calls" } else { "stop" }.into()),
        error_message: None,
        duration_ms: Some(250),
        thinking_level: Some("off".into()),
        failure: None,
    }
}

fn read_call() -> ContentBlock {
    ContentBlock::tool_call(CALL_ID, "read", json!({"path": "hello.txt"}))
}

fn calling() -> AssistantMessage {
    assistant(vec![ContentBlock::text("Reading it."), read_call()], StopReason::ToolUse)
}

fn answer() -> AssistantMessage {
    assistant(vec![ContentBlock::text("It says hello.")], StopReason::Stop)
}

fn tool_result() -> ToolResultMessage {
    ToolResultMessage {
        tool_call_id: CALL_ID.into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text("hello\n")],
        details: None,
        is_error: false,
        duration_ms: Some(3),
        nested_calls: None,
        usage: None,
        timestamp: T0 + 20,
    }
}

fn event_result(text: &str, details: Option<Value>) -> EventToolResult {
    EventToolResult { content: vec![pi_tools::Content::Text { text: text.into() }], details, structured_content: None }
}

/// A message the agent keeps beside the model's, as its events carry it.
fn agent_only(v: Value) -> Value {
    let m: AgentMessage = serde_json::from_value(v).unwrap();
    assert!(matches!(m, AgentMessage::Agent(_)), "{m:?}");
    serde_json::to_value(&m).unwrap()
}

/// The system message the first request of a session records.
fn system_message() -> Value {
    agent_only(json!({
        "role": "system",
        "content": "",
        "sections": {"preamble": "You are an expert coding assistant.", "cwd": "Current working directory: /work"},
        "toolsAdded": [{
            "name": "read",
            "description": "Read the contents of a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Path to the file to read"}}, "required": ["path"]},
            "constrainedSampling": {"type": "json_schema", "strict": "auto"},
        }],
        "timestamp": T0,
    }))
}

fn custom_message() -> Value {
    let m = CustomMessage {
        custom_type: "reminder".into(),
        content: json!("Remember the tests."),
        display: true,
        details: Some(Box::new(json!({"source": "ext"}))),
        timestamp: T0,
    };
    serde_json::to_value(AgentMessage::Agent(AgentOnly::Custom(m))).unwrap()
}

fn bash_execution() -> AgentMessage {
    AgentMessage::Agent(AgentOnly::BashExecution(BashExecutionMessage {
        command: "ls".into(),
        output: "hello.txt\n".into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        exclude_from_context: false,
        timestamp: T0 + 30,
    }))
}

/// A `context_edit` entry as the session writes it, with its id, parent and
/// time fixed.
fn context_edit_entry() -> Value {
    let mut s = pi_agent::session::Session::in_memory();
    let target = s.append_message(&user()).unwrap();
    let id = s.append("context_edit", json!({"targetId": target, "replacement": null})).unwrap();
    let mut entry = s.get(&id).unwrap().value();
    let fixed = |v: &mut Value, key: &str, to: &str| {
        assert!(v[key].is_string(), "{key} in {v}");
        v[key] = json!(to);
    };
    fixed(&mut entry, "id", "e0000002");
    fixed(&mut entry, "parentId", "e0000001");
    fixed(&mut entry, "timestamp", "2026-01-02T03:04:05.698Z");
    fixed(&mut entry, "targetId", "e0000001");
    entry
}

/// What `compact` answers and `compaction_end` carries.
fn compaction_result() -> Value {
    json!({"summary": "## Goal\nRead hello.txt", "firstKeptEntryId": "e0000003", "tokensBefore": 1200,
        "estimatedTokensAfter": 300, "usage": usage(900, 80), "details": {"readFiles": ["hello.txt"], "modifiedFiles": []}})
}

/// Lists each variant once with the name of its snapshot and its value:
/// writes `kind` (an exhaustive `match`, no wildcard) and `samples`.
macro_rules! events {
    ($($variant:ident => $name:literal: $value:expr,)*) => {
        /// The snapshot name of an event's variant.
        fn kind(ev: &AgentEvent) -> &'static str {
            match ev {
                $(AgentEvent::$variant { .. } => $name,)*
            }
        }
        /// One value of every variant, named.
        fn samples() -> Vec<(&'static str, AgentEvent)> {
            vec![$(($name, $value),)*]
        }
    };
}

events! {
    AgentStart => "agent_start": AgentEvent::AgentStart,
    TurnStart => "turn_start": AgentEvent::TurnStart,
    MessageStart => "message_start": AgentEvent::MessageStart { message: user() },
    SystemMessageStart => "message_start__system": AgentEvent::SystemMessageStart { message: system_message() },
    SystemMessageEnd => "message_end__system": AgentEvent::SystemMessageEnd { message: system_message() },
    AgentMessageStart => "message_start__custom": AgentEvent::AgentMessageStart { message: custom_message() },
    AgentMessageEnd => "message_end__custom": AgentEvent::AgentMessageEnd { message: custom_message() },
    MessageUpdate => "message_update": AgentEvent::MessageUpdate {
        usage: usage(120, 4),
        assistant_message_event: AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: "Reading".into(),
            partial: calling().into(),
        },
    },
    MessageEnd => "message_end": AgentEvent::MessageEnd { message: Message::Assistant(calling()) },
    ToolExecutionStart => "tool_execution_start": AgentEvent::ToolExecutionStart {
        tool_call_id: CALL_ID.into(),
        tool_name: "read".into(),
        args: json!({"path": "hello.txt"}),
        parent_tool_call_id: None,
    },
    ToolExecutionUpdate => "tool_execution_update": AgentEvent::ToolExecutionUpdate {
        tool_call_id: "call_0_1".into(),
        tool_name: "bash".into(),
        args: json!({"command": "ls"}),
        partial_result: event_result("hello.txt\n", None),
        parent_tool_call_id: Some("call_0_0".into()),
    },
    ToolExecutionEnd => "tool_execution_end": AgentEvent::ToolExecutionEnd {
        tool_call_id: CALL_ID.into(),
        tool_name: "read".into(),
        result: event_result("hello\n", Some(json!({"truncation": null}))),
        is_error: false,
        duration_ms: Some(3),
        parent_tool_call_id: None,
    },
    TurnEnd => "turn_end": AgentEvent::TurnEnd { message: Message::Assistant(calling()), tool_results: vec![tool_result()] },
    AutoRetryStart => "auto_retry_start": AgentEvent::AutoRetryStart {
        attempt: 1,
        max_attempts: 3,
        delay_ms: 2000,
        error_message: "429 Too Many Requests".into(),
    },
    AutoRetryEnd => "auto_retry_end": AgentEvent::AutoRetryEnd {
        success: false,
        attempt: 3,
        final_error: Some("429 Too Many Requests".into()),
    },
    ExtensionError => "extension_error": AgentEvent::ExtensionError {
        extension_path: "/work/.pi/extensions/guard.ts".into(),
        event: "tool_call".into(),
        error: "guard failed".into(),
    },
    AgentEnd => "agent_end": AgentEvent::AgentEnd {
        messages: vec![
            user().into(),
            Message::Assistant(calling()).into(),
            Message::ToolResult(tool_result()).into(),
            Message::Assistant(answer()).into(),
            bash_execution(),
        ],
        will_retry: false,
    },
    QueueUpdate => "queue_update": AgentEvent::QueueUpdate {
        steering: vec!["steer this".into()],
        follow_up: vec!["then this".into()],
    },
    SessionInfoChanged => "session_info_changed": AgentEvent::SessionInfoChanged { name: Some("rpc run".into()) },
    ThinkingLevelChanged => "thinking_level_changed": AgentEvent::ThinkingLevelChanged { level: "high".into() },
    CompactionStart => "compaction_start": AgentEvent::CompactionStart { reason: "manual".into() },
    CompactionEnd => "compaction_end": AgentEvent::CompactionEnd {
        reason: "manual".into(),
        result: Some(compaction_result()),
        aborted: false,
        will_retry: false,
        error_message: None,
    },
    EntryAppended => "entry_appended": AgentEvent::EntryAppended { entry: context_edit_entry() },
    AgentSettled => "agent_settled": AgentEvent::AgentSettled { aborted: false },
}

/// Every variant's value is of that variant, under a name of its own.
#[test]
fn every_variant_has_one_named_value() {
    let samples = samples();
    let mut names = BTreeSet::new();
    for (name, ev) in &samples {
        assert_eq!(kind(ev), *name, "{ev:?}");
        assert!(names.insert(*name), "{name} twice");
    }
}

#[test]
fn every_event_prints_as_its_snapshot() {
    for (name, ev) in samples() {
        insta::assert_snapshot!(name, printed(&ev));
    }
}

/// The optional fields when absent, and a failure's fields.
#[test]
fn events_without_their_optional_fields() {
    let cases = [
        (
            "tool_execution_end__refused",
            AgentEvent::ToolExecutionEnd {
                tool_call_id: CALL_ID.into(),
                tool_name: "read".into(),
                result: event_result("Tool read not found", None),
                is_error: true,
                duration_ms: None,
                parent_tool_call_id: None,
            },
        ),
        ("session_info_changed__cleared", AgentEvent::SessionInfoChanged { name: None }),
        (
            "compaction_end__failed",
            AgentEvent::CompactionEnd {
                reason: "threshold".into(),
                result: None,
                aborted: false,
                will_retry: false,
                error_message: Some("Auto-compaction failed: 500 boom".into()),
            },
        ),
        (
            "compaction_end__aborted",
            AgentEvent::CompactionEnd {
                reason: "overflow".into(),
                result: None,
                aborted: true,
                will_retry: true,
                error_message: None,
            },
        ),
        ("auto_retry_end__success", AgentEvent::AutoRetryEnd { success: true, attempt: 2, final_error: None }),
        ("agent_settled__aborted", AgentEvent::AgentSettled { aborted: true }),
    ];
    for (name, ev) in cases {
        insta::assert_snapshot!(name, printed(&ev));
    }
}

/// Lists each kind of streaming delta a `message_update` carries once, as
/// `events!` does, and the kinds that never become one (the agent prints
/// `start` as `message_start`, `done` and `error` as `message_end`).
macro_rules! deltas {
    (never: $($never:ident),*; $($variant:ident => $name:literal: $value:expr,)*) => {
        fn delta_kind(ev: &AssistantMessageEvent) -> Option<&'static str> {
            match ev {
                $(AssistantMessageEvent::$variant { .. } => Some($name),)*
                $(AssistantMessageEvent::$never { .. } => None,)*
            }
        }
        fn deltas() -> Vec<(&'static str, AssistantMessageEvent)> {
            vec![$(($name, $value),)*]
        }
    };
}

deltas! {
    never: Start, Done, Error;
    TextStart => "text_start": AssistantMessageEvent::TextStart { content_index: 0, partial: calling().into() },
    TextDelta => "text_delta": AssistantMessageEvent::TextDelta {
        content_index: 0,
        delta: "Reading".into(),
        partial: calling().into(),
    },
    TextEnd => "text_end": AssistantMessageEvent::TextEnd {
        content_index: 0,
        content: "Reading it.".into(),
        partial: calling().into(),
    },
    ThinkingStart => "thinking_start": AssistantMessageEvent::ThinkingStart { content_index: 0, partial: calling().into() },
    ThinkingDelta => "thinking_delta": AssistantMessageEvent::ThinkingDelta {
        content_index: 0,
        delta: "The user wants".into(),
        partial: calling().into(),
    },
    ThinkingEnd => "thinking_end": AssistantMessageEvent::ThinkingEnd {
        content_index: 0,
        content: "The user wants the file.".into(),
        partial: calling().into(),
    },
    ToolcallStart => "toolcall_start": AssistantMessageEvent::ToolcallStart { content_index: 1, partial: calling().into() },
    ToolcallDelta => "toolcall_delta": AssistantMessageEvent::ToolcallDelta {
        content_index: 1,
        delta: "{\"path\":".into(),
        partial: calling().into(),
    },
    ToolcallEnd => "toolcall_end": AssistantMessageEvent::ToolcallEnd {
        content_index: 1,
        tool_call: ToolCall {
            id: CALL_ID.into(),
            name: "read".into(),
            arguments: json!({"path": "hello.txt"}),
            arguments_error: None,
        },
        partial: calling().into(),
    },
}

/// A `message_update` of every kind of delta. (JSON mode adds the call's
/// `id` and `toolName` to `toolcall_start`, read from the partial message,
/// in pi-cli's `json_mode::event_value`; here is the event as serde writes
/// it. pi-cli's `tests/rpc_shapes.rs` shows the printed line.)
#[test]
fn every_streaming_delta_prints_as_its_snapshot() {
    let mut names = BTreeSet::new();
    for (name, delta) in deltas() {
        assert_eq!(delta_kind(&delta), Some(name), "{delta:?}");
        assert!(names.insert(name), "{name} twice");
        let ev = AgentEvent::MessageUpdate { usage: delta.usage(), assistant_message_event: delta };
        insta::assert_snapshot!(format!("message_update__{name}"), printed(&ev));
    }
}
