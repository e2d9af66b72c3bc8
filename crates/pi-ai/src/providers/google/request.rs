//! The body both Google APIs take: `contents` (user and model turns as
//! parts), `systemInstruction`, `tools` as function declarations with their
//! JSON schema, and `generationConfig`.

use serde_json::{Map, Value, json};

use super::thinking;
use crate::error::ProviderError;
use crate::model::{Model, StreamOptions};
use crate::providers::{ArrayWriter, ObjectWriter, max_tokens, messages_to_send, tool_result_parts, user_blocks};
use crate::strict;
use crate::text::google as text;
use crate::types::{AssistantMessage, ContentBlock, ContextRef, Message, ToolResultMessage, UserContent};

/// The function-calling mode that holds calls to their strict schemas.
const VALIDATED_MODE: &str = "VALIDATED";

fn inline_data(data: &str, mime: &str) -> Value {
    json!({"inlineData": {"mimeType": mime, "data": data}})
}

/// The request body, written straight to bytes one turn at a time.
pub(crate) fn request_body(
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<crate::providers::RequestBody, ProviderError> {
    let thinking = thinking::thinking_config(model, options)?;
    let mut body = ObjectWriter::to(&options.body_sink);
    body.array("contents", |out| write_contents(model, context, out))?;
    if let Some(sp) = context.system_prompt {
        body.field("systemInstruction", &json!({"parts": [{"text": sp}], "role": "user"}))?;
    }
    if !context.tools.is_empty() {
        // Gemini 3 and later validate calls against a strict schema.
        let strict_tools = thinking::gemini_3_or_later(&model.id);
        let mut declarations = Vec::with_capacity(context.tools.len());
        let mut any_strict = false;
        for t in context.tools {
            let schema = match strict::declare(t, strict_tools, None)? {
                strict::Declared::Strict(schema) => {
                    any_strict = true;
                    schema
                }
                _ => t.parameters.clone(),
            };
            declarations.push(json!({"name": t.name, "description": t.description, "parametersJsonSchema": schema}));
        }
        body.field("tools", &json!([{"functionDeclarations": declarations}]))?;
        if any_strict {
            body.field("toolConfig", &json!({"functionCallingConfig": {"mode": VALIDATED_MODE}}))?;
        }
    }
    let mut config = Map::new();
    config.insert("maxOutputTokens".into(), max_tokens(model, options).into());
    if let Some(t) = thinking {
        config.insert("thinkingConfig".into(), t);
    }
    body.field("generationConfig", &config)?;
    Ok(body.finish())
}

/// Tool results of one turn: their function responses, and the images that
/// go in a user turn after them.
#[derive(Default)]
struct Results {
    parts: Vec<Value>,
    images: Vec<Value>,
}

impl Results {
    fn flush(&mut self, out: &mut ArrayWriter<'_>) -> Result<(), ProviderError> {
        if !self.parts.is_empty() {
            out.push(&json!({"parts": std::mem::take(&mut self.parts), "role": "user"}))?;
        }
        if !self.images.is_empty() {
            let mut parts = vec![json!({"text": text::TOOL_RESULT_IMAGE})];
            parts.append(&mut self.images);
            out.push(&json!({"parts": parts, "role": "user"}))?;
        }
        Ok(())
    }
}

/// The `contents` array.
fn write_contents(model: &Model, context: &ContextRef<'_>, out: &mut ArrayWriter<'_>) -> Result<(), ProviderError> {
    let images_ok = model.supports_images();
    let mut results = Results::default();
    for &m in messages_to_send(context).iter() {
        match m {
            Message::User(u) => {
                results.flush(out)?;
                let parts: Vec<Value> = match &u.content {
                    UserContent::Text(t) => vec![json!({"text": t})],
                    UserContent::Blocks(b) => user_blocks(b, images_ok)
                        .iter()
                        .filter_map(|b| match b {
                            ContentBlock::Text { text } => Some(json!({"text": text})),
                            ContentBlock::Image { data, mime_type } => Some(inline_data(data, mime_type)),
                            _ => None,
                        })
                        .collect(),
                };
                if !parts.is_empty() {
                    out.push(&json!({"parts": parts, "role": "user"}))?;
                }
            }
            Message::Assistant(a) => {
                results.flush(out)?;
                let parts = model_parts(model, a);
                if !parts.is_empty() {
                    out.push(&json!({"parts": parts, "role": "model"}))?;
                }
            }
            Message::ToolResult(r) => function_response(model, r, images_ok, &mut results),
        }
    }
    results.flush(out)
}

/// An assistant message as the parts of a `model` turn. Reasoning goes back
/// as thought parts (with their signatures) to the model that wrote it, as
/// plain text to any other.
fn model_parts(model: &Model, a: &AssistantMessage) -> Vec<Value> {
    let same_model = *a.provider == *model.provider && *a.model == *model.id && *a.api == *model.api;
    let ids = thinking::sends_call_ids(&model.id);
    let mut parts = Vec::new();
    for b in &a.content {
        match b {
            ContentBlock::Thinking { thinking, signature } if same_model => {
                let mut part = Map::new();
                part.insert("text".into(), thinking.as_str().into());
                part.insert("thought".into(), true.into());
                if let Some(sig) = signature.as_deref().filter(|s| !s.is_empty()) {
                    part.insert("thoughtSignature".into(), sig.into());
                }
                parts.push(Value::Object(part));
            }
            ContentBlock::Thinking { thinking, .. } if !thinking.trim().is_empty() => {
                parts.push(json!({"text": thinking}));
            }
            ContentBlock::Text { text } if !text.is_empty() => parts.push(json!({"text": text})),
            ContentBlock::ToolCall(call) => {
                let crate::ToolCallBlock { id, name, arguments, thought_signature, .. } = &**call;
                let mut call = Map::new();
                call.insert("args".into(), arguments.clone());
                if ids {
                    call.insert("id".into(), id.as_str().into());
                }
                call.insert("name".into(), name.as_str().into());
                let mut part = Map::new();
                part.insert("functionCall".into(), Value::Object(call));
                if let Some(sig) = thought_signature.as_deref().filter(|s| same_model && !s.is_empty()) {
                    part.insert("thoughtSignature".into(), sig.into());
                }
                parts.push(Value::Object(part));
            }
            _ => {}
        }
    }
    parts
}

/// A tool result as a `functionResponse` part: `{output}` or `{error}`.
fn function_response(model: &Model, r: &ToolResultMessage, images_ok: bool, results: &mut Results) {
    let (output, images) = tool_result_parts(r, images_ok);
    let mut response = Map::new();
    response.insert("name".into(), r.tool_name.as_str().into());
    let key = if r.is_error { "error" } else { "output" };
    response.insert("response".into(), json!({ key: output }));
    let images: Vec<Value> = images.iter().map(|(data, mime)| inline_data(data, mime)).collect();
    if thinking::gemini_3_or_later(&model.id) {
        if !images.is_empty() {
            response.insert("parts".into(), Value::Array(images));
        }
    } else {
        results.images.extend(images);
    }
    if thinking::sends_call_ids(&model.id) {
        response.insert("id".into(), r.tool_call_id.as_str().into());
    }
    results.parts.push(json!({"functionResponse": response}));
}
