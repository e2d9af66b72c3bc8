//! Markdown tables in box-drawing frames; a table too wide for the screen
//! is shown one row per line, cells separated by `│`, wrapped.

use pulldown_cmark::Alignment;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::lines::{self, styled};
use crate::theme::{Theme, Token};

fn cell_width(cell: &[Span<'static>]) -> usize {
    cell.iter().map(|s| lines::width(&s.content)).sum()
}

fn border(left: &str, mid: &str, right: &str, widths: &[usize], style: Style) -> Line<'static> {
    let inner: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
    styled(format!("{left}{}{right}", inner.join(mid)), style)
}

/// The lines of a table with `rows` (the first is the header) in `room` columns.
pub fn render(rows: &[Vec<Vec<Span<'static>>>], align: &[Alignment], room: usize, theme: &Theme) -> Vec<Line<'static>> {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    if cols == 0 {
        return Vec::new();
    }
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|cell| cell_width(cell)).max().unwrap_or(0))
        .collect();
    let frame = theme.style(Token::MdQuoteBorder);
    let total: usize = widths.iter().sum::<usize>() + 3 * cols + 1;
    if total > room {
        let sep = Span::styled(" │ ", frame);
        return rows
            .iter()
            .flat_map(|r| {
                let mut spans = Vec::new();
                for (i, cell) in r.iter().enumerate() {
                    if i > 0 {
                        spans.push(sep.clone());
                    }
                    spans.extend(cell.iter().cloned());
                }
                lines::wrap(&Line::from(spans), room)
            })
            .collect();
    }
    let mut out = vec![border("┌", "┬", "┐", &widths, frame)];
    for (i, r) in rows.iter().enumerate() {
        let mut spans = vec![Span::styled("│", frame)];
        for (c, w) in widths.iter().enumerate() {
            let empty = Vec::new();
            let cell = r.get(c).unwrap_or(&empty);
            let pad = w - cell_width(cell);
            let (before, after) = match align.get(c) {
                Some(Alignment::Right) => (pad, 0),
                Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                _ => (0, pad),
            };
            spans.push(Span::raw(" ".repeat(before + 1)));
            for s in cell {
                let st = if i == 0 { s.style.add_modifier(Modifier::BOLD) } else { s.style };
                spans.push(Span::styled(s.content.to_string(), st));
            }
            spans.push(Span::raw(" ".repeat(after + 1)));
            spans.push(Span::styled("│", frame));
        }
        out.push(Line::from(spans));
        if i == 0 && rows.len() > 1 {
            out.push(border("├", "┼", "┤", &widths, frame));
        }
    }
    out.push(border("└", "┴", "┘", &widths, frame));
    out
}
