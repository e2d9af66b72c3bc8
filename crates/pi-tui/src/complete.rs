//! Completion in the editor: `/` commands, `@` files (fuzzy, over the
//! project's files as our own `find` lists them) and Tab path completion.

use std::path::Path;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::lines;
use crate::theme::{Theme, Token};

/// Fuzzy match of `query` in `candidate` (case-insensitive subsequence);
/// higher is better, `None` when it does not match.
pub fn fuzzy_score(query: &str, candidate: &str) -> Option<i64> {
    let q: Vec<char> = query.to_lowercase().chars().filter(|c| !c.is_whitespace()).collect();
    if q.is_empty() {
        return Some(0);
    }
    let c: Vec<char> = candidate.to_lowercase().chars().collect();
    let mut score = 0i64;
    let mut qi = 0;
    let mut last: Option<usize> = None;
    for (i, ch) in c.iter().enumerate() {
        if qi < q.len() && *ch == q[qi] {
            let start_of_word = i == 0 || matches!(c[i - 1], '/' | '-' | '_' | '.' | ' ');
            score += 10;
            if start_of_word {
                score += 8;
            }
            match last {
                Some(l) if l + 1 == i => score += 15,
                Some(l) => score -= (i - l) as i64,
                None => score -= i as i64,
            }
            last = Some(i);
            qi += 1;
        }
    }
    if qi < q.len() {
        return None;
    }
    if c.iter().collect::<String>().starts_with(&q.iter().collect::<String>()) {
        score += 50;
    }
    Some(score - c.len() as i64 / 4)
}

/// A suggestion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What replaces the typed token.
    pub value: String,
    /// What the list shows.
    pub label: String,
    /// A note beside it.
    pub description: String,
}

/// What is being completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A slash command (accepting a bare command sends it).
    Command,
    /// An `@` file.
    File,
    /// A path (Tab).
    Path,
    /// A command's argument (its own suggestions).
    Argument,
}

/// Open suggestions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// What is completed.
    pub kind: Kind,
    /// The suggestions, best first.
    pub items: Vec<Item>,
    /// The one under the cursor.
    pub selected: usize,
    /// Bytes before the cursor that the chosen value replaces.
    pub replace: usize,
}

/// A command as completion lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandEntry {
    /// The name without the slash.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its argument hint.
    pub argument_hint: Option<String>,
    /// Suggestions for its argument.
    pub arguments: Option<crate::host::ArgumentCompleter>,
}

/// Most files offered for `@`.
pub const FILE_SUGGESTIONS: usize = 50;

fn ranked<T>(query: &str, items: impl Iterator<Item = T>, key: impl Fn(&T) -> String) -> Vec<T> {
    let mut scored: Vec<(i64, usize, T)> =
        items.enumerate().filter_map(|(i, t)| fuzzy_score(query, &key(&t)).map(|s| (s, i, t))).collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, t)| t).collect()
}

/// Suggestions for what is typed: `text` is the whole editor text, `before`
/// the cursor's line up to the cursor, `first_line` whether it is line 0.
pub fn suggest(
    text: &str,
    before: &str,
    first_line: bool,
    commands: &[CommandEntry],
    files: &[String],
) -> Option<Completion> {
    if first_line && text.starts_with('/') && !before.contains(char::is_whitespace) && !before.is_empty() {
        let query = &before[1..];
        let items: Vec<Item> = ranked(query, commands.iter(), |c| c.name.clone())
            .into_iter()
            .map(|c| Item {
                value: format!("/{}", c.name),
                label: c.name.clone(),
                description: match &c.argument_hint {
                    Some(h) => format!("{h} — {}", c.description),
                    None => c.description.clone(),
                },
            })
            .collect();
        return (!items.is_empty()).then_some(Completion {
            kind: Kind::Command,
            items,
            selected: 0,
            replace: before.len(),
        });
    }
    if first_line && let Some(c) = argument_completion(before, commands) {
        return Some(c);
    }
    let token = before.rsplit(char::is_whitespace).next().unwrap_or("");
    let query = token.strip_prefix('@')?;
    let items: Vec<Item> = ranked(query, files.iter(), |f| f.to_string())
        .into_iter()
        .take(FILE_SUGGESTIONS)
        .map(|f| Item {
            value: if f.ends_with('/') { format!("@{f}") } else { format!("@{f} ") },
            label: f.clone(),
            description: String::new(),
        })
        .collect();
    (!items.is_empty()).then_some(Completion { kind: Kind::File, items, selected: 0, replace: token.len() })
}

