//! Names of MCP tools and namespaces, as the model and scripts see them:
//! `mcp__<server>__<tool>` with every character outside `[A-Za-z0-9_]` as `_`;
//! longer than 64 characters, or taken by another MCP tool, it is cut and
//! suffixed `_<first 8 hex of sha256(server NUL tool)>`.

use sha2::{Digest, Sha256};

use crate::text::MAX_TOOL_NAME_LENGTH;

/// The tool name of `tool` on `server`; `is_taken` says whether another MCP tool has a name.
pub fn tool_name(server: &str, tool: &str, is_taken: impl Fn(&str) -> bool) -> String {
    let name: String = format!("mcp__{server}__{tool}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if name.len() <= MAX_TOOL_NAME_LENGTH && !is_taken(&name) {
        return name;
    }
    let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    // Only ASCII is left, so byte slicing is safe.
    let keep = name.len().min(MAX_TOOL_NAME_LENGTH - hash.len() - 1);
    format!("{}_{hash}", &name[..keep])
}

/// The namespace of a server's tools: `mcp__<server>` with `-` as `_`.
pub fn namespace(server: &str) -> String {
    format!("mcp__{}", server.replace('-', "_"))
}

/// A server's one line: the first line of its `description`, else of its instructions.
pub fn summary(description: Option<&str>, instructions: Option<&str>) -> String {
    let d = description.map(str::trim).filter(|s| !s.is_empty());
    let text = d.or_else(|| instructions.map(str::trim)).unwrap_or("");
    text.lines().next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitised_and_hashed() {
        assert_eq!(tool_name("everything", "get-sum", |_| false), "mcp__everything__get_sum");
        assert_eq!(tool_name("my-srv", "a.b", |_| false), "mcp__my_srv__a_b");
        let taken = tool_name("s", "a-b", |n| n == "mcp__s__a_b");
        assert!(taken.starts_with("mcp__s__a_b_") && taken.len() == "mcp__s__a_b_".len() + 8, "{taken}");
        let long = tool_name("s", &"x".repeat(80), |_| false);
        assert_eq!(long.len(), 64);
        assert_eq!(namespace("my-srv"), "mcp__my_srv");
        assert_eq!(summary(Some("  "), Some("first\nsecond")), "first");
    }
}
