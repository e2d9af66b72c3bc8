//! Key names as `keybindings.json` writes them (`ctrl+shift+x`, `alt+enter`,
//! `pageUp`, `f5`, `ctrl+-`) and matching them against terminal key events,
//! including the legacy encodings terminals without the kitty keyboard
//! protocol send (`ctrl+-` arrives as `ctrl+_`, `ctrl+]` as `ctrl+5`).

mod bindings;
mod encode;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::InvalidKey;

pub use bindings::{Action, Keybindings};
pub use encode::key_data;

/// A key without modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A printable character (letters lower case).
    Char(char),
    /// Enter / Return.
    Enter,
    /// Escape.
    Escape,
    /// Tab.
    Tab,
    /// Backspace.
    Backspace,
    /// Delete.
    Delete,
    /// Insert.
    Insert,
    /// Clear (keypad 5).
    Clear,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// A function key, 1–12.
    F(u8),
}

/// A key with its modifiers: what a binding names and what a key press is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyId {
    /// The key.
    pub key: Key,
    /// Ctrl held.
    pub ctrl: bool,
    /// Shift held.
    pub shift: bool,
    /// Alt held.
    pub alt: bool,
    /// Super held.
    pub super_: bool,
}

/// Symbols a key name may be.
const SYMBOLS: &str = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?";

impl KeyId {
    /// A plain key.
    pub const fn plain(key: Key) -> KeyId {
        KeyId { key, ctrl: false, shift: false, alt: false, super_: false }
    }

    /// Parse `modifier+…+key` (case-insensitive names; `+` itself as the last part).
    pub fn parse(s: &str) -> Result<KeyId, InvalidKey> {
        let lower = s.trim().to_lowercase();
        let (mods, key) = match lower.strip_suffix("++") {
            Some(m) => (m, "+"),
            None if lower == "+" => ("", "+"),
            None => match lower.rsplit_once('+') {
                Some((m, k)) => (m, k),
                None => ("", lower.as_str()),
            },
        };
        let invalid = || InvalidKey { key: s.to_string() };
        let mut id = KeyId::plain(parse_key(key).ok_or_else(invalid)?);
        for m in mods.split('+').filter(|m| !m.is_empty()) {
            match m {
                "ctrl" | "control" => id.ctrl = true,
                "shift" => id.shift = true,
                "alt" | "meta" | "option" => id.alt = true,
                "super" | "cmd" | "command" => id.super_ = true,
                _ => return Err(invalid()),
            }
        }
        Ok(id)
    }

    /// The key press of a terminal event (letters lower case with `shift`).
    pub fn from_event(ev: &KeyEvent) -> Option<KeyId> {
        let m = ev.modifiers;
        let key = match ev.code {
            KeyCode::Char(' ') => Key::Char(' '),
            KeyCode::Char(c) => Key::Char(c),
            KeyCode::Enter => Key::Enter,
            KeyCode::Esc => Key::Escape,
            KeyCode::Tab => Key::Tab,
            KeyCode::BackTab => {
                return Some(KeyId { shift: true, ..KeyId::plain(Key::Tab) });
            }
            KeyCode::Backspace => Key::Backspace,
            KeyCode::Delete => Key::Delete,
            KeyCode::Insert => Key::Insert,
            KeyCode::KeypadBegin => Key::Clear,
            KeyCode::Home => Key::Home,
            KeyCode::End => Key::End,
            KeyCode::PageUp => Key::PageUp,
            KeyCode::PageDown => Key::PageDown,
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Left => Key::Left,
            KeyCode::Right => Key::Right,
            KeyCode::F(n) if (1..=12).contains(&n) => Key::F(n),
            _ => return None,
        };
        let mut id = KeyId {
            key,
            ctrl: m.contains(KeyModifiers::CONTROL),
            shift: m.contains(KeyModifiers::SHIFT),
            alt: m.contains(KeyModifiers::ALT) || m.contains(KeyModifiers::META),
            super_: m.contains(KeyModifiers::SUPER),
        };
        if let Key::Char(c) = id.key {
            if c.is_uppercase() {
                id.key = Key::Char(c.to_lowercase().next().unwrap_or(c));
                id.shift = true;
            } else if !c.is_alphabetic() && c != ' ' && !id.ctrl && !id.alt {
                // A shifted symbol (`?`, `!`) is its own key.
                id.shift = false;
            }
        }
        Some(id)
    }

    /// Whether this binding matches a key press, counting legacy encodings.
    pub fn matches(&self, press: &KeyId) -> bool {
        if self == press {
            return true;
        }
        legacy_alias(press).is_some_and(|alias| *self == alias)
    }

    /// How hints show it (`ctrl+o`, `shift+tab`).
    pub fn display(&self) -> String {
        let mut out = String::new();
        for (on, name) in [(self.ctrl, "ctrl+"), (self.shift, "shift+"), (self.alt, "alt+"), (self.super_, "super+")] {
            if on {
                out.push_str(name);
            }
        }
        out.push_str(&key_name(self.key));
        out
    }
}

