//! What a model's facts and the credential change in an Anthropic Messages
//! request: the beta endpoint and its `anthropic-beta` values, adaptive or
//! budgeted thinking, and the Claude subscription (OAuth) form of a request.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::model::{Model, StreamOptions};
use crate::text;

/// The query every request carries (the client's beta Messages endpoint).
pub(crate) const BETA_QUERY: &str = "?beta=true";
/// Sent with every request, as the reference's client does.
pub(crate) const DIRECT_BROWSER_ACCESS: (&str, &str) = ("anthropic-dangerous-direct-browser-access", "true");
/// The beta of budgeted thinking interleaved with tool calls.
pub(crate) const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
/// The beta that streams tool input where tools cannot say `eager_input_streaming`.
pub(crate) const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";
/// The betas of an effort given mid-conversation (`supportsMidConvoEffort`).
pub(crate) const MID_CONVO_EFFORT_BETAS: [&str; 2] =
    ["mid-conversation-output-config-2026-07-01", "thinking-binding-controls-2026-08-01"];
/// The beta of tools changed mid-conversation (`supportsMidConvoToolChanges`).
pub(crate) const INLINE_TOOLS_BETA: &str = "inline-tools-2026-09-15";
/// The name of the placeholder tool of [`deferred_placeholder_tool`].
const DEFERRED_PLACEHOLDER_NAME: &str = "__pi_deferred_placeholder__";
/// The request-level effort when the real one goes in a system message at
/// the end (the same every turn, so the prompt cache holds).
const MID_CONVO_BASE_EFFORT: &str = "low";
/// The betas of a Claude subscription (OAuth) request, first in the list.
pub(crate) const OAUTH_BETAS: [&str; 2] = ["claude-code-20250219", "oauth-2025-04-20"];
/// The `user-agent` of a Claude subscription request.
pub(crate) const OAUTH_USER_AGENT: &str = "claude-cli/2.1.322";
/// The `x-app` header of a Claude subscription request.
pub(crate) const OAUTH_APP: (&str, &str) = ("x-app", "cli");
/// What marks a Claude subscription (OAuth) access token.
const OAUTH_TOKEN_MARK: &str = "sk-ant-oat";
/// Claude Code's tool names: a tool whose name matches one but for case is
/// sent under it in a subscription request, and its calls come back under
/// the tool's own name.
const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// Whether `key` is a Claude subscription (OAuth) access token rather than
/// an API key: it goes as `Authorization: Bearer` with the subscription's
/// headers, and the request speaks as Claude Code.
pub fn is_anthropic_oauth_token(key: &str) -> bool {
    key.contains(OAUTH_TOKEN_MARK)
}

/// Whether this request is made with a subscription token.
pub(crate) fn uses_oauth(options: &StreamOptions) -> bool {
    options.api_key.as_deref().is_some_and(is_anthropic_oauth_token)
}

/// Whether the request sends tools under Claude Code's names (so the
/// answer's calls must be given their tools' own names back).
pub(crate) fn renames_tools(model: &Model, options: &StreamOptions) -> bool {
    model.api == crate::model::api::ANTHROPIC_MESSAGES && uses_oauth(options)
}

/// A tool's name as sent: Claude Code's spelling in a subscription request.
pub(crate) fn wire_tool_name(name: &str, oauth: bool) -> Cow<'_, str> {
    if !oauth {
        return Cow::Borrowed(name);
    }
    match CLAUDE_CODE_TOOLS.iter().find(|cc| cc.eq_ignore_ascii_case(name)) {
        Some(cc) => Cow::Borrowed(cc),
        None => Cow::Borrowed(name),
    }
}

/// The system blocks: Claude Code's identity first in a subscription
/// request, then the system prompt, each marked for caching.
pub(crate) fn system_blocks(system_prompt: Option<&str>, oauth: bool) -> Option<Value> {
    let cache = json!({"type": "ephemeral"});
    let mut blocks = Vec::new();
    if oauth {
        blocks.push(json!({"type": "text", "text": text::CLAUDE_CODE_IDENTITY, "cache_control": cache}));
    }
    if let Some(sp) = system_prompt {
        blocks.push(json!({"type": "text", "text": sp, "cache_control": cache}));
    }
    (!blocks.is_empty()).then_some(Value::Array(blocks))
}

