//! Every user-visible message of the settings and trust modules, in one place.
//!
//! Strings quoted from the reference (Pi 1.6.0) are marked "reference"; the
//! rest are ours (settings validation has no counterpart there).

use std::path::Path;

// ---------------------------------------------------------------- trust store

/// reference: the store could not be read or parsed.
pub fn trust_read_failed(path: &Path, message: &str) -> String {
    format!("Failed to read trust store {}: {message}", path.display())
}

/// reference: the store's top level is not a JSON object.
pub fn trust_not_object(path: &Path) -> String {
    format!("Invalid trust store {}: expected an object", path.display())
}

/// reference: a value in the store is not `true`, `false` or `null`.
/// The key is quoted as a JSON string.
pub fn trust_bad_value(path: &Path, key: &str) -> String {
    let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""));
    format!("Invalid trust store {}: value for {quoted} must be true, false, or null", path.display())
}

/// The lock next to the store stayed busy through every attempt (the
/// reference says `Failed to acquire trust store lock`; we add the path).
pub fn trust_lock_failed(lock_path: &Path) -> String {
    format!("Failed to acquire trust store lock {}", lock_path.display())
}

/// The store could not be written.
pub fn trust_write_failed(path: &Path, message: &str) -> String {
    format!("Failed to write trust store {}: {message}", path.display())
}

// ------------------------------------------------------------ trust prompt

/// reference: option that saves `true` for the folder.
pub const OPTION_TRUST: &str = "Trust";
/// reference: option that trusts for this process only.
pub const OPTION_TRUST_SESSION: &str = "Trust (this session only)";
/// reference: option that saves `false` for the folder.
pub const OPTION_DO_NOT_TRUST: &str = "Do not trust";
/// reference: option that distrusts for this process only.
pub const OPTION_DO_NOT_TRUST_SESSION: &str = "Do not trust (this session only)";

/// reference: option that saves `true` for the parent and removes the
/// folder's own entry.
pub fn option_trust_parent(parent: &Path) -> String {
    format!("Trust parent folder ({})", parent.display())
}

/// reference: the start-up prompt's title (app name `pi`, config dir `.pi`).
pub fn trust_prompt_title(cwd: &Path) -> String {
    format!(
        "Trust project folder?\n{}\n\nThis allows pi to load .pi settings and resources, install missing project packages, and execute project extensions.",
        cwd.display()
    )
}

/// reference: shown in interactive mode when the folder is untrusted and has
/// trust-requiring resources.
pub const UNTRUSTED_NOTICE: &str = "This project is not trusted. Project .pi resources and packages are ignored. Use /trust to save a trust decision, then restart pi.";

/// reference: a `project_trust` handler failed (the next one is asked).
pub fn extension_trust_error(extension: &str, error: &str) -> String {
    format!("Extension \"{extension}\" project_trust error: {error}")
}

/// reference (`/trust`): the saved decision line. `entry` is the nearest saved
/// decision; `cwd` the (canonical) folder asked about.
pub fn saved_decision_line(entry: Option<(&Path, bool)>, cwd: &Path) -> String {
    match entry {
        None => "Saved decision: none".to_string(),
        Some((p, d)) if p == cwd => format!("Saved decision: {} ({})", decision_word(d), p.display()),
        Some((p, d)) => format!("Saved decision: {} (inherited from {})", decision_word(d), p.display()),
    }
}

/// reference (`/trust`): the current process's trust.
pub fn current_session_line(trusted: bool) -> String {
    format!("Current session: {}", decision_word(trusted))
}

/// reference (`/trust`): after saving.
pub fn saved_trust_decision(trusted: bool) -> String {
    format!("Saved trust decision: {}. Restart pi for this to take effect.", decision_word(trusted))
}

/// reference: the implicit-trust save after `/reload` failed.
pub fn could_not_save_trust_after_reload(message: &str) -> String {
    format!("Could not save project trust after reload: {message}")
}

/// `trusted` or `untrusted`.
pub fn decision_word(trusted: bool) -> &'static str {
    if trusted { "trusted" } else { "untrusted" }
}

// ---------------------------------------------------------------- settings

/// reference: a settings file is not valid JSON (printed after `Warning: `).
pub fn settings_invalid_file(path: &Path, message: &str) -> String {
    format!("Invalid settings file {}: {message}", path.display())
}

/// A settings file's top level is not a JSON object.
pub const SETTINGS_EXPECTED_OBJECT: &str = "expected an object";

/// A settings file exists but could not be read.
pub fn settings_read_failed(path: &Path, message: &str) -> String {
    format!("Could not read settings file {}: {message}", path.display())
}

