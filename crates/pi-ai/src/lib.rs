//! pi's LLM provider layer: the message and streaming-event types the agent
//! speaks, and clients that turn a [`Context`] into a streamed
//! [`AssistantMessage`] over three wire APIs (OpenAI Chat Completions,
//! OpenAI Responses, Anthropic Messages) plus a scripted in-process
//! [`faux`] provider for tests.
//!
//! [`stream`] starts a request on the current tokio runtime and returns a
//! channel of [`AssistantMessageEvent`]s. The last event is always
//! [`Done`](AssistantMessageEvent::Done) or [`Error`](AssistantMessageEvent::Error):
//! HTTP errors, malformed events, a stream cut short and an abort all end as
//! an `error` event whose message has stop reason `error` or `aborted` and an
//! `error_message` worded like the reference's (for example
//! `500: {"message":"boom"}` on Chat Completions, `Request was aborted`).
//! Nothing a server sends can panic the caller. A failed message also
//! carries a typed [`Failure`] (the HTTP status and the server's
//! `Retry-After`, or a connection failure, a timeout, a cut stream) so a
//! caller decides on a retry by kind, never by the words of the message.
//!
//! Streams are read in time linear in their size: the server-sent-event
//! framing is this crate's own (one pass over the bytes, an event at most
//! [`MAX_SSE_EVENT_BYTES`](limits::MAX_SSE_EVENT_BYTES)), and events carry the deltas, not copies of
//! the whole message (see [`AssistantMessageEvent`]).
//!
//! Tool-call arguments are parsed when the call ends. When they are not a JSON
//! object, the block keeps `arguments: {}` and sets `arguments_error` to the
//! parser's message, a blank line, `Received arguments:` and the raw text (see
//! [`json_args`]), so the agent can answer `Invalid arguments for tool "<name>": …`
//! without running the tool.
//!
//! ```no_run
//! # async fn demo() {
//! use pi_ai::{Context, Message, Model, StreamOptions, UserMessage, complete};
//! let model = Model {
//!     id: "gpt-4o-mini".into(),
//!     api: "openai-completions".into(),
//!     provider: "openai".into(),
//!     base_url: "https://api.openai.com/v1".into(),
//!     ..Default::default()
//! };
//! let ctx = Context {
//!     system_prompt: Some("Be brief.".into()),
//!     messages: vec![Message::User(UserMessage::text("Say hi"))],
//!     tools: vec![],
//! };
//! let options = StreamOptions { api_key: Some("sk-...".into()), ..Default::default() };
//! let reply = complete(&model, &ctx, options).await;
//! println!("{}", reply.text());
//! # }
//! ```
#![deny(missing_docs)]

mod block_de;
mod compat;
pub mod copilot;
mod emitter;
mod error;
mod event;
mod failure;
pub mod hooks;
mod http;
pub mod intern;
pub use intern::ThinStr;
pub mod json_args;
pub mod limits;
pub mod llama;
mod model;
pub mod oauth;
mod providers;
mod sse;
pub mod strict;
pub mod text;
mod types;

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use tokio::sync::mpsc;

pub use compat::{AnthropicCompat, CompletionsCompat, SessionAffinityFormat, SessionCompat, ThinkingFormat};
pub use event::{AssistantMessageEvent, PartialMessage};
pub use failure::{Failure, FailureKind, is_quota_error, parse_retry_after};
pub use hooks::{RequestHooks, SharedHooks};
pub use model::{MaxTokensField, Model, ModelCost, OpenAiCompletionsCompat, StreamOptions, api};
pub use providers::anthropic_wire::is_anthropic_oauth_token;
pub use providers::{BodySink, faux};
pub use strict::{ConstrainedSampling, StrictMode};
pub use types::{
    AssistantMessage, ContentBlock, Context, ContextRef, Cost, Message, StopReason, Tool, ToolCall, ToolCallBlock,
    ToolResultMessage, Usage, UserContent, UserMessage, now_ms,
};

use emitter::Emitter;
use error::ProviderError;
use limits::CHANNEL_CAPACITY;

