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

/// A value where the schema is `false`.
pub const NOTHING_ALLOWED: &str = "no value is allowed here";

/// A property an `additionalProperties: false` schema does not name.
pub const UNKNOWN_FIELD: &str = "unknown field";

/// `uniqueItems` violated.
pub const UNIQUE_ITEMS: &str = "expected unique items";

/// A value matching the schema in `not`.
pub const MUST_NOT_MATCH: &str = "must not match the schema in not";

/// A `oneOf` value matching several branches.
pub const MORE_THAN_ONE_ALTERNATIVE: &str = "matches more than one alternative";

/// A union value matching no branch (when no branch explains why).
pub const NO_ALTERNATIVE: &str = "matches no alternative";

/// Enum messages list at most this many allowed values.
pub const LISTED_VALUES: usize = 20;

/// `expected one of ["a","b"]`.
pub fn expected_one_of(list: &str) -> String {
    format!("expected one of {list}")
}

/// `expected "x"` (a `const`).
pub fn expected_value(json: &str) -> String {
    format!("expected {json}")
}

/// `expected at least 3 characters` (items, properties).
pub fn at_least(n: &str, what: &str) -> String {
    format!("expected at least {n} {what}")
}

/// `expected at most 3 characters` (items, properties).
pub fn at_most(n: &str, what: &str) -> String {
    format!("expected at most {n} {what}")
}

/// `expected to match <pattern>`.
pub fn expected_to_match(pattern: &str) -> String {
    format!("expected to match {pattern}")
}

/// `expected >= 1` (and `<=`, `>`, `<`).
pub fn expected_compared(op: &str, bound: &str) -> String {
    format!("expected {op} {bound}")
}

/// `expected a multiple of 2`.
pub fn expected_multiple_of(m: &str) -> String {
    format!("expected a multiple of {m}")
}
