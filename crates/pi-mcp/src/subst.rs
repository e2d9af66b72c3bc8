//! Substitution in `env` and `headers` values: `${VAR}` takes the variable
//! (empty when unset); a whole value `!command` is the trimmed standard
//! output of `sh -c command`.

use std::process::ExitStatus;

use crate::text;

/// A configured `env`/`headers` value that cannot be resolved.
#[derive(Debug, thiserror::Error)]
pub enum SubstError {
    /// A `${VAR}` that is not set.
    #[error("{}", text::unresolved_variable(server, what, var))]
    Unresolved {
        /// The server.
        server: String,
        /// `env "K"` or `header "K"`.
        what: String,
        /// The variable.
        var: String,
    },
    /// `sh` could not be started for a `!command` value.
    #[error("{}", text::command_not_run(cmd, &source.to_string()))]
    Spawn {
        /// The command (without `!`).
        cmd: String,
        /// Why it could not be started.
        source: std::io::Error,
    },
    /// The command exited with a failure.
    #[error("{}", text::command_failed(cmd, &status.to_string()))]
    Failed {
        /// The command (without `!`).
        cmd: String,
        /// How it ended.
        status: ExitStatus,
    },
    /// The command printed more than [`text::COMMAND_OUTPUT_MAX_BYTES`].
    #[error("{}", text::command_output_too_long(cmd))]
    TooLong {
        /// The command (without `!`).
        cmd: String,
    },
}

/// The value of a configured `env`/`headers` entry (`what`: `env "K"`,
/// `header "K"` of server `server`). An unset variable is an error.
pub fn value(server: &str, what: &str, raw: &str) -> Result<String, SubstError> {
    if let Some(cmd) = raw.strip_prefix('!') {
        return command(cmd);
    }
    let missing = std::cell::RefCell::new(None);
    let out = vars(raw, |k| {
        let v = std::env::var(k).ok();
        if v.is_none() && missing.borrow().is_none() {
            *missing.borrow_mut() = Some(k.to_string());
        }
        v
    });
    match missing.into_inner() {
        Some(var) => Err(SubstError::Unresolved { server: server.into(), what: what.into(), var }),
        None => Ok(out),
    }
}

/// Replace every `${NAME}` with `lookup(NAME)` (empty when `None`).
pub fn vars(raw: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find('}') {
            Some(end) => {
                out.push_str(&lookup(&after[..end]).unwrap_or_default());
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn command(cmd: &str) -> Result<String, SubstError> {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|source| SubstError::Spawn { cmd: cmd.into(), source })?;
    if !out.status.success() {
        return Err(SubstError::Failed { cmd: cmd.into(), status: out.status });
    }
    if out.stdout.len() > text::COMMAND_OUTPUT_MAX_BYTES {
        return Err(SubstError::TooLong { cmd: cmd.into() });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_and_commands() {
        let look = |k: &str| (k == "A").then(|| "1".to_string());
        assert_eq!(vars("x${A}y${B}z${", look), "x1yz${");
        assert_eq!(value("s", "env \"K\"", "!printf ' tok\\n'").unwrap(), "tok");
        assert_eq!(value("s", "env \"K\"", "!exit 3").unwrap_err().to_string(), "\"!exit 3\" failed (exit status: 3)");
        let e = value("s", "header \"Authorization\"", "Bearer ${PI_MCP_TEST_UNSET_VAR}").unwrap_err().to_string();
        assert_eq!(
            e,
            "Failed to resolve MCP server \"s\" header \"Authorization\" from environment variable: PI_MCP_TEST_UNSET_VAR"
        );
    }
}
