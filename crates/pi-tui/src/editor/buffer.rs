//! Lines of text and a cursor, with the moves and deletions the editor needs.
//! Columns are byte offsets kept on character boundaries.

use super::view::layout;

/// Lines and a cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    lines: Vec<String>,
    row: usize,
    col: usize,
}

impl Default for Buffer {
    fn default() -> Self {
        Buffer { lines: vec![String::new()], row: 0, col: 0 }
    }
}

/// Word characters for moves and deletions: letters, digits, `_`.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The class of a character for word moves: space, word, punctuation.
fn class(c: char) -> u8 {
    if c.is_whitespace() {
        0
    } else if is_word(c) {
        1
    } else {
        2
    }
}

impl Buffer {
    /// A buffer holding `s`, the cursor at its end.
    pub fn from_text(s: &str) -> Buffer {
        let lines: Vec<String> = s.split('\n').map(String::from).collect();
        let row = lines.len() - 1;
        let col = lines[row].len();
        Buffer { lines, row, col }
    }

    /// The text.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// The lines.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    /// The cursor: line and byte column.
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    /// The current line up to the cursor.
    pub fn before_cursor(&self) -> &str {
        &self.lines[self.row][..self.col]
    }

    /// The character before the cursor on its line.
    pub fn char_before(&self) -> Option<char> {
        self.before_cursor().chars().next_back()
    }

    fn line(&self) -> &str {
        &self.lines[self.row]
    }

    /// Put the cursor at the very start.
    pub fn move_to_start(&mut self) {
        self.row = 0;
        self.col = 0;
    }

    /// Insert a character at the cursor.
    pub fn insert_char(&mut self, c: char) {
        if c == '\n' {
            let rest = self.lines[self.row].split_off(self.col);
            self.lines.insert(self.row + 1, rest);
            self.row += 1;
            self.col = 0;
        } else {
            self.lines[self.row].insert(self.col, c);
            self.col += c.len_utf8();
        }
    }

    /// Insert text at the cursor.
    pub fn insert(&mut self, s: &str) {
        let mut parts = s.split('\n');
        if let Some(first) = parts.next() {
            self.lines[self.row].insert_str(self.col, first);
            self.col += first.len();
        }
        for p in parts {
            self.insert_char('\n');
            self.lines[self.row].insert_str(0, p);
            self.col = p.len();
        }
    }

    /// Delete between two positions (`a` before `b`); the cursor goes to `a`.
    pub fn delete_range(&mut self, a: (usize, usize), b: (usize, usize)) -> String {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let text = self.text();
        let offset = |(r, c): (usize, usize)| self.lines[..r].iter().map(|l| l.len() + 1).sum::<usize>() + c;
        let (start, end) = (offset(a).min(text.len()), offset(b).min(text.len()));
        let removed = text[start..end].to_string();
        let mut rest = text[..start].to_string();
        rest.push_str(&text[end..]);
        *self = Buffer::from_text(&rest);
        self.row = a.0.min(self.lines.len() - 1);
        self.col = a.1.min(self.lines[self.row].len());
        removed
    }

    /// Move left one character (to the previous line's end at the start).
    pub fn left(&mut self) {
        if let Some(c) = self.char_before() {
            self.col -= c.len_utf8();
        } else if self.row > 0 {
            self.row -= 1;
            self.col = self.line().len();
        }
    }

    /// Move right one character.
    pub fn right(&mut self) {
        if let Some(c) = self.line()[self.col..].chars().next() {
            self.col += c.len_utf8();
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = 0;
        }
    }

    /// Start of the line.
    pub fn line_start(&mut self) {
        self.col = 0;
    }

    /// End of the line.
    pub fn line_end(&mut self) {
        self.col = self.line().len();
    }

    /// The column a word move backwards stops at on the current line: over
    /// spaces, then over one run of word or punctuation characters.
    fn word_start_before(&self) -> usize {
        let before = &self.line()[..self.col];
        let mut idx = self.col;
        let mut it = before.char_indices().rev().peekable();
        while let Some(&(i, c)) = it.peek() {
            if class(c) != 0 {
                break;
            }
            idx = i;
            it.next();
        }
        let Some(&(_, first)) = it.peek() else { return idx };
        let k = class(first);
        while let Some(&(i, c)) = it.peek() {
            if class(c) != k {
                break;
            }
            idx = i;
            it.next();
        }
        idx
    }

    /// The column a word move forwards stops at on the current line.
    fn word_end_after(&self) -> usize {
        let line = self.line();
        let mut it = line[self.col..].char_indices().peekable();
        while it.peek().is_some_and(|(_, c)| class(*c) == 0) {
            it.next();
        }
        let Some(&(_, first)) = it.peek() else { return line.len() };
        let k = class(first);
        for (i, c) in it {
            if class(c) != k {
                return self.col + i;
            }
        }
        line.len()
    }