/// A value of the wrong type (requirement B3): the key is ignored.
pub fn settings_wrong_type(path: &Path, key: &str, expected: &str) -> String {
    format!("{}: \"{key}\" must be {expected}; ignored", path.display())
}

/// An invalid `defaultProjectTrust`: `ask` is used.
pub fn settings_bad_default_trust(path: &Path) -> String {
    format!("{}: \"defaultProjectTrust\" must be one of \"ask\", \"always\", \"never\"; using \"ask\"", path.display())
}

/// A global-only key in the project file.
pub fn settings_global_only(path: &Path, key: &str, user_path: &Path) -> String {
    format!("{}: \"{key}\" can only be set in {}; ignored", path.display(), user_path.display())
}

/// reference: writing project settings of an untrusted project.
pub const PROJECT_NOT_TRUSTED_WRITE: &str = "Project is not trusted; refusing to write project settings";

/// A settings write failed.
pub fn settings_write_failed(path: &Path, message: &str) -> String {
    format!("Could not write settings file {}: {message}", path.display())
}

/// The lock of a settings file stayed busy.
pub fn settings_lock_failed(lock_path: &Path) -> String {
    format!("Failed to acquire settings lock {}", lock_path.display())
}

/// A write was asked with an empty key path.
pub const SETTINGS_EMPTY_KEY: &str = "a settings key path must not be empty";

/// A write would put a value of the wrong type.
pub fn settings_write_wrong_type(key: &str, expected: &str) -> String {
    format!("\"{key}\" must be {expected}")
}

/// Requirement B2: an untrusted project's `sessionDir` is not used.
pub fn settings_untrusted_session_dir(path: &Path) -> String {
    format!("Project is not trusted; ignoring \"sessionDir\" in {}", path.display())
}

/// A configuration or state file that is a folder, FIFO, device or socket.
pub const NOT_A_REGULAR_FILE: &str = "not a regular file (pi reads its settings and state only from regular files)";

/// A configuration or state file bigger than pi reads.
pub fn file_too_large(size: u64, max: u64) -> String {
    format!("too large ({size} bytes; pi reads at most {max} bytes from a configuration file)")
}

// ------------------------------------------------------ skills and templates

/// reference: a skill name longer than the specification allows.
pub fn skill_name_too_long(max: usize, len: usize) -> String {
    format!("name exceeds {max} characters ({len})")
}

/// reference: a skill name with characters outside `a-z0-9-`.
pub const SKILL_NAME_INVALID_CHARACTERS: &str =
    "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)";
/// reference: a skill name starting or ending with `-`.
pub const SKILL_NAME_HYPHEN_EDGES: &str = "name must not start or end with a hyphen";
/// reference: a skill name with `--`.
pub const SKILL_NAME_CONSECUTIVE_HYPHENS: &str = "name must not contain consecutive hyphens";
/// reference: a skill without a description (it does not load).
pub const SKILL_DESCRIPTION_REQUIRED: &str = "description is required";

/// reference: a skill description longer than the specification allows.
pub fn skill_description_too_long(max: usize, len: usize) -> String {
    format!("description exceeds {max} characters ({len})")
}

/// reference: a `--skill` path that does not exist.
pub const SKILL_PATH_MISSING: &str = "skill path does not exist";
/// reference: a `--skill` path that is neither a folder nor a `.md` file.
pub const SKILL_PATH_NOT_MARKDOWN: &str = "skill path is not a markdown file";
/// reference: a `--prompt-template` path that does not exist.
pub const TEMPLATE_PATH_MISSING: &str = "Prompt template path does not exist";
/// A resource file vanished between discovery and reading.
pub const RESOURCE_FILE_MISSING: &str = "file does not exist";
/// The frontmatter holds more than one YAML document.
pub const FRONTMATTER_MULTIPLE_DOCUMENTS: &str = "Source contains multiple documents";

/// reference: a second skill of a name.
pub fn resource_collision(name: &str) -> String {
    format!("name \"{name}\" collision")
}

/// reference: a second prompt template of a name.
pub fn template_collision(name: &str) -> String {
    format!("name \"/{name}\" collision")
}

/// A resource problem as one line of standard error (ours: the reference
/// shows these only in its terminal UI).
pub fn resource_diagnostic_line(path: &Path, message: &str, winner: Option<&Path>) -> String {
    match winner {
        Some(w) => format!("{}: {message} (kept {})", path.display(), w.display()),
        None => format!("{}: {message}", path.display()),
    }
}

/// reference: what `/skill:name` puts before the user's arguments.
pub fn skill_block(name: &str, file: &Path, base_dir: &Path, body: &str) -> String {
    format!(
        "<skill name=\"{name}\" location=\"{}\">\nReferences are relative to {}.\n\n{body}\n</skill>",
        file.display(),
        base_dir.display()
    )
}
