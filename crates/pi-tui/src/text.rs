//! Every message the terminal UI shows, in one place.

use std::path::Path;

// ---- Themes -------------------------------------------------------------

/// The theme built from the terminal's own colours.
pub const SYSTEM_THEME: &str = "system";
/// A theme file without `name`.
pub const THEME_NAME_REQUIRED: &str = "\"name\" is required";
/// A theme file without `colors`.
pub const THEME_COLORS_REQUIRED: &str = "\"colors\" is required";
/// A colour that is neither a string nor a number.
pub const THEME_BAD_COLOUR_TYPE: &str = "a colour must be a string or a number";
/// A `--theme` path that does not exist.
pub const THEME_NOT_FOUND: &str = "file not found";

/// A part of a theme file that must be an object.
pub fn theme_expected_object(what: &str) -> String {
    format!("\"{what}\" must be an object")
}
/// An unknown top-level (or `export`) key.
pub fn theme_unknown_property(k: &str) -> String {
    format!("unknown property \"{k}\"")
}
/// A name that cannot be a theme's.
pub fn theme_bad_name(name: &str) -> String {
    format!("invalid theme name \"{name}\" (it cannot be empty, contain \"/\" or be \"system\")")
}
/// An unknown colour role.
pub fn theme_unknown_colour(k: &str) -> String {
    format!("unknown colour \"{k}\"")
}
/// A required colour role that is missing.
pub fn theme_missing_colour(k: &str) -> String {
    format!("missing colour \"{k}\"")
}
/// A variable reference to nothing.
pub fn theme_unknown_variable(v: &str) -> String {
    format!("unknown variable \"{v}\"")
}
/// Variables that refer to each other in a circle.
pub fn theme_variable_loop(v: &str) -> String {
    format!("variable \"{v}\" refers to itself")
}
/// An `appearance` other than dark or light.
pub fn theme_bad_appearance(a: &str) -> String {
    format!("invalid appearance \"{a}\" (expected \"dark\" or \"light\")")
}
/// An invalid theme file (a start-up and `/reload` warning).
pub fn theme_invalid(path: &Path, reason: &str) -> String {
    format!("Invalid theme {}: {reason}", path.display())
}
/// Two themes of one name.
pub fn theme_collision(name: &str, path: &Path) -> String {
    format!("Theme \"{name}\" in {} is already loaded; skipped", path.display())
}
/// A theme setting or `--use-theme` naming no loaded theme.
pub fn theme_not_found(name: &str) -> String {
    format!("Theme \"{name}\" not found; using the default theme")
}

// ---- Keys ---------------------------------------------------------------

/// `keybindings.json` is not an object.
pub const KEYBINDINGS_NOT_OBJECT: &str = "expected an object of action ids";

/// A key name that does not parse.
pub fn invalid_key(s: &str) -> String {
    format!("invalid key \"{s}\"")
}
/// `keybindings.json` could not be read or parsed.
pub fn keybindings_unreadable(path: &Path, e: &str) -> String {
    format!("Could not read keybindings {}: {e}", path.display())
}
/// An action mapped to something other than a key or a list of keys.
pub fn keybinding_bad_value(id: &str) -> String {
    format!("{id}: expected a key or a list of keys")
}

// ---- Editor -------------------------------------------------------------

/// The marker of a long paste.
pub fn paste_marker_lines(id: u32, lines: usize) -> String {
    format!("[paste #{id} +{lines} lines]")
}
/// The marker of a wide paste.
pub fn paste_marker_chars(id: u32, chars: usize) -> String {
    format!("[paste #{id} {chars} chars]")
}
