//! A titled list to choose from: arrows move, the confirm key chooses, the
//! cancel key dismisses; long lists scroll, and a list may be filtered by
//! typing.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Answer, Dialog, DialogCtx, Outcome, select_hint};
use crate::keys::{Action, Key, KeyId, Keybindings};
use crate::lines::{self, styled};
use crate::theme::Token;

/// Most options shown at once.
pub const SELECT_MAX_VISIBLE: usize = 10;

/// One option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectItem {
    /// What it says.
    pub label: String,
    /// A note after it (dim).
    pub detail: Option<String>,
    /// Marked with ✓ (the current choice).
    pub marked: bool,
}

impl SelectItem {
    /// A plain option.
    pub fn new(label: impl Into<String>) -> SelectItem {
        SelectItem { label: label.into(), detail: None, marked: false }
    }
}

/// A selection dialog.
pub struct SelectDialog {
    title: Vec<Line<'static>>,
    items: Vec<SelectItem>,
    selected: usize,
    filter: Option<String>,
    verb: String,
    footer: Vec<Line<'static>>,
}

impl SelectDialog {
    /// A dialog asking `title` (its first line bold) with `items`.
    pub fn new(title: &str, items: Vec<SelectItem>) -> SelectDialog {
        let title = crate::sanitize::clean(title);
        let mut lines: Vec<Line<'static>> = Vec::new();
        for l in title.split('\n') {
            lines.push(styled(l, Style::default().add_modifier(ratatui::style::Modifier::BOLD)));
        }
        SelectDialog {
            title: lines,
            items: items
                .into_iter()
                .map(|i| SelectItem { label: crate::sanitize::clean_line(&i.label), ..i })
                .collect(),
            selected: 0,
            filter: None,
            verb: crate::text::VERB_SELECT.to_string(),
            footer: Vec::new(),
        }
    }

    /// A list of plain options.
    pub fn simple(title: &str, options: &[String]) -> SelectDialog {
        SelectDialog::new(title, options.iter().map(SelectItem::new).collect())
    }

    /// Title lines as given (styled by the caller).
    pub fn with_title_lines(mut self, lines: Vec<Line<'static>>) -> SelectDialog {
        self.title = lines;
        self
    }

    /// Start on `i`.
    pub fn selected(mut self, i: usize) -> SelectDialog {
        self.selected = i.min(self.items.len().saturating_sub(1));
        self
    }

    /// Filter the options by typing.
    pub fn filterable(mut self) -> SelectDialog {
        self.filter = Some(String::new());
        self
    }

    /// Start with `text` typed into the filter (a filterable list).
    pub fn with_search(mut self, text: &str) -> SelectDialog {
        if let Some(f) = &mut self.filter {
            *f = crate::sanitize::clean_line(text);
        }
        self
    }

    /// What is typed into the filter (empty when none).
    pub fn search(&self) -> &str {
        self.filter.as_deref().unwrap_or_default()
    }

    /// The word after the confirm key in the hint (`select`, `save`).
    pub fn verb(mut self, v: &str) -> SelectDialog {
        self.verb = v.to_string();
        self
    }

    /// Lines after the list (before the hint).
    pub fn footer(mut self, lines: Vec<Line<'static>>) -> SelectDialog {
        self.footer = lines;
        self
    }

    /// Replace the lines after the list.
    pub fn set_footer(&mut self, lines: Vec<Line<'static>>) {
        self.footer = lines;
    }

    /// Indices of the options the filter keeps.
    fn visible(&self) -> Vec<usize> {
        match &self.filter {
            Some(f) if !f.is_empty() => {
                let mut scored: Vec<(i64, usize)> = self
                    .items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, it)| {
                        crate::complete::fuzzy_score(
                            f,
                            &format!("{} {}", it.label, it.detail.clone().unwrap_or_default()),
                        )
                        .map(|s| (s, i))
                    })
                    .collect();
                scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                scored.into_iter().map(|(_, i)| i).collect()
            }
            _ => (0..self.items.len()).collect(),
        }
    }

    /// The option under the cursor (an index into the items).
    pub fn current(&self) -> Option<usize> {
        self.visible().get(self.selected).copied()
    }
}

impl Dialog for SelectDialog {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        let th = ctx.theme;
        let inner = width.saturating_sub(2).max(1);
        let pad = |l: Line<'static>| lines::prefixed(" ", Style::default(), l);
        let mut out = vec![Line::default()];
        for t in &self.title {
            out.extend(lines::wrap(t, inner).into_iter().map(pad));
        }
        out.push(Line::default());
        if let Some(f) = &self.filter {
            out.push(Line::from(vec![Span::styled("> ", th.style(Token::Accent)), Span::raw(f.clone())]));
            out.push(Line::default());
        }
        let visible = self.visible();
        self.selected = self.selected.min(visible.len().saturating_sub(1));
        let first = self.selected.saturating_sub(SELECT_MAX_VISIBLE - 1);
        let any_marked = self.items.iter().any(|i| i.marked);
        for (row, &i) in visible.iter().enumerate().skip(first).take(SELECT_MAX_VISIBLE) {
            let item = &self.items[i];
            let on = row == self.selected;
            let mark = match (any_marked, item.marked) {
                (false, _) => "",
                (true, true) => "✓ ",
                (true, false) => "  ",
            };
            let arrow = if on { "→ " } else { "  " };
            let style = if on { th.style(Token::Accent) } else { Style::default() };
            let mut spans = vec![Span::styled(format!("{arrow}{mark}{}", item.label), style)];
            if let Some(d) = &item.detail {
                spans.push(Span::styled(format!(" {d}"), th.style(Token::Dim)));
            }
            out.push(pad(lines::truncate(&Line::from(spans), inner, "…")));
        }
        if visible.is_empty() {
            out.push(pad(styled(crate::text::NO_MATCHES, th.style(Token::Dim))));
        } else if visible.len() > SELECT_MAX_VISIBLE {
            out.push(pad(styled(format!("  ({}/{})", self.selected + 1, visible.len()), th.style(Token::Dim))));
        }
        if !self.footer.is_empty() {
            out.push(Line::default());
            out.extend(self.footer.iter().flat_map(|l| lines::wrap(l, inner)).map(pad));
        }
        out.push(Line::default());
        let hint = styled(select_hint(ctx.keys, &self.verb), th.style(Token::Dim));
        out.extend(lines::wrap(&hint, inner).into_iter().map(pad));
        out.push(Line::default());
        out
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        let Some(press) = KeyId::from_event(ev) else { return Outcome::Continue };
        let n = self.visible().len();
        if keys.matches(Action::SelectCancel, &press) {
            return Outcome::Close(Answer::Cancel);
        }
        if keys.matches(Action::SelectConfirm, &press) {
            return match self.current() {
                Some(i) => Outcome::Close(Answer::Index(i)),
                None => Outcome::Continue,
            };
        }
        if super::move_selection(keys, &press, &mut self.selected, n, SELECT_MAX_VISIBLE) {
            // Moved.
        } else if let Some(f) = &mut self.filter {
            match press.key {
                Key::Backspace => {
                    f.pop();
                }
                Key::Char(c) if !press.ctrl && !press.alt => {
                    f.push(if press.shift { c.to_ascii_uppercase() } else { c });
                    self.selected = 0;
                }
                _ => {}
            }
        }
        Outcome::Continue
    }

    fn paste(&mut self, text: &str) {
        if let Some(f) = &mut self.filter {
            f.push_str(&crate::sanitize::clean_line(text));
            self.selected = 0;
        }
    }
}
