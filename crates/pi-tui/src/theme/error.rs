//! Why a colour or a theme file is invalid; each `Display` is the text of the
//! warning about the file.

use crate::text;

/// A colour literal that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ColourError {
    /// `#…` that is not 3 or 6 hex digits.
    #[error("invalid hex colour \"{0}\"")]
    Hex(String),
    /// `okhsl(…)` or `oklch(…)` without three numbers.
    #[error("invalid colour \"{0}\"")]
    Function(String),
    /// A number that is not a palette index 0–255.
    #[error("invalid colour index {0}")]
    Index(serde_json::Number),
}

/// Why a colour entry does not resolve.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ColourProblem {
    /// A literal that does not parse.
    #[error(transparent)]
    Invalid(ColourError),
    /// Variables that refer to each other.
    #[error("{}", text::theme_variable_loop(.0))]
    Loop(String),
    /// A name no variable has.
    #[error("{}", text::theme_unknown_variable(.0))]
    UnknownVariable(String),
    /// Neither a string nor a number.
    #[error("{}", text::THEME_BAD_COLOUR_TYPE)]
    BadType,
}

/// A theme file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ThemeError {
    /// Not JSON.
    #[error("{0}")]
    Json(serde_json::Error),
    /// The file or a section (`vars`, `colors`, `export`) is not an object.
    #[error("{}", text::theme_expected_object(.0))]
    NotObject(&'static str),
    /// A key the format does not have.
    #[error("{}", text::theme_unknown_property(.0))]
    UnknownProperty(String),
    /// No `name`.
    #[error("{}", text::THEME_NAME_REQUIRED)]
    NameRequired,
    /// A `name` that is empty, has a `/` or is `system`.
    #[error("{}", text::theme_bad_name(.0))]
    BadName(String),
    /// No `colors`.
    #[error("{}", text::THEME_COLORS_REQUIRED)]
    ColorsRequired,
    /// A colour role that does not exist.
    #[error("{}", text::theme_unknown_colour(.0))]
    UnknownColour(String),
    /// A required colour role without a value.
    #[error("{}", text::theme_missing_colour(.0))]
    MissingColour(&'static str),
    /// An `appearance` other than `light` or `dark`.
    #[error("{}", text::theme_bad_appearance(.0))]
    BadAppearance(String),
    /// A colour entry (`accent`, `export.pageBg`, …) that does not resolve.
    #[error("{key}: {why}")]
    Colour {
        /// The entry.
        key: String,
        /// Why.
        why: ColourProblem,
    },
}
