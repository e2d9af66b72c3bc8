//! Exposure of a server's tools: the server's `exposure`, then per tool
//! `toolExposure` (exact key first, else the first matching `*` pattern in
//! file order). Keys are the server's own tool names, before sanitising.

use pi_agent::Exposure;

/// What `exposure`/`toolExposure` may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerExposure {
    /// Called from codemode scripts (registered `deferred`). The default.
    Codemode,
    /// Found by `tool_search`.
    Deferred,
    /// Declared to the model.
    Direct,
    /// Not reachable.
    Hidden,
}

impl ServerExposure {
    /// Parse a configuration value (`codemode-deferred` is `codemode`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "codemode" | "codemode-deferred" => Self::Codemode,
            "deferred" => Self::Deferred,
            "direct" => Self::Direct,
            "hidden" => Self::Hidden,
            _ => return None,
        })
    }

    /// The name shown in `<mcp_servers>` and `pi mcp list`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Codemode => "codemode",
            Self::Deferred => "deferred",
            Self::Direct => "direct",
            Self::Hidden => "hidden",
        }
    }

    /// The exposure the tool is registered with.
    pub fn registered(self) -> Exposure {
        match self {
            Self::Codemode | Self::Deferred => Exposure::Deferred,
            Self::Direct => Exposure::Direct,
            Self::Hidden => Exposure::Hidden,
        }
    }
}

/// `*` matches any run of characters; everything else is literal.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(at) => rest = &rest[at + mid.len()..],
            None => return false,
        }
    }
    true
}

/// The exposure of `tool` (its name on the server).
pub fn tool_exposure(server: ServerExposure, per_tool: &[(String, ServerExposure)], tool: &str) -> ServerExposure {
    if let Some((_, e)) = per_tool.iter().find(|(k, _)| k == tool) {
        return *e;
    }
    per_tool.iter().find(|(k, _)| k.contains('*') && glob_matches(k, tool)).map(|(_, e)| *e).unwrap_or(server)
}

/// Every exposure a server's tools may get (its own and its per-tool values).
pub fn possible(server: ServerExposure, per_tool: &[(String, ServerExposure)]) -> Vec<ServerExposure> {
    let mut out = vec![server];
    out.extend(per_tool.iter().map(|(_, e)| *e));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_key_then_first_pattern_then_server() {
        let per = vec![
            ("get-*".to_string(), ServerExposure::Deferred),
            ("get-sum".to_string(), ServerExposure::Direct),
            ("*".to_string(), ServerExposure::Hidden),
        ];
        assert_eq!(tool_exposure(ServerExposure::Codemode, &per, "get-sum"), ServerExposure::Direct);
        assert_eq!(tool_exposure(ServerExposure::Codemode, &per, "get-env"), ServerExposure::Deferred);
        assert_eq!(tool_exposure(ServerExposure::Codemode, &per, "echo"), ServerExposure::Hidden);
        assert_eq!(tool_exposure(ServerExposure::Codemode, &[], "get_sum"), ServerExposure::Codemode);
        let key_is_the_servers_name = vec![("get_sum".to_string(), ServerExposure::Direct)];
        assert_eq!(
            tool_exposure(ServerExposure::Codemode, &key_is_the_servers_name, "get-sum"),
            ServerExposure::Codemode
        );
    }

    #[test]
    fn globs() {
        assert!(glob_matches("a*c", "abc") && glob_matches("a*c", "ac") && !glob_matches("a*c", "ab"));
        assert!(glob_matches("*x*", "axb") && !glob_matches("*x*", "ab") && !glob_matches("ab*ba", "aba"));
        assert_eq!(ServerExposure::parse("codemode-deferred"), Some(ServerExposure::Codemode));
        assert_eq!(ServerExposure::parse("loud"), None);
        assert_eq!(ServerExposure::Codemode.registered(), Exposure::Deferred);
    }
}
