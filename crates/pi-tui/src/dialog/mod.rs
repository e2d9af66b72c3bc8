//! Dialogs: they take the editor's place until answered. A selection list
//! (extension `select` and `confirm`, the trust prompt, pickers), one-line
//! and multi-line text input, and a host for extension components.

mod custom;
mod model;
mod select;
mod session_search;
pub mod sessions;
mod settings;
mod text_input;
mod tree;
pub mod trust;

/// What a dialog written outside this crate draws and reads.
pub use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
pub use ratatui::text::{Line, Span};

pub use custom::CustomDialog;
pub use model::ModelDialog;
pub use select::{SelectDialog, SelectItem};
pub use sessions::SessionPicker;
pub use settings::{SettingsDialog, SettingsState};
pub use text_input::{EditorDialog, InputDialog};
pub use tree::{TreeDialog, tree_answer};

use crate::keys::{Action, KeyId, Keybindings};

/// Move `selected` among `n` rows for the list keys (up and down wrap, the
/// page keys move `page` rows); whether `press` was one of them.
pub(crate) fn move_selection(keys: &Keybindings, press: &KeyId, selected: &mut usize, n: usize, page: usize) -> bool {
    if keys.matches(Action::SelectUp, press) {
        *selected = if *selected == 0 { n.saturating_sub(1) } else { *selected - 1 };
    } else if keys.matches(Action::SelectDown, press) {
        *selected = if *selected + 1 >= n { 0 } else { *selected + 1 };
    } else if keys.matches(Action::SelectPageUp, press) {
        *selected = selected.saturating_sub(page);
    } else if keys.matches(Action::SelectPageDown, press) {
        *selected = (*selected + page).min(n.saturating_sub(1));
    } else {
        return false;
    }
    true
}
use crate::theme::Theme;

/// What a dialog's answer is.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// An option, by index.
    Index(usize),
    /// Entered text.
    Text(String),
    /// A value (a component's result).
    Value(serde_json::Value),
    /// An option to save as the default (the model picker's ctrl+s).
    Save(usize),
    /// Dismissed.
    Cancel,
}

/// What a key did to a dialog.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Still open.
    Continue,
    /// Answered: close it.
    Close(Answer),
    /// Answered, and it stays open (settings apply one change at a time).
    Keep(Answer),
}

/// What dialogs draw with.
pub struct DialogCtx<'a> {
    /// The theme.
    pub theme: &'a Theme,
    /// The keys.
    pub keys: &'a Keybindings,
}

/// A dialog.
pub trait Dialog: Send {
    /// Its lines at `width` columns (between the two border lines).
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>>;
    /// A key press.
    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome;
    /// A paste.
    fn paste(&mut self, _text: &str) {}
    /// Whether it has closed on its own (a component that called `done`).
    fn finished(&self) -> Option<Answer> {
        None
    }
    /// Whether the UI draws border lines around it.
    fn bordered(&self) -> bool {
        true
    }
}

/// The hint line: `↑↓ navigate  enter select  escape/ctrl+c cancel`.
pub fn select_hint(keys: &Keybindings, verb: &str) -> String {
    use crate::keys::Action;
    let all = |a: Action| keys.keys(a).iter().map(|k| k.display()).collect::<Vec<_>>().join("/");
    crate::text::select_hint(&all(Action::SelectConfirm), verb, &all(Action::SelectCancel))
}

#[cfg(test)]
mod tests;