/// `/name prefix`: the command's own suggestions for its argument (the
/// prefix is what follows the first space).
fn argument_completion(before: &str, commands: &[CommandEntry]) -> Option<Completion> {
    let rest = before.strip_prefix('/')?;
    let (name, prefix) = rest.split_once(' ')?;
    let completer = commands.iter().find(|c| c.name == name)?.arguments.as_ref()?;
    let items: Vec<Item> = (completer.0)(prefix)?
        .into_iter()
        .take(ARGUMENT_SUGGESTIONS)
        .map(|i| Item {
            value: crate::sanitize::clean_line(&i.value),
            label: crate::sanitize::clean_line(&i.label),
            description: crate::sanitize::clean_line(&i.description),
        })
        .collect();
    (!items.is_empty()).then_some(Completion { kind: Kind::Argument, items, selected: 0, replace: prefix.len() })
}

/// Most suggestions a command's argument completion shows.
pub const ARGUMENT_SUGGESTIONS: usize = 50;

/// Tab: complete the path before the cursor from the file system.
pub fn complete_path(before: &str, cwd: &Path, home: Option<&Path>) -> Option<Completion> {
    let token = before.rsplit(char::is_whitespace).next().unwrap_or("");
    let (at, raw) = match token.strip_prefix('@') {
        Some(r) => ("@", r),
        None => ("", token),
    };
    let (dir_part, name_part) = match raw.rfind('/') {
        Some(i) => (&raw[..=i], &raw[i + 1..]),
        None => ("", raw),
    };
    let dir = if let Some(rest) = dir_part.strip_prefix("~/") {
        home?.join(rest)
    } else if dir_part.starts_with('/') {
        Path::new(dir_part).to_path_buf()
    } else {
        cwd.join(dir_part)
    };
    let mut names: Vec<(String, bool)> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            (name.starts_with(name_part) && (!name.starts_with('.') || name_part.starts_with('.')))
                .then_some((name, is_dir))
        })
        .collect();
    names.sort();
    let items: Vec<Item> = names
        .into_iter()
        .map(|(n, is_dir)| {
            let clean = crate::sanitize::clean_line(&n);
            let label = if is_dir { format!("{clean}/") } else { clean.clone() };
            Item { value: format!("{at}{dir_part}{label}"), label, description: String::new() }
        })
        .collect();
    (!items.is_empty()).then_some(Completion { kind: Kind::Path, items, selected: 0, replace: token.len() })
}

impl Completion {
    /// Move the selection.
    pub fn step(&mut self, down: bool) {
        let n = self.items.len();
        if n == 0 {
            return;
        }
        self.selected = if down { (self.selected + 1) % n } else { (self.selected + n - 1) % n };
    }

    /// The chosen item.
    pub fn current(&self) -> Option<&Item> {
        self.items.get(self.selected)
    }

    /// The list's lines (at most `max` rows).
    pub fn lines(&self, width: usize, max: usize, theme: &Theme) -> Vec<Line<'static>> {
        let max = max.max(1);
        let first = self.selected.saturating_sub(max - 1);
        let label_w = self.items.iter().map(|i| lines::width(&i.label)).max().unwrap_or(0).min(width / 2);
        let mut out = Vec::new();
        for (i, item) in self.items.iter().enumerate().skip(first).take(max) {
            let on = i == self.selected;
            let style = if on { theme.style(Token::Accent) } else { Style::default() };
            let arrow = if on { "→ " } else { "  " };
            let pad = label_w.saturating_sub(lines::width(&item.label));
            let mut spans = vec![Span::styled(format!("{arrow}{}{}", item.label, " ".repeat(pad)), style)];
            if !item.description.is_empty() {
                spans.push(Span::styled(format!("  {}", item.description), theme.style(Token::Dim)));
            }
            out.push(lines::truncate(&Line::from(spans), width, "…"));
        }
        if self.items.len() > max {
            out.push(lines::styled(format!("  ({}/{})", self.selected + 1, self.items.len()), theme.style(Token::Dim)));
        }
        out
    }
}

