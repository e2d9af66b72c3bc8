//! What GitHub Copilot adds to a request of any of its APIs (Chat
//! Completions, Responses, Anthropic Messages): who started the turn, the
//! intent, a flag when images go along, and bearer auth on Anthropic.
//! (Its editor headers come with the model's `headers`; its token from
//! [`crate::copilot`].)

use super::Prepared;
use crate::error::ProviderError;
use crate::http;
use crate::model::{Model, StreamOptions, api};
use crate::types::{ContentBlock, ContextRef, Message, UserContent};

pub(crate) use crate::copilot::PROVIDER;

/// `Openai-Intent` of a coding agent's request.
const INTENT: &str = "conversation-edits";

/// `X-Initiator`: `user` when the conversation ends with the user's
/// message, `agent` when pi continues after an answer or a tool result.
fn initiator(context: &ContextRef<'_>) -> &'static str {
    match context.messages.last() {
        Some(m) if !matches!(m, Message::User(_)) => "agent",
        _ => "user",
    }
}

/// Whether a user message or a tool result carries an image.
fn has_images(context: &ContextRef<'_>) -> bool {
    let image = |blocks: &[ContentBlock]| blocks.iter().any(|b| matches!(b, ContentBlock::Image { .. }));
    context.messages.iter().any(|m| match m {
        Message::User(u) => matches!(&u.content, UserContent::Blocks(b) if image(b)),
        Message::ToolResult(r) => image(&r.content),
        Message::Assistant(_) => false,
    })
}

/// Add Copilot's headers to a request written for `model` (a
/// `github-copilot` model): they win over the model's headers and give way
/// to the call's own.
pub(crate) fn adapt(
    mut request: Prepared,
    model: &Model,
    context: &ContextRef<'_>,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let mut dynamic: Vec<(&str, &str)> = vec![("x-initiator", initiator(context)), ("openai-intent", INTENT)];
    if has_images(context) {
        dynamic.push(("copilot-vision-request", "true"));
    }
    let bearer = options.api_key.as_ref().map(|k| format!("Bearer {k}"));
    if model.api == api::ANTHROPIC_MESSAGES {
        // Copilot takes its token as a bearer on every API.
        request.headers.remove("x-api-key");
        if let Some(b) = &bearer {
            dynamic.push(("authorization", b));
        }
        dynamic.push(("anthropic-dangerous-direct-browser-access", "true"));
    }
    let chosen_by_call = |name: &str| options.headers.keys().any(|k| k.eq_ignore_ascii_case(name));
    let own = dynamic.into_iter().filter(|(name, _)| !chosen_by_call(name));
    request.headers.extend(http::headers(own)?);
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AssistantMessage, Context, ToolResultMessage, UserMessage};

    fn prepared() -> Prepared {
        Prepared { url: String::new(), headers: http::headers([("x-api-key", "k")]).unwrap(), body: Vec::new().into() }
    }

    fn header(p: &Prepared, name: &str) -> Option<String> {
        p.headers.get(name).map(|v| v.to_str().unwrap().to_string())
    }

    fn model(api: &str) -> Model {
        Model { api: api.into(), provider: PROVIDER.into(), ..Default::default() }
    }

    #[test]
    fn initiator_intent_and_vision() {
        let mut ctx =
            Context { system_prompt: None, messages: vec![Message::User(UserMessage::text("hi"))], tools: vec![] };
        let opts = StreamOptions { api_key: Some("tok".into()), ..Default::default() };
        let p = adapt(prepared(), &model(api::OPENAI_COMPLETIONS), &ctx.view(), &opts).unwrap();
        assert_eq!(header(&p, "x-initiator").as_deref(), Some("user"));
        assert_eq!(header(&p, "openai-intent").as_deref(), Some("conversation-edits"));
        assert_eq!(header(&p, "copilot-vision-request"), None);
        assert_eq!(header(&p, "x-api-key").as_deref(), Some("k"), "only Anthropic changes the auth header");

        ctx.messages.push(Message::Assistant(AssistantMessage::default()));
        ctx.messages.push(Message::ToolResult(ToolResultMessage {
            tool_call_id: "c".into(),
            tool_name: "read".into(),
            content: vec![ContentBlock::Image { data: "AA==".into(), mime_type: "image/png".into() }],
            nested_calls: None,
            usage: None,
            details: None,
            is_error: false,
            duration_ms: None,
            timestamp: 0,
        }));
        let p = adapt(prepared(), &model(api::OPENAI_RESPONSES), &ctx.view(), &opts).unwrap();
        assert_eq!(header(&p, "x-initiator").as_deref(), Some("agent"));
        assert_eq!(header(&p, "copilot-vision-request").as_deref(), Some("true"));
    }

    #[test]
    fn anthropic_takes_a_bearer_and_the_call_headers_win() {
        let ctx = Context { system_prompt: None, messages: vec![], tools: vec![] };
        let mut opts = StreamOptions { api_key: Some("tok".into()), ..Default::default() };
        opts.headers.insert("X-Initiator".into(), "agent".into());
        let mut p = prepared();
        p.headers.extend(http::headers([("x-initiator", "agent")]).unwrap());
        let p = adapt(p, &model(api::ANTHROPIC_MESSAGES), &ctx.view(), &opts).unwrap();
        assert_eq!(header(&p, "x-api-key"), None);
        assert_eq!(header(&p, "authorization").as_deref(), Some("Bearer tok"));
        assert_eq!(header(&p, "anthropic-dangerous-direct-browser-access").as_deref(), Some("true"));
        assert_eq!(header(&p, "x-initiator").as_deref(), Some("agent"), "the call's header is kept");
    }
}
