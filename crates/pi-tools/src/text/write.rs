//! Messages of the `write` tool.

/// `Successfully wrote to <path>` (the path as the model gave it).
pub fn wrote(path: &str) -> String {
    format!("Successfully wrote to {path}")
}
