//! Key presses as the bytes a terminal sends (legacy xterm encoding, kitty's
//! CSI-u for keys that have none), for extension components written against
//! pi-tui's `handleInput(data)`.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The xterm modifier parameter: 1 + shift + 2·alt + 4·ctrl.
fn modifier_param(m: KeyModifiers) -> u8 {
    1 + u8::from(m.contains(KeyModifiers::SHIFT))
        + 2 * u8::from(m.contains(KeyModifiers::ALT))
        + 4 * u8::from(m.contains(KeyModifiers::CONTROL))
}

/// `ESC [ <n> ~` or `ESC [ <n> ; <m> ~`.
fn tilde(n: u8, m: KeyModifiers) -> String {
    match modifier_param(m) {
        1 => format!("\x1b[{n}~"),
        p => format!("\x1b[{n};{p}~"),
    }
}

/// `ESC [ <c>` or `ESC [ 1 ; <m> <c>` (arrows, home, end).
fn letter(c: char, m: KeyModifiers) -> String {
    match modifier_param(m) {
        1 => format!("\x1b[{c}"),
        p => format!("\x1b[1;{p}{c}"),
    }
}

/// The bytes of a key press.
pub fn key_data(ev: &KeyEvent) -> String {
    let m = ev.modifiers;
    let alt = m.contains(KeyModifiers::ALT);
    let prefix = if alt { "\x1b" } else { "" };
    match ev.code {
        KeyCode::Char(c) if m.contains(KeyModifiers::CONTROL) && c.is_ascii_alphabetic() => {
            format!("{prefix}{}", ((c.to_ascii_lowercase() as u8) - b'a' + 1) as char)
        }
        KeyCode::Char(c) if m.contains(KeyModifiers::CONTROL) => format!("\x1b[{};{}u", c as u32, modifier_param(m)),
        KeyCode::Char(c) => format!("{prefix}{c}"),
        KeyCode::Enter if m.intersects(KeyModifiers::SHIFT | KeyModifiers::CONTROL) => {
            format!("\x1b[13;{}u", modifier_param(m))
        }
        KeyCode::Enter => format!("{prefix}\r"),
        KeyCode::Tab => format!("{prefix}\t"),
        KeyCode::BackTab => "\x1b[Z".to_string(),
        KeyCode::Backspace => format!("{prefix}\x7f"),
        KeyCode::Esc => "\x1b".to_string(),
        KeyCode::Up => letter('A', m),
        KeyCode::Down => letter('B', m),
        KeyCode::Right => letter('C', m),
        KeyCode::Left => letter('D', m),
        KeyCode::Home => letter('H', m),
        KeyCode::End => letter('F', m),
        KeyCode::Insert => tilde(2, m),
        KeyCode::Delete => tilde(3, m),
        KeyCode::PageUp => tilde(5, m),
        KeyCode::PageDown => tilde(6, m),
        KeyCode::F(n @ 1..=4) => format!("\x1bO{}", (b'P' + n - 1) as char),
        KeyCode::F(n) => match n {
            5 => tilde(15, m),
            6..=10 => tilde(n + 11, m),
            11 | 12 => tilde(n + 12, m),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode, m: KeyModifiers) -> String {
        key_data(&KeyEvent::new(code, m))
    }

    #[test]
    fn legacy_bytes() {
        assert_eq!(k(KeyCode::Char('c'), KeyModifiers::CONTROL), "\x03");
        assert_eq!(k(KeyCode::Char('x'), KeyModifiers::ALT), "\x1bx");
        assert_eq!(k(KeyCode::Up, KeyModifiers::NONE), "\x1b[A");
        assert_eq!(k(KeyCode::Up, KeyModifiers::SHIFT | KeyModifiers::CONTROL), "\x1b[1;6A");
        assert_eq!(k(KeyCode::Enter, KeyModifiers::NONE), "\r");
        assert_eq!(k(KeyCode::Enter, KeyModifiers::SHIFT), "\x1b[13;2u");
        assert_eq!(k(KeyCode::PageDown, KeyModifiers::NONE), "\x1b[6~");
        assert_eq!(k(KeyCode::F(1), KeyModifiers::NONE), "\x1bOP");
        assert_eq!(k(KeyCode::F(12), KeyModifiers::NONE), "\x1b[24~");
    }
}
