//! Styled lines measured in terminal columns: wrapping, truncating and boxing.
//! Everything the UI shows is a list of [`Line`]s that fit the width they were
//! made for; widths count columns (wide characters take two), not bytes.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns `s` takes.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Columns one character takes (control characters: none).
pub fn char_width(c: char) -> usize {
    UnicodeWidthChar::width(c).unwrap_or(0)
}

/// Columns a line takes.
pub fn line_width(l: &Line<'_>) -> usize {
    l.spans.iter().map(|s| width(&s.content)).sum()
}

/// A line of one span.
pub fn styled(text: impl Into<String>, style: Style) -> Line<'static> {
    Line::from(Span::styled(text.into(), style))
}

/// Appends characters to a line, merging runs of one style into one span.
#[derive(Default)]
struct Builder {
    spans: Vec<Span<'static>>,
    width: usize,
}

impl Builder {
    fn push(&mut self, c: char, style: Style) {
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push(c),
            _ => self.spans.push(Span::styled(c.to_string(), style)),
        }
        self.width += char_width(c);
    }
    fn push_str(&mut self, s: &str, style: Style) {
        for c in s.chars() {
            self.push(c, style);
        }
    }
    fn trim_end(&mut self) {
        while let Some(last) = self.spans.last_mut() {
            let trimmed = last.content.trim_end_matches(' ').len();
            let removed = last.content.len() - trimmed;
            self.width -= removed;
            last.content.to_mut().truncate(trimmed);
            if last.content.is_empty() {
                self.spans.pop();
            } else {
                break;
            }
        }
    }
    fn take(&mut self) -> Line<'static> {
        self.width = 0;
        Line::from(std::mem::take(&mut self.spans))
    }
}

/// A run of characters of one kind (spaces or not), with their styles.
struct Token {
    chars: Vec<(char, Style)>,
    space: bool,
    width: usize,
}

fn tokens(line: &Line<'_>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        for c in span.content.chars() {
            let space = c == ' ';
            match out.last_mut() {
                Some(t) if t.space == space => {
                    t.chars.push((c, style));
                    t.width += char_width(c);
                }
                _ => out.push(Token { chars: vec![(c, style)], space, width: char_width(c) }),
            }
        }
    }
    out
}

/// Word-wrap `line` to `width` columns (at least one). Words longer than the
/// width are broken; spaces at a break are dropped; leading spaces stay.
pub fn wrap(line: &Line<'_>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut b = Builder::default();
    for t in tokens(line) {
        if t.space {
            if b.width + t.width <= width {
                for (c, s) in t.chars {
                    b.push(c, s);
                }
            } else if b.width > 0 {
                b.trim_end();
                out.push(b.take());
            }
            continue;
        }
        if b.width + t.width > width && b.width > 0 && t.width <= width {
            b.trim_end();
            out.push(b.take());
        }
        for (c, s) in t.chars {
            let w = char_width(c);
            if b.width + w > width && b.width > 0 {
                out.push(b.take());
            }
            b.push(c, s);
        }
    }
    if b.width > 0 || out.is_empty() {
        out.push(b.take());
    }
    out
}

/// Wrap several lines.
pub fn wrap_all(lines: &[Line<'_>], width: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|l| wrap(l, width)).collect()
}

/// `text` (may hold newlines) in `style`, wrapped.
pub fn wrap_text(text: &str, style: Style, width: usize) -> Vec<Line<'static>> {
    text.split('\n').flat_map(|l| wrap(&styled(l, style), width)).collect()
}

/// Cut `line` to `width` columns, ending in `ellipsis` when cut.
pub fn truncate(line: &Line<'_>, width: usize, ellipsis: &str) -> Line<'static> {
    if line_width(line) <= width {
        return Line::from(
            line.spans
                .iter()
                .map(|s| Span::styled(s.content.to_string(), line.style.patch(s.style)))
                .collect::<Vec<_>>(),
        );
    }
    let room = width.saturating_sub(width_of(ellipsis));
    let mut b = Builder::default();
    let mut last_style = Style::default();
    'outer: for span in &line.spans {
        let style = line.style.patch(span.style);
        last_style = style;
        for c in span.content.chars() {
            if b.width + char_width(c) > room {
                break 'outer;
            }
            b.push(c, style);
        }
    }
    if room < width {
        b.push_str(ellipsis, last_style);
    }
    b.take()
}

