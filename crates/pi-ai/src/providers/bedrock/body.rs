//! The ConverseStream request body, as the reference sends it:
//! `{messages, system, inferenceConfig: {maxTokens}, toolConfig?,
//! additionalModelRequestFields?}` with `cachePoint` markers and thinking
//! settings for Claude models.

use serde_json::{Map, Value, json};

use super::super::{ArrayWriter, ObjectWriter, max_tokens, messages_to_send, tool_result_parts, user_blocks};
use crate::error::ProviderError;
use crate::model::{Model, StreamOptions};
use crate::strict::{self, Declared};
use crate::types::{ContentBlock, ContextRef, Message, Tool, UserContent};

/// The beta that lets older Claude models think between tool calls.
const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
/// The beta of the thinking-binding controls (Claude 4.7 and later).
const THINKING_BINDING_BETA: &str = "thinking-binding-controls-2026-08-01";

/// Which thinking settings a Claude model takes, from the version in its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThinkingStyle {
    /// `{type: "enabled", budget_tokens}` (before 4.6).
    Budget,
    /// `{type: "adaptive"}` plus an effort (4.6).
    Adaptive,
    /// Adaptive, with block binding (4.7 and later).
    AdaptiveBound,
}

/// Whether the model is a Claude model (by its id, as the reference tells).
fn is_claude(model: &Model) -> bool {
    model.id.to_ascii_lowercase().contains("claude")
}

/// Whether the model takes prompt-cache points (`anthropic.claude…` ids,
/// with or without a region prefix such as `us.` or `global.`).
fn takes_cache_points(model: &Model) -> bool {
    model.id.to_ascii_lowercase().contains("anthropic.claude")
}

/// The thinking style of a Claude model id: the `major[-minor]` version that
/// follows the family name (`claude-opus-4-6`, `claude-sonnet-5`).
pub(crate) fn thinking_style(id: &str) -> ThinkingStyle {
    let id = id.to_ascii_lowercase();
    let Some(rest) = id.split("claude-").nth(1) else { return ThinkingStyle::Budget };
    let mut parts = rest.split('-').skip_while(|p| p.parse::<u32>().is_err());
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    // A date (20250929) or a `v1:0` suffix is no minor version.
    let minor: u32 = parts.next().and_then(|p| p.parse().ok()).filter(|m| *m < 100).unwrap_or(0);
    match (major, minor) {
        (m, _) if m >= 5 => ThinkingStyle::AdaptiveBound,
        (4, n) if n >= 7 => ThinkingStyle::AdaptiveBound,
        (4, 6) => ThinkingStyle::Adaptive,
        _ => ThinkingStyle::Budget,
    }
}

fn thinking_budget(level: &str) -> u64 {
    match level {
        "minimal" => 1024,
        "low" => 2048,
        "medium" => 8192,
        _ => 16384,
    }
}

/// `additionalModelRequestFields` for a Claude model with a thinking level.
fn thinking_fields(model: &Model, level: &str, max: u64) -> Value {
    match thinking_style(&model.id) {
        ThinkingStyle::Budget => {
            let budget = thinking_budget(level).min(max.saturating_sub(1024)).max(1024);
            json!({
                "thinking": {"type": "enabled", "budget_tokens": budget, "display": "summarized"},
                "anthropic_beta": [INTERLEAVED_THINKING_BETA],
            })
        }
        style => {
            let effort = if level == "minimal" { "low" } else { level };
            let mut thinking = json!({"type": "adaptive", "display": "summarized"});
            let mut fields = Map::new();
            if style == ThinkingStyle::AdaptiveBound {
                thinking["block_binding"] = json!({"prefix_mismatch_behavior": "drop_block"});
            }
            fields.insert("thinking".into(), thinking);
            fields.insert("output_config".into(), json!({"effort": effort}));
            if style == ThinkingStyle::AdaptiveBound {
                fields.insert("anthropic_beta".into(), json!([THINKING_BINDING_BETA]));
            }
            Value::Object(fields)
        }
    }
}

fn cache_point() -> Value {
    json!({"cachePoint": {"type": "default"}})
}

/// Bedrock tool ids allow `[a-zA-Z0-9_-]`, at most 64 characters.
fn tool_id(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).take(64).collect()
}

/// `image/png` → `png` (the formats Bedrock names).
fn image_block(data: &str, mime: &str) -> Value {
    let format = mime.rsplit('/').next().unwrap_or(mime);
    let format = if format == "jpg" { "jpeg" } else { format };
    json!({"image": {"format": format, "source": {"bytes": data}}})
}

