//! The wire clients, one module per API, and what they share.

mod affinity;
pub(crate) mod anthropic;
pub(crate) mod anthropic_wire;
pub(crate) mod azure;
pub(crate) mod bedrock;
mod body;
mod completions_messages;
mod completions_thinking;
pub mod faux;
pub(crate) mod github_copilot;
pub(crate) mod google;
pub(crate) mod mistral;
mod mistral_ids;
pub(crate) mod mistral_stream;
pub(crate) mod openai_codex;
pub(crate) mod openai_completions;
pub(crate) mod openai_responses;
mod request_body;
mod responses_input;
#[cfg(test)]
mod rich_conversation;
mod tool_text;

use std::borrow::Cow;
use std::collections::HashSet;

use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::{Failure, FailureKind};
use crate::http::{self, SendError, SseStream};
use crate::model::{Model, StreamOptions};
use crate::text;
use crate::types::{AssistantMessage, ContentBlock, ContextRef, Message, StopReason, ToolResultMessage};

pub(crate) use body::{ArrayWriter, FieldWriter, ObjectWriter};
pub use request_body::BodySink;
pub(crate) use request_body::{RequestBody, Sink};

/// A request ready to send: written before the provider task starts, so the
/// conversation is borrowed for the body and never copied into the task.
pub(crate) struct Prepared {
    /// Where to POST.
    pub url: String,
    /// Its headers.
    pub headers: reqwest::header::HeaderMap,
    /// The JSON body.
    pub body: RequestBody,
}

/// Whether a long request body for `model` may be sent while it is written
/// (see [`request_body`]): on a runtime with workers to spare, for the APIs
/// that send the body as written, and unless a hook reads it first (Bedrock
/// signs it and Codex compresses it whole).
pub(crate) fn streamable(model: &Model, options: &StreamOptions, flavor: tokio::runtime::RuntimeFlavor) -> bool {
    let hooked = options.hooks.as_ref().is_some_and(|h| h.at(crate::hooks::point::PAYLOAD).is_some());
    let api = model.api.as_str();
    let sends_as_written = matches!(
        api,
        crate::api::OPENAI_COMPLETIONS
            | crate::api::OPENAI_RESPONSES
            | crate::api::ANTHROPIC_MESSAGES
            | crate::api::GOOGLE_GENERATIVE_AI
            | crate::api::GOOGLE_VERTEX
            | crate::api::MISTRAL_CONVERSATIONS
            | crate::api::AZURE_OPENAI_RESPONSES
    );
    flavor == tokio::runtime::RuntimeFlavor::MultiThread && sends_as_written && !hooked
}

/// The output-token limit of a request.
pub(crate) fn max_tokens(model: &Model, options: &StreamOptions) -> u64 {
    options.max_tokens.or((model.max_tokens > 0).then_some(model.max_tokens)).unwrap_or(DEFAULT_MAX_TOKENS)
}

/// Used when neither the model nor the options give a limit (the reference's
/// default for models declared without `maxTokens`).
pub(crate) const DEFAULT_MAX_TOKENS: u64 = 16384;

/// The OpenAI-style effort for a thinking level (`xhigh` and `max` become `high`).
pub(crate) fn openai_effort(level: &str) -> &str {
    match level {
        "minimal" | "low" | "medium" | "high" => level,
        _ => "high",
    }
}

/// Whether an assistant message should be sent back: failed or aborted
/// turns are left out (their tool calls never got results).
pub(crate) fn replayable(m: &AssistantMessage) -> bool {
    !matches!(m.stop_reason, StopReason::Error | StopReason::Aborted)
}

/// The messages to send: replayable assistant messages, and only the tool
/// results that answer a tool call sent before them. Borrowed when every
/// message goes (the usual case: a long conversation is not listed twice).
pub(crate) fn messages_to_send<'b, 'a>(context: &'b ContextRef<'a>) -> Cow<'b, [&'a Message]> {
    let mut calls: HashSet<&str, foldhash::fast::RandomState> = HashSet::default();
    let mut kept: Option<Vec<&'a Message>> = None;
    for (at, &m) in context.messages.iter().enumerate() {
        let keep = match m {
            Message::Assistant(a) => {
                let keep = replayable(a);
                if keep {
                    for b in &a.content {
                        if let ContentBlock::ToolCall(call) = b {
                            calls.insert(call.id.as_str());
                        }
                    }
                }
                keep
            }
            Message::ToolResult(r) => calls.contains(r.tool_call_id.as_str()),
            Message::User(_) => true,
        };
        match (&mut kept, keep) {
            (Some(list), true) => list.push(m),
            (None, false) => {
                // The first message left out: from here on the list is made.
                let mut list = Vec::with_capacity(context.messages.len());
                list.extend_from_slice(&context.messages[..at]);
                kept = Some(list);
            }
            _ => {}
        }
    }
    match kept {
        Some(list) => Cow::Owned(list),
        None => Cow::Borrowed(&context.messages),
    }
}

