//! OpenAI Responses (and Codex): the `input` array, written item by item
//! and field by field from the conversation as it is held (nothing copied,
//! no JSON value built but a replayed reasoning item's).

use serde_json::Value;

use super::tool_text::ToolText;
use super::{ArrayWriter, FieldWriter, call_id, messages_to_send, user_blocks};
use crate::error::ProviderError;
use crate::model::Model;
use crate::types::{AssistantMessage, ContentBlock, ContextRef, Message, UserContent};

/// The `input` array: the system prompt, then the conversation as items.
pub(crate) fn write_input(
    model: &Model,
    context: &ContextRef<'_>,
    out: &mut ArrayWriter<'_>,
) -> Result<(), ProviderError> {
    let images_ok = model.supports_images();
    if let Some(sp) = context.system_prompt {
        let role = if model.reasoning { "developer" } else { "system" };
        out.object(|o| {
            o.str("role", role);
            o.str("content", sp);
            Ok(())
        })?;
    }
    for &m in messages_to_send(context).iter() {
        match m {
            Message::User(u) => match &u.content {
                UserContent::Text(t) => out.object(|o| {
                    o.str("role", "user");
                    o.array("content", |parts| input_text(parts, t))
                })?,
                UserContent::Blocks(b) => {
                    let blocks = user_blocks(b, images_ok);
                    let sent = |b: &&ContentBlock| match b {
                        ContentBlock::Text { .. } => true,
                        ContentBlock::Image { .. } => images_ok,
                        _ => false,
                    };
                    if !blocks.iter().any(|b| sent(&b)) {
                        continue;
                    }
                    out.object(|o| {
                        o.str("role", "user");
                        o.array("content", |parts| {
                            for b in blocks.iter().filter(sent) {
                                match b {
                                    ContentBlock::Text { text } => input_text(parts, text)?,
                                    ContentBlock::Image { data, mime_type } => input_image(parts, data, mime_type)?,
                                    _ => {}
                                }
                            }
                            Ok(())
                        })
                    })?;
                }
            },
            Message::Assistant(a) => write_assistant(model, a, out)?,
            Message::ToolResult(r) => {
                let text = ToolText::of(r, images_ok);
                out.object(|o| {
                    o.str("type", "function_call_output");
                    o.str("call_id", call_id(&r.tool_call_id));
                    write_output(o, text)
                })?;
            }
        }
    }
    Ok(())
}

/// A tool result's `output`: its text ([`super::text::NO_TOOL_OUTPUT`] when
/// only whitespace), or with images the text (unless empty) and the images
/// as input parts.
fn write_output(o: &mut FieldWriter<'_>, text: ToolText<'_>) -> Result<(), ProviderError> {
    if text.images().next().is_none() {
        if text.is_blank() {
            o.str("output", crate::text::NO_TOOL_OUTPUT);
        } else {
            o.joined("output", text.pieces());
        }
        return Ok(());
    }
    o.array("output", |parts| {
        if !text.is_empty() {
            parts.object(|p| {
                p.str("type", "input_text");
                p.joined("text", text.pieces());
                Ok(())
            })?;
        }
        text.images().try_for_each(|(data, mime)| input_image(parts, data, mime))
    })
}

/// `{"type": "input_text", "text": ...}`.
fn input_text(parts: &mut ArrayWriter<'_>, text: &str) -> Result<(), ProviderError> {
    parts.object(|p| {
        p.str("type", "input_text");
        p.str("text", text);
        Ok(())
    })
}

/// `{"type": "input_image", "detail": "auto", "image_url": "data:..."}`.
fn input_image(parts: &mut ArrayWriter<'_>, data: &str, mime: &str) -> Result<(), ProviderError> {
    parts.object(|p| {
        p.str("type", "input_image");
        p.str("detail", "auto");
        p.joined("image_url", ["data:", mime, ";base64,", data]);
        Ok(())
    })
}

/// An assistant message's items: reasoning, text and function calls.
fn write_assistant(model: &Model, a: &AssistantMessage, out: &mut ArrayWriter<'_>) -> Result<(), ProviderError> {
    let same_api = *a.api == *model.api;
    for b in &a.content {
        match b {
            ContentBlock::Thinking { signature: Some(sig), .. } if same_api => {
                // The reasoning item as received, written again as serde_json
                // writes it (so parsed, not copied).
                if let Ok(item) = serde_json::from_str::<Value>(sig)
                    && item.get("type").and_then(Value::as_str) == Some("reasoning")
                {
                    out.push(&item)?;
                }
            }
            ContentBlock::Text { text } if !text.is_empty() => out.object(|o| {
                o.str("type", "message");
                o.str("role", "assistant");
                o.array("content", |parts| {
                    parts.object(|p| {
                        p.str("type", "output_text");
                        p.str("text", text);
                        p.array("annotations", |_| Ok(()))
                    })
                })?;
                o.str("status", "completed");
                Ok(())
            })?,
            ContentBlock::ToolCall(call) => out.object(|o| {
                let crate::ToolCallBlock { id, name, arguments, .. } = &**call;
                o.str("type", "function_call");
                if let Some((_, item_id)) = id.split_once('|')
                    && same_api
                    && !item_id.is_empty()
                {
                    o.str("id", item_id);
                }
                o.str("call_id", call_id(id));
                o.str("name", name);
                o.json_text("arguments", arguments)
            })?,
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "responses_input_tests.rs"]
mod tests;