/// How a request thinks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Thinking {
    /// A reasoning model asked not to think.
    Disabled,
    /// A token budget (with the interleaved-thinking beta).
    Budget(u64),
    /// Adaptive thinking at this effort: in `output_config.effort`, or (when
    /// `mid_convo`) in a system message at the end of the conversation.
    Adaptive {
        /// The effort.
        effort: String,
        /// Whether the effort is given mid-conversation.
        mid_convo: bool,
    },
}

impl Thinking {
    /// The thinking of a request (`None`: a model that does not reason).
    pub(crate) fn of(model: &Model, options: &StreamOptions, max_tokens: u64) -> Option<Thinking> {
        if !model.reasoning {
            return None;
        }
        let Some(level) = options.thinking_level() else { return Some(Thinking::Disabled) };
        let c = &model.compat.anthropic;
        let mid_convo = c.supports_mid_convo_effort == Some(true);
        if c.force_adaptive_thinking == Some(true) || mid_convo {
            let effort = match model.mapped_thinking(level) {
                Some(Some(value)) => value.to_string(),
                _ => adaptive_effort(level).to_string(),
            };
            return Some(Thinking::Adaptive { effort, mid_convo });
        }
        Some(Thinking::Budget(thinking_budget(level).min(max_tokens.saturating_sub(1024)).max(1024)))
    }

    /// The body's `thinking` value.
    pub(crate) fn body(&self) -> Value {
        match self {
            Thinking::Disabled => json!({"type": "disabled"}),
            Thinking::Budget(budget) => json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"}),
            Thinking::Adaptive { mid_convo: false, .. } => json!({"type": "adaptive", "display": "summarized"}),
            Thinking::Adaptive { mid_convo: true, .. } => json!({"type": "adaptive", "display": "summarized",
                "block_binding": {"prefix_mismatch_behavior": "drop_block"}}),
        }
    }

    /// The body's `output_config`, for adaptive thinking.
    pub(crate) fn output_config(&self) -> Option<Value> {
        match self {
            Thinking::Adaptive { mid_convo: true, .. } => Some(json!({"effort": MID_CONVO_BASE_EFFORT})),
            Thinking::Adaptive { effort, .. } => Some(json!({"effort": effort})),
            _ => None,
        }
    }

    /// The system message that ends the conversation with the effort, when
    /// it is given mid-conversation.
    pub(crate) fn effort_message(&self) -> Option<Value> {
        match self {
            Thinking::Adaptive { effort, mid_convo: true } => {
                Some(json!({"role": "system", "content": [], "output_config": {"effort": effort}}))
            }
            _ => None,
        }
    }
}

/// The thinking budget of a level, before the cap of `max_tokens - 1024`.
fn thinking_budget(level: &str) -> u64 {
    match level {
        "minimal" => 1024,
        "low" => 2048,
        "medium" => 8192,
        _ => 16384,
    }
}

/// The effort of a level the model's `thinkingLevelMap` leaves unmapped
/// (`minimal` is `low`; the others are their own names).
fn adaptive_effort(level: &str) -> &str {
    if level == "minimal" { "low" } else { level }
}

/// The `anthropic-beta` values of a request, in the reference's order.
pub(crate) fn betas(model: &Model, oauth: bool, has_tools: bool, thinking: Option<&Thinking>) -> Vec<&'static str> {
    let mut out = Vec::new();
    if oauth {
        out.extend(OAUTH_BETAS);
    }
    if has_tools && model.compat.anthropic.supports_eager_tool_input_streaming == Some(false) {
        out.push(FINE_GRAINED_TOOL_STREAMING_BETA);
    }
    let c = &model.compat.anthropic;
    let forced = c.force_adaptive_thinking == Some(true);
    let mid_convo = c.supports_mid_convo_effort == Some(true);
    // Interleaved thinking goes with thinking the switch does not make adaptive.
    if matches!(thinking, Some(Thinking::Budget(_) | Thinking::Adaptive { .. })) && !forced {
        out.push(INTERLEAVED_THINKING_BETA);
    }
    if mid_convo {
        out.extend(MID_CONVO_EFFORT_BETAS);
    }
    if inline_tools(model, has_tools) {
        out.push(INLINE_TOOLS_BETA);
    }
    out
}