/// A user message's blocks as sent: for a model without image input each run
/// of images becomes one [`text::USER_IMAGE_OMITTED`] text (none right after
/// that same text), as the reference downgrades them.
pub(crate) fn user_blocks(blocks: &[ContentBlock], images_ok: bool) -> std::borrow::Cow<'_, [ContentBlock]> {
    if images_ok || !blocks.iter().any(|b| matches!(b, ContentBlock::Image { .. })) {
        return std::borrow::Cow::Borrowed(blocks);
    }
    let mut out: Vec<ContentBlock> = Vec::with_capacity(blocks.len());
    for b in blocks {
        if matches!(b, ContentBlock::Image { .. }) {
            let after_placeholder =
                matches!(out.last(), Some(ContentBlock::Text { text }) if text == text::USER_IMAGE_OMITTED);
            if !after_placeholder {
                out.push(ContentBlock::text(text::USER_IMAGE_OMITTED));
            }
            continue;
        }
        out.push(b.clone());
    }
    std::borrow::Cow::Owned(out)
}

/// A tool result as text plus the images to send separately. Without image
/// support each image becomes [`text::TOOL_IMAGE_OMITTED`]; text parts are
/// joined with `\n`.
pub(crate) fn tool_result_parts(r: &ToolResultMessage, images_ok: bool) -> (String, Vec<(String, String)>) {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for b in &r.content {
        match b {
            ContentBlock::Text { text } => texts.push(text.clone()),
            ContentBlock::Image { data, mime_type } => {
                if images_ok {
                    images.push((data.clone(), mime_type.clone()));
                } else {
                    texts.push(text::TOOL_IMAGE_OMITTED.to_string());
                }
            }
            _ => {}
        }
    }
    (texts.join("\n"), images)
}

/// On the OpenAI wire an empty or whitespace-only tool result is sent as
/// [`text::NO_TOOL_OUTPUT`] (the writers' oracle in tests; they ask
/// [`tool_text::ToolText::is_blank`]).
#[cfg(test)]
pub(crate) fn non_empty_tool_text(s: String) -> String {
    if s.trim().is_empty() { text::NO_TOOL_OUTPUT.to_string() } else { s }
}

/// The call id part of a tool-call id (`<call_id>|<item id>` on Responses).
pub(crate) fn call_id(id: &str) -> &str {
    id.split('|').next().unwrap_or(id)
}

/// `data:<mime>;base64,<data>`.
pub(crate) fn data_url(data: &str, mime: &str) -> String {
    format!("data:{mime};base64,{data}")
}

/// POST and map a failure with `status_message`, or start reading events
/// (the hooks of `em` hear the answer's status and headers first).
pub(crate) async fn open_stream(
    request: Prepared,
    em: &Emitter,
    status_message: impl FnOnce(&http::HttpStatusError) -> String,
) -> Result<SseStream, ProviderError> {
    match http::post_sse(&request.url, request.headers, request.body).await {
        Ok(s) => {
            em.response(s.status, &s.headers).await;
            Ok(s)
        }
        Err(SendError::Status(e)) => {
            let kind = FailureKind::Status(e.status).advised(e.should_retry, &e.body);
            let failure = Failure { kind, retry_after: e.retry_after };
            Err(ProviderError::Failed(status_message(&e), failure))
        }
        Err(SendError::Other(e)) => Err(e),
    }
}

/// Let the request's hooks change it before it goes: its extra headers
/// (the model's and the call's; a `null` deletes any header of that name)
/// and its body (parsed, handed over, written again only when replaced).
pub(crate) async fn before_send(
    mut request: Prepared,
    model: &Model,
    options: &StreamOptions,
) -> Result<Prepared, ProviderError> {
    let Some(hooks) = &options.hooks else {
        return Ok(request);
    };
    if let Some(h) = hooks.at(crate::hooks::point::HEADERS) {
        let extra: serde_json::Map<String, serde_json::Value> = model
            .headers
            .iter()
            .chain(options.headers.iter())
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        if let Some(changed) = h.headers(extra.clone()).await {
            apply_headers(&mut request.headers, &extra, &changed)?;
        }
    }
    if let Some(h) = hooks.at(crate::hooks::point::PAYLOAD) {
        let payload: serde_json::Value =
            serde_json::from_slice(&request.body.to_vec()).unwrap_or(serde_json::Value::Null);
        if let Some(replaced) = h.payload(payload).await {
            request.body = serde_json::to_vec(&replaced).map_err(|e| ProviderError::failed(e.to_string()))?.into();
        }
    }
    Ok(request)
}

