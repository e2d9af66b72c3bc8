//! Messages of the `grep` tool.

use crate::limits::GREP_MAX_LINE_LENGTH;

/// The whole result when nothing matched.
pub const NO_MATCHES: &str = "No matches found";

/// Prefix of every error ripgrep itself would print (`rg: <message>`).
pub fn rg_error(message: &str) -> String {
    format!("rg: {message}")
}

/// A file with a line longer than grep holds in memory (beyond the reference,
/// whose `rg` reads any line whole): what it says after `rg: <path>: `.
pub fn line_too_long(limit: usize) -> String {
    format!(
        "a line is longer than {} (grep does not hold such a line in memory; use bash to look at this file)",
        crate::truncate::format_size(limit)
    )
}

/// ripgrep's hint after a pattern that contains a line terminator.
pub const MULTILINE_HINT: &str = "Consider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched.";

/// ripgrep's hint after a pattern that can only match a NUL byte.
pub const NUL_HINT: &str = "Consider enabling text mode with the --text flag (or -a for short). Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible.";

/// An output line for a matching line: `path:<n>: <text>`.
pub fn match_line(path: &str, line: u64, text: &str) -> String {
    format!("{path}:{line}: {text}")
}

/// An output line for a context line: `path-<n>- <text>`.
pub fn context_line(path: &str, line: u64, text: &str) -> String {
    format!("{path}-{line}- {text}")
}

/// Notice fragment: `<limit> matches limit reached. Use limit=<2*limit> for more, or refine pattern`.
pub fn match_limit_reached(limit: usize) -> String {
    format!("{limit} matches limit reached. Use limit={} for more, or refine pattern", limit.saturating_mul(2))
}

/// Notice fragment when a line was cut at the character limit.
pub fn lines_truncated() -> String {
    format!("Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(match_line("a/b.txt", 2, "x"), "a/b.txt:2: x");
        assert_eq!(context_line("a", 3, "y"), "a-3- y");
        assert_eq!(match_limit_reached(1), "1 matches limit reached. Use limit=2 for more, or refine pattern");
        assert_eq!(lines_truncated(), "Some lines truncated to 500 chars. Use read tool to see full lines");
    }
}
