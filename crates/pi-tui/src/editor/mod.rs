//! The prompt editor: multi-line text with a cursor, readline-style word
//! moves, kill and yank (with a kill ring), undo, prompt history, jump to a
//! character, and bracketed paste (large pastes stand in the text as a
//! `[paste #N …]` marker until the prompt is sent).

mod buffer;
mod view;

use ratatui::crossterm::event::KeyEvent;

pub use buffer::Buffer;
pub use view::{EditorView, layout};

use crate::keys::{Action, KeyId, Keybindings};
use crate::text;

/// Most prompts kept in the history.
pub const HISTORY_LIMIT: usize = 100;
/// A paste with more lines than this becomes a marker.
pub const PASTE_MAX_LINES: usize = 10;
/// A paste with more characters than this becomes a marker.
pub const PASTE_MAX_CHARS: usize = 1000;
/// Most entries of the kill ring.
pub const KILL_RING_LIMIT: usize = 30;
/// Most undo steps kept.
pub const UNDO_LIMIT: usize = 200;

/// What the last edit was (kills append to one entry; yank-pop follows a yank).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Other,
    Typing,
    Kill,
    Yank { start: (usize, usize), end: (usize, usize) },
}

/// A state undo goes back to.
#[derive(Debug, Clone)]
struct Snapshot {
    buffer: Buffer,
    pastes: Vec<(u32, String)>,
}

/// What the editor did with a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The key changed the editor (or moved the cursor).
    Handled,
    /// Enter: the text should be sent.
    Submit,
    /// Not an editor key.
    Ignored,
}

/// The prompt editor.
#[derive(Debug, Clone)]
pub struct Editor {
    buf: Buffer,
    kill_ring: Vec<String>,
    yank_index: usize,
    undo: Vec<Snapshot>,
    history: Vec<String>,
    browsing: Option<usize>,
    draft: Option<Buffer>,
    pastes: Vec<(u32, String)>,
    paste_counter: u32,
    last: Last,
    jump: Option<bool>,
    /// Width the editor was last drawn at (vertical moves follow wrapped lines).
    pub width: usize,
    /// Rows the editor may show (page moves).
    pub page: usize,
}

impl Default for Editor {
    fn default() -> Self {
        Editor::new()
    }
}

impl Editor {
    /// An empty editor.
    pub fn new() -> Editor {
        Editor {
            buf: Buffer::default(),
            kill_ring: Vec::new(),
            yank_index: 0,
            undo: Vec::new(),
            history: Vec::new(),
            browsing: None,
            draft: None,
            pastes: Vec::new(),
            paste_counter: 0,
            last: Last::Other,
            jump: None,
            width: 80,
            page: 5,
        }
    }

    /// The text as shown (paste markers included).
    pub fn text(&self) -> String {
        self.buf.text()
    }

