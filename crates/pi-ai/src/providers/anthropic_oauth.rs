//! Anthropic with a Claude subscription token (`sk-ant-oat…`, from an OAuth
//! login or given as a key): what the reference changes for such a token.
//! The token goes in `Authorization: Bearer` (not `x-api-key`) with Claude
//! Code's client headers and betas; the system prompt starts with Claude
//! Code's identity block; tools whose names match Claude Code's (ignoring
//! case) are sent in Claude Code's spelling and read back in pi's.

use reqwest::header::HeaderMap;

/// What marks a subscription token.
pub(crate) const OAUTH_TOKEN_MARK: &str = "sk-ant-oat";
/// The betas sent with a subscription token (before the thinking beta).
pub(crate) const OAUTH_BETAS: &str = "claude-code-20250219,oauth-2025-04-20";
/// The client the token is sent as.
pub(crate) const OAUTH_USER_AGENT: &str = "claude-cli/2.1.322";
/// The `x-app` header sent with a subscription token.
pub(crate) const OAUTH_X_APP: &str = "cli";
/// The first system block sent with a subscription token.
pub(crate) const CLAUDE_CODE_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";
/// Claude Code's tool names: a tool whose name matches one, ignoring case,
/// is sent in this spelling.
pub(crate) const CLAUDE_CODE_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// Whether `key` is a subscription token.
pub(crate) fn is_oauth_token(key: &str) -> bool {
    key.contains(OAUTH_TOKEN_MARK)
}

/// Whether a prepared request sends a subscription token.
pub(crate) fn is_oauth_request(headers: &HeaderMap) -> bool {
    headers.get("x-app").is_some_and(|v| v == OAUTH_X_APP)
        && headers.get("authorization").and_then(|v| v.to_str().ok()).is_some_and(is_oauth_token)
}

/// A tool's name as sent with a subscription token.
pub(crate) fn to_claude_code_name(name: &str) -> &str {
    CLAUDE_CODE_TOOLS.iter().find(|c| c.eq_ignore_ascii_case(name)).copied().unwrap_or(name)
}

/// A tool name the model answered with, in pi's spelling (pi's tools with
/// these names are lower-case).
pub(crate) fn from_claude_code_name(name: &str) -> String {
    if CLAUDE_CODE_TOOLS.contains(&name) { name.to_ascii_lowercase() } else { name.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_both_ways() {
        assert_eq!(to_claude_code_name("read"), "Read");
        assert_eq!(to_claude_code_name("webfetch"), "WebFetch");
        assert_eq!(to_claude_code_name("find"), "find");
        assert_eq!(to_claude_code_name("ls"), "ls");
        assert_eq!(from_claude_code_name("Bash"), "bash");
        assert_eq!(from_claude_code_name("my_tool"), "my_tool");
        assert!(is_oauth_token("sk-ant-oat01-abc"));
        assert!(!is_oauth_token("sk-ant-api03-abc"));
    }
}
