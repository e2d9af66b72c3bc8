//! Every message this crate shows a client, in one place.

/// The thinking levels a client may ask for, lowest first.
pub const THINKING_LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// A command type nobody handles (the reference's words).
pub fn unknown_command(kind: &str) -> String {
    format!("Unknown command: {kind}")
}

/// `set_model` names no model (the reference's words; a missing field reads
/// `undefined`, as the reference prints it).
pub fn model_not_found(provider: &str, id: &str) -> String {
    format!("Model not found: {provider}/{id}")
}

/// `get_entries` with a `since` that names no entry (the reference's words).
pub fn entry_not_found(id: &str) -> String {
    format!("Entry not found: {id}")
}

/// `fork` without an entry that can be forked from (the reference's words).
pub const INVALID_FORK_ENTRY: &str = "Invalid entry ID for forking";

/// A required argument is absent.
pub fn missing_argument(command: &str, field: &str, expected: &str) -> String {
    format!("Invalid {command} command: missing \"{field}\" ({expected})")
}

/// An argument is present but not what the command takes.
pub fn wrong_argument(command: &str, field: &str, expected: &str) -> String {
    format!("Invalid {command} command: \"{field}\" must be {expected}")
}

/// What a string argument should be.
pub const EXPECT_STRING: &str = "a string";
/// What a boolean argument should be.
pub const EXPECT_BOOL: &str = "true or false";
/// What a queue mode should be.
pub const EXPECT_QUEUE_MODE: &str = "\"all\" or \"one-at-a-time\"";
/// What `streamingBehavior` should be.
pub const EXPECT_STREAMING_BEHAVIOR: &str = "\"steer\" or \"followUp\"";
/// What `images` should be.
pub const EXPECT_IMAGES: &str =
    "a list of images, each {\"type\": \"image\", \"data\": <base64 text>, \"mimeType\": <text>}";

/// What `level` should be.
pub fn expect_thinking_level() -> String {
    format!("one of {}", THINKING_LEVELS.join(", "))
}
