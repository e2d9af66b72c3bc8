//! The sandbox modes, ordered from the loosest to the strictest.

/// What a sandboxed command (and pi's own `write` and `edit`) may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Mode {
    /// No sandbox: the reference's behaviour.
    #[default]
    Off,
    /// Writes under the working folder, the temp folder and the configured
    /// writable roots only; `.git`, `.pi` and `.agents` stay read-only.
    WorkspaceWrite,
    /// No write anywhere; temp is a private, empty tmpfs.
    ReadOnly,
}

impl Mode {
    /// Every mode, loosest first.
    pub const ALL: [Mode; 3] = [Mode::Off, Mode::WorkspaceWrite, Mode::ReadOnly];

    /// The mode a setting or flag names (`off`, `read-only`, `workspace-write`).
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The mode's name as settings and flags write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::WorkspaceWrite => "workspace-write",
            Mode::ReadOnly => "read-only",
        }
    }

    /// Whether commands run sandboxed.
    pub fn is_sandboxed(self) -> bool {
        self != Mode::Off
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_strictness_is_ordered() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.as_str()), Some(m));
        }
        assert_eq!(Mode::parse("readonly"), None);
        assert!(Mode::Off < Mode::WorkspaceWrite && Mode::WorkspaceWrite < Mode::ReadOnly);
        assert_eq!(Mode::default(), Mode::Off);
    }
}
