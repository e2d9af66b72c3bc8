//! Text dialogs: one line (`input`) and several (`editor`), both on the
//! prompt editor's key bindings.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::{Answer, Dialog, DialogCtx, Outcome};
use crate::editor::{Editor, Outcome as EditorOutcome};
use crate::keys::{Action, KeyId, Keybindings};
use crate::lines::{self, styled};
use crate::theme::Token;

/// Rows an editor dialog shows.
pub const EDITOR_DIALOG_ROWS: usize = 10;

fn title_lines(title: &str, inner: usize) -> Vec<Line<'static>> {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    crate::sanitize::clean(title)
        .split('\n')
        .flat_map(|l| lines::wrap(&styled(l, bold), inner))
        .map(|l| lines::prefixed(" ", Style::default(), l))
        .collect()
}

/// One line of text.
pub struct InputDialog {
    title: String,
    placeholder: Option<String>,
    editor: Editor,
}

impl InputDialog {
    /// Ask `title`; `placeholder` shows while nothing is typed.
    pub fn new(title: &str, placeholder: Option<&str>) -> InputDialog {
        InputDialog {
            title: title.to_string(),
            placeholder: placeholder.map(crate::sanitize::clean_line),
            editor: Editor::new(),
        }
    }
}

impl Dialog for InputDialog {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        let inner = width.saturating_sub(2).max(1);
        let mut out = vec![Line::default()];
        out.extend(title_lines(&self.title, inner));
        out.push(Line::default());
        let view = self.editor.view(inner.saturating_sub(2).max(1), 1, Style::default(), true);
        let mut line = vec![Span::styled("> ", ctx.theme.style(Token::Accent))];
        match (&self.placeholder, self.editor.is_empty()) {
            (Some(p), true) => {
                line.push(Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)));
                line.push(Span::styled(p.clone(), ctx.theme.style(Token::Dim)));
            }
            _ => line.extend(view.lines.into_iter().flat_map(|l| l.spans)),
        }
        out.push(Line::from(line));
        out.push(Line::default());
        out.push(lines::prefixed(
            " ",
            Style::default(),
            styled(
                crate::text::input_hint(&ctx.keys.hint(Action::Submit), &cancel_keys(ctx.keys)),
                ctx.theme.style(Token::Dim),
            ),
        ));
        out.push(Line::default());
        out
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        let Some(press) = KeyId::from_event(ev) else { return Outcome::Continue };
        if keys.matches(Action::SelectCancel, &press) {
            return Outcome::Close(Answer::Cancel);
        }
        if keys.matches(Action::NewLine, &press) {
            return Outcome::Continue;
        }
        match self.editor.handle_key(ev, keys) {
            EditorOutcome::Submit => Outcome::Close(Answer::Text(self.editor.expanded_text())),
            _ => Outcome::Continue,
        }
    }

    fn paste(&mut self, text: &str) {
        self.editor.insert(&crate::sanitize::clean_line(text));
    }
}

fn cancel_keys(keys: &Keybindings) -> String {
    keys.keys(Action::SelectCancel).iter().map(|k| k.display()).collect::<Vec<_>>().join("/")
}

/// Several lines of text.
pub struct EditorDialog {
    title: String,
    editor: Editor,
}

impl EditorDialog {
    /// Ask `title`, starting with `prefill`.
    pub fn new(title: &str, prefill: Option<&str>) -> EditorDialog {
        let mut editor = Editor::new();
        if let Some(p) = prefill {
            editor.set_text(&crate::sanitize::clean(p));
        }
        EditorDialog { title: title.to_string(), editor }
    }
}

impl Dialog for EditorDialog {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        let inner = width.saturating_sub(2).max(1);
        let mut out = vec![Line::default()];
        out.extend(title_lines(&self.title, inner));
        out.push(Line::default());
        self.editor.width = inner;
        let view = self.editor.view(inner, EDITOR_DIALOG_ROWS, Style::default(), true);
        out.extend(view.lines.into_iter().map(|l| lines::prefixed(" ", Style::default(), l)));
        out.push(Line::default());
        let hint = crate::text::editor_hint(
            &ctx.keys.hint(Action::Submit),
            &ctx.keys.hint(Action::NewLine),
            &cancel_keys(ctx.keys),
        );
        out.push(lines::prefixed(" ", Style::default(), styled(hint, ctx.theme.style(Token::Dim))));
        out.push(Line::default());
        out
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        let Some(press) = KeyId::from_event(ev) else { return Outcome::Continue };
        if keys.matches(Action::SelectCancel, &press) {
            return Outcome::Close(Answer::Cancel);
        }
        match self.editor.handle_key(ev, keys) {
            EditorOutcome::Submit => Outcome::Close(Answer::Text(self.editor.expanded_text())),
            _ => Outcome::Continue,
        }
    }

    fn paste(&mut self, text: &str) {
        self.editor.paste(text);
    }
}
