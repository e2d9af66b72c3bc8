//! `/tree`'s navigator: the session's entries under one of several filters
//! (the reference's default, no-tools, user-only, labeled-only, all),
//! switched inside the dialog with the `app.tree.filter.*` keys; typing
//! filters the rows; the answer is the chosen row's value (an entry id), or
//! a label typed for the selected row (`app.tree.editLabel`).

use ratatui::crossterm::event::KeyEvent;
use ratatui::text::Line;

use super::{Answer, Dialog, DialogCtx, Outcome, SelectDialog, SelectItem};
use crate::host::TreeView;
use crate::keys::{Action, KeyId, Keybindings};
use crate::lines::styled;
use crate::theme::Token;

/// The navigator.
pub struct TreeDialog {
    title: String,
    views: Vec<TreeView>,
    view: usize,
    list: SelectDialog,
    /// A label being typed: (the entry, the text so far).
    labelling: Option<(String, String)>,
}

/// The navigator's answer as the host reads it: an entry chosen, a label
/// typed, or nothing.
pub fn tree_answer(a: Answer) -> crate::host::DialogAnswer {
    use crate::host::DialogAnswer;
    match a {
        Answer::Text(id) => DialogAnswer::Value(id),
        Answer::Value(v) => match v["entry"].as_str() {
            Some(entry) => DialogAnswer::Label {
                entry: entry.to_string(),
                label: v["label"].as_str().map(str::to_string),
                view: v["view"].as_u64().unwrap_or(0) as usize,
            },
            None => DialogAnswer::Cancelled,
        },
        _ => DialogAnswer::Cancelled,
    }
}

impl TreeDialog {
    /// `views` in the order the cycle keys go through; `view` shown first.
    pub fn new(title: &str, views: Vec<TreeView>, view: usize) -> TreeDialog {
        let view = view.min(views.len().saturating_sub(1));
        let list = SelectDialog::new(title, Vec::new());
        let mut d = TreeDialog { title: title.to_string(), views, view, list, labelling: None };
        d.show(view, None, String::new());
        d
    }

    /// Show view `n`, on the row of `keep` when it has one, with the typed `search`.
    fn show(&mut self, n: usize, keep: Option<String>, search: String) {
        let Some(v) = self.views.get(n) else { return };
        self.view = n;
        let at = keep.and_then(|id| v.values.iter().position(|x| *x == id)).unwrap_or(v.start);
        let items = v.labels.iter().map(SelectItem::new).collect();
        let mut list = SelectDialog::new(&self.title, items).filterable().with_search(&search);
        if search.is_empty() {
            list = list.selected(at);
        }
        self.list = list;
    }

    /// The view a key asks for (`None`: not a filter key).
    fn wanted(&self, press: &KeyId, keys: &Keybindings) -> Option<usize> {
        let n = self.views.len().max(1);
        let toggle = |to: usize| if self.view == to { 0 } else { to };
        if keys.matches(Action::TreeFilterDefault, press) {
            Some(0)
        } else if keys.matches(Action::TreeFilterNoTools, press) {
            Some(toggle(1))
        } else if keys.matches(Action::TreeFilterUserOnly, press) {
            Some(toggle(2))
        } else if keys.matches(Action::TreeFilterLabeledOnly, press) {
            Some(toggle(3))
        } else if keys.matches(Action::TreeFilterAll, press) {
            Some(toggle(4))
        } else if keys.matches(Action::TreeFilterCycleBackward, press) {
            Some((self.view + n - 1) % n)
        } else if keys.matches(Action::TreeFilterCycleForward, press) {
            Some((self.view + 1) % n)
        } else {
            None
        }
    }
}

