//! `/settings`: the preferences the terminal UI owns, changed one at a time
//! (each change is saved to the user's settings and applied at once where it
//! can be).

use ratatui::crossterm::event::KeyEvent;
use ratatui::text::Line;
use serde_json::{Value, json};

use super::{Answer, Dialog, DialogCtx, Outcome, SelectDialog, SelectItem};
use crate::keys::Keybindings;

/// The values `/settings` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsState {
    /// The theme setting.
    pub theme: String,
    /// Themes to choose from.
    pub themes: Vec<String>,
    /// `fullscreen` or `regular` (applies at the next start).
    pub tui_mode: String,
    /// Thinking blocks folded.
    pub hide_thinking: bool,
    /// Completion rows (3–20).
    pub autocomplete_max_visible: usize,
}

/// Choices of the completion rows setting.
const AUTOCOMPLETE_CHOICES: &[usize] = &[3, 5, 8, 10, 15, 20];

/// The settings dialog.
pub struct SettingsDialog {
    state: SettingsState,
    list: SelectDialog,
    sub: Option<SelectDialog>,
}

fn on_off(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

impl SettingsDialog {
    /// Show `state`.
    pub fn new(state: SettingsState) -> SettingsDialog {
        let list = Self::list(&state, 0);
        SettingsDialog { state, list, sub: None }
    }

    fn list(s: &SettingsState, selected: usize) -> SelectDialog {
        let item =
            |label: &str, value: String| SelectItem { label: label.to_string(), detail: Some(value), marked: false };
        SelectDialog::new(
            crate::text::SETTINGS_TITLE,
            vec![
                item(crate::text::SETTING_THEME, s.theme.clone()),
                item(crate::text::SETTING_TUI_MODE, s.tui_mode.clone()),
                item(crate::text::SETTING_HIDE_THINKING, on_off(s.hide_thinking).to_string()),
                item(crate::text::SETTING_AUTOCOMPLETE, s.autocomplete_max_visible.to_string()),
            ],
        )
        .selected(selected)
        .verb(crate::text::VERB_CHANGE)
    }

    /// A change as the app applies it: `{"key": [path], "value": v}`.
    fn change(key: &str, value: Value) -> Outcome {
        Outcome::Keep(Answer::Value(json!({"key": [key], "value": value})))
    }
}

impl Dialog for SettingsDialog {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        match &mut self.sub {
            Some(sub) => sub.lines(width, ctx),
            None => self.list.lines(width, ctx),
        }
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        if let Some(sub) = &mut self.sub {
            return match sub.key(ev, keys) {
                Outcome::Close(Answer::Index(i)) => {
                    self.sub = None;
                    let Some(name) = self.state.themes.get(i).cloned() else { return Outcome::Continue };
                    self.state.theme = name.clone();
                    self.list = Self::list(&self.state, 0);
                    Self::change("theme", json!(name))
                }
                Outcome::Close(_) => {
                    self.sub = None;
                    Outcome::Continue
                }
                other => other,
            };
        }
        match self.list.key(ev, keys) {
            Outcome::Close(Answer::Index(0)) => {
                let items = self
                    .state
                    .themes
                    .iter()
                    .map(|t| SelectItem { label: t.clone(), detail: None, marked: *t == self.state.theme })
                    .collect();
                let at = self.state.themes.iter().position(|t| *t == self.state.theme).unwrap_or(0);
                self.sub = Some(SelectDialog::new(crate::text::SETTING_THEME, items).selected(at));
                Outcome::Continue
            }
            Outcome::Close(Answer::Index(1)) => {
                self.state.tui_mode = if self.state.tui_mode == "regular" { "fullscreen" } else { "regular" }.into();
                self.list = Self::list(&self.state, 1);
                Self::change("tuiMode", json!(self.state.tui_mode))
            }
            Outcome::Close(Answer::Index(2)) => {
                self.state.hide_thinking = !self.state.hide_thinking;
                self.list = Self::list(&self.state, 2);
                Self::change("hideThinkingBlock", json!(self.state.hide_thinking))
            }
            Outcome::Close(Answer::Index(3)) => {
                let at = AUTOCOMPLETE_CHOICES.iter().position(|c| *c == self.state.autocomplete_max_visible);
                let next = AUTOCOMPLETE_CHOICES[at.map_or(0, |i| (i + 1) % AUTOCOMPLETE_CHOICES.len())];
                self.state.autocomplete_max_visible = next;
                self.list = Self::list(&self.state, 3);
                Self::change("autocompleteMaxVisible", json!(next))
            }
            other => other,
        }
    }
}