/// The request body.
pub(crate) fn request_body(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<crate::providers::RequestBody, ProviderError> {
    let max = max_tokens(model, options);
    let cache = takes_cache_points(model);
    let mut body = ObjectWriter::to(&options.body_sink);
    body.array("messages", |out| write_messages(model, context, cache, out))?;
    let mut system = Vec::new();
    if let Some(sp) = context.system_prompt {
        system.push(json!({"text": sp}));
        if cache {
            system.push(cache_point());
        }
    }
    body.field("system", &system)?;
    body.field("inferenceConfig", &json!({"maxTokens": max}))?;
    if !context.tools.is_empty() {
        let strict_mode = model.compat.supports_strict_mode == Some(true);
        let tools = context.tools.iter().map(|t| tool_spec(t, strict_mode)).collect::<Result<Vec<Value>, _>>()?;
        body.field("toolConfig", &json!({"tools": tools}))?;
    }
    if let Some(level) = options.thinking_level().filter(|_| model.reasoning && is_claude(model)) {
        body.field("additionalModelRequestFields", &thinking_fields(model, level, max))?;
    }
    Ok(body.finish())
}

/// `{toolSpec: {name, inputSchema: {json}, description, strict?}}`.
fn tool_spec(t: &Tool, strict_mode: bool) -> Result<Value, ProviderError> {
    let declared = strict::declare(t, strict_mode, None)?;
    let mut spec = Map::new();
    spec.insert("name".into(), t.name.as_str().into());
    let (schema, strict) = match declared {
        Declared::Plain => (t.parameters.clone(), None),
        Declared::NotStrict => (t.parameters.clone(), Some(false)),
        Declared::Strict(schema) => (schema, Some(true)),
    };
    spec.insert("inputSchema".into(), json!({"json": schema}));
    spec.insert("description".into(), t.description.as_str().into());
    if let Some(s) = strict {
        spec.insert("strict".into(), s.into());
    }
    Ok(json!({"toolSpec": spec}))
}

/// The `messages` array: tool results of one turn together in one user
/// message; the last user message ends with a cache point (Claude).
fn write_messages(
    model: &Model,
    context: &ContextRef<'_>,
    cache: bool,
    out: &mut ArrayWriter<'_>,
) -> Result<(), ProviderError> {
    let images_ok = model.supports_images();
    let mut held: Option<Value> = None;
    let mut results: Vec<Value> = Vec::new();
    let emit = |held: &mut Option<Value>, next: Value, out: &mut ArrayWriter<'_>| -> Result<(), ProviderError> {
        match held.replace(next) {
            Some(previous) => out.push(&previous),
            None => Ok(()),
        }
    };
    for &m in messages_to_send(context).iter() {
        if !matches!(m, Message::ToolResult(_)) && !results.is_empty() {
            let r = std::mem::take(&mut results);
            emit(&mut held, json!({"role": "user", "content": r}), out)?;
        }
        match m {
            Message::User(u) => {
                let blocks = user_content(&u.content, images_ok);
                if !blocks.is_empty() {
                    emit(&mut held, json!({"role": "user", "content": blocks}), out)?;
                }
            }
            Message::Assistant(a) => {
                let same_api = *a.api == *model.api;
                let blocks: Vec<Value> = a.content.iter().filter_map(|b| assistant_block(b, same_api)).collect();
                if !blocks.is_empty() {
                    emit(&mut held, json!({"role": "assistant", "content": blocks}), out)?;
                }
            }
            Message::ToolResult(r) => {
                let (text, images) = tool_result_parts(r, images_ok);
                let mut content = Vec::new();
                if !text.is_empty() || images.is_empty() {
                    content.push(json!({"text": text}));
                }
                content.extend(images.iter().map(|(d, m)| image_block(d, m)));
                let status = if r.is_error { "error" } else { "success" };
                results.push(json!({"toolResult": {
                    "toolUseId": tool_id(&r.tool_call_id), "content": content, "status": status,
                }}));
            }
        }
    }
    if !results.is_empty() {
        emit(&mut held, json!({"role": "user", "content": results}), out)?;
    }
    let Some(mut last) = held else { return Ok(()) };
    if cache
        && last["role"] == "user"
        && let Some(blocks) = last["content"].as_array_mut()
    {
        blocks.push(cache_point());
    }
    out.push(&last)
}

fn user_content(content: &UserContent, images_ok: bool) -> Vec<Value> {
    match content {
        UserContent::Text(t) => vec![json!({"text": t})],
        UserContent::Blocks(b) => user_blocks(b, images_ok)
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } if !text.is_empty() => Some(json!({"text": text})),
                ContentBlock::Image { data, mime_type } if images_ok => Some(image_block(data, mime_type)),
                _ => None,
            })
            .collect(),
    }
}

/// An assistant block as sent back: reasoning with its signature (only to
/// the API it came from), text, tool calls.
fn assistant_block(b: &ContentBlock, same_api: bool) -> Option<Value> {
    match b {
        ContentBlock::Thinking { thinking, signature: Some(sig) } if same_api && !sig.is_empty() => {
            Some(json!({"reasoningContent": {"reasoningText": {"text": thinking, "signature": sig}}}))
        }
        ContentBlock::Text { text } if !text.is_empty() => Some(json!({"text": text})),
        ContentBlock::ToolCall(call) => {
            let crate::ToolCallBlock { id, name, arguments, .. } = &**call;
            Some(json!({"toolUse": {"toolUseId": tool_id(id), "name": name, "input": arguments}}))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_styles_by_version() {
        use ThinkingStyle::*;
        for (id, want) in [
            ("anthropic.claude-sonnet-4-5-20250929-v1:0", Budget),
            ("anthropic.claude-3-7-sonnet-20250219-v1:0", Budget),
            ("anthropic.claude-haiku-4-5-20251001-v1:0", Budget),
            ("anthropic.claude-opus-4-5-20251101-v1:0", Budget),
            ("anthropic.claude-sonnet-4-6", Adaptive),
            ("global.anthropic.claude-opus-4-6-v1", Adaptive),
            ("anthropic.claude-opus-4-7", AdaptiveBound),
            ("anthropic.claude-opus-4-8", AdaptiveBound),
            ("anthropic.claude-sonnet-5", AdaptiveBound),
            ("anthropic.claude-haiku-5", AdaptiveBound),
            ("anthropic.claude-fable-5", AdaptiveBound),
            ("my-claude-thing", Budget),
            ("anthropic.claude-sonnet-4-20250514-v1:0", Budget),
        ] {
            assert_eq!(thinking_style(id), want, "{id}");
        }
    }
}
