//! Chat Completions: how the thinking level and the routing switches go
//! into a request, by the model's `thinkingFormat` (detected from the
//! provider and base URL when unset, as the reference does).

use serde_json::{Map, Value, json};

use super::openai_effort;
use crate::compat::ThinkingFormat;
use crate::model::{Model, StreamOptions};

/// Providers whose servers reject `reasoning_effort`.
const NO_EFFORT_PROVIDERS: [&str; 8] =
    ["xai", "zai", "zai-coding-cn", "moonshotai", "moonshotai-cn", "together", "nvidia", "ant-ling"];
/// Base-URL fragments of servers that reject `reasoning_effort`.
const NO_EFFORT_HOSTS: [&str; 8] = [
    "api.x.ai",
    "api.z.ai",
    "open.bigmodel.cn",
    "api.moonshot.",
    "api.together.ai",
    "api.together.xyz",
    "integrate.api.nvidia.com",
    "api.ant-ling.com",
];
/// The thinking format detected from a provider or a base-URL fragment.
const DETECTED_FORMATS: [(&str, &str, ThinkingFormat); 7] = [
    ("zai", "api.z.ai", ThinkingFormat::Zai),
    ("zai-coding-cn", "open.bigmodel.cn", ThinkingFormat::Zai),
    ("together", "api.together.ai", ThinkingFormat::Together),
    ("together", "api.together.xyz", ThinkingFormat::Together),
    ("deepseek", "deepseek.com", ThinkingFormat::Deepseek),
    ("openrouter", "openrouter.ai", ThinkingFormat::Openrouter),
    ("ant-ling", "api.ant-ling.com", ThinkingFormat::AntLing),
];
/// The effort sent for "off" where the format needs one and the model's
/// `thinkingLevelMap` names none.
const EFFORT_NONE: &str = "none";

/// The thinking format of a model: its `compat`'s, else the one its
/// provider or base URL stands for, else OpenAI's.
pub(crate) fn thinking_format(model: &Model) -> ThinkingFormat {
    if let Some(f) = model.compat.completions.thinking_format {
        return f;
    }
    let url = model.base_url.to_lowercase();
    DETECTED_FORMATS
        .iter()
        .find(|(provider, host, _)| model.provider == *provider || url.contains(host))
        .map_or(ThinkingFormat::Openai, |(_, _, f)| *f)
}

/// Whether the server takes `reasoning_effort`: the `compat`'s say, else
/// not for the providers and hosts known to reject it.
pub(crate) fn supports_reasoning_effort(model: &Model) -> bool {
    model.compat.completions.supports_reasoning_effort.unwrap_or_else(|| {
        let url = model.base_url.as_str();
        !(NO_EFFORT_PROVIDERS.contains(&model.provider.as_str()) || NO_EFFORT_HOSTS.iter().any(|h| url.contains(h)))
    })
}

/// The effort of a level: the model's `thinkingLevelMap` value, else the
/// OpenAI name of the level (`xhigh` and `max` as `high`); `None` for a
/// level the map marks unsupported.
fn effort<'a>(model: &'a Model, level: &'a str) -> Option<&'a str> {
    match model.mapped_thinking(level) {
        Some(mapped) => mapped,
        None => Some(openai_effort(level)),
    }
}

/// The thinking budget of a level (`thinking.budget` of chat templates),
/// capped below the output limit.
fn budget(level: &str, max_tokens: u64) -> u64 {
    let want: u64 = match level {
        "minimal" => 1024,
        "low" => 2048,
        "medium" => 8192,
        _ => 16384,
    };
    want.min(max_tokens.saturating_sub(1024)).max(1024)
}

