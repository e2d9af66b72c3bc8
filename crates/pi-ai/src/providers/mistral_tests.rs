//! The Mistral request, against what the reference sends.

use super::*;
use crate::types::{Context, Tool, UserMessage};

fn model() -> Model {
    Model {
        id: "mc-1".into(),
        api: "mistral-conversations".into(),
        provider: "mc".into(),
        max_tokens: 16384,
        ..Default::default()
    }
}

fn body(model: &Model, ctx: &Context, options: &StreamOptions) -> Value {
    serde_json::from_slice(&request_body(model, &ctx.view(), options).unwrap().to_vec()).unwrap()
}

fn result(id: &str, text: &str, is_error: bool) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text(text)],
        details: None,
        is_error,
        duration_ms: None,
        nested_calls: None,
        usage: None,
        timestamp: 0,
    })
}

fn answer(m: &Model, content: Vec<ContentBlock>) -> Message {
    Message::Assistant(AssistantMessage {
        content,
        api: crate::intern::intern(&m.api),
        provider: crate::intern::intern(&m.provider),
        model: crate::intern::intern(&m.id),
        stop_reason: StopReason::ToolUse,
        ..Default::default()
    })
}

/// The body of the reference's second request of a `read` run (measured
/// with `pi -p` against a recording server).
#[test]
fn a_tool_run_is_sent_as_the_reference_sends_it() {
    let m = model();
    let ctx = Context {
        system_prompt: Some("sys".into()),
        messages: vec![
            Message::User(UserMessage::text("read f.txt")),
            answer(
                &m,
                vec![
                    ContentBlock::Thinking { thinking: "I should read it.".into(), signature: None },
                    ContentBlock::text("Reading."),
                    ContentBlock::tool_call("abcDEF123", "read", json!({"path": "f.txt"})),
                    ContentBlock::tool_call("xyz987654", "bash", json!({"command": "true"})),
                ],
            ),
            result("abcDEF123", "hello\n", false),
            result("xyz987654", "  ", false),
        ],
        tools: vec![Tool {
            name: "read".into(),
            description: "Read".into(),
            parameters: json!({"type": "object", "properties": {}}),
            constrained_sampling: None,
        }],
    };
    let options = StreamOptions { session_id: Some("sid".into()), ..Default::default() };
    assert_eq!(
        body(&m, &ctx, &options),
        json!({
            "model": "mc-1",
            "stream": true,
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "read f.txt"}]},
                {"role": "assistant", "prefix": false,
                 "content": [
                    {"type": "thinking", "thinking": [{"type": "text", "text": "I should read it."}]},
                    {"type": "text", "text": "Reading."}],
                 "tool_calls": [
                    {"id": "abcDEF123", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"f.txt\"}"}, "index": 0},
                    {"id": "xyz987654", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"true\"}"}, "index": 0}]},
                {"role": "tool", "name": "read", "content": [{"type": "text", "text": "hello"}], "tool_call_id": "abcDEF123"},
                {"role": "tool", "name": "read", "content": [{"type": "text", "text": "(no tool output)"}], "tool_call_id": "xyz987654"}
            ],
            "tools": [{"type": "function", "function": {"name": "read", "description": "Read",
                "parameters": {"type": "object", "properties": {}}, "strict": false}}],
            "max_tokens": 16384,
            "prompt_cache_key": "sid"
        })
    );
    let prepared = prepare(&m, &ctx.view(), &StreamOptions { api_key: Some("k".into()), ..options }).unwrap();
    assert_eq!(prepared.url, "https://api.mistral.ai/v1/chat/completions");
    assert_eq!(prepared.headers.get("authorization").unwrap(), "Bearer k");
    assert_eq!(prepared.headers.get("x-affinity").unwrap(), "sid");
}

#[test]
fn failed_tool_results_carry_the_error_prefix() {
    let m = model();
    let ctx = Context {
        system_prompt: None,
        messages: vec![
            answer(&m, vec![ContentBlock::tool_call("abcDEF123", "read", json!({}))]),
            result("abcDEF123", "ENOENT: no such file\n", true),
        ],
        tools: vec![],
    };
    let b = body(&m, &ctx, &StreamOptions::default());
    assert_eq!(
        b["messages"][0],
        json!({"role": "assistant", "prefix": false, "tool_calls": [
        {"id": "abcDEF123", "type": "function", "function": {"name": "read", "arguments": "{}"}, "index": 0}]})
    );
    assert_eq!(b["messages"][1]["content"][0]["text"], "[tool error] ENOENT: no such file");
}

