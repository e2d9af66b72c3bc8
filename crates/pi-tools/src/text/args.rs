//! Messages of argument parsing and validation.

/// The reason given for a required property that is absent.
pub const MISSING: &str = "missing";

/// The path shown when the whole argument value has the wrong type.
pub const ROOT_PATH: &str = "root";

/// `expected <type>, got <type>`.
pub fn expected_got(expected: &str, got: &str) -> String {
    format!("expected {expected}, got {got}")
}

/// One bullet of a validation failure: `  - <path>: <message>`.
pub fn issue_line(path: &str, message: &str) -> String {
    format!("  - {path}: {message}")
}

/// The whole validation failure text.
pub fn validation_failed(tool: &str, issue_lines: &str, received_pretty: &str) -> String {
    format!("Validation failed for tool \"{tool}\":\n{issue_lines}\n\nReceived arguments:\n{received_pretty}")
}

/// Arguments that are not JSON at all.
pub fn invalid_arguments(tool: &str, parse_error: &str, raw: &str) -> String {
    format!("Invalid arguments for tool \"{tool}\": {parse_error}\n\nReceived arguments:\n{raw}")
}
