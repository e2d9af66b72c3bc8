//! `/mcp` without the interactive panel (as the reference behaves outside its
//! terminal UI): `/mcp` prints every server's state, `/mcp reconnect
//! [server]` reconnects one. Sign-in (`login`/`logout`) is not in this build.

use std::path::Path;

use crate::manager::{McpManager, Status};
use crate::text;

/// How a line of the answer is shown (a notification's level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Information.
    Info,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

/// The name and description of the command (`get_commands`, the UI's list).
pub const COMMAND: (&str, &str) = ("mcp", text::MCP_COMMAND_DESCRIPTION);

/// The arguments of `/mcp` in `message` (`None`: not that command).
pub fn parse(message: &str) -> Option<&str> {
    let rest = message.trim().strip_prefix("/mcp")?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// Run `/mcp <args>`; the notifications to show. `user_file` is the agent
/// dir's `mcp.json` (named when no server is configured).
pub async fn run(m: &McpManager, user_file: &Path, args: &str) -> Vec<(Level, String)> {
    let mut words = args.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (None, _, _) => vec![(Level::Info, status(m, user_file))],
        (Some("reconnect"), name, None) => vec![reconnect(m, name).await],
        (Some("login" | "logout"), _, _) => vec![(Level::Error, text::SIGN_IN_UNSUPPORTED.into())],
        _ => vec![(Level::Warning, text::MCP_USAGE.into())],
    }
}

/// One line per server (`name: state (exposure)`, the error indented below).
pub fn status(m: &McpManager, user_file: &Path) -> String {
    if m.servers().is_empty() {
        return text::no_servers(&user_file.to_string_lossy());
    }
    let lines: Vec<String> = m
        .servers()
        .iter()
        .map(|s| {
            let exposure = s.config().exposure.as_str();
            match s.status() {
                Status::Connected(n) => text::status_connected(s.name(), n, exposure),
                Status::Failed(why) => text::status_failed(s.name(), exposure, &why),
                Status::Disabled => text::status_other(s.name(), "disabled", exposure),
                Status::Connecting => text::status_other(s.name(), "connecting", exposure),
                Status::Disconnected => text::status_other(s.name(), "disconnected", exposure),
            }
        })
        .collect();
    lines.join("\n")
}

/// `/mcp reconnect [server]`: the named server, else the first enabled one
/// that is not connected, else the first enabled one.
async fn reconnect(m: &McpManager, name: Option<&str>) -> (Level, String) {
    let enabled = || m.servers().iter().filter(|s| s.config().enabled);
    let target = match name {
        Some(n) => match m.servers().iter().find(|s| s.name() == n) {
            None => return (Level::Error, text::no_server_named(n)),
            Some(s) if !s.config().enabled => None,
            Some(s) => Some(s.clone()),
        },
        None => enabled().find(|s| !matches!(s.status(), Status::Connected(_))).or_else(|| enabled().next()).cloned(),
    };
    let Some(server) = target else { return (Level::Error, text::NO_ENABLED_SERVER.into()) };
    match m.reconnect(server.name()).await {
        Ok(Status::Connected(n)) => (Level::Info, text::reconnected(server.name(), n, server.has_resources())),
        Ok(other) => (Level::Error, text::failed_to_connect(server.name(), &format!("{other:?}"))),
        Err(why) => (Level::Error, text::failed_to_connect(server.name(), &why.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_mcp_command_is_parsed() {
        assert_eq!(parse("/mcp"), Some(""));
        assert_eq!(parse("  /mcp reconnect  fs "), Some("reconnect  fs"));
        assert_eq!(parse("/mcpx"), None);
        assert_eq!(parse("tell me about /mcp"), None);
    }

    #[tokio::test]
    async fn unknown_subcommands_get_the_usage_and_sign_in_is_refused() {
        let m = McpManager::new(
            crate::McpConfig::default(),
            crate::LogFile::default(),
            std::sync::Arc::new(|_: &str| crate::Admit::Skip),
        );
        let f = Path::new("/h/.pi/agent/mcp.json");
        assert_eq!(run(&m, f, "bogus").await, vec![(Level::Warning, text::MCP_USAGE.to_string())]);
        assert_eq!(run(&m, f, "reconnect a b").await, vec![(Level::Warning, text::MCP_USAGE.to_string())]);
        assert_eq!(run(&m, f, "login x").await[0].0, Level::Error);
        assert_eq!(
            run(&m, f, "").await,
            vec![(Level::Info, "No MCP servers configured. Add them to /h/.pi/agent/mcp.json or .pi/mcp.json.".into())]
        );
        assert_eq!(run(&m, f, "reconnect nope").await, vec![(Level::Error, text::no_server_named("nope"))]);
        assert_eq!(run(&m, f, "reconnect").await, vec![(Level::Error, text::NO_ENABLED_SERVER.to_string())]);
    }
}
