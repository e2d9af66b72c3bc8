//! Moving around the transcript by entry and line, drawing only the entries
//! passed: following the end draws the last entries, not the whole session
//! (a continued session of ten thousand messages opens at once).

use ratatui::text::Line;

use super::{Ctx, Kind, Transcript};

/// A line of the transcript: an entry and a line within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    /// The entry (the number of entries: the end).
    pub entry: usize,
    /// The line within it.
    pub line: usize,
}

impl Transcript {
    /// The last `count` lines, and where they start.
    pub fn tail(&mut self, ctx: &Ctx<'_>, count: usize) -> (Pos, Vec<Line<'static>>) {
        let mut chunks: Vec<Vec<Line<'static>>> = Vec::new();
        let mut need = count;
        let mut start = Pos { entry: self.len(), line: 0 };
        let mut i = self.len();
        while i > 0 && need > 0 {
            i -= 1;
            let lines = self.entry_lines(i, ctx);
            let n = lines.len();
            let take = need.min(n);
            chunks.push(lines[n - take..].to_vec());
            start = Pos { entry: i, line: n - take };
            need -= take;
        }
        chunks.reverse();
        (start, chunks.concat())
    }

    /// `count` lines from `pos` (fewer at the end).
    pub fn from(&mut self, ctx: &Ctx<'_>, pos: Pos, count: usize) -> Vec<Line<'static>> {
        let mut out = Vec::with_capacity(count);
        let mut skip = pos.line;
        for i in pos.entry..self.len() {
            if out.len() >= count {
                break;
            }
            let lines = self.entry_lines(i, ctx);
            let from = skip.min(lines.len());
            let take = (count - out.len()).min(lines.len() - from);
            out.extend(lines[from..from + take].iter().cloned());
            skip = 0;
        }
        out
    }

    /// Lines from `pos` to the end, counting at most `limit`.
    pub fn lines_from(&mut self, ctx: &Ctx<'_>, pos: Pos, limit: usize) -> usize {
        let mut n = 0;
        let mut skip = pos.line;
        for i in pos.entry..self.len() {
            n += self.entry_lines(i, ctx).len().saturating_sub(skip);
            skip = 0;
            if n >= limit {
                break;
            }
        }
        n
    }

    /// `pos` moved by `delta` lines, kept inside the transcript.
    pub fn step(&mut self, ctx: &Ctx<'_>, pos: Pos, delta: isize) -> Pos {
        let mut p = pos;
        let mut left = delta.unsigned_abs();
        if delta < 0 {
            loop {
                if p.line >= left {
                    return Pos { entry: p.entry, line: p.line - left };
                }
                if p.entry == 0 {
                    return Pos::default();
                }
                left -= p.line;
                p.entry -= 1;
                p.line = self.entry_lines(p.entry, ctx).len();
            }
        }
        while p.entry < self.len() {
            let n = self.entry_lines(p.entry, ctx).len();
            if p.line + left < n {
                return Pos { entry: p.entry, line: p.line + left };
            }
            left -= n - p.line;
            p = Pos { entry: p.entry + 1, line: 0 };
        }
        p
    }

    /// The position of line `n` counted from the start.
    pub fn pos_of(&mut self, ctx: &Ctx<'_>, n: usize) -> Pos {
        self.step(ctx, Pos::default(), isize::try_from(n).unwrap_or(isize::MAX))
    }

    /// Where each prompt starts (below its blank line).
    pub fn prompt_positions(&self) -> Vec<Pos> {
        self.entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.kind, Kind::User(_)))
            .map(|(i, _)| Pos { entry: i, line: usize::from(i > 0) })
            .collect()
    }
}