/// The binding a legacy terminal's encoding of a press stands for: `ctrl+4`…`ctrl+7`
/// are the bytes `ctrl+\`, `ctrl+]`, `ctrl+^` and `ctrl+_` (`ctrl+-`, `ctrl+/`).
fn legacy_alias(press: &KeyId) -> Option<KeyId> {
    if !press.ctrl {
        return None;
    }
    let key = match press.key {
        Key::Char('4') => '\\',
        Key::Char('5') => ']',
        Key::Char('6') => '^',
        Key::Char('7') | Key::Char('_') | Key::Char('/') => '-',
        _ => return None,
    };
    Some(KeyId { key: Key::Char(key), ..*press })
}

fn parse_key(k: &str) -> Option<Key> {
    Some(match k {
        "escape" | "esc" => Key::Escape,
        "enter" | "return" => Key::Enter,
        "tab" => Key::Tab,
        "space" => Key::Char(' '),
        "backspace" => Key::Backspace,
        "delete" => Key::Delete,
        "insert" => Key::Insert,
        "clear" => Key::Clear,
        "home" => Key::Home,
        "end" => Key::End,
        "pageup" => Key::PageUp,
        "pagedown" => Key::PageDown,
        "up" => Key::Up,
        "down" => Key::Down,
        "left" => Key::Left,
        "right" => Key::Right,
        f if f.starts_with('f') && f.len() > 1 => Key::F(f[1..].parse().ok().filter(|n| (1..=12).contains(n))?),
        c if c.chars().count() == 1 => {
            let ch = c.chars().next()?;
            if ch.is_ascii_lowercase() || ch.is_ascii_digit() || SYMBOLS.contains(ch) {
                Key::Char(ch)
            } else {
                return None;
            }
        }
        _ => return None,
    })
}

fn key_name(k: Key) -> String {
    match k {
        Key::Char(' ') => "space".into(),
        Key::Char(c) => c.to_string(),
        Key::Enter => "enter".into(),
        Key::Escape => "escape".into(),
        Key::Tab => "tab".into(),
        Key::Backspace => "backspace".into(),
        Key::Delete => "delete".into(),
        Key::Insert => "insert".into(),
        Key::Clear => "clear".into(),
        Key::Home => "home".into(),
        Key::End => "end".into(),
        Key::PageUp => "pageUp".into(),
        Key::PageDown => "pageDown".into(),
        Key::Up => "up".into(),
        Key::Down => "down".into(),
        Key::Left => "left".into(),
        Key::Right => "right".into(),
        Key::F(n) => format!("f{n}"),
    }
}

/// A key name with each part capitalised (`Ctrl+Shift+P`, `PageUp`), as `/hotkeys` shows it.
pub(crate) fn key_name_title(s: &str) -> String {
    s.split('+')
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(code: KeyCode, m: KeyModifiers) -> KeyId {
        KeyId::from_event(&KeyEvent::new(code, m)).unwrap()
    }

    #[test]
    fn names_parse_and_display() {
        for s in ["ctrl+shift+x", "alt+enter", "pageUp", "f5", "ctrl+-", "shift+tab", "super+k", "ctrl+]", "escape"] {
            assert_eq!(KeyId::parse(s).unwrap().display(), s);
        }
        assert_eq!(KeyId::parse("Esc").unwrap(), KeyId::plain(Key::Escape));
        assert_eq!(KeyId::parse("ctrl++").unwrap().key, Key::Char('+'));
        assert!(KeyId::parse("hyper+x").is_err());
        assert!(KeyId::parse("f13").is_err());
        assert!(KeyId::parse("ctrl+é").is_err());
    }

    #[test]
    fn presses_match_bindings() {
        let b = |s: &str| KeyId::parse(s).unwrap();
        assert!(b("ctrl+c").matches(&ev(KeyCode::Char('c'), KeyModifiers::CONTROL)));
        assert!(b("shift+a").matches(&ev(KeyCode::Char('A'), KeyModifiers::SHIFT)));
        assert!(b("?").matches(&ev(KeyCode::Char('?'), KeyModifiers::SHIFT)));
        assert!(b("shift+tab").matches(&ev(KeyCode::BackTab, KeyModifiers::SHIFT)));
        assert!(b("alt+enter").matches(&ev(KeyCode::Enter, KeyModifiers::ALT)));
        // Legacy terminals: ctrl+- is the byte 0x1f, which crossterm reports as ctrl+7.
        assert!(b("ctrl+-").matches(&ev(KeyCode::Char('7'), KeyModifiers::CONTROL)));
        assert!(b("ctrl+]").matches(&ev(KeyCode::Char('5'), KeyModifiers::CONTROL)));
        assert!(b("ctrl+alt+]").matches(&ev(KeyCode::Char('5'), KeyModifiers::CONTROL | KeyModifiers::ALT)));
        assert!(!b("ctrl+c").matches(&ev(KeyCode::Char('c'), KeyModifiers::NONE)));
    }
}
