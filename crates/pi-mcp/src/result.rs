//! A `tools/call` result as the model and scripts get it. The model gets the
//! text blocks (resource links and embedded resources rendered as text,
//! binary resources saved to files), cut in the middle past 20 KiB with the
//! full text in a `pi-mcp-*.log` file, then the images. Scripts get the whole
//! result (minus `_meta`) untruncated, as the structured value.

use pi_tools::output_file::OutputFiles;
use pi_tools::{Content, ToolResult};
use serde_json::Value;

use crate::text;

/// Which server and tool a result came from (for error and resource texts).
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// The server's name.
    pub server: &'a str,
    /// The tool's name on the server.
    pub tool: &'a str,
    /// Whether the resource tools exist (resource links then say how to read them).
    pub resources: bool,
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Blobs of these types are shown as text.
fn is_text_mime(mime: Option<&str>) -> bool {
    let Some(m) = mime else { return false };
    let t = m.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    t.starts_with("text/") || t == "application/json" || t.ends_with("+json") || t.ends_with("+xml")
}

/// The file extension of a saved binary resource: the one its URI ends in, else `.bin`.
fn extension_of(uri: &str) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    match last.rfind('.') {
        Some(i) if (2..=9).contains(&(last.len() - i)) && last[i + 1..].chars().all(|c| c.is_ascii_alphanumeric()) => {
            last[i..].to_string()
        }
        _ => ".bin".into(),
    }
}

fn resource_link(b: &Value, origin: Origin<'_>) -> String {
    let mut details: Vec<String> =
        str_of(b, "mimeType").filter(|m| !m.is_empty()).map(String::from).into_iter().collect();
    if let Some(size) = b.get("size").and_then(Value::as_u64) {
        details.push(pi_tools::truncate::format_size(size as usize));
    }
    let details = if details.is_empty() { String::new() } else { format!(" ({})", details.join(", ")) };
    let description = str_of(b, "description").filter(|d| !d.is_empty()).map(|d| format!(": {d}")).unwrap_or_default();
    let read = if origin.resources { text::read_resource_hint(origin.server) } else { String::new() };
    let title = str_of(b, "title").or_else(|| str_of(b, "name")).unwrap_or("");
    text::resource_link(str_of(b, "uri").unwrap_or(""), title, &details, &description, &read)
}

fn binary_resource(r: &Value, files: &OutputFiles) -> Option<Content> {
    let uri = str_of(r, "uri").unwrap_or("");
    let mime = str_of(r, "mimeType");
    let data = decode(str_of(r, "blob").unwrap_or("")).unwrap_or_default();
    if is_text_mime(mime) {
        return Some(Content::Text { text: String::from_utf8_lossy(&data).into_owned() });
    }
    let kind = format!("{}, {}", mime.unwrap_or("unknown type"), pi_tools::truncate::format_size(data.len()));
    let text = match files.write_new("pi-mcp", &extension_of(uri), &data) {
        Ok(p) => text::binary_resource_saved(uri, &kind, &p.to_string_lossy()),
        Err(e) => text::binary_resource_unsaved(uri, &kind, &e.to_string()),
    };
    Some(Content::Text { text })
}

/// One content block as model content (`None`: nothing to show).
fn block(b: &Value, origin: Origin<'_>, files: &OutputFiles) -> Option<Content> {
    let text = |t: String| Some(Content::Text { text: t });
    match str_of(b, "type")? {
        "text" => text(str_of(b, "text").unwrap_or("").to_string()),
        "image" => Some(Content::Image {
            data: str_of(b, "data").unwrap_or("").to_string(),
            mime_type: str_of(b, "mimeType").unwrap_or("image/png").to_string(),
        }),
        "resource_link" => text(resource_link(b, origin)),
        "resource" => {
            let r = b.get("resource")?;
            if let Some(t) = str_of(r, "text") {
                return text(t.to_string());
            }
            let mime = str_of(r, "mimeType").unwrap_or("");
            if mime.starts_with("image/") {
                return Some(Content::Image {
                    data: str_of(r, "blob").unwrap_or("").to_string(),
                    mime_type: mime.to_string(),
                });
            }
            binary_resource(r, files)
        }
        // Audio and unknown blocks: their JSON, so nothing is silently lost.
        _ => text(b.to_string()),
    }
}

/// Standard base64 (MCP's `blob`), `None` when malformed.
fn decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(s.trim()).ok()
}

/// Keep the start and end of `s` (half of `max` bytes each) around a marker;
/// `None` when it fits. Cuts only at character boundaries.
pub fn truncate_middle(s: &str, max: usize) -> Option<(String, usize)> {
    if s.len() <= max {
        return None;
    }
    let mut head = max / 2;
    while !s.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = s.len() - (max - max / 2);
    while !s.is_char_boundary(tail) {
        tail += 1;
    }
    let removed = s[head..tail].chars().count();
    let lines = s.split('\n').count() - usize::from(s.ends_with('\n'));
    Some((format!("{}{}{}", &s[..head], text::chars_truncated(removed), &s[tail..]), lines))
}

/// The script's value: the result without `_meta` and the protocol's `resultType`.
pub fn script_value(raw: &Value) -> Value {
    let mut v = raw.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("_meta");
        o.remove("resultType");
    }
    v
}

/// Convert a `CallToolResult` (as JSON) into the tool result; files it
/// saves are remembered in `files`.
pub fn convert(raw: &Value, origin: Origin<'_>, files: &OutputFiles) -> ToolResult {
    let is_error = raw.get("isError").and_then(Value::as_bool).unwrap_or(false);
    let blocks = raw.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut content: Vec<Content> = blocks.iter().filter_map(|b| block(b, origin, files)).collect();
    if blocks.is_empty()
        && let Some(structured) = raw.get("structuredContent")
    {
        content.push(Content::Text { text: structured.to_string() });
    }
    let joined: Vec<&str> = content
        .iter()
        .filter_map(|c| if let Content::Text { text } = c { Some(text.as_str()) } else { None })
        .collect();
    let combined = joined.join("\n");
    let mut details = None;
    if let Some((middle, lines)) = truncate_middle(&combined, text::MCP_OUTPUT_MAX_BYTES) {
        let (saved, path) = match files.write_new("pi-mcp", ".log", combined.as_bytes()) {
            Ok(p) => {
                let p = p.to_string_lossy().into_owned();
                (text::full_output(&p), Some(p))
            }
            Err(e) => (text::full_output_unsaved(&e.to_string()), None),
        };
        let first = Content::Text { text: text::truncated(combined.len(), lines, &middle, &saved) };
        content =
            std::iter::once(first).chain(content.into_iter().filter(|c| matches!(c, Content::Image { .. }))).collect();
        details = path.map(|p| serde_json::json!({ "fullOutputPath": p }));
    }
    if is_error && combined.is_empty() {
        content.push(Content::Text { text: text::tool_returned_error(origin.server, origin.tool) });
    }
    ToolResult { content, details, is_error, structured: Some(script_value(raw)), usage: None }
}

#[cfg(test)]
mod tests;
