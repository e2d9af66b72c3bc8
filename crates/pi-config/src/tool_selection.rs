//! Which tools a session has: the `defaultTools` grammar (plain names and
//! `+name`/`-name` modifiers), `--tools`/`--exclude-tools`/`--no-tools`/
//! `--no-builtin-tools`, `*` patterns, and the registry filter (requirements
//! S1–S6, reference §5).

/// The default active built-ins.
pub const DEFAULT_TOOL_NAMES: [&str; 4] = ["read", "bash", "edit", "write"];

/// Error for a list mixing plain names and modifiers.
pub const MIXED_LIST_ERROR: &str = "tool names cannot be mixed with +name or -name entries";

/// Error for a modifier holding a pattern.
pub fn modifier_pattern_error(entry: &str) -> String {
    format!("+name and -name entries take exact tool names, not patterns: {entry}")
}

/// `+name` or `-name`.
pub fn is_modifier(entry: &str) -> bool {
    entry.starts_with('+') || entry.starts_with('-')
}

/// The reference's `getToolListError`: `None` when the list is usable.
pub fn tool_list_error(entries: &[String]) -> Option<String> {
    let mods = entries.iter().filter(|e| is_modifier(e)).count();
    if mods == 0 {
        return None;
    }
    if mods != entries.len() {
        return Some(MIXED_LIST_ERROR.to_string());
    }
    entries.iter().find(|e| e.contains('*')).map(|e| modifier_pattern_error(e))
}

/// Merge the user's and the project's `defaultTools`: a project list of only
/// modifiers is appended to the user list; any plain name replaces it.
pub fn merge_default_tools(user: Option<Vec<String>>, project: Option<Vec<String>>) -> Option<Vec<String>> {
    match (user, project) {
        (u, None) => u,
        (Some(mut u), Some(p)) if p.iter().all(|e| is_modifier(e)) => {
            u.extend(p);
            Some(u)
        }
        (_, p) => p,
    }
}

/// Apply `+x`/`-x` modifiers in order to `base`.
pub fn apply_modifiers(base: &[String], modifiers: &[String]) -> Vec<String> {
    let mut out = base.to_vec();
    for m in modifiers {
        let (sign, name) = m.split_at(1);
        if name.is_empty() {
            continue;
        }
        if sign == "+" {
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        } else if let Some(i) = out.iter().position(|n| n == name) {
            out.remove(i);
        }
    }
    out
}

/// Resolve a `defaultTools` list: plain names are the base (the four defaults
/// when there are none and the list is not empty), then modifiers in order.
pub fn resolve_default_tools(list: &[String]) -> Vec<String> {
    let plain: Vec<String> = list.iter().filter(|e| !is_modifier(e)).cloned().collect();
    let mods: Vec<String> = list.iter().filter(|e| is_modifier(e)).cloned().collect();
    let base = if plain.is_empty() && !list.is_empty() {
        DEFAULT_TOOL_NAMES.iter().map(|s| s.to_string()).collect()
    } else {
        plain
    };
    apply_modifiers(&base, &mods)
}

/// Does `name` match `pattern` (`*` matches any run of characters)?
pub fn name_matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == name;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut rest = name;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part) && rest.len() >= part.len();
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    rest.is_empty() || pattern.ends_with('*')
}

/// Does any entry match `name`?
pub fn any_matches(entries: &[String], name: &str) -> bool {
    entries.iter().any(|p| name_matches(p, name))
}

/// `--no-tools` or `--no-builtin-tools`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoTools {
    /// `--no-tools`: nothing by default, MCP included.
    All,
    /// `--no-builtin-tools`: no built-ins by default.
    Builtin,
}

/// What the flags and settings ask for.
#[derive(Debug, Clone, Default)]
pub struct SelectionInput {
    /// Resolved `defaultTools` from settings, when set.
    pub default_tools: Option<Vec<String>>,
    /// `--tools` entries.
    pub tools: Option<Vec<String>>,
    /// `--exclude-tools` entries.
    pub exclude: Option<Vec<String>>,
    /// `--no-tools` / `--no-builtin-tools`.
    pub no_tools: Option<NoTools>,
}

/// The resulting selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Registry filter: only these (names or patterns) are registered; `None` = all.
    pub allowed: Option<Vec<String>>,
    /// Never registered (names or patterns); wins over everything.
    pub excluded: Vec<String>,
    /// Names active at start, in order.
    pub initial_active: Vec<String>,
    /// Whether the `defaultTools` setting drives the active set (for `/reload`).
    pub uses_default_tools: bool,
}