/// Start a request and return its events. Spawns a task on the current tokio
/// runtime (without one, the receiver gets a single `error` event). The last
/// event is always `done` or `error`; dropping the receiver cancels the
/// request.
pub fn stream(model: &Model, context: &Context, options: StreamOptions) -> mpsc::Receiver<AssistantMessageEvent> {
    stream_ref(model, &context.view(), options)
}

/// As [`stream`], with the conversation borrowed: the request body is
/// written from it before this returns, so a long conversation is never
/// copied for the request (only its bytes go to the task).
pub fn stream_ref(
    model: &Model,
    context: &ContextRef<'_>,
    mut options: StreamOptions,
) -> mpsc::Receiver<AssistantMessageEvent> {
    let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
    let mut em = Emitter::new(tx, model);
    if providers::anthropic_wire::renames_tools(model, &options) {
        em.know_tools(context.tools.iter().map(|t| t.name.as_str()));
    }
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            if providers::streamable(model, &options, handle.runtime_flavor()) {
                options.body_sink = BodySink(providers::Sink::KeepShort);
            }
            let work = prepare(model, context, &options);
            options.body_sink = BodySink::default();
            match work {
                // Too long to hold: sent while it is written a second time.
                Work::Http(mut request) if !request.body.is_whole() => {
                    let (tx, rx) = mpsc::channel(limits::STREAMED_BODY_CHUNKS_IN_FLIGHT);
                    let len = request.body.len();
                    request.body = providers::RequestBody::streamed(rx, len);
                    let sink = BodySink(providers::Sink::Send { tx, left: len });
                    let again = StreamOptions { body_sink: sink, ..options.clone() };
                    let owned = model.clone();
                    handle.spawn(async move { run(owned, Work::Http(request), options, em).await });
                    // The HTTP client takes the chunks on another worker; this
                    // one waits for room in flight (tasks queued on it move).
                    tokio::task::block_in_place(|| prepare(model, context, &again));
                }
                work => {
                    let model = model.clone();
                    handle.spawn(async move { run(model, work, options, em).await });
                }
            }
        }
        Err(_) => {
            let _ = em.try_error(text::NEEDS_RUNTIME);
        }
    }
    rx
}

/// What the provider task does.
enum Work {
    /// Send a request written beforehand.
    Http(providers::Prepared),
    /// Answer from the in-process faux provider (which keeps what it was sent).
    Faux(Context),
    /// Report a failure that happened before sending.
    Failed(ProviderError),
}

/// Write the request for `model`'s API (a panic while writing it becomes an error).
fn prepare(model: &Model, context: &ContextRef<'_>, options: &StreamOptions) -> Work {
    if options.signal.is_cancelled() {
        return Work::Failed(ProviderError::Aborted);
    }
    let write = || {
        let prepared = match model.api.as_str() {
            api::OPENAI_COMPLETIONS if model.provider == providers::azure::PROVIDER => {
                providers::azure::prepare_completions(model, context, options)
            }
            api::OPENAI_COMPLETIONS => providers::openai_completions::prepare(model, context, options),
            api::OPENAI_RESPONSES => providers::openai_responses::prepare(model, context, options),
            api::ANTHROPIC_MESSAGES => providers::anthropic::prepare(model, context, options),
            api::GOOGLE_GENERATIVE_AI => providers::google::prepare_generative(model, context, options),
            api::GOOGLE_VERTEX => providers::google::prepare_vertex(model, context, options),
            api::BEDROCK_CONVERSE_STREAM => providers::bedrock::prepare(model, context, options),
            api::MISTRAL_CONVERSATIONS => providers::mistral::prepare(model, context, options),
            api::AZURE_OPENAI_RESPONSES => providers::azure::prepare(model, context, options),
            api::OPENAI_CODEX_RESPONSES => providers::openai_codex::prepare(model, context, options),
            api::FAUX => return Work::Faux(context.to_context()),
            other => {
                Err(ProviderError::failed(format!("Unsupported API \"{other}\" (supported: {})", api::ALL.join(", "))))
            }
        };
        let prepared = match prepared {
            Ok(p) if model.provider == copilot::PROVIDER => {
                providers::github_copilot::adapt(p, model, context, options)
            }
            other => other,
        };
        prepared.map_or_else(Work::Failed, Work::Http)
    };
    std::panic::catch_unwind(AssertUnwindSafe(write))
        .unwrap_or_else(|panic| Work::Failed(ProviderError::failed(internal_error(panic))))
}

