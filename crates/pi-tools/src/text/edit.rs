//! Messages of the `edit` tool. "Single" forms are used when the call has one
//! edit, "multi" forms (naming `edits[i]`) when it has several.

/// `edits` is an empty array.
pub const EMPTY_EDITS: &str = "Edit tool input is invalid. edits must contain at least one replacement.";

/// The file cannot be read and written (`access` failed): `<code>` is `ENOENT`, `EACCES`, ….
pub fn could_not_edit(path: &str, code: &str) -> String {
    format!("Could not edit file: {path}. Error code: {code}.")
}

/// The file is bigger than `edit` takes (beyond the reference, which reads
/// any file into one string): the size, the limit and what to use instead.
pub fn file_too_large(path: &str, size: u64, limit: u64) -> String {
    format!(
        "File too large to edit: {path} is {}, and edit works on files up to {}. Use bash (sed, awk or a script) to change it.",
        crate::truncate::format_size(size as usize),
        crate::truncate::format_size(limit as usize)
    )
}

/// An `oldText` is the empty string.
pub fn empty_old_text(path: &str, index: Option<usize>) -> String {
    match index {
        None => format!("oldText must not be empty in {path}."),
        Some(i) => format!("edits[{i}].oldText must not be empty in {path}."),
    }
}

/// An `oldText` occurs nowhere, not even after fuzzy normalisation.
pub fn not_found(path: &str, index: Option<usize>) -> String {
    match index {
        None => format!(
            "Could not find the exact text in {path}. The old text must match exactly including all whitespace and newlines."
        ),
        Some(i) => format!(
            "Could not find edits[{i}] in {path}. The oldText must match exactly including all whitespace and newlines."
        ),
    }
}

/// An `oldText` occurs `count` times (counted after fuzzy normalisation).
pub fn not_unique(path: &str, index: Option<usize>, count: i64) -> String {
    match index {
        None => format!(
            "Found {count} occurrences of the text in {path}. The text must be unique. Please provide more context to make it unique."
        ),
        Some(i) => format!(
            "Found {count} occurrences of edits[{i}] in {path}. Each oldText must be unique. Please provide more context to make it unique."
        ),
    }
}

/// Two matched regions overlap (`first` is the one that starts first in the file).
pub fn overlap(path: &str, first: usize, second: usize) -> String {
    format!(
        "edits[{first}] and edits[{second}] overlap in {path}. Merge them into one edit or target disjoint regions."
    )
}

/// The edits leave the file as it was.
pub fn no_changes(path: &str, multi: bool) -> String {
    if multi {
        format!("No changes made to {path}. The replacements produced identical content.")
    } else {
        format!(
            "No changes made to {path}. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
        )
    }
}

/// Fuzzy normalisation changed the number of lines (cannot happen with the
/// normalisation used, kept as the reference's guard).
pub const LINE_COUNT_MISMATCH: &str =
    "Cannot preserve unchanged lines because the base content has a different line count.";

/// A fuzzy match of nothing in an empty file.
pub const RANGE_OUTSIDE: &str = "Replacement range is outside the base content.";

/// The success text.
pub fn replaced(path: &str, blocks: usize) -> String {
    format!("Successfully replaced {blocks} block(s) in {path}.")
}

/// The display diff's marker for skipped unchanged lines (after the padding).
pub const DIFF_SKIPPED: &str = "...";

/// The unified patch's marker after a last line without a newline.
pub const NO_NEWLINE_AT_EOF: &str = "\\ No newline at end of file";
