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
