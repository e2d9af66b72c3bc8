//! The `<mcp_servers>` section of the system prompt: every enabled server
//! with `codemode` or `deferred` tools (neither codemode nor tool_search
//! lists servers), sorted by name, with how its tools are reached and a
//! one-line summary, within 4096 characters.

use crate::config::ServerConfig;
use crate::exposure::{ServerExposure, possible};
use crate::naming::{namespace, summary};
use crate::text;

/// How the model reaches a listed server's tools.
fn reach(s: &ServerConfig) -> Option<&'static str> {
    let all = possible(s.exposure, &s.tool_exposure);
    if all.contains(&ServerExposure::Codemode) {
        Some("codemode")
    } else if all.contains(&ServerExposure::Deferred) {
        Some("tool_search")
    } else {
        None
    }
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    if max <= 1 {
        return String::new();
    }
    let head: String = s.chars().take(max - 1).collect();
    format!("{}…", head.trim_end())
}

/// The section (with its tags), `None` when no server is listed.
/// `instructions` gives a connected server's `initialize` instructions.
pub fn section(servers: &[ServerConfig], instructions: impl Fn(&str) -> Option<String>) -> Option<String> {
    let mut listed: Vec<(&ServerConfig, &str)> =
        servers.iter().filter(|s| s.enabled).filter_map(|s| reach(s).map(|r| (s, r))).collect();
    if listed.is_empty() {
        return None;
    }
    listed.sort_by(|a, b| a.0.name.to_lowercase().cmp(&b.0.name.to_lowercase()).then(a.0.name.cmp(&b.0.name)));
    let mut intro = text::SERVERS_INTRO.to_string();
    if listed.iter().any(|(_, r)| *r == "codemode") {
        intro.push_str(text::SERVERS_INTRO_CODEMODE);
    }
    if listed.iter().any(|(_, r)| *r == "tool_search") {
        intro.push_str(text::SERVERS_INTRO_SEARCH);
    }
    let heads: Vec<String> = listed.iter().map(|(s, r)| format!("- {} ({r})", namespace(&s.name))).collect();
    let omitted = |n: usize| if n > 0 { vec![text::servers_omitted(n)] } else { vec![] };
    let size = |kept: usize| {
        let mut parts = vec![intro.clone()];
        parts.extend(heads[..kept].iter().cloned());
        parts.extend(omitted(listed.len() - kept));
        parts.join("\n").chars().count()
    };
    let mut kept = listed.len();
    while kept > 0 && size(kept) > text::MAX_SERVERS_SECTION_CHARS {
        kept -= 1;
    }
    let room = text::MAX_SERVERS_SECTION_CHARS.saturating_sub(size(kept));
    let per = room.checked_div(kept).map_or(0, |each| text::MAX_SERVER_DESCRIPTION_CHARS.min(each.saturating_sub(2)));
    let mut lines = vec![intro.clone()];
    for (i, (s, _)) in listed.iter().take(kept).enumerate() {
        let line = if per > 0 {
            cut(&summary(s.description.as_deref(), instructions(&s.name).as_deref()), per)
        } else {
            String::new()
        };
        lines.push(if line.is_empty() { heads[i].clone() } else { format!("{}: {line}", heads[i]) });
    }
    lines.extend(omitted(listed.len() - kept));
    Some(format!("<mcp_servers>\n{}\n</mcp_servers>", lines.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Transport;

    fn server(name: &str, exposure: ServerExposure, description: Option<&str>) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            transport: Transport::Stdio { command: "x".into(), args: vec![], env: vec![], cwd: None },
            enabled: true,
            timeout: std::time::Duration::from_secs(1),
            exposure,
            tool_exposure: vec![],
            description: description.map(String::from),
            file: "f".into(),
        }
    }

    #[test]
    fn lists_servers_with_indirect_tools_sorted_with_their_summaries() {
        let servers = vec![
            server("zeta", ServerExposure::Deferred, None),
            server("my-srv", ServerExposure::Codemode, Some("Docs search\nsecond line")),
            server("d", ServerExposure::Direct, None),
        ];
        let s = section(&servers, |n| (n == "zeta").then(|| "From initialize".to_string())).unwrap();
        assert_eq!(
            s,
            "<mcp_servers>\nMCP servers whose tools are not declared to you. Call the tools of `codemode` servers from codemode scripts. Load the tools of `tool_search` servers with `tool_search`.\n- mcp__my_srv (codemode): Docs search\n- mcp__zeta (tool_search): From initialize\n</mcp_servers>"
        );
        assert_eq!(section(&[server("d", ServerExposure::Direct, None)], |_| None), None);
        let many: Vec<ServerConfig> =
            (0..300).map(|i| server(&format!("server{i:03}"), ServerExposure::Codemode, Some("x"))).collect();
        let s = section(&many, |_| None).unwrap();
        assert!(s.chars().count() <= text::MAX_SERVERS_SECTION_CHARS + 40, "{}", s.len());
        assert!(s.contains("more servers; find their tools with searchTools()"));
    }
}