/// Apply a headers hook's answer: extra headers it dropped go, `null`s
/// delete, texts set (other values are written as JSON).
fn apply_headers(
    headers: &mut reqwest::header::HeaderMap,
    before: &serde_json::Map<String, serde_json::Value>,
    after: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), ProviderError> {
    for name in before.keys().filter(|k| !after.contains_key(*k)) {
        headers.remove(name.as_str());
    }
    for (name, value) in after {
        match value {
            serde_json::Value::Null => {
                headers.remove(name.as_str());
            }
            serde_json::Value::String(v) => {
                headers.extend(http::headers([(name.as_str(), v.as_str())])?);
            }
            other => {
                let v = other.to_string();
                headers.extend(http::headers([(name.as_str(), v.as_str())])?);
            }
        }
    }
    Ok(())
}

/// The HTTP status an error type stands for, when a server reports an error
/// inside a stream it had accepted: Anthropic's error types, and the OpenAI
/// codes and types that name one.
const REPORTED_STATUSES: [(&str, u16); 12] = [
    ("invalid_request_error", 400),
    ("authentication_error", 401),
    ("billing_error", 402),
    ("permission_error", 403),
    ("not_found_error", 404),
    ("request_too_large", 413),
    ("rate_limit_error", 429),
    ("rate_limit_exceeded", 429),
    ("api_error", 500),
    ("server_error", 500),
    ("timeout_error", 504),
    ("overloaded_error", 529),
];

/// The failure of an error reported inside a stream, from its error object:
/// a numeric `code` or `status` (as gateways send them), else its `code` or
/// `type` looked up in [`REPORTED_STATUSES`].
pub(crate) fn reported(msg: impl Into<String>, err: &serde_json::Value) -> ProviderError {
    let numeric = ["code", "status"]
        .iter()
        .filter_map(|k| err.get(k).and_then(serde_json::Value::as_u64))
        .find(|n| (100..600).contains(n))
        .map(|n| n as u16);
    let named = || {
        ["code", "type"]
            .iter()
            .filter_map(|k| err.get(k).and_then(serde_json::Value::as_str))
            .find_map(|name| REPORTED_STATUSES.iter().find(|(n, _)| *n == name).map(|(_, status)| *status))
    };
    let msg = msg.into();
    let kind = FailureKind::Reported(numeric.or_else(named)).advised(None, &msg);
    ProviderError::of_kind(kind, msg)
}

/// The stop reason of a finished message: `toolUse` whenever it calls tools.
pub(crate) fn final_reason(em: &Emitter, reason: StopReason) -> StopReason {
    if reason == StopReason::Stop && em.has_tool_calls() { StopReason::ToolUse } else { reason }
}

/// Test helpers shared by the clients' tests.
#[cfg(test)]
pub(crate) mod testing {
    /// Cut `body` into pieces of `size` bytes (also inside UTF-8 characters).
    pub fn split_bytes(body: &str, size: usize) -> Vec<Vec<u8>> {
        body.as_bytes().chunks(size.max(1)).map(<[u8]>::to_vec).collect()
    }

    /// Piece sizes every stream is replayed with.
    pub const PIECE_SIZES: [usize; 6] = [1, 2, 3, 7, 64, usize::MAX];
}

#[cfg(test)]
mod reported_errors {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_of_reported_errors() {
        let status = |err: serde_json::Value| reported("m", &err).kind();
        let r = |s: Option<u16>| Some(FailureKind::Reported(s));
        assert_eq!(status(json!({"type": "overloaded_error", "message": "Overloaded"})), r(Some(529)));
        assert_eq!(status(json!({"type": "invalid_request_error"})), r(Some(400)));
        assert_eq!(status(json!({"code": "server_error", "message": "x"})), r(Some(500)));
        assert_eq!(status(json!({"code": "rate_limit_exceeded"})), r(Some(429)));
        assert_eq!(status(json!({"code": 502, "message": "Provider returned error"})), r(Some(502)));
        assert_eq!(status(json!({"code": 7, "type": "api_error"})), r(Some(500)));
        assert_eq!(status(json!({"type": "error", "code": "content_filter"})), r(None));
        // The words of a message decide nothing.
        assert_eq!(status(json!({"message": "503 overloaded, connection reset"})), r(None));
        assert_eq!(status(json!("overloaded_error")), r(None));
    }
}

