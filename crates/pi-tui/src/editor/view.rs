//! How the editor's text wraps and what it draws: its visible rows with the
//! cursor shown as a reversed cell.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::Editor;
use crate::lines::char_width;

/// One wrapped row of a line: bytes `start..end` of line `row`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VisualRow {
    /// The line.
    pub row: usize,
    /// First byte.
    pub start: usize,
    /// End byte.
    pub end: usize,
    /// Whether it is the line's last row (the cursor may sit at its end).
    pub last: bool,
}

impl VisualRow {
    /// Whether the cursor at byte `col` of the line is on this row.
    pub fn contains(&self, col: usize) -> bool {
        col >= self.start && (col < self.end || (self.last && col == self.end))
    }
}

/// The wrapped rows of `lines` at `width` columns. One column stays free at
/// the end of a row for the cursor.
pub fn layout(lines: &[String], width: usize) -> Vec<VisualRow> {
    let room = width.saturating_sub(1).max(1);
    let mut out = Vec::new();
    for (row, line) in lines.iter().enumerate() {
        let mut start = 0;
        let mut w = 0;
        for (i, c) in line.char_indices() {
            let cw = char_width(c);
            if w + cw > room && i > start {
                out.push(VisualRow { row, start, end: i, last: false });
                start = i;
                w = 0;
            }
            w += cw;
        }
        out.push(VisualRow { row, start, end: line.len(), last: true });
    }
    out
}

/// What the editor draws.
#[derive(Debug, Clone)]
pub struct EditorView {
    /// The visible rows.
    pub lines: Vec<Line<'static>>,
    /// The cursor: column and row within `lines`.
    pub cursor: (usize, usize),
    /// Rows above the visible ones.
    pub hidden_above: usize,
    /// Rows below the visible ones.
    pub hidden_below: usize,
}

impl Editor {
    /// Draw at `width` showing at most `max_rows` rows, the cursor visible.
    pub fn view(&self, width: usize, max_rows: usize, style: Style, show_cursor: bool) -> EditorView {
        let buf = self.buffer();
        let rows = layout(buf.lines(), width);
        let (crow, ccol) = buf.cursor();
        let at = rows.iter().position(|v| v.row == crow && v.contains(ccol)).unwrap_or(0);
        let max_rows = max_rows.max(1);
        let first = at.saturating_sub(max_rows - 1);
        let visible = &rows[first..rows.len().min(first + max_rows)];
        let mut lines = Vec::with_capacity(visible.len());
        let mut cursor = (0, 0);
        for (y, v) in visible.iter().enumerate() {
            let text = &buf.lines()[v.row][v.start..v.end];
            if first + y == at {
                let split = ccol - v.start;
                let (left, right) = text.split_at(split);
                let mut chars = right.chars();
                let under = chars.next();
                let rest: String = chars.collect();
                cursor = (crate::lines::width(left), y);
                let mut spans = vec![Span::styled(left.to_string(), style)];
                let cur_style = if show_cursor { style.add_modifier(Modifier::REVERSED) } else { style };
                spans.push(Span::styled(under.map_or(" ".to_string(), |c| c.to_string()), cur_style));
                spans.push(Span::styled(rest, style));
                lines.push(Line::from(spans));
            } else {
                lines.push(Line::from(Span::styled(text.to_string(), style)));
            }
        }
        EditorView {
            lines,
            cursor,
            hidden_above: first,
            hidden_below: rows.len().saturating_sub(first + visible.len()),
        }
    }
}
