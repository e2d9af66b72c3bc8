//! The `compat` switches of a model beyond the basic Chat Completions ones
//! (see [`crate::OpenAiCompletionsCompat`], which holds these two groups
//! flattened, so one `compat` object of `models.json` or the catalog fills
//! all of them). Every switch is optional: `None` leaves it to detection
//! from the provider and base URL where the API detects it, else to the
//! API's default. Keys pi does not read are ignored.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What an OpenAI-compatible Chat Completions endpoint needs beyond the
/// basics (`thinkingFormat`, `supportsReasoningEffort`, `requires…`, routing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct CompletionsCompat {
    /// Whether the server takes `reasoning_effort` (detected: not for xAI,
    /// Z.ai, Moonshot, Together, NVIDIA, Ant Ling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_reasoning_effort: Option<bool>,
    /// How thinking is switched on and off (detected from the provider and host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_format: Option<ThinkingFormat>,
    /// Whether a tool result must carry the tool's `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_tool_result_name: Option<bool>,
    /// Whether a user message right after tool results needs an assistant
    /// message in between.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_assistant_after_tool_result: Option<bool>,
    /// Whether thinking goes back as text (`<thinking>…</thinking>`) rather
    /// than in a reasoning field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_thinking_as_text: Option<bool>,
    /// Whether an assistant message without text sends `""` instead of `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_non_null_assistant_content: Option<bool>,
    /// Whether a request without tools sends `"tools": []` once the
    /// conversation holds tool calls or results.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_tools_with_tool_history: Option<bool>,
    /// Whether every assistant message sent back carries `reasoning_content`
    /// (empty when it had none) while thinking is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_reasoning_content_on_assistant_messages: Option<bool>,
    /// OpenRouter's provider routing, sent as the body's `provider` field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_router_routing: Option<Value>,
    /// Vercel AI Gateway routing, sent as `providerOptions.gateway`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vercel_gateway_routing: Option<Value>,
    /// Z.ai: whether to ask for streamed tool-call deltas (`tool_stream: true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zai_tool_stream: Option<bool>,
    /// `thinkingFormat: "chat-template"`: the `chat_template_kwargs` to send.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template_kwargs: Option<Map<String, Value>>,
    /// `thinkingFormat: "baseten"`: the `chat_template_args` to send.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template_args: Option<Map<String, Value>>,
}

/// How a Chat Completions server takes the thinking level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThinkingFormat {
    /// `reasoning_effort` (OpenAI's own field).
    Openai,
    /// `reasoning: {effort}` (OpenRouter).
    Openrouter,
    /// `thinking: {type: enabled|disabled}` plus `reasoning_effort` where taken (DeepSeek).
    Deepseek,
    /// `reasoning: {enabled}` plus `reasoning_effort` where taken (Together).
    Together,
    /// `chat_template_args` plus `reasoning_effort` where taken (Baseten).
    Baseten,
    /// `thinking: {type, clear_thinking: false}` (Z.ai).
    Zai,
    /// Top-level `enable_thinking` (Qwen).
    Qwen,
    /// `chat_template_kwargs` from `chatTemplateKwargs`.
    ChatTemplate,
    /// `chat_template_kwargs: {enable_thinking, preserve_thinking: true}`.
    QwenChatTemplate,
    /// Top-level `thinking: <effort>`.
    StringThinking,
    /// `reasoning: {effort}` only when the level maps to an effort (Ant Ling).
    AntLing,
    /// A value this version does not know: treated as `openai`.
    #[serde(other)]
    Unknown,
}

/// How a request tells the server which session it belongs to (all three APIs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionCompat {
    /// Chat Completions and Anthropic: whether to send the session headers
    /// (default: only to OpenRouter, by provider or host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_session_affinity_headers: Option<bool>,
    /// Which headers carry the session id (default: `openrouter` for
    /// OpenRouter, else `openai`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_affinity_format: Option<SessionAffinityFormat>,
}

/// The headers that carry the session id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SessionAffinityFormat {
    /// Chat Completions: `session_id`, `x-client-request-id`,
    /// `x-session-affinity`; Responses: `session-id`, `x-client-request-id`;
    /// Anthropic: `x-session-affinity`.
    Openai,
    /// As `openai` without the session id header.
    OpenaiNosession,
    /// `x-session-id`.
    Openrouter,
    /// A value this version does not know: treated as `openai`.
    #[serde(other)]
    Unknown,
}

/// What an Anthropic Messages endpoint accepts beyond the basics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AnthropicCompat {
    /// Whether tools may carry `eager_input_streaming` (default yes; when
    /// not, tool requests send the `fine-grained-tool-streaming` beta).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_eager_tool_input_streaming: Option<bool>,
    /// Whether the last tool may carry a `cache_control` marker (default yes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_cache_control_on_tools: Option<bool>,
    /// Whether thinking is adaptive (`thinking: {type: "adaptive"}` plus
    /// `output_config.effort`) instead of a token budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force_adaptive_thinking: Option<bool>,
    /// Whether the effort goes in a system message at the end of the
    /// conversation (`output_config`), so a change keeps the prompt cache;
    /// implies adaptive thinking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_mid_convo_effort: Option<bool>,
    /// Whether the model takes system messages inside the conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_mid_convo_system_messages: Option<bool>,
    /// Whether the model takes tool additions and removals inside the
    /// conversation (with the system messages switch: the `inline-tools` beta).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_mid_convo_tool_changes: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OpenAiCompletionsCompat;
    use serde_json::json;

    #[test]
    fn one_compat_object_fills_every_group_and_ignores_the_rest() {
        let c: OpenAiCompletionsCompat = serde_json::from_value(json!({
            "supportsStore": false,
            "thinkingFormat": "qwen-chat-template",
            "supportsReasoningEffort": false,
            "openRouterRouting": {"only": ["a"]},
            "forceAdaptiveThinking": true,
            "supportsCacheControlOnTools": false,
            "allowedFallbackModels": [{"provider": "x"}],
            "somethingNew": 5,
        }))
        .unwrap();
        assert_eq!(c.supports_store, Some(false));
        assert_eq!(c.completions.thinking_format, Some(ThinkingFormat::QwenChatTemplate));
        assert_eq!(c.completions.supports_reasoning_effort, Some(false));
        assert_eq!(c.completions.open_router_routing, Some(json!({"only": ["a"]})));
        assert_eq!(c.anthropic.force_adaptive_thinking, Some(true));
        assert_eq!(c.anthropic.supports_cache_control_on_tools, Some(false));
        let unknown: CompletionsCompat = serde_json::from_value(json!({"thinkingFormat": "future"})).unwrap();
        assert_eq!(unknown.thinking_format, Some(ThinkingFormat::Unknown));
        // A switch of the wrong type is an error, as for the basic ones.
        assert!(serde_json::from_value::<OpenAiCompletionsCompat>(json!({"zaiToolStream": "yes"})).is_err());
        // Written back, unset switches are left out.
        assert_eq!(serde_json::to_value(OpenAiCompletionsCompat::default()).unwrap(), json!({}));
    }
}