#[cfg(test)]
mod argument_tests {
    use std::sync::Arc;

    use super::*;
    use crate::host::ArgumentCompleter;

    #[test]
    fn a_commands_own_suggestions_follow_its_name_and_a_space() {
        let completer = ArgumentCompleter(Arc::new(|prefix: &str| {
            let all = ["dev", "prod"].into_iter().filter(|e| e.starts_with(prefix));
            let items: Vec<Item> = all
                .map(|e| Item { value: e.into(), label: format!("{e}\x1b[31m"), description: String::new() })
                .collect();
            (!items.is_empty()).then_some(items)
        }));
        let commands = vec![CommandEntry {
            name: "deploy".into(),
            description: String::new(),
            argument_hint: None,
            arguments: Some(completer),
        }];
        let c = suggest("/deploy p", "/deploy p", true, &commands, &[]).unwrap();
        assert_eq!(c.kind, Kind::Argument);
        assert_eq!(c.replace, 1);
        assert_eq!(c.items.len(), 1);
        assert_eq!(c.items[0].value, "prod");
        assert!(!c.items[0].label.contains('\x1b'), "labels are cleaned");
        assert!(suggest("/deploy x", "/deploy x", true, &commands, &[]).is_none());
        assert!(suggest("/other p", "/other p", true, &commands, &[]).is_none());
        assert!(suggest("/deploy p", "/deploy p", false, &commands, &[]).is_none(), "first line only");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmds() -> Vec<CommandEntry> {
        ["settings", "model", "session", "reload", "resume"]
            .iter()
            .map(|n| CommandEntry {
                name: n.to_string(),
                description: format!("{n} it"),
                argument_hint: None,
                arguments: None,
            })
            .collect()
    }

    #[test]
    fn fuzzy_prefers_prefixes_and_runs() {
        assert!(fuzzy_score("mod", "model").unwrap() > fuzzy_score("mod", "my-old-data").unwrap());
        assert!(fuzzy_score("xyz", "model").is_none());
        assert!(
            fuzzy_score("src/ma", "src/main.rs").unwrap() > fuzzy_score("src/ma", "src/lib/mask.rs").unwrap_or(-1000)
        );
    }

    #[test]
    fn commands_complete_on_the_first_word_only() {
        let c = suggest("/re", "/re", true, &cmds(), &[]).unwrap();
        assert_eq!(c.kind, Kind::Command);
        assert_eq!(c.items[0].value, "/reload");
        assert!(c.items.iter().any(|i| i.value == "/resume"));
        assert!(suggest("/model x", "/model x", true, &cmds(), &[]).is_none());
        assert!(suggest("hi /re", "hi /re", true, &cmds(), &[]).is_none());
    }

    #[test]
    fn files_complete_after_an_at() {
        let files = vec!["src/main.rs".to_string(), "src/".to_string(), "README.md".to_string()];
        let c = suggest("look at @main", "look at @main", true, &cmds(), &files).unwrap();
        assert_eq!(c.kind, Kind::File);
        assert_eq!(c.items[0].value, "@src/main.rs ");
        assert_eq!(c.replace, "@main".len());
    }

    #[test]
    fn paths_complete_from_the_folder() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("src")).unwrap();
        std::fs::write(tmp.path().join("src/main.rs"), "").unwrap();
        std::fs::write(tmp.path().join(".hidden"), "").unwrap();
        let c = complete_path("cat sr", tmp.path(), None).unwrap();
        assert_eq!(c.items[0].value, "src/");
        let c = complete_path("@src/m", tmp.path(), None).unwrap();
        assert_eq!(c.items[0].value, "@src/main.rs");
        assert!(complete_path("x", tmp.path(), None).is_none());
    }
}
