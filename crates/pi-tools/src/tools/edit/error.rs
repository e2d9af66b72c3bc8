//! Why the edits could not be applied; each `Display` is the model-visible text.

use crate::text::edit as msg;

/// An edit that cannot be made (no file is changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum EditError {
    /// An `oldText` is empty (`index` is the edit's, when there are several).
    #[error("{}", msg::empty_old_text(.path, *.index))]
    EmptyOldText {
        /// The path as given.
        path: String,
        /// The edit's index, when there are several.
        index: Option<usize>,
    },
    /// An `oldText` is not in the file.
    #[error("{}", msg::not_found(.path, *.index))]
    NotFound {
        /// The path as given.
        path: String,
        /// The edit's index, when there are several.
        index: Option<usize>,
    },
    /// An `oldText` is in the file more than once.
    #[error("{}", msg::not_unique(.path, *.index, *.count))]
    NotUnique {
        /// The path as given.
        path: String,
        /// The edit's index, when there are several.
        index: Option<usize>,
        /// How many times it is there.
        count: i64,
    },
    /// Two edits touch the same text.
    #[error("{}", msg::overlap(.path, *.first, *.second))]
    Overlap {
        /// The path as given.
        path: String,
        /// The first edit's index.
        first: usize,
        /// The second edit's index.
        second: usize,
    },
    /// The edits change nothing.
    #[error("{}", msg::no_changes(.path, *.multi))]
    NoChanges {
        /// The path as given.
        path: String,
        /// Whether there were several edits.
        multi: bool,
    },
    /// The fuzzy text and the original have different line counts.
    #[error("{}", msg::LINE_COUNT_MISMATCH)]
    LineCountMismatch,
    /// A replacement starts past the end of the fuzzy text.
    #[error("{}", msg::RANGE_OUTSIDE)]
    RangeOutside,
}
