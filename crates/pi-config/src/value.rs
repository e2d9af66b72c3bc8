//! Values in `models.json` that may name an environment variable or a command.

use std::process::{Command, Stdio};

use crate::ConfigError;

/// Resolve an `apiKey` or header value: `!command` runs the command with `sh -c`
/// and takes its trimmed standard output; `$NAME` and `${NAME}` are replaced by
/// the environment variable (empty when unset); `$$` and `$!` give a literal `$`
/// and `!`; anything else is literal.
pub fn resolve_value(what: &str, raw: &str) -> Result<String, ConfigError> {
    if let Some(cmd) = raw.strip_prefix('!') {
        let out = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| ConfigError::Command { what: what.to_string(), message: e.to_string() })?;
        if !out.status.success() {
            return Err(ConfigError::Command {
                what: what.to_string(),
                message: format!("exit status {}", out.status),
            });
        }
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    Ok(interpolate(raw))
}

fn interpolate(raw: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = raw.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '$' && i + 1 < chars.len() {
            let n = chars[i + 1];
            if n == '$' || n == '!' {
                out.push(n);
                i += 2;
                continue;
            }
            if n == '{'
                && let Some(end) = chars[i + 2..].iter().position(|&c| c == '}')
            {
                let name: String = chars[i + 2..i + 2 + end].iter().collect();
                out.push_str(&std::env::var(name).unwrap_or_default());
                i += end + 3;
                continue;
            }
            if n == '_' || n.is_ascii_alphabetic() {
                let len = chars[i + 1..].iter().take_while(|c| **c == '_' || c.is_ascii_alphanumeric()).count();
                let name: String = chars[i + 1..i + 1 + len].iter().collect();
                out.push_str(&std::env::var(name).unwrap_or_default());
                i += len + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_env_and_command() {
        // SAFETY: single-threaded access to a variable only this test uses.
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var("PI_CFG_TEST_KEY", "sekrit")
        };
        assert_eq!(resolve_value("k", "plain").unwrap(), "plain");
        assert_eq!(resolve_value("k", "$PI_CFG_TEST_KEY").unwrap(), "sekrit");
        assert_eq!(resolve_value("k", "Bearer ${PI_CFG_TEST_KEY}!").unwrap(), "Bearer sekrit!");
        assert_eq!(resolve_value("k", "a$$b$!c").unwrap(), "a$b!c");
        assert_eq!(resolve_value("k", "!echo ' from-cmd '").unwrap(), "from-cmd");
        assert!(resolve_value("k", "!exit 3").is_err());
    }
}