/// The body fields that carry the thinking level of a reasoning model, in
/// the order they are written.
pub(crate) fn thinking_fields(model: &Model, options: &StreamOptions, max_tokens: u64) -> Vec<(&'static str, Value)> {
    if !model.reasoning {
        return Vec::new();
    }
    let level = options.thinking_level();
    let on = level.is_some();
    // "off" sends an effort only where the map names one.
    let effort = match level {
        Some(l) => effort(model, l),
        None => model.mapped_thinking("off").flatten(),
    };
    let with_effort = supports_reasoning_effort(model);
    let mut out: Vec<(&'static str, Value)> = Vec::new();
    let push_effort = |out: &mut Vec<(&'static str, Value)>| {
        if on
            && with_effort
            && let Some(e) = effort
        {
            out.push(("reasoning_effort", e.into()));
        }
    };
    match thinking_format(model) {
        ThinkingFormat::Openai | ThinkingFormat::Unknown => {
            if with_effort && let Some(e) = effort {
                out.push(("reasoning_effort", e.into()));
            }
        }
        ThinkingFormat::Openrouter => {
            out.push(("reasoning", json!({"effort": effort.unwrap_or(EFFORT_NONE)})));
        }
        ThinkingFormat::AntLing => {
            if let Some(Some(e)) = level.map(|l| model.mapped_thinking(l).flatten()) {
                out.push(("reasoning", json!({"effort": e})));
            }
        }
        ThinkingFormat::Deepseek => {
            out.push(("thinking", json!({"type": if on { "enabled" } else { "disabled" }})));
            push_effort(&mut out);
        }
        ThinkingFormat::Zai => {
            let thinking =
                if on { json!({"type": "enabled", "clear_thinking": false}) } else { json!({"type": "disabled"}) };
            out.push(("thinking", thinking));
            push_effort(&mut out);
        }
        ThinkingFormat::Together => {
            out.push(("reasoning", json!({"enabled": on})));
            push_effort(&mut out);
        }
        ThinkingFormat::Qwen => {
            out.push(("enable_thinking", on.into()));
            push_effort(&mut out);
        }
        ThinkingFormat::QwenChatTemplate => {
            out.push(("chat_template_kwargs", json!({"enable_thinking": on, "preserve_thinking": true})));
        }
        ThinkingFormat::StringThinking => {
            out.push(("thinking", effort.unwrap_or(EFFORT_NONE).into()));
        }
        ThinkingFormat::ChatTemplate => {
            if let Some(kwargs) = &model.compat.completions.chat_template_kwargs {
                let vars = Vars { on, effort: effort.filter(|_| on), budget: level.map(|l| budget(l, max_tokens)) };
                out.push(("chat_template_kwargs", Value::Object(vars.fill(kwargs))));
            }
        }
        ThinkingFormat::Baseten => {
            if let Some(args) = &model.compat.completions.chat_template_args {
                let vars = Vars { on, effort: effort.filter(|_| on), budget: level.map(|l| budget(l, max_tokens)) };
                out.push(("chat_template_args", Value::Object(vars.fill(args))));
            }
            push_effort(&mut out);
        }
    }
    out
}

/// The values a chat template's `{"$var": …}` entries stand for.
struct Vars<'a> {
    on: bool,
    effort: Option<&'a str>,
    budget: Option<u64>,
}

impl Vars<'_> {
    /// The template's entries with each `$var` replaced by its value; an
    /// entry whose value is absent (or `omitWhenOff` while thinking is off)
    /// is left out.
    fn fill(&self, template: &Map<String, Value>) -> Map<String, Value> {
        let mut out = Map::new();
        for (key, value) in template {
            let Some(var) = value.get("$var").and_then(Value::as_str) else {
                out.insert(key.clone(), value.clone());
                continue;
            };
            if !self.on && value.get("omitWhenOff").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let filled = match var {
                "thinking.enabled" => Some(Value::Bool(self.on)),
                "thinking.effort" => self.effort.map(Value::from),
                "thinking.budget" => self.budget.filter(|_| self.on).map(Value::from),
                _ => None,
            };
            if let Some(v) = filled {
                out.insert(key.clone(), v);
            }
        }
        out
    }
}