fn width_of(s: &str) -> usize {
    width(s)
}

/// `style` applied under every span of `line` (a span's own colours win).
pub fn underlay(line: Line<'static>, style: Style) -> Line<'static> {
    let spans = line.spans.into_iter().map(|s| Span::styled(s.content, style.patch(s.style))).collect::<Vec<_>>();
    Line::from(spans)
}

/// `line` filled with spaces in `style` up to `width` columns.
pub fn fill(mut line: Line<'static>, width: usize, style: Style) -> Line<'static> {
    let w = line_width(&line);
    if w < width {
        line.spans.push(Span::styled(" ".repeat(width - w), style));
    }
    line
}

/// A box: `content` (already wrapped to `width - 2 * pad_x`) indented by
/// `pad_x`, every line filled to `width` on background `bg`, with `pad_y`
/// blank lines above and below.
pub fn boxed(content: Vec<Line<'static>>, width: usize, pad_x: usize, pad_y: usize, bg: Style) -> Vec<Line<'static>> {
    let blank = || fill(Line::default(), width, bg);
    let mut out = Vec::with_capacity(content.len() + 2 * pad_y);
    out.extend((0..pad_y).map(|_| blank()));
    for l in content {
        let mut spans = vec![Span::styled(" ".repeat(pad_x), bg)];
        spans.extend(underlay(l, bg).spans);
        out.push(fill(Line::from(spans), width, bg));
    }
    out.extend((0..pad_y).map(|_| blank()));
    out
}

/// `line` with `prefix` (in `style`) before it.
pub fn prefixed(prefix: &str, style: Style, line: Line<'static>) -> Line<'static> {
    let mut spans = vec![Span::styled(prefix.to_string(), style)];
    spans.extend(line.spans);
    Line::from(spans)
}

/// The plain text of a line.
pub fn plain(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Stylize};

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(plain).collect()
    }

    #[test]
    fn wraps_at_words_and_breaks_long_ones() {
        let l = styled("the quick brown fox jumps", Style::default());
        assert_eq!(texts(&wrap(&l, 10)), ["the quick", "brown fox", "jumps"]);
        let long = styled("abcdefghijkl xy", Style::default());
        assert_eq!(texts(&wrap(&long, 5)), ["abcde", "fghij", "kl xy"]);
        assert_eq!(texts(&wrap(&styled("", Style::default()), 5)), [""]);
        assert_eq!(texts(&wrap(&styled("  indented", Style::default()), 20)), ["  indented"]);
    }

    #[test]
    fn wide_characters_take_two_columns() {
        let l = styled("日本語テキスト", Style::default());
        let w = wrap(&l, 5);
        assert!(w.iter().all(|l| line_width(l) <= 5), "{:?}", texts(&w));
        assert_eq!(texts(&w), ["日本", "語テ", "キス", "ト"]);
    }

    #[test]
    fn styles_survive_wrapping_and_truncation() {
        let l = Line::from(vec![Span::raw("red "), "alert".red(), Span::raw(" done")]);
        let w = wrap(&l, 9);
        assert_eq!(texts(&w), ["red alert", "done"]);
        assert_eq!(w[0].spans[1].style.fg, Some(Color::Red));
        let t = truncate(&l, 8, "...");
        assert_eq!(plain(&t), "red a...");
        assert_eq!(line_width(&t), 8);
    }

    #[test]
    fn boxes_fill_their_width() {
        let b = boxed(vec![styled("hi", Style::default())], 6, 1, 1, Style::default().bg(Color::Blue));
        assert_eq!(texts(&b), ["      ", " hi   ", "      "]);
        assert!(b[1].spans.iter().all(|s| s.style.bg == Some(Color::Blue)));
    }
}
