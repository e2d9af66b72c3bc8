//! Messages shared by several tools.

/// Error of every tool whose call was aborted.
pub const OPERATION_ABORTED: &str = "Operation aborted";

/// `Path not found: <absolute path>` (grep, ls).
pub fn path_not_found(abs: &str) -> String {
    format!("Path not found: {abs}")
}

/// `Tool <name> not found`: the tool is not registered, active or callable.
pub fn tool_not_found(name: &str) -> String {
    format!("Tool {name} not found")
}

/// The 50 KiB notice fragment used by grep, find and ls: `50.0KB limit reached`.
pub fn byte_limit_reached() -> String {
    format!("{} limit reached", crate::truncate::format_size(crate::limits::MAX_BYTES))
}

/// Appended to a grep line cut at the character limit.
pub const LINE_TRUNCATED_SUFFIX: &str = "... [truncated]";

/// The marker in a middle-truncated text: `…<N> chars truncated…`.
pub fn middle_truncated(removed_chars: usize) -> String {
    format!("…{removed_chars} chars truncated…")
}

/// Node.js's text for a failed system call, which the reference passes through:
/// `<CODE>: <description>, <syscall> '<path>'`, or without the path part.
pub fn system_error(code: &str, description: &str, syscall: &str, path: Option<&str>) -> String {
    match path {
        Some(p) => format!("{code}: {description}, {syscall} '{p}'"),
        None => format!("{code}: {description}, {syscall}"),
    }
}

/// Node's `util.inspect` of a string: single quotes (double quotes or
/// backticks when the text holds single quotes), control characters escaped.
pub fn inspect_string(s: &str) -> String {
    let quote = if !s.contains('\'') {
        '\''
    } else if !s.contains('"') {
        '"'
    } else if !s.contains('`') && !s.contains("${") {
        '`'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\\' => out.push_str("\\\\"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A `file://` path whose host is neither empty nor `localhost`.
pub const FILE_URL_HOST: &str = "File URL host must be \"localhost\" or empty on linux";
/// A `file://` path with `%2F` in it.
pub const FILE_URL_ENCODED_SLASH: &str = "File URL path must not include encoded / characters";
/// A `file://` path that is no URL.
pub const INVALID_URL: &str = "Invalid URL";
/// A `file://` path whose percent escapes are broken or not UTF-8.
pub const URI_MALFORMED: &str = "URI malformed";

/// A path with a NUL byte, as Node.js rejects it (read, write, edit); `path`
/// is shown the way Node's `util.inspect` prints a string.
pub fn path_with_null_bytes(path: &str) -> String {
    format!(
        "The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received {}",
        inspect_string(path)
    )
}

/// A command (or shell argument) with a NUL byte, which no process argument can hold.
/// `index` is the argument's position after the program; `shown` the argument
/// quoted as `quote_argument` does.
pub fn argument_has_nul(index: usize, shown: &str) -> String {
    format!("The argument 'args[{index}]' must be a string without null bytes. Received {shown}")
}

/// A string quoted the way Node.js shows a rejected argument: single quotes
/// (double quotes when the text has `'` but no `"`, backticks when it has
/// both but no backtick or `${`), control characters escaped, and cut to 128
/// characters followed by `...`.
pub fn quote_argument(s: &str) -> String {
    let out = inspect_string(s);
    let count = out.chars().count();
    if count > 128 {
        let cut: String = out.chars().take(128).collect();
        return format!("{cut}...");
    }
    out
}

/// The error Node throws when one of the arguments of a program to start
/// (`args`, after the program) has a NUL byte: the first such one.
pub fn first_argument_with_nul<S: AsRef<str>>(args: &[S]) -> Option<String> {
    let (i, a) = args.iter().enumerate().find(|(_, a)| a.as_ref().contains('\0'))?;
    Some(argument_has_nul(i, &quote_argument(a.as_ref())))
}

/// Another process held the file (`edit`, `write`) longer than pi waits.
pub fn file_busy(path: &str, secs: u64) -> String {
    format!("The file {path} is locked by another process (waited {secs} s); try again")
}

/// A tool failed in a way it should not (a bug); the model gets this short
/// text, never the internals.
pub fn internal_error(tool: &str, what: &str) -> String {
    format!("Internal error in the {tool} tool: {what}")
}

/// An argument longer than one process argument may be: the reference starts
/// `rg`/`fd` with it and Node answers this.
pub const SPAWN_E2BIG: &str = "spawn E2BIG";

/// A tool's worker panicked (a bug in pi): the call's result.
pub const WORKER_PANICKED: &str = "Internal error: the tool failed unexpectedly (a bug); nothing more is known";

/// A tool's worker was cancelled before it finished.
pub const WORKER_CANCELLED: &str = "The tool's work was cancelled before it finished";
