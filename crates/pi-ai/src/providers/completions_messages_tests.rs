//! The messages written field by field are byte for byte the messages the
//! former writer built as JSON values (kept here as the oracle), for a rich
//! conversation under every combination of the switches that shape them.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::*;
use crate::providers::rich_conversation::rich_conversation;
use crate::providers::{ObjectWriter, data_url, non_empty_tool_text, tool_result_parts};

/// The former writer: each message built as a JSON value, then written.
fn value_messages(shape: &Shape<'_>, context: &ContextRef<'_>) -> Vec<Value> {
    let model = shape.model;
    let switches = &model.compat.completions;
    let images_ok = model.supports_images();
    let mut out = Vec::new();
    if let Some(sp) = context.system_prompt {
        let role = if model.reasoning && shape.developer_role { DEVELOPER_ROLE } else { SYSTEM_ROLE };
        out.push(json!({"role": role, "content": sp}));
    }
    let sent = messages_to_send(context);
    let mut pending_images: Vec<Value> = Vec::new();
    for (n, m) in sent.iter().enumerate() {
        match m {
            Message::User(u) => {
                let content = match &u.content {
                    UserContent::Text(t) => Value::String(t.clone()),
                    UserContent::Blocks(blocks) => {
                        let parts: Vec<Value> = user_blocks(blocks, images_ok)
                            .iter()
                            .filter_map(|b| match b {
                                ContentBlock::Text { text } if !text.is_empty() => {
                                    Some(json!({"type": "text", "text": text}))
                                }
                                ContentBlock::Image { data, mime_type } if images_ok => {
                                    Some(json!({"type": "image_url", "image_url": {"url": data_url(data, mime_type)}}))
                                }
                                _ => None,
                            })
                            .collect();
                        if parts.is_empty() {
                            continue;
                        }
                        Value::Array(parts)
                    }
                };
                let after_results = n > 0 && matches!(sent.get(n - 1), Some(Message::ToolResult(_)));
                if after_results && switches.requires_assistant_after_tool_result == Some(true) {
                    out.push(json!({"role": "assistant", "content": text::AFTER_TOOL_RESULTS}));
                }
                out.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant(a) => out.extend(value_assistant(shape, a)),
            Message::ToolResult(r) => {
                let (text, images) = tool_result_parts(r, images_ok);
                let mut result = json!({
                    "role": "tool",
                    "content": non_empty_tool_text(text),
                    "tool_call_id": call_id(&r.tool_call_id),
                });
                if switches.requires_tool_result_name == Some(true) {
                    result["name"] = r.tool_name.as_str().into();
                }
                out.push(result);
                for (data, mime) in images {
                    pending_images.push(json!({"type": "image_url", "image_url": {"url": data_url(&data, &mime)}}));
                }
                let next_is_result = matches!(sent.get(n + 1), Some(Message::ToolResult(_)));
                if !next_is_result && !pending_images.is_empty() {
                    let mut parts = vec![json!({"type": "text", "text": text::TOOL_IMAGES_ATTACHED})];
                    parts.append(&mut pending_images);
                    out.push(json!({"role": "user", "content": parts}));
                }
            }
        }
    }
    out
}

/// The former assistant message.
fn value_assistant(shape: &Shape<'_>, a: &AssistantMessage) -> Option<Value> {
    let model = shape.model;
    let switches = &model.compat.completions;
    let thinking_as_text = switches.requires_thinking_as_text == Some(true);
    let text: String = a
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let calls: Vec<Value> = a
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolCall(call) => Some(json!({
                "id": call_id(&call.id),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments.to_string()},
            })),
            _ => None,
        })
        .collect();
    let parts: Vec<Value> = if thinking_as_text {
        a.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Thinking { thinking: t, .. } | ContentBlock::Text { text: t } if !t.is_empty() => {
                    Some(json!({"type": "text", "text": t}))
                }
                _ => None,
            })
            .collect()
    } else {
        Vec::new()
    };
    if text.is_empty() && calls.is_empty() && parts.is_empty() {
        return None;
    }
    let mut msg = Map::new();
    msg.insert("role".into(), "assistant".into());
    let content = if !parts.is_empty() {
        Value::Array(parts)
    } else if !text.is_empty() {
        Value::String(text)
    } else if switches.requires_non_null_assistant_content == Some(true) {
        Value::String(String::new())
    } else {
        Value::Null
    };
    msg.insert("content".into(), content);
    if *a.api == *model.api && !thinking_as_text {
        let mut reasoning: HashMap<&str, String> = HashMap::new();
        for b in &a.content {
            if let ContentBlock::Thinking { thinking, signature: Some(field) } = b
                && REASONING_FIELDS.contains(&field.as_str())
            {
                reasoning.entry(field).or_default().push_str(thinking);
            }
        }
        for field in REASONING_FIELDS {
            if let Some(t) = reasoning.remove(field) {
                msg.insert(field.into(), Value::String(t));
            }
        }
    }
    if shape.thinking_on && switches.requires_reasoning_content_on_assistant_messages == Some(true) {
        msg.entry(REASONING_FIELDS[0]).or_insert_with(|| Value::String(String::new()));
    }
    if !calls.is_empty() {
        msg.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(msg))
}

/// Every combination of the switches and model settings the writer reads.
fn shapes() -> Vec<(Model, bool, bool)> {
    let mut out = Vec::new();
    for bits in 0u32..(1 << 9) {
        let on = |i: u32| bits & (1 << i) != 0;
        let mut m = Model { id: "m".into(), api: "openai-completions".into(), ..Default::default() };
        m.reasoning = on(0);
        if on(1) {
            m.input.push("image".into());
        }
        let s = &mut m.compat.completions;
        s.requires_tool_result_name = Some(on(2));
        s.requires_assistant_after_tool_result = Some(on(3));
        s.requires_thinking_as_text = Some(on(4));
        s.requires_non_null_assistant_content = Some(on(5));
        s.requires_reasoning_content_on_assistant_messages = Some(on(6));
        out.push((m, on(7), on(8)));
    }
    out
}

#[test]
fn written_messages_are_the_former_values_byte_for_byte() {
    let messages = rich_conversation("openai-completions");
    for system_prompt in [None, Some("sys \"prompt\"\n")] {
        let context = ContextRef { system_prompt, messages: messages.iter().collect(), tools: &[] };
        for (model, developer_role, thinking_on) in shapes() {
            let shape = Shape { model: &model, developer_role, thinking_on };
            let mut new = ObjectWriter::new();
            new.array("messages", |out| write_messages(&shape, &context, out)).unwrap();
            let mut old = ObjectWriter::new();
            old.array("messages", |out| value_messages(&shape, &context).iter().try_for_each(|v| out.push(v))).unwrap();
            let (new, old) =
                (String::from_utf8(new.finish().to_vec()).unwrap(), String::from_utf8(old.finish().to_vec()).unwrap());
            assert_eq!(new, old, "{:?} developer_role {developer_role} thinking_on {thinking_on}", model.compat);
        }
    }
}
