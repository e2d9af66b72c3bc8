//! A scripted in-process provider for tests (api `faux`).
//!
//! Make a provider, queue assistant messages (or functions that make one
//! from the request), and send requests with its [`FauxProvider::model`],
//! which carries the provider (a model with `api: "faux"` and no provider
//! has nothing queued). Each request takes the next response from the queue and
//! streams it like a real provider would (text and thinking in small chunks,
//! tool-call arguments as JSON text). An empty queue ends the stream with the
//! error `No more faux responses queued`.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use pi_ai::{Context, StreamOptions, UserMessage, Message, complete, faux};
//! let f = faux::register("faux-doc");
//! f.set_responses(vec![faux::assistant_message(vec![faux::text("hello")])]);
//! let ctx = Context { messages: vec![Message::User(UserMessage::text("hi"))], ..Default::default() };
//! let msg = complete(&f.model(), &ctx, StreamOptions::default()).await;
//! assert_eq!(msg.text(), "hello");
//! # }
//! ```

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::{Failure, FailureKind};
use crate::model::{Model, StreamOptions, api};
use crate::text;
use crate::types::{AssistantMessage, ContentBlock, Context, StopReason, Usage};

/// Makes a response from the request.
pub type FauxFactory = Arc<dyn Fn(&Context, &StreamOptions, &Model) -> AssistantMessage + Send + Sync>;

/// One scripted response.
#[derive(Clone)]
pub enum FauxResponse {
    /// Send this message.
    Message(Box<AssistantMessage>),
    /// Compute the message from the request.
    Factory(FauxFactory),
}

impl From<AssistantMessage> for FauxResponse {
    fn from(m: AssistantMessage) -> Self {
        FauxResponse::Message(Box::new(m))
    }
}

#[derive(Default)]
struct FauxState {
    queue: VecDeque<FauxResponse>,
    contexts: Vec<Context>,
    tokens_per_second: Option<f64>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A handle on a faux provider: clones share its queue.
#[derive(Clone)]
pub struct FauxProvider {
    name: String,
    state: Arc<Mutex<FauxState>>,
}

impl std::fmt::Debug for FauxProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FauxProvider").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The same provider (one queue).
impl PartialEq for FauxProvider {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }
}

/// A new faux provider named `name` (its models' `provider`), with nothing
/// queued. Its models carry it, so each provider has its own queue whatever
/// its name.
pub fn register(name: &str) -> FauxProvider {
    FauxProvider { name: name.to_string(), state: Arc::new(Mutex::new(FauxState::default())) }
}

impl FauxProvider {
    /// A model served by this provider: id `faux-1`, name `Faux Model`, base
    /// URL `http://localhost:0`, text and image input.
    pub fn model(&self) -> Model {
        Model {
            id: "faux-1".into(),
            name: "Faux Model".into(),
            api: api::FAUX.into(),
            provider: self.name.clone(),
            base_url: "http://localhost:0".into(),
            reasoning: false,
            input: vec!["text".into(), "image".into()],
            context_window: 128_000,
            max_tokens: 16_384,
            faux: Some(self.clone()),
            ..Default::default()
        }
    }

    /// Replace the queue.
    pub fn set_responses<R: Into<FauxResponse>>(&self, responses: Vec<R>) {
        let mut s = lock(&self.state);
        s.queue = responses.into_iter().map(Into::into).collect();
    }

    /// Add to the end of the queue.
    pub fn append_responses<R: Into<FauxResponse>>(&self, responses: Vec<R>) {
        let mut s = lock(&self.state);
        s.queue.extend(responses.into_iter().map(Into::into));
    }

    /// Queue a factory.
    pub fn append_factory(
        &self,
        f: impl Fn(&Context, &StreamOptions, &Model) -> AssistantMessage + Send + Sync + 'static,
    ) {
        lock(&self.state).queue.push_back(FauxResponse::Factory(Arc::new(f)));
    }

    /// How many responses are still queued.
    pub fn pending_count(&self) -> usize {
        lock(&self.state).queue.len()
    }

    /// The contexts of the requests served so far.
    pub fn contexts(&self) -> Vec<Context> {
        lock(&self.state).contexts.clone()
    }

    /// Pace streaming at this many (estimated) tokens per second; `None` streams at once.
    pub fn set_tokens_per_second(&self, tps: Option<f64>) {
        lock(&self.state).tokens_per_second = tps;
    }
}

/// A text block.
pub fn text(s: &str) -> ContentBlock {
    ContentBlock::text(s)
}

/// A thinking block.
pub fn thinking(s: &str) -> ContentBlock {
    ContentBlock::Thinking { thinking: s.to_string(), signature: None }
}