    /// The text with paste markers replaced by what was pasted.
    pub fn expanded_text(&self) -> String {
        let mut t = self.text();
        for (id, content) in &self.pastes {
            if let Some(marker) = find_marker(&t, *id) {
                t = t.replacen(&marker, content, 1);
            }
        }
        t
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The buffer (lines and cursor).
    pub fn buffer(&self) -> &Buffer {
        &self.buf
    }

    /// Replace the text (cursor at the end); pastes are forgotten.
    pub fn set_text(&mut self, s: &str) {
        self.snapshot();
        self.buf = Buffer::from_text(s);
        self.pastes.clear();
        self.last = Last::Other;
        self.browsing = None;
    }

    /// Empty the editor (undo can bring the text back).
    pub fn clear(&mut self) {
        self.set_text("");
    }

    /// Insert text at the cursor as typed (no paste handling).
    pub fn insert(&mut self, s: &str) {
        self.snapshot();
        self.buf.insert(s);
        self.last = Last::Other;
    }

    /// Remember a sent prompt (no repeats, at most [`HISTORY_LIMIT`]).
    pub fn add_history(&mut self, s: &str) {
        let s = s.trim();
        if s.is_empty() || self.history.last().is_some_and(|l| l == s) {
            return;
        }
        self.history.push(s.to_string());
        if self.history.len() > HISTORY_LIMIT {
            self.history.remove(0);
        }
    }

    /// Whether a jump-to-character is waiting for its character.
    pub fn jump_pending(&self) -> bool {
        self.jump.is_some()
    }

    fn snapshot(&mut self) {
        self.undo.push(Snapshot { buffer: self.buf.clone(), pastes: self.pastes.clone() });
        if self.undo.len() > UNDO_LIMIT {
            self.undo.remove(0);
        }
    }

    fn kill(&mut self, killed: String, before: bool) {
        if killed.is_empty() {
            return;
        }
        if self.last == Last::Kill
            && let Some(top) = self.kill_ring.last_mut()
        {
            if before { top.insert_str(0, &killed) } else { top.push_str(&killed) }
        } else {
            self.kill_ring.push(killed);
            if self.kill_ring.len() > KILL_RING_LIMIT {
                self.kill_ring.remove(0);
            }
        }
        self.last = Last::Kill;
    }

    fn yank(&mut self) {
        let Some(text) = self.kill_ring.last().cloned() else { return };
        self.snapshot();
        let start = self.buf.cursor();
        self.buf.insert(&text);
        self.yank_index = self.kill_ring.len() - 1;
        self.last = Last::Yank { start, end: self.buf.cursor() };
    }

    fn yank_pop(&mut self) {
        let Last::Yank { start, end } = self.last else { return };
        if self.kill_ring.len() < 2 {
            return;
        }
        self.yank_index = if self.yank_index == 0 { self.kill_ring.len() - 1 } else { self.yank_index - 1 };
        let text = self.kill_ring[self.yank_index].clone();
        self.buf.delete_range(start, end);
        self.buf.insert(&text);
        self.last = Last::Yank { start, end: self.buf.cursor() };
    }

    fn undo(&mut self) {
        if let Some(s) = self.undo.pop() {
            self.buf = s.buffer;
            self.pastes = s.pastes;
        }
        self.last = Last::Other;
    }

    /// Type one character (consecutive typing is one undo step).
    pub fn type_char(&mut self, c: char) {
        if self.last != Last::Typing || c == ' ' {
            self.snapshot();
        }
        self.buf.insert_char(c);
        self.last = Last::Typing;
        self.browsing = None;
    }

    /// A bracketed paste: line endings normalised, control characters
    /// dropped; more than [`PASTE_MAX_LINES`] lines or [`PASTE_MAX_CHARS`]
    /// characters become a marker.
    pub fn paste(&mut self, raw: &str) {
        let normalized = raw.replace("\r\n", "\n").replace('\r', "\n").replace('\t', "    ");
        let mut clean: String = normalized.chars().filter(|c| *c == '\n' || !c.is_control()).collect();
        if clean.starts_with(['/', '~', '.']) && self.buf.char_before().is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            clean.insert(0, ' ');
        }
        self.snapshot();
        self.last = Last::Other;
        let lines = clean.split('\n').count();
        let chars = clean.chars().count();
        if lines > PASTE_MAX_LINES || chars > PASTE_MAX_CHARS {
            self.paste_counter += 1;
            let marker = if lines > PASTE_MAX_LINES {
                text::paste_marker_lines(self.paste_counter, lines)
            } else {
                text::paste_marker_chars(self.paste_counter, chars)
            };
            self.pastes.push((self.paste_counter, clean));
            self.buf.insert(&marker);
        } else {
            self.buf.insert(&clean);
        }
    }

    fn history_move(&mut self, older: bool) -> bool {
        if self.history.is_empty() {
            return false;
        }
        let next = match (self.browsing, older) {
            (None, true) => Some(self.history.len() - 1),
            (None, false) => return false,
            (Some(0), true) => Some(0),
            (Some(i), true) => Some(i - 1),
            (Some(i), false) if i + 1 < self.history.len() => Some(i + 1),
            (Some(_), false) => None,
        };
        if self.browsing.is_none() {
            self.draft = Some(self.buf.clone());
        }
        match next {
            Some(i) => {
                self.buf = Buffer::from_text(&self.history[i]);
                if older {
                    self.buf.move_to_start();
                }
            }
            None => self.buf = self.draft.take().unwrap_or_default(),
        }
        self.browsing = next;
        true
    }

    fn vertical(&mut self, up: bool) {
        let moved = self.buf.move_visual(up, self.width);
        if !moved {
            self.history_move(up);
        }
    }

