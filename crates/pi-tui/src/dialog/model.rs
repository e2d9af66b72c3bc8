//! The model picker (`/model`, ctrl+l): type to filter, enter to use, the
//! save key to also make it the default.

use ratatui::crossterm::event::KeyEvent;
use ratatui::text::Line;

use super::{Answer, Dialog, DialogCtx, Outcome, SelectDialog, SelectItem};
use crate::host::ModelInfo;
use crate::keys::{Action, KeyId, Keybindings};
use crate::lines::styled;
use crate::theme::Token;

/// The model picker.
pub struct ModelDialog {
    list: SelectDialog,
    models: Vec<ModelInfo>,
}

impl ModelDialog {
    /// Pick among `models`; `current` is marked.
    pub fn new(models: Vec<ModelInfo>, current: &ModelInfo, query: &str) -> ModelDialog {
        let items: Vec<SelectItem> = models
            .iter()
            .map(|m| SelectItem {
                label: m.id.clone(),
                detail: Some(format!("[{}]", m.provider)),
                marked: m.provider == current.provider && m.id == current.id,
            })
            .collect();
        let start = models.iter().position(|m| m.provider == current.provider && m.id == current.id).unwrap_or(0);
        let mut list = SelectDialog::new(crate::text::MODEL_PICKER_TITLE, items).filterable().selected(start);
        if !query.is_empty() {
            list.paste(query);
        }
        ModelDialog { list, models }
    }

    /// The model of an answer.
    pub fn model(&self, i: usize) -> Option<&ModelInfo> {
        self.models.get(i)
    }
}

impl Dialog for ModelDialog {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        let name = self.list.current().and_then(|i| self.models.get(i)).map(|m| m.name.clone()).unwrap_or_default();
        let dim = ctx.theme.style(Token::Dim);
        let footer = vec![
            styled(crate::text::model_name(&name), dim),
            styled(crate::text::model_picker_hint(&ctx.keys.hint(Action::ModelsSave)), dim),
        ];
        self.list.set_footer(footer);
        self.list.lines(width, ctx)
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        if let Some(press) = KeyId::from_event(ev)
            && keys.matches(Action::ModelsSave, &press)
            && let Some(i) = self.list.current()
        {
            return Outcome::Close(Answer::Save(i));
        }
        self.list.key(ev, keys)
    }

    fn paste(&mut self, text: &str) {
        self.list.paste(text);
    }
}
