//! An extension's component shown in the editor's place: it draws its own
//! lines (SGR styling kept, every other control sequence stripped) and gets
//! every key until it calls `done`.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::KeyEvent;
use ratatui::text::Line;

use super::{Answer, Dialog, DialogCtx, Outcome};
use crate::host::{Component, ComponentHandle};
use crate::keys::{Action, KeyId, Keybindings};

/// Two presses of the clear key this close together close a component that
/// never answers (the way out of a broken extension).
pub const CUSTOM_ESCAPE_WINDOW: Duration = Duration::from_millis(500);
/// Most lines a component may draw.
pub const CUSTOM_MAX_LINES: usize = 500;

/// A component from an extension.
pub struct CustomDialog {
    component: Box<dyn Component>,
    handle: ComponentHandle,
    last_clear: Option<Instant>,
}

impl CustomDialog {
    /// Show `component`; `handle` is the one it was made with.
    pub fn new(component: Box<dyn Component>, handle: ComponentHandle) -> CustomDialog {
        CustomDialog { component, handle, last_clear: None }
    }
}

impl Dialog for CustomDialog {
    fn lines(&mut self, width: usize, _ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        let w = u16::try_from(width).unwrap_or(u16::MAX);
        self.component
            .render(w)
            .iter()
            .take(CUSTOM_MAX_LINES)
            .map(|l| crate::lines::truncate(&crate::sanitize::styled_line(l), width, ""))
            .collect()
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        if let Some(press) = KeyId::from_event(ev)
            && keys.matches(Action::Clear, &press)
        {
            let now = Instant::now();
            if self.last_clear.is_some_and(|t| now.duration_since(t) < CUSTOM_ESCAPE_WINDOW) {
                self.handle.done(serde_json::Value::Null);
                return Outcome::Close(Answer::Value(serde_json::Value::Null));
            }
            self.last_clear = Some(now);
        }
        self.component.handle_input(&crate::keys::key_data(ev));
        self.finished().map_or(Outcome::Continue, Outcome::Close)
    }

    fn paste(&mut self, text: &str) {
        self.component.handle_input(&format!("\x1b[200~{}\x1b[201~", crate::sanitize::clean(text)));
    }

    fn finished(&self) -> Option<Answer> {
        self.handle.is_done().then_some(Answer::Value(serde_json::Value::Null))
    }

    fn bordered(&self) -> bool {
        false
    }
}
