//! The regular mode's writer: finished lines are printed once into the
//! terminal's scrollback; the live part at the bottom is redrawn cell by
//! cell where it changed. Every line is already sanitised; only styling and
//! cursor moves we make reach the terminal.

use std::io::{self, Write};

use ratatui::backend::{Backend, CrosstermBackend, IntoCrossterm};
use ratatui::buffer::Buffer;
use ratatui::crossterm::cursor::MoveTo;
use ratatui::crossterm::queue;
use ratatui::crossterm::style::{Attribute, Print, PrintStyledContent, ResetColor, SetAttribute, StyledContent};
use ratatui::crossterm::terminal::{Clear, ClearType};
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Write one styled line (no newline).
pub fn write_line(out: &mut impl Write, line: &Line<'_>) -> io::Result<()> {
    for span in &line.spans {
        let style = line.style.patch(span.style).into_crossterm();
        queue!(out, PrintStyledContent(StyledContent::new(style, span.content.as_ref())))?;
    }
    queue!(out, SetAttribute(Attribute::Reset), ResetColor)?;
    Ok(())
}

/// The live part of the screen in regular mode.
pub struct Inline {
    width: u16,
    height: u16,
    /// Row of the first live line.
    top: u16,
    prev: Buffer,
    rows: u16,
}

fn buffer_of(lines: &[Line<'static>], width: u16) -> Buffer {
    let h = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let mut b = Buffer::empty(Rect::new(0, 0, width, h));
    for (y, l) in lines.iter().enumerate() {
        b.set_line(0, y as u16, l, width);
    }
    b
}

impl Inline {
    /// Start at row `top` of a `width`×`height` terminal.
    pub fn new(width: u16, height: u16, top: u16) -> Inline {
        Inline { width, height, top, prev: Buffer::empty(Rect::new(0, 0, width, 0)), rows: 0 }
    }

    /// The terminal's size changed: start over at the top of a cleared screen.
    pub fn reset(&mut self, width: u16, height: u16) {
        *self = Inline::new(width, height, 0);
    }

    /// Print `commit` for good, then show `live`.
    pub fn draw(&mut self, out: &mut impl Write, commit: &[Line<'static>], live: &[Line<'static>]) -> io::Result<()> {
        let rows = u16::try_from(live.len()).unwrap_or(u16::MAX).min(self.height);
        let next = buffer_of(&live[live.len() - rows as usize..], self.width);
        if commit.is_empty() && rows == self.rows {
            let mut backend = CrosstermBackend::new(&mut *out);
            let top = self.top;
            let cells = self.prev.diff(&next);
            if !cells.is_empty() {
                backend.draw(cells.into_iter().map(|(x, y, c)| (x, y + top, c)))?;
            }
            Backend::flush(&mut backend)?;
            self.prev = next;
            return Ok(());
        }
        queue!(out, MoveTo(0, self.top), Clear(ClearType::FromCursorDown))?;
        let mut row = self.top;
        for l in commit {
            write_line(out, l)?;
            queue!(out, Print("\r\n"))?;
            row = (row + 1).min(self.height.saturating_sub(1));
        }
        // Make room for the live lines (the terminal scrolls at the bottom).
        for _ in 1..rows {
            queue!(out, Print("\r\n"))?;
            row = (row + 1).min(self.height.saturating_sub(1));
        }
        self.top = row + 1 - rows.max(1);
        let mut backend = CrosstermBackend::new(&mut *out);
        let empty = Buffer::empty(Rect::new(0, 0, self.width, rows));
        let top = self.top;
        backend.draw(empty.diff(&next).into_iter().map(|(x, y, c)| (x, y + top, c)))?;
        Backend::flush(&mut backend)?;
        self.prev = next;
        self.rows = rows;
        Ok(())
    }

    /// Leave the live part on screen and put the cursor below it.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        let below = self.top + self.rows;
        if below >= self.height {
            queue!(out, MoveTo(0, self.height.saturating_sub(1)), Print("\r\n"))?;
        } else {
            queue!(out, MoveTo(0, below))?;
        }
        out.flush()
    }
}