/// A tool-call block; without `id` one is made up (`faux_call_<n>`).
pub fn tool_call(name: &str, arguments: Value, id: Option<&str>) -> ContentBlock {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = id
        .map(str::to_string)
        .unwrap_or_else(|| format!("faux_call_{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    ContentBlock::tool_call(id, name, arguments)
}

/// An assistant message with this content; the stop reason is `toolUse`
/// when it calls a tool, else `stop`.
pub fn assistant_message(content: Vec<ContentBlock>) -> AssistantMessage {
    let reason = if content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_))) {
        StopReason::ToolUse
    } else {
        StopReason::Stop
    };
    AssistantMessage { content, stop_reason: reason, ..Default::default() }
}

/// A failed response: stop reason `error` with this message, of no
/// particular kind (never retried).
pub fn error_message(message: &str) -> AssistantMessage {
    AssistantMessage { stop_reason: StopReason::Error, error_message: Some(message.into()), ..Default::default() }
}

/// A failed response of a given kind (an HTTP status, a cut stream...), with
/// the wait the server asked for, as a real provider reports it.
pub fn failure_message(message: &str, failure: Failure) -> AssistantMessage {
    AssistantMessage { failure: Some(Box::new(failure)), ..error_message(message) }
}

/// Characters per estimated token.
const CHARS_PER_TOKEN: usize = 4;
/// Estimated tokens per streamed chunk.
const TOKENS_PER_CHUNK: usize = 4;

fn estimate_tokens(chars: usize) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN) as u64
}

fn context_chars(c: &Context) -> usize {
    let mut n = c.system_prompt.as_ref().map_or(0, |s| s.chars().count());
    n += serde_json::to_string(&c.messages).map_or(0, |s| s.chars().count());
    n += serde_json::to_string(&c.tools).map_or(0, |s| s.chars().count());
    n
}

fn chunks(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(CHARS_PER_TOKEN * TOKENS_PER_CHUNK).map(|c| c.iter().collect()).collect()
}

async fn pace(tps: Option<f64>, piece: &str) {
    if let Some(tps) = tps.filter(|t| *t > 0.0) {
        let tokens = estimate_tokens(piece.chars().count()) as f64;
        tokio::time::sleep(Duration::from_secs_f64(tokens / tps)).await;
    }
}

/// Serve one request from the queue of the model's provider.
pub(crate) async fn run(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    em: &mut Emitter,
) -> Result<StopReason, ProviderError> {
    let Some(provider) = &model.faux else {
        return Err(ProviderError::failed(text::NO_FAUX_RESPONSES));
    };
    let (next, tps) = {
        let mut s = lock(&provider.state);
        s.contexts.push(context.clone());
        (s.queue.pop_front(), s.tokens_per_second)
    };
    let scripted = match next {
        None => return Err(ProviderError::failed(text::NO_FAUX_RESPONSES)),
        Some(FauxResponse::Message(m)) => *m,
        Some(FauxResponse::Factory(f)) => f(context, options, model),
    };
    em.start().await?;
    let input = estimate_tokens(context_chars(context));
    let mut out_chars = 0;
    for block in &scripted.content {
        match block {
            ContentBlock::Text { text } => {
                let i = em.text_start().await?;
                for piece in chunks(text) {
                    pace(tps, &piece).await;
                    em.text_delta(i, &piece).await?;
                }
                em.end(i).await?;
                out_chars += text.chars().count();
            }
            ContentBlock::Thinking { thinking, signature } => {
                let i = em.thinking_start(signature.clone()).await?;
                for piece in chunks(thinking) {
                    pace(tps, &piece).await;
                    em.thinking_delta(i, &piece).await?;
                }
                em.end(i).await?;
                out_chars += thinking.chars().count();
            }
            ContentBlock::ToolCall(call) => {
                let crate::ToolCallBlock { id, name, arguments, arguments_error, .. } = &**call;
                let i = em.toolcall_start(id, name).await?;
                // A scripted parse failure streams its raw text (after the marker).
                let raw = match arguments_error {
                    Some(e) => {
                        e.split_once("\n\nReceived arguments:\n").map(|(_, raw)| raw.to_string()).unwrap_or_default()
                    }
                    None => arguments.to_string(),
                };
                for piece in chunks(&raw) {
                    pace(tps, &piece).await;
                    em.toolcall_delta(i, &piece).await?;
                }
                em.end(i).await?;
                out_chars += raw.chars().count();
            }
            ContentBlock::Image { .. } => {}
        }
    }
    em.set_usage(Usage { input, output: estimate_tokens(out_chars), ..Default::default() });
    if let Some(id) = &scripted.response_id {
        em.set_response_id(id, false);
    }
    match scripted.stop_reason {
        StopReason::Error => Err(ProviderError::Failed(
            scripted.error_message.map(String::from).unwrap_or_default(),
            scripted.failure.map_or(Failure::new(FailureKind::Other), |f| *f),
        )),
        StopReason::Aborted => Err(ProviderError::Aborted),
        StopReason::Pending => Ok(StopReason::Stop),
        r => Ok(r),
    }
}