#[test]
fn other_models_ids_are_made_mistral_ids_and_their_thinking_dropped() {
    let m = model();
    let other = Model { id: "gpt".into(), api: "openai-completions".into(), provider: "openai".into(), ..model() };
    let ctx = Context {
        system_prompt: None,
        messages: vec![
            answer(
                &other,
                vec![
                    ContentBlock::Thinking { thinking: "hmm".into(), signature: None },
                    ContentBlock::text("x"),
                    ContentBlock::tool_call("call_abc_123456789xyz", "read", json!({"path": "f.txt"})),
                ],
            ),
            result("call_abc_123456789xyz", "hello", false),
        ],
        tools: vec![],
    };
    let b = body(&m, &ctx, &StreamOptions::default());
    assert_eq!(b["messages"][0]["content"], json!([{"type": "text", "text": "x"}]));
    assert_eq!(b["messages"][0]["tool_calls"][0]["id"], "1n7oay0ss");
    assert_eq!(b["messages"][1]["tool_call_id"], "1n7oay0ss");
    // Another model of the same provider and API counts as another model.
    let sibling = Model { id: "mc-2".into(), ..model() };
    let ctx = Context {
        system_prompt: None,
        messages: vec![answer(&sibling, vec![ContentBlock::tool_call("call_1", "read", json!({}))])],
        tools: vec![],
    };
    assert_eq!(body(&m, &ctx, &StreamOptions::default())["messages"][0]["tool_calls"][0]["id"], "1j55k0s7o");
}

#[test]
fn images_go_as_data_urls_or_placeholders() {
    let ctx = Context {
        system_prompt: None,
        messages: vec![Message::User(UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::text("look"), ContentBlock::image("QUJD", "image/png")]),
            timestamp: 0,
        })],
        tools: vec![],
    };
    let with_images = Model { input: vec!["text".into(), "image".into()], ..model() };
    assert_eq!(
        body(&with_images, &ctx, &StreamOptions::default())["messages"][0]["content"][1],
        json!({"type": "image_url", "image_url": "data:image/png;base64,QUJD"})
    );
    assert_eq!(
        body(&model(), &ctx, &StreamOptions::default())["messages"][0]["content"][1],
        json!({"type": "text", "text": "(image omitted: model does not support images)"})
    );
}

/// The reference's values for its catalog's level maps (measured).
#[test]
fn thinking_levels_as_the_reference_sends_them() {
    let ctx = Context { system_prompt: None, messages: vec![Message::User(UserMessage::text("hi"))], tools: vec![] };
    let sent = |m: &Model, level: &str| {
        let b = body(m, &ctx, &StreamOptions { reasoning: Some(level.into()), ..Default::default() });
        (b.get("reasoning_effort").cloned(), b.get("prompt_mode").cloned())
    };
    let map =
        |pairs: &[(&str, Option<&str>)]| pairs.iter().map(|(k, v)| (k.to_string(), v.map(str::to_string))).collect();
    let all = |supported: &[(&str, &str)]| {
        let mut m: Vec<(&str, Option<&str>)> = LEVELS.iter().map(|l| (*l, None)).collect();
        for (l, v) in supported {
            if let Some(e) = m.iter_mut().find(|(k, _)| k == l) {
                e.1 = Some(v);
            }
        }
        map(&m)
    };
    let effort = |s: &str| (Some(json!(s)), None);
    let magistral = Model { reasoning: true, thinking_level_map: all(&[("off", "none"), ("high", "high")]), ..model() };
    assert_eq!(sent(&magistral, "off"), effort("none"));
    assert_eq!(sent(&magistral, "low"), effort("high"));
    assert_eq!(sent(&magistral, "max"), effort("high"));
    let large = Model {
        reasoning: true,
        thinking_level_map: all(&[("low", "low"), ("medium", "medium"), ("high", "high")]),
        ..model()
    };
    assert_eq!(sent(&large, "off"), effort("low"));
    assert_eq!(sent(&large, "minimal"), effort("low"));
    assert_eq!(sent(&large, "max"), effort("high"));
    let deepseek = Model {
        reasoning: true,
        thinking_level_map: all(&[("off", "none"), ("low", "low"), ("high", "high"), ("max", "max")]),
        ..model()
    };
    assert_eq!(sent(&deepseek, "medium"), effort("high"));
    assert_eq!(sent(&deepseek, "minimal"), effort("low"));
    assert_eq!(sent(&deepseek, "max"), effort("max"));
    // A reasoning model without a map: `prompt_mode` while thinking.
    let plain = Model { reasoning: true, ..model() };
    assert_eq!(sent(&plain, "off"), (None, None));
    assert_eq!(sent(&plain, "high"), (None, Some(json!("reasoning"))));
    assert_eq!(sent(&model(), "high"), (None, None));
}

#[test]
fn empty_error_bodies_show_the_reason_phrase() {
    let e =
        |status, body: &str| http::HttpStatusError { status, body: body.into(), retry_after: None, should_retry: None };
    assert_eq!(http_error(&e(500, "")), "Mistral API error (500): Internal Server Error");
    assert_eq!(http_error(&e(429, "")), "Mistral API error (429): Too Many Requests");
    assert_eq!(http_error(&e(400, "{\"message\": \"x\"}")), "Mistral API error (400): {\"message\": \"x\"}");
    assert_eq!(http_error(&e(599, "")), "Mistral API error (599): ");
}
