//! The closed set of built-in tool names and the named groups.

use std::fmt;
use std::str::FromStr;

/// One of the eight built-in tools. No other name reaches a built-in handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolName {
    /// Read a file (text or image).
    Read,
    /// Run a bash command.
    Bash,
    /// Run a PowerShell command.
    Powershell,
    /// Exact-text replacement in one file.
    Edit,
    /// Create or overwrite a file.
    Write,
    /// Search file contents.
    Grep,
    /// Find files by glob.
    Find,
    /// List a folder.
    Ls,
}

/// The *coding* group, also the default active set: `read, bash, edit, write`.
pub const CODING_TOOLS: [ToolName; 4] = [ToolName::Read, ToolName::Bash, ToolName::Edit, ToolName::Write];

/// The *read-only* group: `read, grep, find, ls`.
pub const READ_ONLY_TOOLS: [ToolName; 4] = [ToolName::Read, ToolName::Grep, ToolName::Find, ToolName::Ls];

impl ToolName {
    /// Every built-in, in the reference's registry order (what `--tools '*'` declares).
    pub const ALL: [ToolName; 8] = [
        ToolName::Read,
        ToolName::Bash,
        ToolName::Powershell,
        ToolName::Edit,
        ToolName::Write,
        ToolName::Grep,
        ToolName::Find,
        ToolName::Ls,
    ];

    /// The name the model sees.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::Read => "read",
            ToolName::Bash => "bash",
            ToolName::Powershell => "powershell",
            ToolName::Edit => "edit",
            ToolName::Write => "write",
            ToolName::Grep => "grep",
            ToolName::Find => "find",
            ToolName::Ls => "ls",
        }
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name outside the closed set: `Unknown tool name: <name>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown tool name: {0}")]
pub struct UnknownToolName(pub String);

impl FromStr for ToolName {
    type Err = UnknownToolName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ToolName::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| UnknownToolName(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_name_and_rejects_others() {
        for t in ToolName::ALL {
            assert_eq!(t.as_str().parse::<ToolName>(), Ok(t));
        }
        let err = "Read".parse::<ToolName>().unwrap_err();
        assert_eq!(err.to_string(), "Unknown tool name: Read");
        assert!("".parse::<ToolName>().is_err());
        assert!("mcp__x".parse::<ToolName>().is_err());
    }

    #[test]
    fn groups_are_as_specified() {
        let names = |g: &[ToolName]| g.iter().map(|t| t.as_str()).collect::<Vec<_>>();
        assert_eq!(names(&CODING_TOOLS), ["read", "bash", "edit", "write"]);
        assert_eq!(names(&READ_ONLY_TOOLS), ["read", "grep", "find", "ls"]);
    }
}
