//! The built-in extension `builtin:mcp` as the session's front ends see it:
//! the `/mcp` command's answers and its `get_commands` entry. Starting the
//! servers is [`crate::setup`]'s (`setup/mcp.rs`).

use std::sync::Arc;

use pi_mcp::{Admit, LogFile, McpConfig, McpManager};

/// `/mcp`'s answers: the servers' state (with none configured, where to add them).
pub async fn answer(
    agent_dir: &std::path::Path,
    mcp: Option<&Arc<McpManager>>,
    args: &str,
) -> Vec<(pi_mcp::slash::Level, String)> {
    let user_file = pi_mcp::config::user_file(agent_dir);
    match mcp {
        Some(m) => pi_mcp::slash::run(m, &user_file, args).await,
        None => {
            let none = McpManager::new(McpConfig::default(), LogFile(None), Arc::new(|_: &str| Admit::Skip));
            pi_mcp::slash::run(&none, &user_file, args).await
        }
    }
}

/// The `get_commands` entry of `/mcp` (as the reference lists it).
pub fn rpc_command() -> serde_json::Value {
    let (name, description) = pi_mcp::slash::COMMAND;
    serde_json::json!({
        "name": name,
        "description": description,
        "source": "extension",
        "sourceInfo": {"path": "builtin:mcp", "source": "builtin", "scope": "temporary", "origin": "top-level"}
    })
}

/// A `/mcp` answer's level as an RPC notification's.
pub fn notify_level(level: pi_mcp::slash::Level) -> pi_ext::NotifyLevel {
    match level {
        pi_mcp::slash::Level::Info => pi_ext::NotifyLevel::Info,
        pi_mcp::slash::Level::Warning => pi_ext::NotifyLevel::Warning,
        pi_mcp::slash::Level::Error => pi_ext::NotifyLevel::Error,
    }
}
