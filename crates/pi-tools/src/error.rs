//! The typed error a tool handler returns; its `Display` is the model-visible text.

/// A tool failure. The message is what the model sees as the error result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// A failure with a complete, model-visible message.
    #[error("{0}")]
    Message(String),
    /// The call was aborted (`Operation aborted`).
    #[error("{}", crate::text::common::OPERATION_ABORTED)]
    Aborted,
}

impl ToolError {
    /// A failure with this exact message.
    pub fn msg(message: impl Into<String>) -> Self {
        ToolError::Message(message.into())
    }
}

/// The raw argument text of a tool call is not JSON; `Display` is the
/// reference's `Invalid arguments for tool "<name>": …` message.
#[derive(Debug, thiserror::Error)]
#[error("{}", crate::text::args::invalid_arguments(.tool, &.source.to_string(), .raw))]
pub struct InvalidArguments {
    /// The tool's name.
    pub tool: String,
    /// The text as the model sent it.
    pub raw: String,
    /// The parser's error.
    pub source: serde_json::Error,
}

/// A path with a NUL byte; `Display` is the error Node gives for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", crate::text::common::path_with_null_bytes(.path))]
pub struct NulInPath {
    /// The path, as shown (lossily decoded).
    pub path: String,
}

impl From<NulInPath> for ToolError {
    fn from(e: NulInPath) -> Self {
        ToolError::Message(e.to_string())
    }
}

/// Why an image is left out; `Display` is the note that takes its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ImageOmitted {
    /// It could not be decoded, or resized or re-encoded below the inline limits.
    #[error("{}", crate::text::read::IMAGE_OMITTED_TOO_LARGE)]
    TooLarge,
    /// It could not be converted to a supported inline format.
    #[error("{}", crate::text::read::IMAGE_OMITTED_UNCONVERTIBLE)]
    Unconvertible,
}
