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

// ---- Transcript ---------------------------------------------------------

/// A tool argument of the wrong type.
pub const INVALID_ARG: &str = "[invalid arg]";
/// `write` without string content.
pub const INVALID_CONTENT_ARG: &str = "[invalid content arg - expected string]";
/// A folded thinking block.
pub const THINKING_HIDDEN: &str = "Thinking...";
/// An answer cut by the output-token limit.
pub const RESPONSE_TRUNCATED: &str = "Response was truncated before completion.";
/// The provider's message for an aborted request (shown as [`OPERATION_ABORTED`]).
pub const REQUEST_ABORTED: &str = "Request was aborted";
/// The answer of a run aborted between requests (shown as [`OPERATION_ABORTED`]).
pub const RUN_ABORTED: &str = "This operation was aborted";
/// A run stopped by the user.
pub const OPERATION_ABORTED: &str = "Operation aborted";
/// A failure without a message.
pub const UNKNOWN_ERROR: &str = "Unknown error";
/// A user command stopped by the user.
pub const COMMAND_CANCELLED: &str = "Command cancelled";
/// grep's note for cut lines.
pub const SOME_LINES_TRUNCATED: &str = "some lines truncated";

/// What stands for an image in text.
pub fn image_placeholder(mime: &str) -> String {
    format!("[image: {}]", crate::sanitize::clean_line(mime))
}
/// `... (N more lines,` (followed by the expand hint).
pub fn more_lines(n: usize) -> String {
    format!("... ({n} more lines,")
}
/// `... (N more lines, T total,`.
pub fn more_lines_total(n: usize, total: usize) -> String {
    format!("... ({n} more lines, {total} total,")
}
/// `... (N earlier lines,`.
pub fn earlier_lines(n: usize) -> String {
    format!("... ({n} earlier lines,")
}
/// `... (N earlier lines, ctrl+o to expand)` in one piece.
pub fn earlier_lines_hint(n: usize, key: &str) -> String {
    format!("{} {})", earlier_lines(n), expand_hint(key))
}
/// `ctrl+o to expand`.
pub fn expand_hint(key: &str) -> String {
    format!("{key} to expand")
}
/// ` (timeout 30s)` after a command.
pub fn timeout_suffix(t: &str) -> String {
    format!(" (timeout {t}s)")
}
/// Where a cut output was saved.
pub fn full_output(path: &str) -> String {
    format!("Full output: {path}")
}
/// Output cut by lines.
pub fn truncated_lines(shown: u64, total: u64) -> String {
    format!("Truncated: showing {shown} of {total} lines")
}
/// read's output cut by lines.
pub fn truncated_lines_limit(shown: u64, total: u64) -> String {
    format!("Truncated: showing {shown} of {total} lines (2000 line limit)")
}
/// Output cut by bytes.
pub fn truncated_bytes(shown: u64, size: &str) -> String {
    format!("Truncated: {shown} lines shown ({size} limit)")
}
/// read's first line alone exceeds the byte limit.
pub fn first_line_exceeds(size: &str) -> String {
    format!("First line exceeds {size} limit")
}
/// `[Truncated: …]` of the search tools.
pub fn truncated_notes(notes: &str) -> String {
    format!("[Truncated: {notes}]")
}
/// grep's match limit.
pub fn matches_limit(n: &str) -> String {
    format!("{n} matches limit")
}
/// find's result limit.
pub fn results_limit(n: &str) -> String {
    format!("{n} results limit")
}
/// ls's entry limit.
pub fn entries_limit(n: &str) -> String {
    format!("{n} entries limit")
}
/// A byte limit note.
pub fn bytes_limit(size: &str) -> String {
    format!("{size} limit")
}
/// A finished call's duration.
pub fn took(d: &str) -> String {
    format!("Took {d}")
}
/// A running call's duration.
pub fn elapsed(d: &str) -> String {
    format!("Elapsed {d}")
}
/// A failed answer.
pub fn error_line(e: &str) -> String {
    format!("Error: {e}")
}
/// A user command that failed.
pub fn exit_code(code: i32) -> String {
    format!("Exit code {code}")
}
/// Retries used up.
pub fn retry_failed(attempts: u32, e: &str) -> String {
    let e = if e.is_empty() { UNKNOWN_ERROR } else { e };
    format!("Retry failed after {attempts} attempts: {e}")
}
/// A failing extension handler.
pub fn extension_error(path: &str, _event: &str, error: &str) -> String {
    format!("Extension \"{}\" error: {}", crate::sanitize::clean_line(path), crate::sanitize::clean(error))
}

// ---- Header, editor, queue ----------------------------------------------

