use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;

use super::*;

fn press(e: &mut Editor, keys: &str) -> Vec<Outcome> {
    let kb = Keybindings::defaults();
    keys.split(' ')
        .map(|k| {
            let id = KeyId::parse(k).unwrap();
            let mut m = KeyModifiers::NONE;
            if id.ctrl {
                m |= KeyModifiers::CONTROL;
            }
            if id.alt {
                m |= KeyModifiers::ALT;
            }
            if id.shift {
                m |= KeyModifiers::SHIFT;
            }
            let code = match id.key {
                crate::keys::Key::Char(c) => KeyCode::Char(c),
                crate::keys::Key::Enter => KeyCode::Enter,
                crate::keys::Key::Backspace => KeyCode::Backspace,
                crate::keys::Key::Delete => KeyCode::Delete,
                crate::keys::Key::Left => KeyCode::Left,
                crate::keys::Key::Right => KeyCode::Right,
                crate::keys::Key::Up => KeyCode::Up,
                crate::keys::Key::Down => KeyCode::Down,
                crate::keys::Key::Home => KeyCode::Home,
                crate::keys::Key::End => KeyCode::End,
                other => panic!("{other:?}"),
            };
            e.handle_key(&KeyEvent::new(code, m), &kb)
        })
        .collect()
}

fn typed(s: &str) -> Editor {
    let mut e = Editor::new();
    for c in s.chars() {
        e.type_char(c);
    }
    e
}

#[test]
fn typing_and_new_lines() {
    let mut e = typed("hello");
    press(&mut e, "ctrl+j");
    for c in "wörld".chars() {
        e.type_char(c);
    }
    assert_eq!(e.text(), "hello\nwörld");
    assert_eq!(press(&mut e, "enter"), [Outcome::Submit]);
    press(&mut e, "left left backspace");
    assert_eq!(e.text(), "hello\nwöld");
    press(&mut e, "ctrl+a backspace");
    assert_eq!(e.text(), "hellowöld");
}

#[test]
fn word_moves_and_kills() {
    let mut e = typed("foo.bar baz  qux");
    press(&mut e, "alt+b");
    assert_eq!(e.buffer().cursor(), (0, 13));
    press(&mut e, "alt+b alt+b");
    assert_eq!(e.buffer().cursor(), (0, 4));
    press(&mut e, "alt+f");
    assert_eq!(e.buffer().cursor(), (0, 7));
    press(&mut e, "ctrl+e ctrl+w ctrl+w");
    assert_eq!(e.text(), "foo.bar ");
    // Consecutive kills are one entry of the kill ring.
    press(&mut e, "ctrl+y");
    assert_eq!(e.text(), "foo.bar baz  qux");
    press(&mut e, "ctrl+a ctrl+k");
    assert_eq!(e.text(), "");
    press(&mut e, "ctrl+y");
    assert_eq!(e.text(), "foo.bar baz  qux");
}

#[test]
fn yank_pop_cycles_the_kill_ring() {
    let mut e = typed("one two");
    press(&mut e, "ctrl+w left");
    press(&mut e, "ctrl+a ctrl+k");
    assert_eq!(e.text(), "");
    press(&mut e, "ctrl+y");
    assert_eq!(e.text(), "one ");
    press(&mut e, "alt+y");
    assert_eq!(e.text(), "two");
}

#[test]
fn undo_restores_earlier_states() {
    let mut e = typed("hello world");
    press(&mut e, "ctrl+w");
    assert_eq!(e.text(), "hello ");
    press(&mut e, "ctrl+-");
    assert_eq!(e.text(), "hello world");
    press(&mut e, "ctrl+-");
    assert_eq!(e.text(), "hello");
}

#[test]
fn history_browses_at_the_edges() {
    let mut e = Editor::new();
    e.add_history("first");
    e.add_history("second");
    e.add_history("second");
    for c in "draft".chars() {
        e.type_char(c);
    }
    press(&mut e, "up");
    assert_eq!(e.text(), "second");
    press(&mut e, "up up");
    assert_eq!(e.text(), "first");
    press(&mut e, "down");
    assert_eq!(e.text(), "second");
    press(&mut e, "down");
    assert_eq!(e.text(), "draft");
}

#[test]
fn large_pastes_become_markers_and_expand() {
    let mut e = typed("see ");
    let big: String = (0..20).map(|i| format!("line {i}\n")).collect();
    e.paste(&big);
    assert_eq!(e.text(), "see [paste #1 +21 lines]");
    assert_eq!(e.expanded_text(), format!("see {big}"));
    e.paste(&"x".repeat(1500));
    assert!(e.text().ends_with("[paste #2 1500 chars]"), "{}", e.text());
    e.paste("small\r\npaste\x07");
    assert!(e.text().ends_with("small\npaste"));
    // Deleting into a marker forgets its paste.
    let mut e = typed("a ");
    e.paste(&big);
    press(&mut e, "backspace");
    assert_eq!(e.expanded_text(), e.text());
}

#[test]
fn jump_to_a_character() {
    let mut e = typed("abcabc");
    press(&mut e, "ctrl+a ctrl+] c");
    assert_eq!(e.buffer().cursor(), (0, 2));
    press(&mut e, "ctrl+] c");
    assert_eq!(e.buffer().cursor(), (0, 5));
    press(&mut e, "ctrl+alt+] a");
    assert_eq!(e.buffer().cursor(), (0, 3));
}

#[test]
fn vertical_moves_follow_wrapped_rows() {
    let mut e = typed(&"x".repeat(25));
    e.width = 11;
    press(&mut e, "up");
    assert_eq!(e.buffer().cursor(), (0, 15));
    let v = e.view(11, 10, Style::default(), true);
    assert_eq!(v.lines.len(), 3);
}
