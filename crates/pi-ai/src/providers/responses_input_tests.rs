//! The input written field by field is byte for byte the input the former
//! writer built as JSON values (kept here as the oracle).

use serde_json::{Map, Value, json};

use super::*;
use crate::providers::rich_conversation::rich_conversation;
use crate::providers::{ObjectWriter, data_url, non_empty_tool_text, tool_result_parts};

/// The former writer: each item built as a JSON value.
fn value_input(model: &Model, context: &ContextRef<'_>) -> Vec<Value> {
    let images_ok = model.supports_images();
    let mut out = Vec::new();
    if let Some(sp) = context.system_prompt {
        let role = if model.reasoning { "developer" } else { "system" };
        out.push(json!({"role": role, "content": sp}));
    }
    for &m in messages_to_send(context).iter() {
        match m {
            Message::User(u) => {
                let parts: Vec<Value> = match &u.content {
                    UserContent::Text(t) => vec![json!({"type": "input_text", "text": t})],
                    UserContent::Blocks(b) => user_blocks(b, images_ok)
                        .iter()
                        .filter_map(|b| match b {
                            ContentBlock::Text { text } => Some(json!({"type": "input_text", "text": text})),
                            ContentBlock::Image { data, mime_type } if images_ok => Some(json!({
                                "type": "input_image", "detail": "auto",
                                "image_url": data_url(data, mime_type),
                            })),
                            _ => None,
                        })
                        .collect(),
                };
                if !parts.is_empty() {
                    out.push(json!({"role": "user", "content": parts}));
                }
            }
            Message::Assistant(a) => value_assistant(model, a, &mut out),
            Message::ToolResult(r) => {
                let (text, images) = tool_result_parts(r, images_ok);
                let output =
                    if images.is_empty() {
                        Value::String(non_empty_tool_text(text))
                    } else {
                        let mut parts = Vec::new();
                        if !text.is_empty() {
                            parts.push(json!({"type": "input_text", "text": text}));
                        }
                        parts.extend(images.iter().map(
                            |(d, m)| json!({"type": "input_image", "detail": "auto", "image_url": data_url(d, m)}),
                        ));
                        Value::Array(parts)
                    };
                out.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id(&r.tool_call_id),
                    "output": output,
                }));
            }
        }
    }
    out
}

/// The former assistant items.
fn value_assistant(model: &Model, a: &AssistantMessage, out: &mut Vec<Value>) {
    let same_api = *a.api == *model.api;
    for b in &a.content {
        match b {
            ContentBlock::Thinking { signature: Some(sig), .. } if same_api => {
                if let Ok(item) = serde_json::from_str::<Value>(sig)
                    && item.get("type").and_then(Value::as_str) == Some("reasoning")
                {
                    out.push(item);
                }
            }
            ContentBlock::Text { text } if !text.is_empty() => out.push(json!({
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
                "status": "completed",
            })),
            ContentBlock::ToolCall(call) => {
                let crate::ToolCallBlock { id, name, arguments, .. } = &**call;
                let mut item = Map::new();
                item.insert("type".into(), "function_call".into());
                if let Some((_, item_id)) = id.split_once('|')
                    && same_api
                    && !item_id.is_empty()
                {
                    item.insert("id".into(), item_id.into());
                }
                item.insert("call_id".into(), call_id(id).into());
                item.insert("name".into(), name.to_string().into());
                item.insert("arguments".into(), arguments.to_string().into());
                out.push(Value::Object(item));
            }
            _ => {}
        }
    }
}

#[test]
fn written_input_is_the_former_values_byte_for_byte() {
    let messages = rich_conversation("openai-responses");
    for system_prompt in [None, Some("sys \"prompt\"\n")] {
        let context = ContextRef { system_prompt, messages: messages.iter().collect(), tools: &[] };
        for (reasoning, images) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut model = Model { id: "m".into(), api: "openai-responses".into(), reasoning, ..Default::default() };
            if images {
                model.input.push("image".into());
            }
            let mut new = ObjectWriter::new();
            new.array("input", |out| write_input(&model, &context, out)).unwrap();
            let mut old = ObjectWriter::new();
            old.array("input", |out| value_input(&model, &context).iter().try_for_each(|v| out.push(v))).unwrap();
            let (new, old) =
                (String::from_utf8(new.finish().to_vec()).unwrap(), String::from_utf8(old.finish().to_vec()).unwrap());
            assert_eq!(new, old, "reasoning {reasoning} images {images}");
        }
    }
}