    /// Handle a key; app-level keys are checked before this.
    pub fn handle_key(&mut self, ev: &KeyEvent, kb: &Keybindings) -> Outcome {
        let Some(press) = KeyId::from_event(ev) else { return Outcome::Ignored };
        if let Some(forward) = self.jump.take() {
            if let crate::keys::Key::Char(c) = press.key {
                self.buf.jump_to(c, forward);
            }
            return Outcome::Handled;
        }
        let is = |a: Action| kb.matches(a, &press);
        let before = self.last;
        self.last = Last::Other;
        match () {
            _ if is(Action::Submit) => return Outcome::Submit,
            _ if is(Action::NewLine) => {
                self.snapshot();
                self.buf.insert_char('\n');
            }
            _ if is(Action::HistoryPrevious) => {
                self.history_move(true);
            }
            _ if is(Action::HistoryNext) => {
                self.history_move(false);
            }
            _ if is(Action::CursorUp) => self.vertical(true),
            _ if is(Action::CursorDown) => self.vertical(false),
            _ if is(Action::CursorWordLeft) => self.buf.word_left(),
            _ if is(Action::CursorWordRight) => self.buf.word_right(),
            _ if is(Action::CursorLeft) => self.buf.left(),
            _ if is(Action::CursorRight) => self.buf.right(),
            _ if is(Action::CursorLineStart) => self.buf.line_start(),
            _ if is(Action::CursorLineEnd) => self.buf.line_end(),
            _ if is(Action::JumpForward) => self.jump = Some(true),
            _ if is(Action::JumpBackward) => self.jump = Some(false),
            _ if is(Action::EditorPageUp) => self.page_move(true),
            _ if is(Action::EditorPageDown) => self.page_move(false),
            _ if is(Action::DeleteCharBackward) => {
                self.snapshot();
                self.buf.backspace();
                self.drop_broken_markers();
            }
            _ if is(Action::DeleteCharForward) => {
                self.snapshot();
                self.buf.delete_forward();
                self.drop_broken_markers();
            }
            _ if is(Action::DeleteWordBackward) => self.kill_with(|b| b.kill_word_back(), true, before),
            _ if is(Action::DeleteWordForward) => self.kill_with(|b| b.kill_word_forward(), false, before),
            _ if is(Action::DeleteToLineStart) => self.kill_with(|b| b.kill_to_start(), true, before),
            _ if is(Action::DeleteToLineEnd) => self.kill_with(|b| b.kill_to_end(), false, before),
            _ if is(Action::Yank) => self.yank(),
            _ if is(Action::YankPop) => {
                self.last = before;
                self.yank_pop();
            }
            _ if is(Action::Undo) => self.undo(),
            _ => match press.key {
                crate::keys::Key::Char(c) if !press.ctrl && !press.alt && !press.super_ => {
                    self.last = before;
                    let c = if press.shift { c.to_uppercase().next().unwrap_or(c) } else { c };
                    self.type_char(c);
                }
                _ => {
                    self.last = before;
                    return Outcome::Ignored;
                }
            },
        }
        Outcome::Handled
    }

    fn page_move(&mut self, up: bool) {
        for _ in 0..self.page {
            if !self.buf.move_visual(up, self.width) {
                break;
            }
        }
    }

    fn kill_with(&mut self, f: impl FnOnce(&mut Buffer) -> String, before_cursor: bool, last: Last) {
        self.snapshot();
        let killed = f(&mut self.buf);
        self.last = last;
        self.kill(killed, before_cursor);
        self.drop_broken_markers();
    }

    /// Forget pastes whose marker is no longer in the text.
    fn drop_broken_markers(&mut self) {
        let t = self.text();
        self.pastes.retain(|(id, _)| find_marker(&t, *id).is_some());
    }

    /// Replace the `len` bytes before the cursor on its line with `with`
    /// (accepting a completion).
    pub fn replace_before_cursor(&mut self, len: usize, with: &str) {
        self.snapshot();
        self.buf.replace_before(len, with);
        self.last = Last::Other;
    }
}

/// The marker of paste `id` in `t`, if present.
fn find_marker(t: &str, id: u32) -> Option<String> {
    let head = format!("[paste #{id}");
    let start = t.find(&head)?;
    let rest = &t[start + head.len()..];
    let end = rest.find(']')?;
    let tail = &rest[..end];
    let ok = tail.is_empty()
        || tail.strip_prefix(" +").and_then(|x| x.strip_suffix(" lines")).is_some_and(|n| n.parse::<u64>().is_ok())
        || tail.strip_prefix(' ').and_then(|x| x.strip_suffix(" chars")).is_some_and(|n| n.parse::<u64>().is_ok());
    ok.then(|| format!("{head}{tail}]"))
}

#[cfg(test)]
mod tests;