/// The routing and streaming switches that add body fields as they are:
/// `tool_stream`, OpenRouter's `provider`, Vercel's `providerOptions.gateway`.
pub(crate) fn extra_fields(model: &Model) -> Vec<(&'static str, Value)> {
    let c = &model.compat.completions;
    let mut out = Vec::new();
    if c.zai_tool_stream == Some(true) {
        out.push(("tool_stream", Value::Bool(true)));
    }
    if let Some(routing) = &c.open_router_routing {
        out.push(("provider", routing.clone()));
    }
    if let Some(routing) = &c.vercel_gateway_routing {
        out.push(("providerOptions", json!({"gateway": routing})));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider: &str, url: &str) -> Model {
        Model {
            id: "m".into(),
            api: "openai-completions".into(),
            provider: provider.into(),
            base_url: url.into(),
            reasoning: true,
            ..Default::default()
        }
    }

    fn fields(m: &Model, level: Option<&str>) -> Value {
        let options = StreamOptions { reasoning: level.map(str::to_string), ..Default::default() };
        Value::Object(thinking_fields(m, &options, 16384).into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    fn with(format: ThinkingFormat) -> Model {
        let mut m = model("p", "http://127.0.0.1:1/v1");
        m.compat.completions.thinking_format = Some(format);
        m
    }

    /// Each expectation was sent by the reference for the same model and level.
    #[test]
    fn each_format_as_the_reference_sends_it() {
        use ThinkingFormat::*;
        let cases = [
            (Openai, json!({"reasoning_effort": "medium"}), json!({})),
            (Openrouter, json!({"reasoning": {"effort": "medium"}}), json!({"reasoning": {"effort": "none"}})),
            (
                Deepseek,
                json!({"thinking": {"type": "enabled"}, "reasoning_effort": "medium"}),
                json!({"thinking": {"type": "disabled"}}),
            ),
            (
                Zai,
                json!({"thinking": {"type": "enabled", "clear_thinking": false}, "reasoning_effort": "medium"}),
                json!({"thinking": {"type": "disabled"}}),
            ),
            (
                Together,
                json!({"reasoning": {"enabled": true}, "reasoning_effort": "medium"}),
                json!({"reasoning": {"enabled": false}}),
            ),
            (Qwen, json!({"enable_thinking": true, "reasoning_effort": "medium"}), json!({"enable_thinking": false})),
            (
                QwenChatTemplate,
                json!({"chat_template_kwargs": {"enable_thinking": true, "preserve_thinking": true}}),
                json!({"chat_template_kwargs": {"enable_thinking": false, "preserve_thinking": true}}),
            ),
            (StringThinking, json!({"thinking": "medium"}), json!({"thinking": "none"})),
            (AntLing, json!({}), json!({})),
        ];
        for (format, medium, off) in cases {
            assert_eq!(fields(&with(format), Some("medium")), medium, "{format:?} medium");
            assert_eq!(fields(&with(format), None), off, "{format:?} off");
        }
        let mut m = model("p", "http://127.0.0.1:1/v1");
        m.reasoning = false;
        assert_eq!(fields(&m, Some("high")), json!({}), "only reasoning models");
    }

    #[test]
    fn the_level_map_gives_the_effort() {
        let mut m = with(ThinkingFormat::Openai);
        m.thinking_level_map.insert("off".into(), Some("none".into()));
        m.thinking_level_map.insert("xhigh".into(), Some("xhigh".into()));
        assert_eq!(fields(&m, None), json!({"reasoning_effort": "none"}));
        assert_eq!(fields(&m, Some("xhigh")), json!({"reasoning_effort": "xhigh"}));
        assert_eq!(fields(&m, Some("minimal")), json!({"reasoning_effort": "minimal"}));
        let mut ant = with(ThinkingFormat::AntLing);
        ant.thinking_level_map.insert("medium".into(), Some("med".into()));
        assert_eq!(fields(&ant, Some("medium")), json!({"reasoning": {"effort": "med"}}));
        let mut s = with(ThinkingFormat::StringThinking);
        s.thinking_level_map.insert("off".into(), Some("nada".into()));
        assert_eq!(fields(&s, None), json!({"thinking": "nada"}));
        let mut ds = with(ThinkingFormat::Deepseek);
        ds.compat.completions.supports_reasoning_effort = Some(false);
        assert_eq!(fields(&ds, Some("high")), json!({"thinking": {"type": "enabled"}}));
    }

    #[test]
    fn chat_templates_fill_their_variables() {
        let kwargs = json!({"enable_thinking": {"$var": "thinking.enabled"}, "effort": {"$var": "thinking.effort"},
            "budget": {"$var": "thinking.budget", "omitWhenOff": true}, "fixed": 3});
        let mut m = with(ThinkingFormat::ChatTemplate);
        m.compat.completions.chat_template_kwargs = kwargs.as_object().cloned();
        assert_eq!(
            fields(&m, Some("high")),
            json!({"chat_template_kwargs": {"enable_thinking": true, "effort": "high", "budget": 15360, "fixed": 3}})
        );
        assert_eq!(fields(&m, None), json!({"chat_template_kwargs": {"enable_thinking": false, "fixed": 3}}));
        let mut b = with(ThinkingFormat::Baseten);
        b.compat.completions.chat_template_args =
            json!({"enable_thinking": {"$var": "thinking.enabled"}}).as_object().cloned();
        assert_eq!(
            fields(&b, Some("low")),
            json!({"chat_template_args": {"enable_thinking": true}, "reasoning_effort": "low"})
        );
        assert_eq!(fields(&b, None), json!({"chat_template_args": {"enable_thinking": false}}));
    }

    /// The formats and effort support the reference detects (each checked
    /// against it with a base URL holding the host).
    #[test]
    fn detection_by_provider_and_host() {
        let m = |p: &str, u: &str| model(p, u);
        assert_eq!(thinking_format(&m("zai", "http://x")), ThinkingFormat::Zai);
        assert_eq!(thinking_format(&m("p", "https://open.bigmodel.cn/api")), ThinkingFormat::Zai);
        assert_eq!(thinking_format(&m("p", "https://api.together.xyz/v1")), ThinkingFormat::Together);
        assert_eq!(thinking_format(&m("p", "https://API.DeepSeek.com")), ThinkingFormat::Deepseek);
        assert_eq!(thinking_format(&m("openrouter", "http://x")), ThinkingFormat::Openrouter);
        assert_eq!(thinking_format(&m("groq", "https://api.groq.com/openai/v1")), ThinkingFormat::Openai);
        for (p, u) in [
            ("xai", "http://x"),
            ("p", "https://api.x.ai/v1"),
            ("moonshotai", "http://x"),
            ("p", "https://api.moonshot.ai/v1"),
            ("nvidia", "http://x"),
        ] {
            assert!(!supports_reasoning_effort(&m(p, u)), "{p} {u}");
        }
        for (p, u) in [
            ("deepseek", "http://x"),
            ("cerebras", "http://x"),
            ("p", "https://chutes.ai/v1"),
            ("p", "http://127.0.0.1"),
        ] {
            assert!(supports_reasoning_effort(&m(p, u)), "{p} {u}");
        }
        let mut forced = m("xai", "http://x");
        forced.compat.completions.supports_reasoning_effort = Some(true);
        assert!(supports_reasoning_effort(&forced));
    }

    #[test]
    fn routing_switches_go_as_they_are() {
        let mut m = model("p", "http://x");
        assert!(extra_fields(&m).is_empty());
        m.compat.completions.zai_tool_stream = Some(true);
        m.compat.completions.open_router_routing = Some(json!({"only": ["x"]}));
        m.compat.completions.vercel_gateway_routing = Some(json!({"order": ["a"]}));
        let got: Value = Value::Object(extra_fields(&m).into_iter().map(|(k, v)| (k.to_string(), v)).collect());
        assert_eq!(
            got,
            json!({"tool_stream": true, "provider": {"only": ["x"]}, "providerOptions": {"gateway": {"order": ["a"]}}})
        );
    }
}

/// The `compat` switches that change the messages of a Chat Completions
/// request (each expectation as the reference sent it).
#[cfg(test)]
mod message_switches {
    use serde_json::{Value, json};

    use crate::model::{Model, StreamOptions};
    use crate::types::{AssistantMessage, ContentBlock, Context, Message, StopReason, ToolResultMessage, UserMessage};

    fn body(m: &Model, ctx: &Context, level: Option<&str>) -> Value {
        let options = StreamOptions {
            reasoning: level.map(str::to_string),
            session_id: Some("sid".into()),
            ..Default::default()
        };
        let bytes = super::super::openai_completions::request_body(m, &ctx.view(), &options).unwrap();
        serde_json::from_slice(&bytes.to_vec()).unwrap()
    }

    fn model() -> Model {
        Model {
            id: "m".into(),
            api: "openai-completions".into(),
            provider: "p".into(),
            base_url: "http://127.0.0.1:1/v1".into(),
            reasoning: true,
            ..Default::default()
        }
    }

    /// A tool call with thinking and text, its result, then the user again.
    fn conversation(with_thinking: bool) -> Context {
        let mut content = vec![ContentBlock::text("let me look"), ContentBlock::tool_call("call_1", "read", json!({}))];
        if with_thinking {
            content.insert(
                0,
                ContentBlock::Thinking {
                    thinking: "thinking hard".into(),
                    signature: Some("reasoning_content".into()),
                },
            );
        }
        Context {
            system_prompt: None,
            messages: vec![
                Message::User(UserMessage::text("hi")),
                Message::Assistant(AssistantMessage {
                    content,
                    api: "openai-completions".into(),
                    stop_reason: StopReason::ToolUse,
                    ..Default::default()
                }),
                Message::ToolResult(ToolResultMessage {
                    nested_calls: None,
                    usage: None,
                    tool_call_id: "call_1".into(),
                    tool_name: "read".into(),
                    content: vec![ContentBlock::text("file content")],
                    details: None,
                    is_error: false,
                    duration_ms: None,
                    timestamp: 0,
                }),
                Message::User(UserMessage::text("next")),
            ],
            tools: vec![],
        }
    }

    #[test]
    fn without_switches_nothing_changes() {
        let b = body(&model(), &conversation(true), Some("medium"));
        let msgs = b["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 4);
        assert_eq!(msgs[1]["reasoning_content"], "thinking hard");
        assert_eq!(msgs[1]["content"], "let me look");
        assert!(msgs[2].get("name").is_none());
        assert!(b.get("tools").is_none() && b.get("prompt_cache_key").is_none());
    }

    #[test]
    fn tool_result_name_thinking_as_text_and_an_assistant_after_results() {
        let mut m = model();
        let c = &mut m.compat.completions;
        c.requires_tool_result_name = Some(true);
        c.requires_thinking_as_text = Some(true);
        c.requires_assistant_after_tool_result = Some(true);
        c.requires_tools_with_tool_history = Some(true);
        let b = body(&m, &conversation(true), Some("medium"));
        assert_eq!(
            b["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "thinking hard"}, {"type": "text", "text": "let me look"}],
                 "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
                {"role": "tool", "content": "file content", "tool_call_id": "call_1", "name": "read"},
                {"role": "assistant", "content": "I have processed the tool results."},
                {"role": "user", "content": [{"type": "text", "text": "next"}]}
            ])
        );
        assert_eq!(b["tools"], json!([]), "tools: [] with tool history");
    }

    #[test]
    fn non_null_content_and_empty_reasoning_content() {
        let mut m = model();
        m.compat.completions.requires_non_null_assistant_content = Some(true);
        m.compat.completions.requires_reasoning_content_on_assistant_messages = Some(true);
        let mut ctx = conversation(false);
        if let Message::Assistant(a) = &mut ctx.messages[1] {
            a.content.remove(0);
        }
        let b = body(&m, &ctx, Some("low"));
        assert_eq!(b["messages"][1]["content"], "");
        assert_eq!(b["messages"][1]["reasoning_content"], "");
        let off = body(&m, &ctx, None);
        assert!(off["messages"][1].get("reasoning_content").is_none(), "only while thinking is on");
    }

    #[test]
    fn openai_gets_the_prompt_cache_key() {
        let mut m = model();
        m.base_url = "https://api.openai.com/v1".into();
        assert_eq!(body(&m, &conversation(false), None)["prompt_cache_key"], "sid");
    }
}
