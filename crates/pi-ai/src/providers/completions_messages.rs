//! Chat Completions: the `messages` array, written message by message and
//! field by field from the conversation as it is held (nothing copied, no
//! JSON value built), so a request costs its bytes and little more.

use super::tool_text::ToolText;
use super::{ArrayWriter, call_id, messages_to_send, user_blocks};
use crate::error::ProviderError;
use crate::model::Model;
use crate::text;
use crate::types::{AssistantMessage, ContentBlock, ContextRef, Message, ToolResultMessage, UserContent};

/// The delta fields that carry reasoning text, in the order they are looked at.
pub(crate) const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// The role of the system prompt.
const SYSTEM_ROLE: &str = "system";
/// The role of a reasoning model's system prompt where the server takes it.
const DEVELOPER_ROLE: &str = "developer";

/// How the messages are written for one request.
pub(crate) struct Shape<'m> {
    /// The model asked.
    pub model: &'m Model,
    /// The system prompt goes with the `developer` role.
    pub developer_role: bool,
    /// A thinking level is on for a reasoning model.
    pub thinking_on: bool,
}

/// The `messages` array: the system prompt, then the conversation.
pub(crate) fn write_messages(
    shape: &Shape<'_>,
    context: &ContextRef<'_>,
    out: &mut ArrayWriter<'_>,
) -> Result<(), ProviderError> {
    let model = shape.model;
    let switches = &model.compat.completions;
    let images_ok = model.supports_images();
    if let Some(sp) = context.system_prompt {
        let role = if model.reasoning && shape.developer_role { DEVELOPER_ROLE } else { SYSTEM_ROLE };
        out.object(|o| {
            o.str("role", role);
            o.str("content", sp);
            Ok(())
        })?;
    }
    let sent = messages_to_send(context);
    // Images of consecutive tool results, sent together after the last one.
    let mut pending_images: Vec<(&str, &str)> = Vec::new();
    for (n, m) in sent.iter().enumerate() {
        match m {
            Message::User(u) => {
                let after_results = n > 0 && matches!(sent.get(n - 1), Some(Message::ToolResult(_)));
                let assistant_between = after_results && switches.requires_assistant_after_tool_result == Some(true);
                match &u.content {
                    UserContent::Text(t) => {
                        if assistant_between {
                            write_after_results(out)?;
                        }
                        out.object(|o| {
                            o.str("role", "user");
                            o.str("content", t);
                            Ok(())
                        })?;
                    }
                    UserContent::Blocks(blocks) => {
                        let blocks = user_blocks(blocks, images_ok);
                        // Empty text blocks are left out, and a user message
                        // left with nothing is not sent (as the reference).
                        if !blocks.iter().any(|b| user_part(b, images_ok)) {
                            continue;
                        }
                        if assistant_between {
                            write_after_results(out)?;
                        }
                        out.object(|o| {
                            o.str("role", "user");
                            o.array("content", |parts| {
                                for b in blocks.iter().filter(|b| user_part(b, images_ok)) {
                                    match b {
                                        ContentBlock::Text { text } => text_part(parts, text)?,
                                        ContentBlock::Image { data, mime_type } => image_part(parts, data, mime_type)?,
                                        _ => {}
                                    }
                                }
                                Ok(())
                            })
                        })?;
                    }
                }
            }
            Message::Assistant(a) => write_assistant(shape, a, out)?,
            Message::ToolResult(r) => {
                let text = ToolText::of(r, images_ok);
                write_tool_result(model, r, text, out)?;
                pending_images.extend(text.images());
                let next_is_result = matches!(sent.get(n + 1), Some(Message::ToolResult(_)));
                if !next_is_result && !pending_images.is_empty() {
                    out.object(|o| {
                        o.str("role", "user");
                        o.array("content", |parts| {
                            text_part(parts, text::TOOL_IMAGES_ATTACHED)?;
                            for (data, mime) in pending_images.drain(..) {
                                image_part(parts, data, mime)?;
                            }
                            Ok(())
                        })
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// Whether a user block is sent as a part: non-empty text, and images
/// when the model takes them.
fn user_part(b: &ContentBlock, images_ok: bool) -> bool {
    match b {
        ContentBlock::Text { text } => !text.is_empty(),
        ContentBlock::Image { .. } => images_ok,
        _ => false,
    }
}

/// The assistant message some servers need between tool results and a user message.
fn write_after_results(out: &mut ArrayWriter<'_>) -> Result<(), ProviderError> {
    out.object(|o| {
        o.str("role", "assistant");
        o.str("content", text::AFTER_TOOL_RESULTS);
        Ok(())
    })
}

/// `{"type": "text", "text": ...}`.
fn text_part(parts: &mut ArrayWriter<'_>, text: &str) -> Result<(), ProviderError> {
    parts.object(|p| {
        p.str("type", "text");
        p.str("text", text);
        Ok(())
    })
}

/// `{"type": "image_url", "image_url": {"url": "data:<mime>;base64,<data>"}}`.
fn image_part(parts: &mut ArrayWriter<'_>, data: &str, mime: &str) -> Result<(), ProviderError> {
    parts.object(|p| {
        p.str("type", "image_url");
        p.object("image_url", |u| {
            u.joined("url", ["data:", mime, ";base64,", data]);
            Ok(())
        })
    })
}

/// A tool result: its text ([`ToolText`]), [`text::NO_TOOL_OUTPUT`] when
/// that is only whitespace.
fn write_tool_result(
    model: &Model,
    r: &ToolResultMessage,
    text: ToolText<'_>,
    out: &mut ArrayWriter<'_>,
) -> Result<(), ProviderError> {
    out.object(|o| {
        o.str("role", "tool");
        if text.is_blank() {
            o.str("content", text::NO_TOOL_OUTPUT);
        } else {
            o.joined("content", text.pieces());
        }
        o.str("tool_call_id", call_id(&r.tool_call_id));
        if model.compat.completions.requires_tool_result_name == Some(true) {
            o.str("name", &r.tool_name);
        }
        Ok(())
    })
}

/// An assistant message as sent; nothing when it has no text, no tool
/// call and (thinking sent as text) no thinking.
fn write_assistant(shape: &Shape<'_>, a: &AssistantMessage, out: &mut ArrayWriter<'_>) -> Result<(), ProviderError> {
    let model = shape.model;
    let switches = &model.compat.completions;
    let thinking_as_text = switches.requires_thinking_as_text == Some(true);
    let texts = || {
        a.content.iter().filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
    };
    // Thinking sent as text: every thinking and text block as a text part, in order.
    let parts = || {
        a.content.iter().filter_map(move |b| match b {
            ContentBlock::Thinking { thinking: t, .. } | ContentBlock::Text { text: t }
                if thinking_as_text && !t.is_empty() =>
            {
                Some(t.as_str())
            }
            _ => None,
        })
    };
    let calls = || {
        a.content.iter().filter_map(|b| match b {
            ContentBlock::ToolCall(call) => Some((&call.id, &call.name, &call.arguments)),
            _ => None,
        })
    };
    let has_text = texts().any(|t| !t.is_empty());
    let has_parts = parts().next().is_some();
    if !has_text && calls().next().is_none() && !has_parts {
        return Ok(());
    }
    out.object(|o| {
        o.str("role", "assistant");
        if has_parts {
            o.array("content", |items| parts().try_for_each(|t| text_part(items, t)))?;
        } else if has_text {
            o.joined("content", texts());
        } else if switches.requires_non_null_assistant_content == Some(true) {
            o.str("content", "");
        } else {
            o.null("content");
        }
        let mut reasoning_content = false;
        if *a.api == *model.api && !thinking_as_text {
            for field in REASONING_FIELDS {
                let mut thinking = a.content.iter().filter_map(|b| match b {
                    ContentBlock::Thinking { thinking, signature: Some(s) } if s == field => Some(thinking.as_str()),
                    _ => None,
                });
                if let Some(first) = thinking.next() {
                    o.joined(field, std::iter::once(first).chain(thinking));
                    reasoning_content |= field == REASONING_FIELDS[0];
                }
            }
        }
        if !reasoning_content
            && shape.thinking_on
            && switches.requires_reasoning_content_on_assistant_messages == Some(true)
        {
            o.str(REASONING_FIELDS[0], "");
        }
        if calls().next().is_some() {
            o.array("tool_calls", |items| {
                for (id, name, arguments) in calls() {
                    items.object(|c| {
                        c.str("id", call_id(id));
                        c.str("type", "function");
                        c.object("function", |f| {
                            f.str("name", name);
                            f.json_text("arguments", arguments)
                        })
                    })?;
                }
                Ok(())
            })?;
        }
        Ok(())
    })
}

#[cfg(test)]
#[path = "completions_messages_tests.rs"]
mod tests;
