//! Messages of the `bash` and `powershell` tools.

use crate::jsnum::js_number;
use crate::limits::{MAX_BYTES, MAX_TIMEOUT_SECONDS};
use crate::truncate::format_size;

pub use super::common::{argument_has_nul, quote_argument};

/// A `timeout` that is not a positive, finite number.
pub const INVALID_TIMEOUT: &str = "Invalid timeout: must be a finite number of seconds";

/// A `timeout` above the largest one a timer can hold:
/// `Invalid timeout: maximum is 2147483.647 seconds`.
pub fn timeout_too_large() -> String {
    format!("Invalid timeout: maximum is {} seconds", js_number(MAX_TIMEOUT_SECONDS))
}

/// The `shellPath` setting names a file that does not exist.
pub fn custom_shell_not_found(path: &str) -> String {
    format!("Custom shell path not found: {path}")
}

/// Off Windows with no `pwsh` on `PATH`: the reference's text on Linux and macOS.
pub const POWERSHELL_WINDOWS_ONLY: &str = "The powershell tool is only available on Windows.";

/// On Windows, no `pwsh.exe` or `powershell.exe` to run a PowerShell command with.
pub const NO_POWERSHELL: &str =
    "No PowerShell executable found. Install PowerShell or add powershell.exe/pwsh.exe to PATH.";

/// The session's working directory is gone. `shell` is `bash` or `PowerShell`.
pub fn working_dir_missing(cwd: &str, shell: &str) -> String {
    format!("Working directory does not exist: {cwd}\nCannot execute {shell} commands.")
}

/// The error of a command stopped by its `timeout` (the number printed as
/// JavaScript prints it: `0.05`, `1`, `2.5`, `1e-7`).
pub fn timed_out(seconds: f64) -> String {
    format!("Command timed out after {} seconds", js_number(seconds))
}

/// Added to [`timed_out`] when the shell had exited before the timeout and
/// only its background processes' output was still being read.
pub fn timed_out_after_shell_exit(code: i64, after_seconds: f64) -> String {
    format!(
        ". The shell exited with code {code} after {} seconds, but background processes it started kept writing output until the timeout.",
        js_number(after_seconds)
    )
}

/// The structured error a script sees for a timeout: `timeout:<n>`.
pub fn timeout_code(seconds: f64) -> String {
    format!("timeout:{}", js_number(seconds))
}

/// The error of a command stopped by an abort.
pub const COMMAND_ABORTED: &str = "Command aborted";

/// Appended (after a blank line) to the output of a command that failed.
pub fn exited_with_code(code: i64) -> String {
    format!("Command exited with code {code}")
}

/// Appended when the command's end could not be observed.
pub const TERMINATED_WITHOUT_EXIT_CODE: &str = "Command terminated without an exit code";

/// The whole text of a command that printed nothing.
pub const NO_OUTPUT: &str = "(no output)";

/// Spawn errors whose message names the program (Node reports these after
/// starting; it throws the others, e.g. `E2BIG`, as plain `spawn <CODE>`).
const SPAWN_ERRORS_NAMING_THE_PROGRAM: [&str; 5] = ["EACCES", "EAGAIN", "EMFILE", "ENFILE", "ENOENT"];

/// The shell could not be started: `spawn <program> <CODE>` for `ENOENT`,
/// `EACCES`, `EAGAIN`, `EMFILE`, `ENFILE`; `spawn <CODE>` for other codes
/// (`E2BIG`, …); the system's message when the error has no code name.
pub fn spawn_failed(program: &str, code: &str) -> String {
    if SPAWN_ERRORS_NAMING_THE_PROGRAM.contains(&code) || !code.starts_with('E') {
        format!("spawn {program} {code}")
    } else {
        format!("spawn {code}")
    }
}

/// Where the full output went, the end of every truncation notice.
pub fn full_output(path: &str) -> String {
    format!("Full output: {path}")
}

/// The end of a truncation notice when the full output could not be saved.
pub fn full_output_not_saved(reason: &str) -> String {
    format!("Full output could not be saved: {reason}")
}