/// Whether a request may change its tools mid-conversation (the
/// `inline-tools` beta, and a deferred placeholder tool after the others):
/// adaptive thinking by either switch, both mid-conversation switches, and tools.
pub(crate) fn inline_tools(model: &Model, has_tools: bool) -> bool {
    let c = &model.compat.anthropic;
    let adaptive = c.force_adaptive_thinking == Some(true) || c.supports_mid_convo_effort == Some(true);
    adaptive
        && has_tools
        && c.supports_mid_convo_tool_changes == Some(true)
        && c.supports_mid_convo_system_messages == Some(true)
}

/// The tool declared last when tools may change mid-conversation (never
/// called; it reserves the deferred-tools slot).
pub(crate) fn deferred_placeholder_tool() -> Value {
    json!({
        "name": DEFERRED_PLACEHOLDER_NAME,
        "description": text::DEFERRED_PLACEHOLDER_DESCRIPTION,
        "input_schema": {"type": "object", "properties": {}, "required": []},
        "defer_loading": true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(reasoning: bool) -> Model {
        Model { id: "m".into(), api: "anthropic-messages".into(), reasoning, ..Default::default() }
    }

    fn at(level: &str) -> StreamOptions {
        StreamOptions { reasoning: Some(level.into()), ..Default::default() }
    }

    #[test]
    fn subscription_tokens_are_told_from_api_keys() {
        assert!(is_anthropic_oauth_token("sk-ant-oat01-abc"));
        assert!(!is_anthropic_oauth_token("sk-ant-api03-abc"));
        assert!(!is_anthropic_oauth_token(""));
        assert_eq!(wire_tool_name("read", true), "Read");
        assert_eq!(wire_tool_name("todowrite", true), "TodoWrite");
        assert_eq!(wire_tool_name("find", true), "find");
        assert_eq!(wire_tool_name("read", false), "read");
    }

    #[test]
    fn budgeted_and_adaptive_thinking() {
        let m = model(true);
        assert_eq!(Thinking::of(&model(false), &at("high"), 64000), None);
        assert_eq!(Thinking::of(&m, &StreamOptions::default(), 64000), Some(Thinking::Disabled));
        assert_eq!(Thinking::of(&m, &at("medium"), 64000), Some(Thinking::Budget(8192)));
        assert_eq!(Thinking::of(&m, &at("high"), 4000), Some(Thinking::Budget(2976)), "capped below max_tokens");
        let mut a = model(true);
        a.compat.anthropic.force_adaptive_thinking = Some(true);
        let effort = |m: &Model, level: &str| Thinking::of(m, &at(level), 64000).and_then(|t| t.output_config());
        assert_eq!(effort(&a, "minimal"), Some(json!({"effort": "low"})));
        assert_eq!(effort(&a, "high"), Some(json!({"effort": "high"})));
        a.thinking_level_map.insert("low".into(), Some("lo".into()));
        a.thinking_level_map.insert("high".into(), None);
        assert_eq!(effort(&a, "low"), Some(json!({"effort": "lo"})));
        assert_eq!(effort(&a, "high"), Some(json!({"effort": "high"})), "an unsupported level keeps its name");
        let adaptive = Thinking::Adaptive { effort: "x".into(), mid_convo: false };
        assert_eq!(adaptive.body(), json!({"type": "adaptive", "display": "summarized"}));
        assert_eq!(adaptive.effort_message(), None);
    }

    #[test]
    fn betas_in_order() {
        let mut m = model(true);
        let budget = Thinking::Budget(1024);
        assert_eq!(betas(&m, false, true, Some(&budget)), [INTERLEAVED_THINKING_BETA]);
        let mut adaptive = model(true);
        adaptive.compat.anthropic.force_adaptive_thinking = Some(true);
        let low = Thinking::Adaptive { effort: "low".into(), mid_convo: false };
        assert!(betas(&adaptive, false, true, Some(&low)).is_empty());
        assert!(betas(&m, false, true, Some(&Thinking::Disabled)).is_empty());
        m.compat.anthropic.supports_eager_tool_input_streaming = Some(false);
        assert_eq!(
            betas(&m, true, true, Some(&budget)),
            [OAUTH_BETAS[0], OAUTH_BETAS[1], FINE_GRAINED_TOOL_STREAMING_BETA, INTERLEAVED_THINKING_BETA]
        );
        assert_eq!(betas(&m, false, false, None), Vec::<&str>::new(), "no tools, no tool streaming beta");
    }

    /// The request `prepare` writes: URL, headers (name, value) and body.
    fn prepared(
        m: &Model,
        ctx: &crate::types::Context,
        key: &str,
        level: Option<&str>,
    ) -> (String, Vec<(String, String)>, Value) {
        let options =
            StreamOptions { api_key: Some(key.into()), reasoning: level.map(str::to_string), ..Default::default() };
        let p = super::super::anthropic::prepare(m, &ctx.view(), &options).unwrap();
        let headers =
            p.headers.iter().map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap().to_string())).collect();
        (p.url, headers, serde_json::from_slice(&p.body.to_vec()).unwrap())
    }

    fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
        headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    fn conversation() -> crate::types::Context {
        use crate::types::{AssistantMessage, ContentBlock, Message, StopReason, Tool, ToolResultMessage, UserMessage};
        let tool = |name: &str| Tool {
            name: name.into(),
            description: "d".into(),
            parameters: json!({"type": "object", "properties": {}}),
            constrained_sampling: None,
        };
        crate::types::Context {
            system_prompt: Some("sys".into()),
            messages: vec![
                Message::User(UserMessage::text("go")),
                Message::Assistant(AssistantMessage {
                    content: vec![ContentBlock::tool_call("toolu_1", "read", json!({"path": "f"}))],
                    api: "anthropic-messages".into(),
                    stop_reason: StopReason::ToolUse,
                    ..Default::default()
                }),
                Message::ToolResult(ToolResultMessage {
                    nested_calls: None,
                    usage: None,
                    tool_call_id: "toolu_1".into(),
                    tool_name: "read".into(),
                    content: vec![ContentBlock::text("x")],
                    details: None,
                    is_error: false,
                    duration_ms: None,
                    timestamp: 0,
                }),
            ],
            tools: vec![tool("read"), tool("find")],
        }
    }

    #[test]
    fn api_key_requests_go_to_the_beta_endpoint() {
        let m = Model { base_url: "http://h:1".into(), ..model(true) };
        let (url, headers, body) = prepared(&m, &conversation(), "sk-ant-api03-k", Some("low"));
        assert_eq!(url, "http://h:1/v1/messages?beta=true");
        assert_eq!(header(&headers, "x-api-key"), Some("sk-ant-api03-k"));
        assert_eq!(header(&headers, "authorization"), None);
        assert_eq!(header(&headers, "anthropic-dangerous-direct-browser-access"), Some("true"));
        assert_eq!(header(&headers, "anthropic-beta"), Some(INTERLEAVED_THINKING_BETA));
        assert_eq!(header(&headers, "x-app"), None);
        assert_eq!(body["system"], json!([{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]));
        assert_eq!(body["tools"][0]["name"], "read");
        assert_eq!(body["thinking"]["budget_tokens"], 2048);
        assert!(body.get("output_config").is_none());
    }

    #[test]
    fn subscription_requests_speak_as_claude_code() {
        let m = model(true);
        let (_, headers, body) = prepared(&m, &conversation(), "sk-ant-oat01-t", Some("high"));
        assert_eq!(header(&headers, "authorization"), Some("Bearer sk-ant-oat01-t"));
        assert_eq!(header(&headers, "x-api-key"), None);
        assert_eq!(header(&headers, "user-agent"), Some(OAUTH_USER_AGENT));
        assert_eq!(header(&headers, "x-app"), Some("cli"));
        assert_eq!(
            header(&headers, "anthropic-beta"),
            Some("claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14")
        );
        assert_eq!(body["system"][0]["text"], text::CLAUDE_CODE_IDENTITY);
        assert_eq!(body["system"][1]["text"], "sys");
        assert_eq!(body["system"][1]["cache_control"], json!({"type": "ephemeral"}));
        let names: Vec<&str> = body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Read", "find"]);
        assert_eq!(body["messages"][1]["content"][0]["name"], "Read", "history speaks the same names");
    }

    #[test]
    fn compat_switches_shape_tools_and_thinking() {
        let mut m = model(true);
        m.compat.anthropic.supports_eager_tool_input_streaming = Some(false);
        m.compat.anthropic.supports_cache_control_on_tools = Some(false);
        m.compat.anthropic.force_adaptive_thinking = Some(true);
        m.thinking_level_map.insert("xhigh".into(), Some("xhigh".into()));
        let (_, headers, body) = prepared(&m, &conversation(), "k", Some("xhigh"));
        assert_eq!(header(&headers, "anthropic-beta"), Some(FINE_GRAINED_TOOL_STREAMING_BETA));
        for tool in body["tools"].as_array().unwrap() {
            assert!(tool.get("eager_input_streaming").is_none() && tool.get("cache_control").is_none(), "{tool}");
        }
        assert_eq!(body["thinking"], json!({"type": "adaptive", "display": "summarized"}));
        assert_eq!(body["output_config"], json!({"effort": "xhigh"}));
        let (_, headers, body) = prepared(&m, &conversation(), "k", None);
        assert_eq!(body["thinking"], json!({"type": "disabled"}));
        assert!(body.get("output_config").is_none());
        assert_eq!(header(&headers, "anthropic-beta"), Some(FINE_GRAINED_TOOL_STREAMING_BETA));
    }

    #[tokio::test]
    async fn a_call_comes_back_under_the_tools_own_name() {
        let (tx, _rx) = tokio::sync::mpsc::channel(100);
        let mut em = crate::emitter::Emitter::new(tx, &model(false));
        em.know_tools(["read", "TodoWrite"]);
        let mut st = super::super::anthropic::State::default();
        for (index, name) in [(0, "Read"), (1, "todowrite"), (2, "Other")] {
            let start = json!({"type": "content_block_start", "index": index,
                "content_block": {"type": "tool_use", "id": format!("t{index}"), "name": name, "input": {}}});
            super::super::anthropic::handle_event(&start, &mut st, &mut em).await.unwrap();
        }
        let names: Vec<String> = em.message().tool_calls().iter().map(|c| c.name.clone()).collect();
        assert_eq!(names, ["read", "TodoWrite", "Other"]);
    }

    /// As the reference sent them for a model with the mid-conversation switches.
    #[test]
    fn mid_conversation_effort_and_tool_changes() {
        let mut m = model(true);
        let c = &mut m.compat.anthropic;
        c.force_adaptive_thinking = Some(true);
        c.supports_mid_convo_effort = Some(true);
        c.supports_mid_convo_system_messages = Some(true);
        c.supports_mid_convo_tool_changes = Some(true);
        let (_, headers, body) = prepared(&m, &conversation(), "k", Some("high"));
        assert_eq!(
            header(&headers, "anthropic-beta"),
            Some(
                "mid-conversation-output-config-2026-07-01,thinking-binding-controls-2026-08-01,inline-tools-2026-09-15"
            )
        );
        assert_eq!(
            body["thinking"],
            json!({"type": "adaptive", "display": "summarized", "block_binding": {"prefix_mismatch_behavior": "drop_block"}})
        );
        assert_eq!(body["output_config"], json!({"effort": "low"}));
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools.last().unwrap(), &deferred_placeholder_tool(), "the placeholder comes last");
        assert_eq!(tools[tools.len() - 2]["cache_control"], json!({"type": "ephemeral"}));
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(
            messages.last().unwrap(),
            &json!({"role": "system", "content": [], "output_config": {"effort": "high"}})
        );
        // The cache marker stays on the user's last message.
        assert_eq!(messages[messages.len() - 2]["content"][0]["cache_control"], json!({"type": "ephemeral"}));
        let (_, headers, body) = prepared(&m, &conversation(), "k", None);
        assert_eq!(body["thinking"], json!({"type": "disabled"}));
        assert_eq!(body["messages"].as_array().unwrap().len(), 3, "no effort message when off");
        assert!(header(&headers, "anthropic-beta").is_some_and(|b| b.starts_with("mid-conversation")));
        // The effort switch alone makes thinking adaptive, with the interleaved beta still.
        let mut only = model(true);
        only.compat.anthropic.supports_mid_convo_effort = Some(true);
        let (_, headers, _) = prepared(&only, &conversation(), "k", Some("high"));
        assert_eq!(
            header(&headers, "anthropic-beta"),
            Some(
                "interleaved-thinking-2025-05-14,mid-conversation-output-config-2026-07-01,thinking-binding-controls-2026-08-01"
            )
        );
    }
}
