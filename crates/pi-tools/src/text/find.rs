//! Messages of the `find` tool.

/// The whole result when nothing matched.
pub const NO_FILES: &str = "No files found matching pattern";

/// Prefix of every error fd itself would print (`[fd error]: <message>`).
pub fn fd_error(message: &str) -> String {
    format!("[fd error]: {message}")
}

/// fd's two error lines for a search path that is missing or not a folder.
pub fn search_path_not_a_directory(abs: &str) -> String {
    format!(
        "{}\n{}",
        fd_error(&format!("Search path '{abs}' is not a directory.")),
        fd_error("No valid search paths given.")
    )
}

/// fd's (clap's) error for a `--max-results` value it cannot take: `value`
/// is what the reference passes (`String(limit + 1)`), `reason` Rust's
/// integer parse error.
pub fn invalid_max_results(value: &str, reason: &str) -> String {
    format!(
        "error: invalid value '{value}' for '--max-results <count>': {reason}\n\nFor more information, try '--help'."
    )
}

/// Notice fragment: `<limit> results limit reached. Use limit=<2*limit> for more, or refine pattern`.
pub fn result_limit_reached(limit: usize) -> String {
    format!("{limit} results limit reached. Use limit={} for more, or refine pattern", limit.saturating_mul(2))
}

/// A glob whose regex would be too big to build (after `[fd error]: `).
pub const PATTERN_TOO_COMPLEX: &str = "the pattern is too long or too complex to compile; use a shorter pattern";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(
            search_path_not_a_directory("/x/nope"),
            "[fd error]: Search path '/x/nope' is not a directory.\n[fd error]: No valid search paths given."
        );
        assert_eq!(result_limit_reached(3), "3 results limit reached. Use limit=6 for more, or refine pattern");
    }
}