    /// Move one word left (to the previous line at its start).
    pub fn word_left(&mut self) {
        if self.col == 0 {
            self.left();
            return;
        }
        self.col = self.word_start_before();
    }

    /// Move one word right.
    pub fn word_right(&mut self) {
        if self.col == self.line().len() {
            self.right();
            return;
        }
        self.col = self.word_end_after();
    }

    /// Delete the character before the cursor (joining lines at the start).
    pub fn backspace(&mut self) {
        if let Some(c) = self.char_before() {
            self.col -= c.len_utf8();
            self.lines[self.row].remove(self.col);
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.line().len();
            self.lines[self.row].push_str(&line);
        }
    }

    /// Delete the character under the cursor (joining lines at the end).
    pub fn delete_forward(&mut self) {
        if self.col < self.line().len() {
            self.lines[self.row].remove(self.col);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
    }

    /// Delete the word before the cursor; the deleted text.
    pub fn kill_word_back(&mut self) -> String {
        if self.col == 0 {
            if self.row == 0 {
                return String::new();
            }
            self.backspace();
            return "\n".to_string();
        }
        let start = self.word_start_before();
        let killed = self.lines[self.row][start..self.col].to_string();
        self.lines[self.row].replace_range(start..self.col, "");
        self.col = start;
        killed
    }

    /// Delete the word after the cursor.
    pub fn kill_word_forward(&mut self) -> String {
        if self.col == self.line().len() {
            if self.row + 1 >= self.lines.len() {
                return String::new();
            }
            self.delete_forward();
            return "\n".to_string();
        }
        let end = self.word_end_after();
        let killed = self.lines[self.row][self.col..end].to_string();
        self.lines[self.row].replace_range(self.col..end, "");
        killed
    }

    /// Delete to the line's start (at the start: the line break before).
    pub fn kill_to_start(&mut self) -> String {
        if self.col == 0 {
            if self.row == 0 {
                return String::new();
            }
            self.backspace();
            return "\n".to_string();
        }
        let killed: String = self.lines[self.row].drain(..self.col).collect();
        self.col = 0;
        killed
    }

    /// Delete to the line's end (at the end: the line break after).
    pub fn kill_to_end(&mut self) -> String {
        if self.col == self.line().len() {
            if self.row + 1 >= self.lines.len() {
                return String::new();
            }
            self.delete_forward();
            return "\n".to_string();
        }
        self.lines[self.row].split_off(self.col)
    }

    /// Move to the next (or previous) `c` in the text.
    pub fn jump_to(&mut self, c: char, forward: bool) {
        if forward {
            for r in self.row..self.lines.len() {
                let from = if r == self.row {
                    self.col + self.line()[self.col..].chars().next().map_or(0, char::len_utf8)
                } else {
                    0
                };
                if let Some(i) = self.lines[r].get(from..).and_then(|s| s.find(c)) {
                    self.row = r;
                    self.col = from + i;
                    return;
                }
            }
        } else {
            for r in (0..=self.row).rev() {
                let upto = if r == self.row { self.col } else { self.lines[r].len() };
                if let Some(i) = self.lines[r][..upto].rfind(c) {
                    self.row = r;
                    self.col = i;
                    return;
                }
            }
        }
    }

    /// Move up or down one wrapped line at `width`; false at the first (last) line.
    pub fn move_visual(&mut self, up: bool, width: usize) -> bool {
        let rows = layout(&self.lines, width);
        let Some(at) = rows.iter().position(|v| v.row == self.row && v.contains(self.col)) else { return false };
        let target = if up { at.checked_sub(1) } else { Some(at + 1).filter(|t| *t < rows.len()) };
        let Some(t) = target else { return false };
        let here = &rows[at];
        let column = crate::lines::width(&self.lines[here.row][here.start..self.col]);
        let dest = &rows[t];
        let line = &self.lines[dest.row];
        let mut col = dest.start;
        let mut w = 0;
        for (i, c) in line[dest.start..dest.end].char_indices() {
            let cw = crate::lines::char_width(c);
            if w + cw > column {
                break;
            }
            w += cw;
            col = dest.start + i + c.len_utf8();
        }
        self.row = dest.row;
        self.col = col.min(dest.end);
        true
    }

    /// Replace the `len` bytes before the cursor with `with`.
    pub fn replace_before(&mut self, len: usize, with: &str) {
        let start = self.col.saturating_sub(len);
        let start = (0..=start).rev().find(|i| self.line().is_char_boundary(*i)).unwrap_or(0);
        self.lines[self.row].replace_range(start..self.col, "");
        self.col = start;
        self.insert(with);
    }
}