/// The message of a panic caught in a provider client.
fn internal_error(panic: Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    format!("Internal error in the provider client: {what}")
}

/// Whether the environment offers AWS credentials for Amazon Bedrock
/// (`AWS_BEARER_TOKEN_BEDROCK`, `AWS_ACCESS_KEY_ID` with
/// `AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`, or the container and
/// web-identity variables, which a request reports as unsupported), so a
/// `bedrock-converse-stream` model needs no API key.
pub fn aws_credentials_available() -> bool {
    providers::bedrock::credentials::available(&providers::bedrock::credentials::process_env())
}

/// Run a request to the end and return its final message (an error ends as a
/// message with stop reason `error` or `aborted`).
pub async fn complete(model: &Model, context: &Context, options: StreamOptions) -> AssistantMessage {
    let mut rx = stream(model, context, options);
    let mut last = None;
    while let Some(ev) = rx.recv().await {
        if let Some(m) = ev.final_message() {
            last = Some(m.clone());
        }
    }
    last.unwrap_or_else(|| AssistantMessage {
        api: crate::intern::intern(&model.api),
        provider: crate::intern::intern(&model.provider),
        model: crate::intern::intern(&model.id),
        stop_reason: StopReason::Error,
        error_message: Some(text::NO_RESULT.into()),
        timestamp: now_ms(),
        ..Default::default()
    })
}

async fn run(model: Model, work: Work, options: StreamOptions, mut em: Emitter) {
    let signal = options.signal.clone();
    let result = if signal.is_cancelled() {
        Err(ProviderError::Aborted)
    } else {
        let task = async {
            match work {
                Work::Failed(e) => Err(e),
                Work::Faux(context) => providers::faux::run(&model, &context, &options, &mut em).await,
                Work::Http(request) => {
                    let request = providers::before_send(request, &model, &options).await?;
                    em.hear_with(options.hooks.clone());
                    match model.api.as_str() {
                        api::OPENAI_RESPONSES => providers::openai_responses::send(&model, request, &mut em).await,
                        api::ANTHROPIC_MESSAGES => providers::anthropic::send(request, &mut em).await,
                        api::GOOGLE_GENERATIVE_AI => providers::google::send_generative(request, &mut em).await,
                        api::GOOGLE_VERTEX => providers::google::send_vertex(request, &options, &mut em).await,
                        api::BEDROCK_CONVERSE_STREAM => providers::bedrock::send(request, &options, &mut em).await,
                        api::MISTRAL_CONVERSATIONS => providers::mistral::send(request, &mut em).await,
                        api::AZURE_OPENAI_RESPONSES => providers::azure::send(request, &mut em).await,
                        api::OPENAI_CODEX_RESPONSES => providers::openai_codex::send(request, &mut em).await,
                        _ => providers::openai_completions::send(request, &mut em).await,
                    }
                }
            }
        };
        tokio::select! {
            biased;
            _ = signal.cancelled() => Err(ProviderError::Aborted),
            r = AssertUnwindSafe(task).catch_unwind() => r.unwrap_or_else(|panic| {
                Err(ProviderError::failed(internal_error(panic)))
            }),
        }
    };
    match result {
        Ok(reason) => em.done(reason).await,
        Err(ProviderError::ReceiverGone) => {}
        Err(ProviderError::Aborted) => {
            // Chat Completions closes the blocks it streamed (`text_end`...)
            // before the abort is reported, as the reference's client does.
            if model.api == api::OPENAI_COMPLETIONS {
                let _ = em.end_all().await;
            }
            em.error(StopReason::Aborted, text::REQUEST_ABORTED.into(), None).await
        }
        Err(ProviderError::Failed(message, failure)) => em.error(StopReason::Error, message, Some(failure)).await,
    }
}