impl TreeDialog {
    /// A key while a label is typed: enter answers it (empty: removed),
    /// the cancel key goes back to the list.
    fn label_key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        let Some(press) = KeyId::from_event(ev) else { return Outcome::Continue };
        let Some((entry, text)) = self.labelling.as_mut() else { return Outcome::Continue };
        if keys.matches(Action::SelectCancel, &press) {
            self.labelling = None;
        } else if keys.matches(Action::SelectConfirm, &press) {
            let label = Some(text.trim().to_string()).filter(|l| !l.is_empty());
            let answer = serde_json::json!({"entry": entry, "label": label, "view": self.view});
            return Outcome::Close(Answer::Value(answer));
        } else {
            match press.key {
                crate::keys::Key::Backspace => {
                    text.pop();
                }
                crate::keys::Key::Char(c) if !press.ctrl && !press.alt => {
                    text.push(if press.shift { c.to_ascii_uppercase() } else { c });
                }
                _ => {}
            }
        }
        Outcome::Continue
    }
}

impl Dialog for TreeDialog {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        if let Some((_, text)) = &self.labelling {
            let th = ctx.theme;
            return vec![
                Line::default(),
                styled(format!(" {}", crate::text::TREE_LABEL_PROMPT), th.style(Token::Dim)),
                Line::from(format!(" > {text}")),
                Line::default(),
                styled(format!(" {}", super::select_hint(ctx.keys, crate::text::VERB_SAVE)), th.style(Token::Dim)),
                Line::default(),
            ];
        }
        let tag = self.views.get(self.view).map(|v| v.tag.clone()).unwrap_or_default();
        if !tag.is_empty() {
            self.list.set_footer(vec![styled(tag, ctx.theme.style(Token::Dim))]);
        }
        self.list.lines(width, ctx)
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        if self.labelling.is_some() {
            return self.label_key(ev, keys);
        }
        if let Some(press) = KeyId::from_event(ev)
            && keys.matches(Action::TreeEditLabel, &press)
            && let Some(i) = self.list.current()
            && let Some(entry) = self.views[self.view].values.get(i)
        {
            self.labelling = Some((entry.clone(), self.views[self.view].current_label(i)));
            return Outcome::Continue;
        }
        if let Some(press) = KeyId::from_event(ev)
            && let Some(n) = self.wanted(&press, keys).filter(|n| *n < self.views.len())
        {
            let keep = self.list.current().and_then(|i| self.views[self.view].values.get(i).cloned());
            let search = self.list.search().to_string();
            self.show(n, keep, search);
            return Outcome::Continue;
        }
        match self.list.key(ev, keys) {
            Outcome::Close(Answer::Index(i)) => match self.views[self.view].values.get(i) {
                Some(v) => Outcome::Close(Answer::Text(v.clone())),
                None => Outcome::Continue,
            },
            other => other,
        }
    }

    fn paste(&mut self, text: &str) {
        match &mut self.labelling {
            Some((_, typed)) => typed.push_str(&crate::sanitize::clean_line(text)),
            None => self.list.paste(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    fn view(tag: &str, ids: &[&str], start: usize) -> TreeView {
        TreeView {
            tag: tag.to_string(),
            labels: ids.iter().map(|i| format!("row {i}")).collect(),
            values: ids.iter().map(|i| i.to_string()).collect(),
            start,
            entry_labels: ids.iter().map(|i| (*i == "a1").then(|| "old".to_string())).collect(),
        }
    }

    fn dialog() -> TreeDialog {
        TreeDialog::new(
            "Tree",
            vec![
                view("", &["u1", "a1", "t1", "u2"], 3),
                view("[no-tools]", &["u1", "a1", "u2"], 2),
                view("[user]", &["u1", "u2"], 1),
                view("[labeled]", &[], 0),
                view("[all]", &["s0", "u1", "a1", "t1", "u2"], 4),
            ],
            0,
        )
    }

    fn key(d: &mut TreeDialog, code: KeyCode, mods: KeyModifiers) -> Outcome {
        d.key(&KeyEvent::new(code, mods), &Keybindings::default())
    }

    #[test]
    fn filter_keys_switch_views_keeping_the_selected_entry_and_toggle_back() {
        let mut d = dialog();
        key(&mut d, KeyCode::Up, KeyModifiers::NONE); // t1
        key(&mut d, KeyCode::Up, KeyModifiers::NONE); // a1
        key(&mut d, KeyCode::Char('t'), KeyModifiers::CONTROL);
        assert_eq!(d.view, 1);
        assert_eq!(key(&mut d, KeyCode::Enter, KeyModifiers::NONE), Outcome::Close(Answer::Text("a1".into())));
        let mut d = dialog();
        key(&mut d, KeyCode::Char('u'), KeyModifiers::CONTROL);
        assert_eq!(d.view, 2);
        key(&mut d, KeyCode::Char('u'), KeyModifiers::CONTROL);
        assert_eq!(d.view, 0, "the same key again goes back to the default");
        key(&mut d, KeyCode::Char('a'), KeyModifiers::CONTROL);
        assert_eq!(d.view, 4);
        key(&mut d, KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(d.view, 0);
    }

    #[test]
    fn cycling_goes_round_both_ways_and_an_empty_view_answers_nothing() {
        let mut d = dialog();
        for want in [1, 2, 3, 4, 0] {
            key(&mut d, KeyCode::Char('o'), KeyModifiers::CONTROL);
            assert_eq!(d.view, want);
        }
        key(&mut d, KeyCode::Char('o'), KeyModifiers::CONTROL | KeyModifiers::SHIFT);
        assert_eq!(d.view, 4);
        key(&mut d, KeyCode::Char('l'), KeyModifiers::CONTROL);
        assert_eq!(d.view, 3);
        assert_eq!(key(&mut d, KeyCode::Enter, KeyModifiers::NONE), Outcome::Continue, "no row to choose");
        assert_eq!(key(&mut d, KeyCode::Esc, KeyModifiers::NONE), Outcome::Close(Answer::Cancel));
    }

    #[test]
    fn typed_text_stays_when_the_view_changes() {
        let mut d = dialog();
        key(&mut d, KeyCode::Char('u'), KeyModifiers::NONE);
        key(&mut d, KeyCode::Char('2'), KeyModifiers::NONE);
        key(&mut d, KeyCode::Char('t'), KeyModifiers::CONTROL);
        assert_eq!(d.list.search(), "u2");
        assert_eq!(key(&mut d, KeyCode::Enter, KeyModifiers::NONE), Outcome::Close(Answer::Text("u2".into())));
    }

    #[test]
    fn a_label_is_typed_for_the_selected_row_and_answered() {
        let mut d = dialog();
        key(&mut d, KeyCode::Up, KeyModifiers::NONE); // t1
        key(&mut d, KeyCode::Up, KeyModifiers::NONE); // a1, labelled "old"
        key(&mut d, KeyCode::Char('L'), KeyModifiers::SHIFT);
        assert_eq!(d.labelling, Some(("a1".to_string(), "old".to_string())), "editing starts from its label");
        for _ in 0..3 {
            key(&mut d, KeyCode::Backspace, KeyModifiers::NONE);
        }
        for c in "new".chars() {
            key(&mut d, KeyCode::Char(c), KeyModifiers::NONE);
        }
        let Outcome::Close(answer) = key(&mut d, KeyCode::Enter, KeyModifiers::NONE) else { panic!("no answer") };
        assert_eq!(
            tree_answer(answer),
            crate::host::DialogAnswer::Label { entry: "a1".into(), label: Some("new".into()), view: 0 }
        );
        // Emptied: the label goes; escape goes back to the list without an answer.
        let mut d = dialog();
        key(&mut d, KeyCode::Char('L'), KeyModifiers::SHIFT);
        assert_eq!(key(&mut d, KeyCode::Esc, KeyModifiers::NONE), Outcome::Continue);
        assert!(d.labelling.is_none());
        key(&mut d, KeyCode::Char('L'), KeyModifiers::SHIFT);
        let Outcome::Close(answer) = key(&mut d, KeyCode::Enter, KeyModifiers::NONE) else { panic!("no answer") };
        assert_eq!(tree_answer(answer), crate::host::DialogAnswer::Label { entry: "u2".into(), label: None, view: 0 });
    }
}