#[cfg(test)]
mod sent_messages {
    use super::*;
    use crate::{ToolResultMessage, UserMessage};
    use serde_json::json;

    fn call(id: &str, stop: StopReason) -> Message {
        let content = vec![ContentBlock::tool_call(id, "read", json!({}))];
        Message::Assistant(AssistantMessage { content, stop_reason: stop, ..Default::default() })
    }

    fn result(id: &str) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "read".into(),
            content: vec![ContentBlock::text("r")],
            details: None,
            is_error: false,
            duration_ms: None,
            nested_calls: None,
            usage: None,
            timestamp: 0,
        })
    }

    /// Every message sent: the conversation is borrowed, not listed again.
    /// A failed turn and the results of its calls (or of no call) are left
    /// out, the rest kept in order.
    #[test]
    fn failed_turns_and_results_of_no_call_are_left_out() {
        let (user, a, ra) = (Message::User(UserMessage::text("go")), call("a", StopReason::ToolUse), result("a"));
        let whole = [&user, &a, &ra];
        let context = ContextRef { system_prompt: None, messages: whole.to_vec(), tools: &[] };
        let sent = messages_to_send(&context);
        assert!(matches!(sent, Cow::Borrowed(_)));
        assert_eq!(sent.len(), 3);
        let (failed, rf, stray) = (call("f", StopReason::Error), result("f"), result("zz"));
        let mixed = [&user, &failed, &rf, &a, &stray, &ra];
        let context = ContextRef { system_prompt: None, messages: mixed.to_vec(), tools: &[] };
        let sent = messages_to_send(&context);
        assert!(matches!(sent, Cow::Owned(_)));
        assert_eq!(&*sent, &[&user, &a, &ra]);
    }
}

#[cfg(test)]
mod hostile_streams {
    use super::testing::split_bytes;
    use crate::emitter::Emitter;
    use crate::http::SseStream;
    use crate::model::Model;
    use tokio::sync::mpsc;

    /// Events with wrong types, missing fields, odd indexes and orders: every
    /// client must end with a result (never panic, never hang).
    const BODIES: &[&str] = &[
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1,\"function\":{\"arguments\":5}}]},\"finish_reason\":7}]}\n\n",
        "data: {\"choices\":\"x\",\"usage\":{\"prompt_tokens\":-3,\"prompt_tokens_details\":{\"cached_tokens\":99}}}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":18446744073709551615,\"id\":null}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: []\n\ndata: null\n\ndata: 42\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":99,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":null},\"usage\":\"x\"}\n\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"input\":[1]}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n",
        "data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"reasoning\"}}\n\ndata: {\"type\":\"response.function_call_arguments.done\",\"item_id\":\"zz\"}\n\ndata: {\"type\":\"response.completed\",\"response\":null}\n\n",
        "data: {\"type\":\"response.reasoning_summary_part.added\",\"item_id\":\"r\"}\n\ndata: {\"type\":\"response.reasoning_summary_part.added\",\"item_id\":\"r\"}\n\ndata: {\"type\":\"response.failed\"}\n\n",
        "data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"arguments\":\"{\\\"a\\\":\"}}\n\ndata: {\"type\":\"response.incomplete\",\"response\":{\"status\":7}}\n\n",
        ":\n\n\n\n\r\r\n\ndata\n\nevent:\n\nid: 3\nretry: x\n\n",
    ];

    #[tokio::test]
    async fn hostile_events_never_panic() {
        for api in ["openai-completions", "anthropic-messages", "openai-responses", "mistral-conversations"] {
            let model = Model { api: api.into(), ..Default::default() };
            for body in BODIES.iter().chain(MISTRAL_BODIES) {
                for size in [1, 5, usize::MAX] {
                    let (tx, _rx) = mpsc::channel(10_000);
                    let mut em = Emitter::new(tx, &model);
                    let mut sse = SseStream::from_chunks(split_bytes(body, size));
                    let _ = match api {
                        "openai-completions" => super::openai_completions::read_stream(&mut sse, &mut em).await,
                        "anthropic-messages" => super::anthropic::read_stream(&mut sse, &mut em).await,
                        "mistral-conversations" => super::mistral_stream::read_stream(&mut sse, &mut em).await,
                        _ => super::openai_responses::read_stream(&mut sse, &mut em).await,
                    };
                }
            }
        }
    }

