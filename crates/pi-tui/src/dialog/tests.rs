use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::keys::Keybindings;

fn press(d: &mut dyn Dialog, code: KeyCode) -> Outcome {
    d.key(&KeyEvent::new(code, KeyModifiers::NONE), &Keybindings::defaults())
}

fn text(d: &mut dyn Dialog, width: usize) -> Vec<String> {
    let theme = crate::theme::Theme::dark(true);
    let keys = Keybindings::defaults();
    d.lines(width, &DialogCtx { theme: &theme, keys: &keys }).iter().map(crate::lines::plain).collect()
}

#[test]
fn select_moves_wraps_and_answers() {
    let mut d = SelectDialog::simple("Pick a color", &["red".into(), "green".into(), "blue".into()]);
    assert_eq!(press(&mut d, KeyCode::Up), Outcome::Continue);
    assert_eq!(press(&mut d, KeyCode::Enter), Outcome::Close(Answer::Index(2)));
    assert_eq!(press(&mut d, KeyCode::Esc), Outcome::Close(Answer::Cancel));
    let lines = text(&mut d, 60);
    assert_eq!(lines[1], " Pick a color");
    assert!(lines.contains(&" → blue".to_string()), "{lines:?}");
    assert!(lines.last().is_some_and(|l| l.is_empty()));
    assert!(lines.iter().any(|l| l.contains("↑↓ navigate  enter select  escape/ctrl+c cancel")));
}

#[test]
fn filtering_narrows_the_list() {
    let mut d = SelectDialog::simple("m", &["alpha".into(), "beta".into(), "gamma".into()]).filterable();
    d.paste("mm");
    assert_eq!(press(&mut d, KeyCode::Enter), Outcome::Close(Answer::Index(2)));
    press(&mut d, KeyCode::Char('x'));
    assert!(text(&mut d, 40).iter().any(|l| l.contains("No matches")));
}

#[test]
fn input_and_editor_dialogs_return_text() {
    let mut d = InputDialog::new("Your name", Some("type here"));
    assert!(text(&mut d, 40).iter().any(|l| l.contains("type here")));
    for c in "bob".chars() {
        press(&mut d, KeyCode::Char(c));
    }
    assert_eq!(press(&mut d, KeyCode::Enter), Outcome::Close(Answer::Text("bob".into())));
    let mut e = EditorDialog::new("Notes", Some("a"));
    e.key(&KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL), &Keybindings::defaults());
    press(&mut e, KeyCode::Char('b'));
    assert_eq!(press(&mut e, KeyCode::Enter), Outcome::Close(Answer::Text("a\nb".into())));
}

#[test]
fn titles_from_extensions_are_sanitised() {
    let mut d = SelectDialog::simple("evil\x1b]0;title\x07 \x1b[2Jq", &["o\x1b[31mk".into()]);
    let lines = text(&mut d, 40);
    assert!(lines.iter().all(|l| !l.contains('\x1b')), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("evil q")));
}