/// The program's name in the header.
pub const APP_NAME: &str = "pi";
/// Header hint: what escape does.
pub const HINT_INTERRUPT: &str = "interrupt";
/// Header hint: what ctrl+c and ctrl+d do.
pub const HINT_CLEAR_EXIT: &str = "clear/exit";
/// Header hint: `/`.
pub const HINT_COMMANDS: &str = "commands";
/// Header hint: `!`.
pub const HINT_BASH: &str = "bash";
/// Header hint: ctrl+o.
pub const HINT_MORE: &str = "more";
/// The working indicator.
pub const WORKING: &str = "Working";
/// A queued steering message.
pub const STEERING: &str = "Steering: ";
/// A queued follow-up message.
pub const FOLLOW_UP: &str = "Follow-up: ";
/// A second `!cmd` while one runs.
pub const BASH_ALREADY_RUNNING: &str = "A command is already running";
/// Alt+Up with nothing queued.
pub const NO_QUEUED: &str = "No queued messages to restore";
/// `/copy` done.
pub const COPIED: &str = "Copied the last answer to the clipboard";
/// `/copy` with no answer yet.
pub const NOTHING_TO_COPY: &str = "There is no answer to copy yet";
/// Model cycling with one model.
pub const ONLY_ONE_MODEL: &str = "Only one model is available";
/// No model can be chosen.
pub const NO_MODELS: &str = "No models are available";
/// Thinking asked of a model that does not reason.
pub const NO_THINKING: &str = "The current model does not support thinking";
/// The footer without a model.
pub const NO_MODEL: &str = "no-model";
/// The footer's thinking level when off.
pub const THINKING_OFF: &str = "thinking off";
/// `/settings` changed the screen mode.
pub const TUI_MODE_RESTART: &str = "The screen mode changes the next time pi starts";
/// Shown for the expand key when it is not ctrl+o.
pub const EXPAND_KEY_CUSTOM: &str = "the expand key";

/// `↳ Alt+Up to edit all queued messages`.
pub fn dequeue_hint(key: &str) -> String {
    format!(" ↳ {key} to edit all queued messages")
}
/// Messages put back in the editor.
pub fn restored_queued(n: usize) -> String {
    format!("Restored {n} queued message{} to editor", if n == 1 { "" } else { "s" })
}
/// The model changed.
pub fn model_switched(provider: &str, id: &str) -> String {
    format!("Model: {provider}/{id}")
}
/// The thinking level changed.
pub fn thinking_level(level: &str) -> String {
    format!("Thinking level: {level}")
}
/// The retry indicator.
pub fn retrying(attempt: u32, max: u32, secs: u64, key: &str) -> String {
    format!("Retrying ({attempt}/{max}) in {secs}s... ({key} to cancel)")
}
/// The compaction indicator (`reason`: manual, threshold or overflow).
pub fn compacting(reason: &str, key: &str) -> String {
    match reason {
        "manual" => format!("Compacting context... ({key} to cancel)"),
        "overflow" => format!("Context overflow detected, Auto-compacting... ({key} to cancel)"),
        _ => format!("Auto-compacting... ({key} to cancel)"),
    }
}
/// After the footer's context use when compaction is automatic.
pub const AUTO_COMPACT: &str = " (auto)";
/// A manual compaction was cancelled.
pub const COMPACTION_CANCELLED: &str = "Compaction cancelled";
/// An automatic compaction was cancelled.
pub const AUTO_COMPACTION_CANCELLED: &str = "Auto-compaction cancelled";
/// The label of a compaction summary.
pub const COMPACTION_LABEL: &str = "[compaction]";
/// A collapsed compaction summary.
pub fn compacted_from(tokens: &str, key: &str) -> String {
    format!("Compacted from {tokens} tokens ({key} to expand)")
}
/// The heading of an expanded compaction summary (markdown).
pub fn compacted_from_heading(tokens: &str) -> String {
    format!("**Compacted from {tokens} tokens**")
}
/// A warning line.
pub fn warning_line(w: &str) -> String {
    format!("Warning: {w}")
}

// ---- Dialogs ------------------------------------------------------------

/// Confirm's first option.
pub const YES: &str = "Yes";
/// Confirm's second option.
pub const NO: &str = "No";
/// The hint verb of a selection.
pub const VERB_SELECT: &str = "select";
/// The hint verb of `/trust`.
pub const VERB_SAVE: &str = "save";
/// The tree navigator's label editor (the reference's words).
pub const TREE_LABEL_PROMPT: &str = "Label (empty to remove):";
/// The hint verb of `/settings`.
pub const VERB_CHANGE: &str = "change";
/// A filter that matches nothing.
pub const NO_MATCHES: &str = "No matches";
/// `/trust`'s title.
pub const PROJECT_TRUST_TITLE: &str = "Project trust";
/// The model picker's title.
pub const MODEL_PICKER_TITLE: &str = "Choose a model (type to filter)";
/// The thinking picker's title.
pub const THINKING_TITLE: &str = "Thinking level";
/// `/settings`' title.
pub const SETTINGS_TITLE: &str = "Settings";
/// The theme setting.
pub const SETTING_THEME: &str = "Theme";
/// The screen mode setting.
pub const SETTING_TUI_MODE: &str = "Screen mode (next start)";
/// The thinking blocks setting.
pub const SETTING_HIDE_THINKING: &str = "Hide thinking blocks";
/// The completion rows setting.
pub const SETTING_AUTOCOMPLETE: &str = "Completion rows";

