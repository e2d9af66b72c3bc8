//! Reading what `pi` writes and sends: JSON lines from its output (RPC and
//! JSON modes), and the prompts of a recorded Chat Completions request.

use std::io::BufRead;

use serde_json::Value;

/// Read JSON lines from `out` until one satisfies `pred`; that line.
/// Panics (failing the test) when the output ends first or a line is not JSON.
pub fn read_until(out: &mut impl BufRead, pred: impl Fn(&Value) -> bool) -> Value {
    loop {
        let mut line = String::new();
        let n = out.read_line(&mut line).unwrap_or(0);
        assert!(n > 0, "pi's output ended before the awaited line");
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
        if pred(&v) {
            return v;
        }
    }
}

/// The texts of the user messages of a Chat Completions request body (a
/// message's text parts joined).
pub fn user_texts(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
            _ => String::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_to_the_awaited_line_and_joins_text_parts() {
        let mut out = std::io::Cursor::new("{\"type\":\"a\"}\n{\"type\":\"b\",\"n\":1}\n");
        assert_eq!(read_until(&mut out, |v| v["type"] == "b")["n"], 1);
        let body = json!({"messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "one"},
            {"role": "user", "content": [{"type": "text", "text": "two"}, {"type": "image_url"}, {"type": "text", "text": "!"}]},
        ]});
        assert_eq!(user_texts(&body), ["one", "two!"]);
    }
}
