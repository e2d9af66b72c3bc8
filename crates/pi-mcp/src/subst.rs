//! Substitution in `env` and `headers` values: `${VAR}` takes the variable
//! (empty when unset); a whole value `!command` is the trimmed standard
//! output of `sh -c command`.

use crate::text;

/// The value of a configured `env`/`headers` entry (`what`: `env "K"`,
/// `header "K"` of server `server`). An unset variable is an error.
pub fn value(server: &str, what: &str, raw: &str) -> Result<String, String> {
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
        Some(var) => Err(text::unresolved_variable(server, what, &var)),
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

fn command(cmd: &str) -> Result<String, String> {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run \"!{cmd}\": {e}"))?;
    if !out.status.success() {
        return Err(format!("\"!{cmd}\" failed ({})", out.status));
    }
    if out.stdout.len() > text::COMMAND_OUTPUT_MAX_BYTES {
        return Err(format!("\"!{cmd}\" printed more than {} bytes", text::COMMAND_OUTPUT_MAX_BYTES));
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
        assert!(value("s", "env \"K\"", "!exit 3").unwrap_err().contains("failed"));
        let e = value("s", "header \"Authorization\"", "Bearer ${PI_MCP_TEST_UNSET_VAR}").unwrap_err();
        assert_eq!(
            e,
            "Failed to resolve MCP server \"s\" header \"Authorization\" from environment variable: PI_MCP_TEST_UNSET_VAR"
        );
    }
}