    /// Mistral's shapes gone wrong: content and tool calls of the wrong
    /// types, ids and indexes out of range, thinking that is not a list.
    const MISTRAL_BODIES: &[&str] = &[
        "data: {\"choices\":[{\"delta\":{\"content\":[{\"type\":\"thinking\",\"thinking\":7},{\"type\":\"text\"}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1,\"id\":5,\"function\":{\"arguments\":[1]}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":{\"a\":1}}}]}\n\n",
        "data: {\"choices\":[{\"delta\":\"x\",\"finish_reason\":5}],\"usage\":{\"prompt_tokens\":-1,\"prompt_tokens_details\":{\"cached_tokens\":99}}}\n\n",
    ];
}

/// Random byte streams and random event streams, cut anywhere, into the three
/// clients: whatever a server sends, reading it ends with a result.
#[cfg(test)]
mod random_streams {
    use proptest::prelude::*;
    use serde_json::Value;
    use tokio::sync::mpsc;

    use crate::emitter::Emitter;
    use crate::http::SseStream;
    use crate::model::Model;

    /// Keys the clients look at.
    const KEYS: &[&str] = &[
        "type",
        "index",
        "id",
        "delta",
        "choices",
        "finish_reason",
        "tool_calls",
        "function",
        "name",
        "arguments",
        "content",
        "reasoning_content",
        "content_block",
        "input",
        "partial_json",
        "text",
        "thinking",
        "signature",
        "message",
        "usage",
        "stop_reason",
        "error",
        "code",
        "item",
        "item_id",
        "output_index",
        "response",
        "status",
    ];
    /// Values the clients match on.
    const WORDS: &[&str] = &[
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "error",
        "text",
        "thinking",
        "tool_use",
        "text_delta",
        "thinking_delta",
        "input_json_delta",
        "signature_delta",
        "tool_use",
        "end_turn",
        "max_tokens",
        "response.created",
        "response.output_item.added",
        "response.output_item.done",
        "response.output_text.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "function_call",
        "reasoning",
        "stop",
        "tool_calls",
        "length",
        "overloaded_error",
        "server_error",
        "{",
        "{\"a\":",
        "[DONE]",
    ];

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            (0u64..4).prop_map(Value::from),
            prop::sample::select(WORDS).prop_map(Value::from),
            ".{0,6}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec((prop::sample::select(KEYS), inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
            ]
        })
    }

    /// Raw bytes, or events with an optional name, JSON data and any line ends.
    fn body() -> impl Strategy<Value = Vec<u8>> {
        let event = (
            prop::option::of(prop::sample::select(WORDS)),
            json_value(),
            prop::sample::select(&["\n\n", "\r\n\r\n", "\r\r", "\n", ""][..]),
        )
            .prop_map(|(name, data, end)| {
                let name = name.map(|n| format!("event: {n}\n")).unwrap_or_default();
                format!("{name}data: {data}{end}")
            });
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..600),
            prop::collection::vec(event, 0..16).prop_map(|evs| evs.concat().into_bytes()),
        ]
    }

    fn split(body: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
        let mut pieces = Vec::new();
        let mut rest = body;
        for &c in cuts {
            let (a, b) = rest.split_at(c.min(rest.len()));
            pieces.push(a.to_vec());
            rest = b;
        }
        pieces.push(rest.to_vec());
        pieces
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn any_stream_ends_with_a_result(body in body(), cuts in prop::collection::vec(0usize..48, 0..8)) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            for api in ["openai-completions", "anthropic-messages", "openai-responses", "mistral-conversations"] {
                let model = Model { api: api.into(), ..Default::default() };
                rt.block_on(async {
                    // Room for every event the body can make.
                    let (tx, _rx) = mpsc::channel(4 * body.len() + 16);
                    let mut em = Emitter::new(tx, &model);
                    let mut sse = SseStream::from_chunks(split(&body, &cuts));
                    let _ = match api {
                        "openai-completions" => super::openai_completions::read_stream(&mut sse, &mut em).await,
                        "anthropic-messages" => super::anthropic::read_stream(&mut sse, &mut em).await,
                        "mistral-conversations" => super::mistral_stream::read_stream(&mut sse, &mut em).await,
                        _ => super::openai_responses::read_stream(&mut sse, &mut em).await,
                    };
                });
            }
        }
    }
}