/// `↑↓ navigate  enter select  escape/ctrl+c cancel`.
pub fn select_hint(confirm: &str, verb: &str, cancel: &str) -> String {
    format!("↑↓ navigate  {confirm} {verb}  {cancel} cancel")
}
/// The input dialog's hint.
pub fn input_hint(submit: &str, cancel: &str) -> String {
    format!("{submit} submit  {cancel} cancel")
}
/// The editor dialog's hint.
pub fn editor_hint(submit: &str, newline: &str, cancel: &str) -> String {
    format!("{submit} submit  {newline} new line  {cancel} cancel")
}
/// The model picker's name line.
pub fn model_name(name: &str) -> String {
    format!("  Model name: {name}")
}
/// The model picker's hint.
pub fn model_picker_hint(save: &str) -> String {
    format!("  {save} to set as default")
}

// ---- Fullscreen ---------------------------------------------------------

/// The search bar's label.
pub const SEARCH_LABEL: &str = "Search: ";
/// The search bar's count.
pub fn search_count(current: usize, total: usize) -> String {
    format!("  {current}/{total}")
}
/// The jump-to-end bar when scrolled up.
pub fn jump_to_latest(key: &str) -> String {
    if key.is_empty() {
        " ↓ Jump to latest message ".to_string()
    } else {
        format!(" ↓ Jump to latest message · {key} ")
    }
}

// ---- /hotkeys -----------------------------------------------------------

/// The editing table's title.
pub const HOTKEYS_EDITOR: &str = "Editor";
/// The other table's title.
pub const HOTKEYS_OTHER: &str = "Other";
/// The key column.
pub const KEY: &str = "Key";
/// The action column.
pub const ACTION: &str = "Action";
/// `/`.
pub const HOTKEY_COMMANDS: &str = "Slash commands";
/// `!`.
pub const HOTKEY_BASH: &str = "Run a shell command";
/// `!!`.
pub const HOTKEY_BASH_EXCLUDED: &str = "Run a shell command (kept out of the context)";

// ---- Terminal -----------------------------------------------------------

/// The editor when neither `$VISUAL` nor `$EDITOR` is set.
pub const DEFAULT_EDITOR: &str = "nano";
/// The clipboard had nothing to paste (or no clipboard tool was found).
pub const CLIPBOARD_EMPTY: &str = "Nothing to paste from the clipboard";

/// The external editor failed.
pub fn editor_failed(cmd: &str, why: &str) -> String {
    format!("The editor \"{cmd}\" failed: {why}")
}

// The session picker (`--resume`).

/// Its title.
pub const RESUME_TITLE: &str = "Resume Session (Current Folder)";
/// The search syntax line.
pub const RESUME_SEARCH_HINT: &str = "re:<pattern> regex · \"phrase\" exact";
/// Before the name filter's state.
pub const PICKER_NAME_LABEL: &str = "Name: ";
/// Before the order's name.
pub const PICKER_SORT_LABEL: &str = "  Sort: ";
/// The name filter's states.
pub const NAME_ALL: &str = "All";
/// Named sessions only.
pub const NAME_NAMED: &str = "Named";
/// The orders.
pub const SORT_THREADED: &str = "Threaded";
/// Most recent first.
pub const SORT_RECENT: &str = "Recent";
/// Best match first.
pub const SORT_FUZZY: &str = "Fuzzy";
/// A toggle's states.
pub const ON: &str = "on";
/// Off.
pub const OFF: &str = "off";
/// A session without a user message.
pub const NO_MESSAGES: &str = "(no messages)";
/// Nothing to list.
pub const NO_SESSIONS: &str = "  No sessions in current folder.";
/// Nothing named to list.
pub const NO_NAMED_SESSIONS: &str = "  No named sessions in current folder. Press ctrl+n to show all.";

/// The keys line: `ctrl+s sort · ctrl+n named · ctrl+p path (off) · esc cancel`.
pub fn resume_key_hint(sort: &str, named: &str, path: &str, path_state: &str) -> String {
    format!("{sort} sort · {named} named · {path} path ({path_state})")
}
