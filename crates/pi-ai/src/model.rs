//! Models and per-request options.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// The wire APIs this crate speaks (values of [`Model::api`]).
pub mod api {
    /// OpenAI Chat Completions (`POST {baseUrl}/chat/completions`).
    pub const OPENAI_COMPLETIONS: &str = "openai-completions";
    /// OpenAI Responses (`POST {baseUrl}/responses`).
    pub const OPENAI_RESPONSES: &str = "openai-responses";
    /// Anthropic Messages (`POST {baseUrl}/v1/messages`).
    pub const ANTHROPIC_MESSAGES: &str = "anthropic-messages";
    /// Amazon Bedrock ConverseStream (`POST {baseUrl}/model/{id}/converse-stream`).
    pub const BEDROCK_CONVERSE_STREAM: &str = "bedrock-converse-stream";
    /// Mistral (`POST {baseUrl}/v1/chat/completions`, Mistral's own shapes).
    pub const MISTRAL_CONVERSATIONS: &str = "mistral-conversations";
    /// Azure OpenAI Responses (`POST {baseUrl}/responses?api-version=…`).
    pub const AZURE_OPENAI_RESPONSES: &str = "azure-openai-responses";
    /// OpenAI Codex Responses, a ChatGPT subscription (`POST {baseUrl}/codex/responses`).
    pub const OPENAI_CODEX_RESPONSES: &str = "openai-codex-responses";
    /// The scripted in-process provider of [`crate::faux`].
    pub const FAUX: &str = "faux";
    /// Google Generative AI (`POST {baseUrl}/models/{id}:streamGenerateContent?alt=sse`).
    pub const GOOGLE_GENERATIVE_AI: &str = "google-generative-ai";
    /// Google Vertex AI (the same body on `{baseUrl}/v1/…/publishers/google/models/{id}`).
    pub const GOOGLE_VERTEX: &str = "google-vertex";
    /// Every API above.
    pub const ALL: [&str; 10] = [
        OPENAI_COMPLETIONS,
        OPENAI_RESPONSES,
        ANTHROPIC_MESSAGES,
        FAUX,
        GOOGLE_GENERATIVE_AI,
        GOOGLE_VERTEX,
        BEDROCK_CONVERSE_STREAM,
        MISTRAL_CONVERSATIONS,
        AZURE_OPENAI_RESPONSES,
        OPENAI_CODEX_RESPONSES,
    ];
}

/// A model and how to reach it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// The id sent to the provider.
    pub id: String,
    /// A display name.
    pub name: String,
    /// One of [`api`]'s constants.
    pub api: String,
    /// The provider name (the `models.json` key).
    pub provider: String,
    /// Where the API lives, e.g. `https://api.openai.com/v1` (OpenAI) or
    /// `https://api.anthropic.com` (Anthropic, which appends `/v1/messages`).
    pub base_url: String,
    /// Whether the model reasons (enables thinking parameters).
    #[serde(default)]
    pub reasoning: bool,
    /// Input kinds: `text`, `image`.
    #[serde(default)]
    pub input: Vec<String>,
    /// Context window in tokens.
    #[serde(default)]
    pub context_window: u64,
    /// Output-token limit, sent as the request's maximum unless
    /// [`StreamOptions::max_tokens`] says otherwise.
    #[serde(default)]
    pub max_tokens: u64,
    /// Extra HTTP headers for every request.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Prices in dollars per million tokens.
    #[serde(default)]
    pub cost: ModelCost,
    /// What the endpoint accepts (mostly `openai-completions`'s; strict
    /// tools on every API); unset switches are detected from the provider
    /// and base URL.
    #[serde(default)]
    pub compat: OpenAiCompletionsCompat,
    /// The value sent for each thinking level (`thinkingLevelMap`): a level
    /// mapped to a string sends that string, one mapped to `null` is
    /// unsupported, an unmapped level sends the API's default value.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub thinking_level_map: BTreeMap<String, Option<String>>,
    /// For `api: "faux"`: the scripted provider that serves the model
    /// ([`crate::faux::FauxProvider::model`] sets it), so the test that
    /// queues responses and the request that takes them reach one queue
    /// without a registry. Never in `models.json`.
    #[serde(skip)]
    pub faux: Option<crate::faux::FauxProvider>,
}