impl Selection {
    /// Compute the selection (reference §5.3). Call [`tool_list_error`] on
    /// `--tools` first.
    pub fn compute(input: &SelectionInput) -> Selection {
        let default_names: Vec<String> = if input.no_tools.is_some() {
            vec![]
        } else {
            input.default_tools.clone().unwrap_or_else(|| DEFAULT_TOOL_NAMES.iter().map(|s| s.to_string()).collect())
        };
        let modifiers = input.tools.as_ref().filter(|t| t.iter().any(|e| is_modifier(e)));
        let selected: Option<Vec<String>> = match modifiers {
            Some(m) => Some(apply_modifiers(&default_names, m)),
            None => input.tools.clone(),
        };
        let allowed = match modifiers {
            Some(_) => (input.no_tools == Some(NoTools::All)).then(|| selected.clone().unwrap_or_default()),
            None => input.tools.clone().or_else(|| (input.no_tools == Some(NoTools::All)).then(Vec::new)),
        };
        let excluded = input.exclude.clone().unwrap_or_default();
        let initial_active: Vec<String> =
            selected.unwrap_or(default_names).into_iter().filter(|n| !any_matches(&excluded, n)).collect();
        let uses_default_tools = (input.tools.is_none() || modifiers.is_some()) && input.no_tools.is_none();
        Selection { allowed, excluded, initial_active, uses_default_tools }
    }

    /// Whether a tool is registered at all.
    pub fn registers(&self, name: &str, is_mcp: bool) -> bool {
        if any_matches(&self.excluded, name) {
            return false;
        }
        match &self.allowed {
            None => true,
            Some(list) => {
                any_matches(list, name) || (is_mcp && !list.is_empty() && !list.iter().any(|e| e.starts_with("mcp__")))
            }
        }
    }

    /// Whether an allowlist is in force (then every registered direct tool
    /// matching it is activated).
    pub fn allowlist(&self) -> Option<&[String]> {
        self.allowed.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn list_errors() {
        assert_eq!(tool_list_error(&v(&["read", "+grep"])).as_deref(), Some(MIXED_LIST_ERROR));
        assert_eq!(
            tool_list_error(&v(&["+gr*"])).as_deref(),
            Some("+name and -name entries take exact tool names, not patterns: +gr*")
        );
        assert_eq!(tool_list_error(&v(&["read", "gr*"])), None);
    }

    #[test]
    fn default_tools_grammar() {
        assert_eq!(resolve_default_tools(&v(&["+grep", "-bash"])), v(&["read", "edit", "write", "grep"]));
        assert_eq!(resolve_default_tools(&v(&["grep", "find"])), v(&["grep", "find"]));
        assert_eq!(resolve_default_tools(&[]), Vec::<String>::new());
        assert_eq!(merge_default_tools(Some(v(&["read"])), Some(v(&["+ls"]))), Some(v(&["read", "+ls"])));
        assert_eq!(merge_default_tools(Some(v(&["read"])), Some(v(&["ls", "+grep"]))), Some(v(&["ls", "+grep"])));
    }

    #[test]
    fn patterns() {
        assert!(name_matches("mcp__*", "mcp__srv__tool"));
        assert!(name_matches("*", "anything"));
        assert!(name_matches("r*d", "read"));
        assert!(!name_matches("r*d", "reads"));
        assert!(name_matches("*ep", "grep"));
    }

    #[test]
    fn selection_combos() {
        let s = Selection::compute(&SelectionInput {
            tools: Some(v(&["read", "bash"])),
            exclude: Some(v(&["read"])),
            ..Default::default()
        });
        assert_eq!(s.initial_active, v(&["bash"]));
        assert!(!s.registers("read", false));
        let s = Selection::compute(&SelectionInput { tools: Some(vec![]), ..Default::default() });
        assert!(s.initial_active.is_empty());
        assert!(!s.registers("mcp__x__y", true));
        let s = Selection::compute(&SelectionInput { tools: Some(v(&["+grep", "-bash"])), ..Default::default() });
        assert_eq!(s.initial_active, v(&["read", "edit", "write", "grep"]));
        assert!(s.registers("bash", false));
        let s = Selection::compute(&SelectionInput { no_tools: Some(NoTools::All), ..Default::default() });
        assert!(s.initial_active.is_empty() && !s.registers("read", false));
        let s = Selection::compute(&SelectionInput { no_tools: Some(NoTools::Builtin), ..Default::default() });
        assert!(s.initial_active.is_empty() && s.registers("read", false));
        let s = Selection::compute(&SelectionInput { tools: Some(v(&["read"])), ..Default::default() });
        assert!(s.registers("mcp__a__b", true));
    }
}
