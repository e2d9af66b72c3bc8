//! `pi config`: the reference's screen to switch package resources and
//! built-in extensions on and off, drawn in place on the terminal. Global
//! mode (the user settings): space switches the selected resource and writes
//! it at once. Project mode (Tab, or `--local`): what the project inherits,
//! dimmed; space cycles the project's entry through inherited, unload (`-`)
//! and load (`+`). Typing filters the list; Escape or Ctrl+C closes.

use std::path::PathBuf;

use pi_config::Settings;
use pi_tui::dialog::{Answer, Dialog, DialogCtx, KeyCode, KeyEvent, KeyModifiers, Line, Outcome, Span};
use pi_tui::keys::Keybindings;
use pi_tui::lines::styled;
use pi_tui::theme::Token;

use super::config_model::{self, Group, Item};
use super::text;

/// The screen's state.
pub(crate) struct ConfigDialog {
    settings: Settings,
    agent_dir: PathBuf,
    cwd: PathBuf,
    local: bool,
    groups: Vec<Group>,
    filter: String,
    selected: usize,
    /// The last write that failed, shown under the title.
    error: Option<String>,
}

impl ConfigDialog {
    /// The screen over `settings`, starting in project mode when `local`.
    pub(crate) fn new(settings: Settings, agent_dir: PathBuf, cwd: PathBuf, local: bool) -> Self {
        let groups = config_model::groups(&settings, &agent_dir, &cwd);
        ConfigDialog { settings, agent_dir, cwd, local, groups, filter: String::new(), selected: 0, error: None }
    }

    /// The items shown, in order, with their place.
    fn visible(&self) -> Vec<(usize, usize, usize)> {
        let f = self.filter.to_lowercase();
        let mut out = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            for (k, (_, items)) in group.kinds.iter().enumerate() {
                for (i, item) in items.iter().enumerate() {
                    if f.is_empty() || item.label.to_lowercase().contains(&f) || group.title.to_lowercase().contains(&f)
                    {
                        out.push((g, k, i));
                    }
                }
            }
        }
        out
    }

    fn item(&self, at: (usize, usize, usize)) -> &Item {
        &self.groups[at.0].kinds[at.1].1[at.2]
    }

    fn toggle(&mut self) {
        let visible = self.visible();
        let Some(&at) = visible.get(self.selected) else { return };
        let item = self.item(at).clone();
        let result = if self.local {
            config_model::cycle_project(&mut self.settings, &item, &self.agent_dir, &self.cwd)
        } else {
            config_model::set(&mut self.settings, &item, !item.enabled)
        };
        self.error = result.err().map(|e| e.to_string());
        self.groups = config_model::groups(&self.settings, &self.agent_dir, &self.cwd);
    }

    fn item_line(&self, at: (usize, usize, usize), selected: bool, ctx: &DialogCtx<'_>) -> Line<'static> {
        let item = self.item(at);
        let lead = if selected { "> " } else { "  " };
        let shown = if item.enabled { "[x]" } else { "[ ]" };
        let (mark, note) = match self.local {
            true => match config_model::project_mark(&self.settings, item, &self.agent_dir, &self.cwd) {
                Some(true) => ("[+]", text::CONFIG_PROJECT_LOAD),
                Some(false) => ("[-]", text::CONFIG_PROJECT_UNLOAD),
                None => (shown, text::CONFIG_INHERITED),
            },
            false => (shown, ""),
        };
        let body = format!("{lead}    {mark} {}", item.label);
        if note.is_empty() {
            return Line::from(body);
        }
        let dim = ctx.theme.style(Token::Dim);
        Line::from(vec![Span::raw(body), Span::styled(format!("  {note}"), dim)])
    }
}

impl Dialog for ConfigDialog {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        let dim = ctx.theme.style(Token::Dim);
        let (title, hint, path) = if self.local {
            (text::CONFIG_PROJECT_TITLE, text::CONFIG_PROJECT_HINT, text::CONFIG_PROJECT_PATH)
        } else {
            (text::CONFIG_GLOBAL_TITLE, text::CONFIG_GLOBAL_HINT, text::CONFIG_GLOBAL_PATH)
        };
        let gap = width.saturating_sub(title.chars().count() + hint.chars().count()).max(1);
        let mut out = vec![
            Line::default(),
            Line::from(vec![Span::raw(title.to_string()), Span::raw(" ".repeat(gap)), Span::styled(hint, dim)]),
            styled(path, dim),
        ];
        if let Some(e) = &self.error {
            out.push(styled(e.clone(), ctx.theme.style(Token::Error)));
        }
        out.push(Line::default());
        out.push(Line::from(format!("> {}", self.filter)));
        out.push(Line::default());
        let visible = self.visible();
        self.selected = self.selected.min(visible.len().saturating_sub(1));
        let (mut group, mut kind) = (usize::MAX, usize::MAX);
        for (n, at) in visible.iter().enumerate() {
            if at.0 != group {
                let g = &self.groups[at.0];
                let inherited = if self.local { format!(" · {}", text::CONFIG_INHERITED) } else { String::new() };
                out.push(Line::from(format!("  {}{inherited}", g.title)));
                (group, kind) = (at.0, usize::MAX);
            }
            if at.1 != kind {
                let name = self.groups[at.0].kinds[at.1].0;
                let shown = config_model::KINDS.iter().find(|(k, _)| *k == name).map_or(name, |(_, s)| s);
                out.push(Line::from(format!("    {shown}")));
                kind = at.1;
            }
            out.push(self.item_line(*at, n == self.selected, ctx));
        }
        if visible.is_empty() {
            out.push(styled(text::CONFIG_NOTHING, dim));
        }
        out.push(Line::default());
        out
    }

    fn key(&mut self, ev: &KeyEvent, _keys: &Keybindings) -> Outcome {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let n = self.visible().len();
        match ev.code {
            KeyCode::Esc => return Outcome::Close(Answer::Cancel),
            KeyCode::Char('c') if ctrl => return Outcome::Close(Answer::Cancel),
            KeyCode::Up => self.selected = if self.selected == 0 { n.saturating_sub(1) } else { self.selected - 1 },
            KeyCode::Down => self.selected = if self.selected + 1 >= n { 0 } else { self.selected + 1 },
            KeyCode::Tab => {
                self.local = !self.local;
                self.selected = 0;
            }
            KeyCode::Char(' ') => self.toggle(),
            KeyCode::Backspace => {
                self.filter.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) if !ctrl => {
                self.filter.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        Outcome::Continue
    }
}