impl Model {
    /// Whether the model accepts images.
    pub fn supports_images(&self) -> bool {
        self.input.iter().any(|i| i == "image")
    }

    /// What `thinkingLevelMap` says for `level`: `Some(Some(value))` to send
    /// `value`, `Some(None)` for a level marked unsupported, `None` when
    /// the map leaves it to the API's default.
    pub fn mapped_thinking(&self, level: &str) -> Option<Option<&str>> {
        self.thinking_level_map.get(level).map(Option::as_deref)
    }
}

/// What an OpenAI-compatible Chat Completions endpoint accepts, as the
/// `compat` object of `models.json` says; `None` leaves a switch to detection
/// from the provider and base URL (see `providers::openai_completions`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct OpenAiCompletionsCompat {
    /// Whether the request may carry `store: false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_store: Option<bool>,
    /// Whether a reasoning model's system prompt goes with role `developer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_developer_role: Option<bool>,
    /// Whether the request may ask for usage with `stream_options`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_usage_in_streaming: Option<bool>,
    /// Which field carries the output-token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<MaxTokensField>,
    /// OpenAI APIs (`supportsStrictMode`): whether tools may be declared
    /// `strict` (off unless set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_strict_mode: Option<bool>,
    /// Anthropic Messages (`supportsStrictTools`): whether tools may be
    /// declared `strict` (off unless set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_strict_tools: Option<bool>,
    /// The further Chat Completions switches (`thinkingFormat`, …).
    #[serde(flatten)]
    pub completions: crate::compat::CompletionsCompat,
    /// The further Anthropic Messages switches (adaptive thinking, …).
    #[serde(flatten)]
    pub anthropic: crate::compat::AnthropicCompat,
    /// The session-affinity switches of every API.
    #[serde(flatten)]
    pub session: crate::compat::SessionCompat,
}

/// The request field that carries the output-token limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens` (older and many OpenAI-compatible servers).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI's current name).
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// Both values.
    pub const ALL: [MaxTokensField; 2] = [Self::MaxTokens, Self::MaxCompletionTokens];

    /// The field name in the request body.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MaxTokens => "max_tokens",
            Self::MaxCompletionTokens => "max_completion_tokens",
        }
    }

    /// The value named `name` (a field name as [`Self::as_str`] gives it).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

/// Prices in dollars per million tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// Per million input tokens.
    #[serde(default)]
    pub input: f64,
    /// Per million output tokens.
    #[serde(default)]
    pub output: f64,
    /// Per million cache-read tokens.
    #[serde(default)]
    pub cache_read: f64,
    /// Per million cache-write tokens.
    #[serde(default)]
    pub cache_write: f64,
}

/// Options of one request.
#[derive(Clone, Debug, Default)]
pub struct StreamOptions {
    /// The API key (`Authorization: Bearer` for OpenAI, `x-api-key` for Anthropic).
    pub api_key: Option<String>,
    /// Cancel to abort the request; the stream then ends with an `error` event
    /// whose message has stop reason `aborted` and text `Request was aborted`.
    pub signal: CancellationToken,
    /// Output-token limit; defaults to the model's `max_tokens`.
    pub max_tokens: Option<u64>,
    /// Thinking level (`minimal`, `low`, `medium`, `high`, `xhigh`, `max`);
    /// `None` or `off` means no thinking. Ignored for non-reasoning models.
    pub reasoning: Option<String>,
    /// Extra HTTP headers (after the model's, so they win).
    pub headers: BTreeMap<String, String>,
    /// A session id: sent as `prompt_cache_key` and `session-id` on the
    /// Responses API.
    pub session_id: Option<String>,
    /// Callbacks around the request (the extensions' provider events).
    pub hooks: Option<crate::hooks::SharedHooks>,
    /// Where the request body's bytes go as it is written (set by this
    /// crate for a long body: see [`crate::BodySink`]; leave it default).
    #[doc(hidden)]
    pub body_sink: crate::BodySink,
}

impl StreamOptions {
    /// The thinking level, `None` when off.
    pub(crate) fn thinking_level(&self) -> Option<&str> {
        match self.reasoning.as_deref() {
            None | Some("off") | Some("") => None,
            Some(l) => Some(l),
        }
    }
}
