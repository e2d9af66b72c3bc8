//! Failures as lines: a caught JavaScript error as the one line callers
//! are given, and a line on stderr for what no caller hears.

use rquickjs::CaughtError;

/// One line on stderr; a closed stderr is ignored (never a panic).
pub(crate) fn stderr_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A caught JavaScript error as one line: `Name: message` for errors, the value otherwise.
pub(crate) fn describe_caught(e: CaughtError<'_>) -> String {
    match e {
        CaughtError::Exception(ex) => {
            let name: Option<String> = ex.get("name").ok();
            let message = ex.message().unwrap_or_default();
            match name {
                Some(n) if !n.is_empty() => format!("{n}: {message}"),
                _ => message,
            }
        }
        CaughtError::Value(v) => v.as_string().and_then(|s| s.to_string().ok()).unwrap_or_else(|| format!("{v:?}")),
        CaughtError::Error(e) => e.to_string(),
    }
}