/// `[Showing lines <a>-<b> of <total>. <where>]`: the tail was cut at the line limit.
pub fn showing_lines(first: u64, last: u64, total: u64, full: &str) -> String {
    format!("[Showing lines {first}-{last} of {total}. {full}]")
}

/// `[Showing lines <a>-<b> of <total> (50.0KB limit). <where>]`: cut at the byte limit.
pub fn showing_lines_byte_limit(first: u64, last: u64, total: u64, full: &str) -> String {
    format!("[Showing lines {first}-{last} of {total} ({} limit). {full}]", format_size(MAX_BYTES))
}

/// `[Showing last <size> of line <n> (line is <size>). <where>]`: the last line
/// alone is over the byte limit and only its end is shown.
pub fn showing_last_of_line(shown_bytes: usize, line: u64, line_bytes: u64, full: &str) -> String {
    format!(
        "[Showing last {} of line {line} (line is {}). {full}]",
        format_size(shown_bytes),
        format_size(usize::try_from(line_bytes).unwrap_or(usize::MAX))
    )
}

/// The marker between the kept head and tail of a structured `output` over 1 MiB.
pub fn structured_omitted(bytes: u64) -> String {
    format!("\n\n[... {bytes} bytes omitted ...]\n\n")
}

/// The supervisor was started without its arguments (it is started by pi only).
pub const SUPERVISOR_USAGE: &str = "usage: pi __pi-supervise <lifeline fd> -- <program> [args...] (started by pi only)";

/// A command that was to start twice (cannot happen; a message rather than a panic).
pub const NO_COMMAND: &str = "the command could not be started: it was already used";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_errors_name_the_program_only_where_node_does() {
        assert_eq!(spawn_failed("/bin/bash", "ENOENT"), "spawn /bin/bash ENOENT");
        assert_eq!(spawn_failed("/bin/bash", "EACCES"), "spawn /bin/bash EACCES");
        assert_eq!(spawn_failed("/bin/bash", "E2BIG"), "spawn E2BIG");
        assert_eq!(spawn_failed("/bin/bash", "some failure"), "spawn /bin/bash some failure");
    }

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(js_number(0.05), "0.05");
        assert_eq!(js_number(1.0), "1");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number(1e-6), "0.000001");
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(1.5e-7), "1.5e-7");
        assert_eq!(js_number(2147483.647), "2147483.647");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn fixed_texts() {
        assert_eq!(timeout_too_large(), "Invalid timeout: maximum is 2147483.647 seconds");
        assert_eq!(timed_out(0.05), "Command timed out after 0.05 seconds");
        assert_eq!(
            working_dir_missing("/x", "bash"),
            "Working directory does not exist: /x\nCannot execute bash commands."
        );
        assert_eq!(
            showing_lines_byte_limit(50, 100, 100, &full_output("/t/f.log")),
            "[Showing lines 50-100 of 100 (50.0KB limit). Full output: /t/f.log]"
        );
        assert_eq!(
            showing_last_of_line(51200, 1, 3_000_000, &full_output("/p")),
            "[Showing last 50.0KB of line 1 (line is 2.9MB). Full output: /p]"
        );
        assert_eq!(structured_omitted(12), "\n\n[... 12 bytes omitted ...]\n\n");
    }

    #[test]
    fn arguments_are_quoted_like_node() {
        assert_eq!(quote_argument("echo a\0b"), "'echo a\\x00b'");
        assert_eq!(quote_argument("it's"), "\"it's\"");
        assert_eq!(quote_argument("a'\"b"), "`a'\"b`");
        assert_eq!(quote_argument("a'\"`b"), "'a\\'\"`b'");
        assert_eq!(quote_argument("\u{b}\u{7f}"), "'\\x0B\\x7F'");
        let long = quote_argument(&"x".repeat(300));
        assert_eq!(long.chars().count(), 131);
        assert!(long.ends_with("xxx..."));
    }
}
