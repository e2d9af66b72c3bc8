//! Messages of the `read` tool.
//!
//! Numbers that come from the model's `offset`/`limit` are passed in already
//! formatted the way JavaScript prints them (`1.5`, `1e+300`), because the
//! reference does arithmetic on them as given.

use crate::limits::MAX_BYTES;
use crate::truncate::format_size;

/// `Read image file [<mime>]`: the text block that goes with an image.
pub fn image_read(mime: &str) -> String {
    format!("Read image file [{mime}]")
}

/// `[Image converted from <from> to <to>.]` (BMP is sent as PNG).
pub fn image_converted(from: &str, to: &str) -> String {
    format!("[Image converted from {from} to {to}.]")
}

/// The note of an image that was resized or re-encoded to fit the limits.
/// `factor` is original width / displayed width with two decimals.
pub fn image_resized(orig_w: u32, orig_h: u32, w: u32, h: u32, factor: &str) -> String {
    format!(
        "[Image: original {orig_w}x{orig_h}, displayed at {w}x{h}. Multiply coordinates by {factor} to map to original image.]"
    )
}

/// An image that could not be decoded, resized or re-encoded below the inline limits.
pub const IMAGE_OMITTED_TOO_LARGE: &str = "[Image omitted: could not be resized below the inline image size limit.]";

/// A BMP that could not be converted to PNG.
pub const IMAGE_OMITTED_UNCONVERTIBLE: &str =
    "[Image omitted: could not be converted to a supported inline image format.]";

/// The first selected line alone is over the byte limit:
/// `[Line <n> is <size>, exceeds 50.0KB limit. Use bash: sed -n '<n>p' <path> | head -c 51200]`.
/// `path` is the path as the model gave it.
pub fn first_line_too_big(line: &str, size_bytes: usize, path: &str) -> String {
    format!(
        "[Line {line} is {}, exceeds {} limit. Use bash: sed -n '{line}p' {path} | head -c {MAX_BYTES}]",
        format_size(size_bytes),
        format_size(MAX_BYTES)
    )
}

/// Appended when the line limit cut the output:
/// `\n\n[Showing lines <a>-<b> of <total>. Use offset=<next> to continue.]`.
pub fn showing_lines(first: &str, last: &str, total: u64, next: &str) -> String {
    format!("\n\n[Showing lines {first}-{last} of {total}. Use offset={next} to continue.]")
}

/// Appended when the byte limit cut the output:
/// `\n\n[Showing lines <a>-<b> of <total> (50.0KB limit). Use offset=<next> to continue.]`.
pub fn showing_lines_byte_limit(first: &str, last: &str, total: u64, next: &str) -> String {
    format!(
        "\n\n[Showing lines {first}-{last} of {total} ({} limit). Use offset={next} to continue.]",
        format_size(MAX_BYTES)
    )
}

/// Appended when the model's `limit` stopped before the end of the file:
/// `\n\n[<remaining> more lines in file. Use offset=<next> to continue.]`.
pub fn more_lines(remaining: &str, next: &str) -> String {
    format!("\n\n[{remaining} more lines in file. Use offset={next} to continue.]")
}

/// `Offset <offset> is beyond end of file (<N> lines total)`.
pub fn offset_beyond_end(offset: &str, total: u64) -> String {
    format!("Offset {offset} is beyond end of file ({total} lines total)")
}

/// The reference's failure when a fractional `offset` meets a first line over
/// the byte limit (it looks up a line at a fractional index).
pub const FRACTIONAL_OFFSET_LONG_LINE: &str =
    "The \"string\" argument must be of type string or an instance of Buffer or ArrayBuffer. Received undefined";

/// Node's error for a file too big to read at once (after `read` bytes).
pub fn file_too_large(read: u64) -> String {
    format!("File size ({read}) is greater than 2 GiB")
}

pub use super::common::inspect_string;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices() {
        assert_eq!(
            first_line_too_big("1", 60000, "@big.txt"),
            "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' @big.txt | head -c 51200]"
        );
        assert_eq!(
            showing_lines("1", "2000", 2501, "2001"),
            "\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]"
        );
        assert_eq!(
            showing_lines_byte_limit("1", "243", 501, "244"),
            "\n\n[Showing lines 1-243 of 501 (50.0KB limit). Use offset=244 to continue.]"
        );
        assert_eq!(more_lines("91", "11"), "\n\n[91 more lines in file. Use offset=11 to continue.]");
        assert_eq!(offset_beyond_end("5", 4), "Offset 5 is beyond end of file (4 lines total)");
    }

    #[test]
    fn inspect_like_node() {
        assert_eq!(inspect_string("/tmp/a\0b"), "'/tmp/a\\x00b'");
        assert_eq!(inspect_string("it's"), "\"it's\"");
        assert_eq!(inspect_string("a\nb\u{b}\u{7f}"), "'a\\nb\\x0B\\x7F'");
        assert_eq!(inspect_string("it's \"q\""), "`it's \"q\"`");
        assert_eq!(inspect_string("it's \"q\" `b`"), "'it\\'s \"q\" `b`'");
    }
}
