//! An ACP prompt as pi's input: text blocks joined, images passed on,
//! resource links and embedded resources written into the text as the
//! adapter over the reference writes them (so the model reads the same
//! words), audio named as not supported; and the slash commands ACP mode
//! answers itself.

use serde_json::{Value, json};

use super::wire::RpcError;
use crate::text;

/// The prompt's text and images (pi's `prompt` command fields).
pub(crate) fn input(blocks: &Value) -> Result<(String, Vec<Value>), RpcError> {
    let blocks = blocks.as_array().ok_or_else(|| RpcError::params(text::acp_missing("prompt", "an array")))?;
    let (mut message, mut images) = (String::new(), Vec::new());
    for b in blocks {
        match b["type"].as_str().unwrap_or_default() {
            "text" => message.push_str(b["text"].as_str().unwrap_or_default()),
            "image" => images.push(json!({"type": "image", "data": b["data"], "mimeType": b["mimeType"]})),
            "resource_link" => message.push_str(&format!("\n[Context] {}", b["uri"].as_str().unwrap_or_default())),
            "resource" => message.push_str(&embedded(&b["resource"])),
            "audio" => message.push_str(&format!(
                "\n[Audio] ({}, {} bytes) not supported",
                b["mimeType"].as_str().unwrap_or("audio"),
                decoded_len(b["data"].as_str().unwrap_or_default())
            )),
            other => return Err(RpcError::params(text::acp_unknown_block(other))),
        }
    }
    Ok((message, images))
}

/// An embedded resource as text: its contents when it is text, else what it is.
fn embedded(r: &Value) -> String {
    let uri = r["uri"].as_str().unwrap_or_default();
    match (r["text"].as_str(), r["blob"].as_str()) {
        (Some(t), _) => format!("\n[Embedded Context] {uri} ({})\n{t}", r["mimeType"].as_str().unwrap_or("text/plain")),
        (None, Some(blob)) => format!(
            "\n[Embedded Context] {uri} ({}, {} bytes)",
            r["mimeType"].as_str().unwrap_or("application/octet-stream"),
            decoded_len(blob)
        ),
        (None, None) => format!("\n[Embedded Context] {uri}"),
    }
}

/// The size of base64 data once decoded.
fn decoded_len(b64: &str) -> usize {
    let pad = b64.bytes().rev().take_while(|b| *b == b'=').count();
    (b64.len() / 4 * 3).saturating_sub(pad)
}

/// A slash command ACP mode runs itself: its RPC command, or `None` when
/// the text goes to pi as a prompt (extension commands, templates, skills).
pub(crate) fn builtin(message: &str) -> Option<(&'static str, Value)> {
    let rest = message.strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let args = args.trim();
    Some(match name {
        "compact" if args.is_empty() => ("compact", json!({"type": "compact"})),
        "compact" => ("compact", json!({"type": "compact", "customInstructions": args})),
        "session" => ("session", json!({"type": "get_session_stats"})),
        "name" if !args.is_empty() => ("name", json!({"type": "set_session_name", "name": args})),
        "export" => ("export", json!({"type": "export_html"})),
        _ => return None,
    })
}

/// The commands ACP mode answers itself, for `available_commands_update`.
pub(crate) fn builtin_commands() -> Vec<Value> {
    vec![
        json!({"name": "compact", "description": text::ACP_CMD_COMPACT, "input": {"hint": "optional custom instructions"}}),
        json!({"name": "session", "description": text::ACP_CMD_SESSION}),
        json!({"name": "name", "description": text::ACP_CMD_NAME, "input": {"hint": "<name>"}}),
        json!({"name": "export", "description": text::ACP_CMD_EXPORT}),
    ]
}

/// What a built-in command answered, as text for the editor.
pub(crate) fn builtin_answer(name: &str, data: &Value) -> String {
    match name {
        "compact" => text::ACP_COMPACTED.to_string(),
        "session" => {
            let tokens = &data["tokens"];
            let mut out = format!(
                "Session: {}\nMessages: {} (user {}, assistant {}, tool results {})\nTokens: {} in, {} out",
                data["sessionFile"].as_str().unwrap_or("(in memory)"),
                data["totalMessages"],
                data["userMessages"],
                data["assistantMessages"],
                data["toolResults"],
                tokens["input"],
                tokens["output"]
            );
            if let Some(cost) = data["cost"].as_f64() {
                out.push_str(&format!("\nCost: ${cost:.4}"));
            }
            out
        }
        "name" => text::ACP_NAMED.to_string(),
        "export" => format!("Session exported to: {}", data["path"].as_str().unwrap_or_default()),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_block_becomes_text_or_an_image() {
        let blocks = json!([
            {"type": "text", "text": "look at "},
            {"type": "text", "text": "this"},
            {"type": "resource_link", "uri": "file:///p/a.rs", "name": "a.rs"},
            {"type": "resource", "resource": {"uri": "file:///p/b.rs", "text": "fn b() {}"}},
            {"type": "resource", "resource": {"uri": "file:///p/c.bin", "blob": "AAAA", "mimeType": "application/x"}},
            {"type": "image", "data": "iVBO", "mimeType": "image/png"},
            {"type": "audio", "data": "AAA=", "mimeType": "audio/wav"},
        ]);
        let (message, images) = input(&blocks).unwrap();
        assert_eq!(
            message,
            "look at this\n[Context] file:///p/a.rs\n[Embedded Context] file:///p/b.rs (text/plain)\nfn b() {}\n[Embedded Context] file:///p/c.bin (application/x, 3 bytes)\n[Audio] (audio/wav, 2 bytes) not supported"
        );
        assert_eq!(images, vec![json!({"type": "image", "data": "iVBO", "mimeType": "image/png"})]);
    }

    #[test]
    fn bad_prompts_are_refused_with_what_was_wrong() {
        assert_eq!(input(&json!("hi")).unwrap_err().code, super::super::wire::INVALID_PARAMS);
        let e = input(&json!([{"type": "video"}])).unwrap_err();
        assert!(e.message.contains("video"), "{}", e.message);
    }

    #[test]
    fn built_in_commands_are_recognised_and_others_go_to_pi() {
        assert_eq!(builtin("/compact"), Some(("compact", json!({"type": "compact"}))));
        assert_eq!(builtin("/compact keep the plan").unwrap().1["customInstructions"], "keep the plan");
        assert_eq!(builtin("/name  my work ").unwrap().1, json!({"type": "set_session_name", "name": "my work"}));
        assert_eq!(builtin("/name"), None);
        assert_eq!(builtin("/skill:review x"), None);
        assert_eq!(builtin("compact"), None);
    }
}
