//! A conversation with every kind of message and block the request
//! writers treat apart, for the tests that compare a writer's bytes with
//! the former value-built ones.

use serde_json::json;

use crate::types::{AssistantMessage, ContentBlock, Message, StopReason, ToolResultMessage, UserContent, UserMessage};

fn assistant(api: &str, content: Vec<ContentBlock>) -> Message {
    Message::Assistant(AssistantMessage { content, api: api.into(), ..Default::default() })
}

fn result(id: &str, content: Vec<ContentBlock>) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content,
        details: None,
        is_error: false,
        duration_ms: None,
        timestamp: 0,
        nested_calls: None,
        usage: None,
    })
}

fn thinking(t: &str, field: Option<&str>) -> ContentBlock {
    ContentBlock::Thinking { thinking: t.into(), signature: field.map(str::to_string) }
}

/// A conversation with every kind of message and block the writer treats
/// apart, with text that needs escaping.
pub(crate) fn rich_conversation(api: &str) -> Vec<Message> {
    let img = || ContentBlock::image("iVBOR\"w0=", "image/png");
    vec![
        Message::User(UserMessage::text("plain \"quoted\"\n\t\u{1}é\u{2028}")),
        Message::User(UserMessage { content: UserContent::Blocks(vec![]), ..UserMessage::text("") }),
        Message::User(UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::text(""), img(), img(), ContentBlock::text("after")]),
            ..UserMessage::text("")
        }),
        assistant(
            api,
            vec![
                thinking("let me ", Some("reasoning_content")),
                thinking("other", Some("reasoning")),
                thinking("", Some("reasoning_text")),
                thinking("think", Some("reasoning_content")),
                thinking("signed elsewhere", Some("sig")),
                thinking("unsigned", None),
                ContentBlock::text("part one, "),
                ContentBlock::text(""),
                ContentBlock::text("part two"),
                ContentBlock::tool_call("call_1|item_1", "read", json!({"path": "a \"b\".txt", "n": [1, 2.5, null]})),
                ContentBlock::tool_call("call_2", "bash", json!({"command": "ls\n", "z": {"b": true, "a": "\u{7}"}})),
            ],
        ),
        result("call_1|item_1", vec![ContentBlock::text("line 1"), img(), ContentBlock::text("line 2")]),
        result("call_2", vec![ContentBlock::text("  \n"), ContentBlock::text("\t")]),
        Message::User(UserMessage::text("next")),
        assistant("other-api", vec![thinking("foreign", Some("reasoning")), ContentBlock::text("")]),
        assistant("other-api", vec![thinking("foreign only", Some("reasoning"))]),
        assistant(api, vec![ContentBlock::tool_call("call_3", "read", json!({}))]),
        result("call_3", vec![]),
        result("call_never_made", vec![ContentBlock::text("dropped")]),
        assistant(api, vec![thinking("only", Some("reasoning"))]),
        Message::Assistant(AssistantMessage {
            content: vec![ContentBlock::text("failed")],
            api: api.into(),
            stop_reason: StopReason::Error,
            ..Default::default()
        }),
        assistant(api, vec![ContentBlock::tool_call("call_4", "read", json!({"p": 1}))]),
        result("call_4", vec![img()]),
        Message::User(UserMessage::text("")),
        Message::User(UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::text("")]),
            ..UserMessage::text("")
        }),
        assistant(
            api,
            vec![
                thinking(
                    "summary",
                    Some(
                        r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"e","n":1e2}"#,
                    ),
                ),
                thinking("not an item", Some(r#"{"type":"other"}"#)),
                thinking("not json", Some("sig-abc")),
                ContentBlock::ToolCall(Box::new(crate::ToolCallBlock {
                    id: "call_5|".into(),
                    name: "ls".into(),
                    arguments: json!({}),
                    arguments_error: None,
                    thought_signature: Some("thought-sig".into()),
                })),
                ContentBlock::text("with a call"),
            ],
        ),
        result("call_5|", vec![ContentBlock::text("")]),
        assistant(api, vec![ContentBlock::text("done")]),
    ]
}
