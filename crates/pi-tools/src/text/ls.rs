//! Messages of the `ls` tool.

/// The output for a folder with no (listable) entries.
pub const EMPTY_DIRECTORY: &str = "(empty directory)";

/// `Not a directory: <absolute path>`.
pub fn not_a_directory(abs: &str) -> String {
    format!("Not a directory: {abs}")
}

/// `Cannot read directory: <Node's error text>`.
pub fn cannot_read_directory(message: &str) -> String {
    format!("Cannot read directory: {message}")
}

/// `<limit> entries limit reached. Use limit=<2*limit> for more`.
pub fn entries_limit_reached(limit: u64, next: u64) -> String {
    format!("{limit} entries limit reached. Use limit={next} for more")
}

/// The notices after the listing: `\n\n[<notice>. <notice>]`.
pub fn notices(parts: &[String]) -> String {
    format!("\n\n[{}]", parts.join(". "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notice_forms() {
        let both = notices(&[entries_limit_reached(500, 1000), crate::text::common::byte_limit_reached()]);
        assert_eq!(both, "\n\n[500 entries limit reached. Use limit=1000 for more. 50.0KB limit reached]");
    }
}
