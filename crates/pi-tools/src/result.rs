//! The one result type every tool returns.

use serde::Serialize;
use serde_json::Value;

/// A block of tool output: text, or an image as base64.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

/// What a tool call produced: `{content, details, isError}`.
///
/// A failure is an error result whose text is the message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    /// Text and image blocks shown to the model.
    pub content: Vec<Content>,
    /// Machine-readable extras (truncation, diff, …); `null` when absent.
    pub details: Option<Value>,
    /// True when the call failed.
    #[serde(rename = "isError")]
    pub is_error: bool,
    /// Structured output for programmatic callers (bash's `{output, …}`).
    #[serde(skip)]
    pub structured: Option<Value>,
    /// Token usage the tool itself caused (nested model calls), as the
    /// reference's `Usage` JSON; summed with its nested calls' by the agent.
    #[serde(skip)]
    pub usage: Option<Value>,
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn success(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![Content::Text { text: text.into() }],
            details: None,
            is_error: false,
            structured: None,
            usage: None,
        }
    }

    /// An error result whose text is `message`.
    pub fn error(message: impl Into<String>) -> Self {
        ToolResult { is_error: true, ..ToolResult::success(message) }
    }

    /// A failure the tool threw (or the call never reached the tool): an
    /// error result with empty `details`, as the reference records one.
    pub fn thrown(message: impl Into<String>) -> Self {
        ToolResult { details: Some(Value::Object(Default::default())), ..ToolResult::error(message) }
    }

    /// Attach `details`.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// All text blocks joined by newlines (images left out).
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                Content::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }
}
