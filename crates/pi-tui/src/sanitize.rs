//! The safety rule: text from tools, files, models and extensions never drives
//! the terminal. Every string that reaches the screen passes through here:
//! escape sequences (CSI, OSC, DCS, SOS, PM, APC and two-byte `ESC x`) are
//! removed whole, other control characters are dropped (C1 included), tabs
//! become spaces. Only the styling our own renderer emits reaches the
//! terminal; styling inside an extension component's lines is parsed into
//! styles ([`styled_line`]) and re-emitted by the renderer.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Spaces a tab becomes (the reference shows a tab as three spaces).
pub const TAB_SPACES: &str = "   ";

/// What to do with one escape sequence while scanning.
enum Seq {
    /// `ESC [ params final`: its parameters and final byte.
    Csi(String, char),
    /// Anything else: dropped.
    Other,
}

/// Scan the escape sequence starting after `ESC` in `chars`; `None` at the end
/// of the text (an unterminated sequence swallows the rest, as a terminal would).
fn read_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<Seq> {
    let kind = chars.next()?;
    read_sequence(kind, chars)
}

/// The 8-bit introducers of CSI, OSC and DCS, as the character after `ESC`.
fn eight_bit(c: char) -> Option<char> {
    match c {
        '\u{9b}' => Some('['),
        '\u{9d}' => Some(']'),
        '\u{90}' => Some('P'),
        _ => None,
    }
}

/// Scan the sequence of kind `kind` (the character after `ESC`).
fn read_sequence(kind: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<Seq> {
    match kind {
        '[' => {
            let mut params = String::new();
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    return Some(Seq::Csi(params, c));
                }
                params.push(c);
            }
            None
        }
        // OSC, DCS, SOS, PM, APC: up to BEL or ST (ESC \).
        ']' | 'P' | 'X' | '^' | '_' => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{9c}' {
                    return Some(Seq::Other);
                }
                if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                    chars.next();
                    return Some(Seq::Other);
                }
            }
            None
        }
        // Character-set designations take one more character.
        '(' | ')' | '*' | '+' | '-' | '.' | '/' | '#' | '%' | ' ' => {
            chars.next();
            Some(Seq::Other)
        }
        _ => Some(Seq::Other),
    }
}

/// Whether `c` may be shown as is.
fn printable(c: char) -> bool {
    !c.is_control() && !matches!(c, '\u{2028}' | '\u{2029}')
}

/// `s` without escape sequences and control characters; newlines are kept,
/// tabs become [`TAB_SPACES`], carriage returns are dropped.
pub fn clean(s: &str) -> String {
    if s.chars().all(|c| printable(c) || c == '\n') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' if read_escape(&mut chars).is_none() => break,
            '\u{1b}' => {}
            c if eight_bit(c).is_some() && read_sequence(eight_bit(c).unwrap_or('['), &mut chars).is_none() => break,
            c if eight_bit(c).is_some() => {}
            '\n' => out.push('\n'),
            '\t' => out.push_str(TAB_SPACES),
            c if printable(c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// [`clean`] for a single-line place (a status, a title): newlines become spaces.
pub fn clean_line(s: &str) -> String {
    clean(s).replace('\n', " ")
}

/// Apply one SGR parameter list to `style`.
fn apply_sgr(style: &mut Style, params: &str) {
    let nums: Vec<u16> = params.split([';', ':']).map(|p| p.parse().unwrap_or(0)).collect();
    let mut i = 0;
    while i < nums.len() {
        let n = nums[i];
        match n {
            0 => *style = Style::default(),
            1 => *style = style.add_modifier(Modifier::BOLD),
            2 => *style = style.add_modifier(Modifier::DIM),
            3 => *style = style.add_modifier(Modifier::ITALIC),
            4 => *style = style.add_modifier(Modifier::UNDERLINED),
            7 => *style = style.add_modifier(Modifier::REVERSED),
            9 => *style = style.add_modifier(Modifier::CROSSED_OUT),
            22 => *style = style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => *style = style.remove_modifier(Modifier::ITALIC),
            24 => *style = style.remove_modifier(Modifier::UNDERLINED),
            27 => *style = style.remove_modifier(Modifier::REVERSED),
            29 => *style = style.remove_modifier(Modifier::CROSSED_OUT),
            30..=37 => *style = style.fg(Color::Indexed((n - 30) as u8)),
            39 => style.fg = None,
            40..=47 => *style = style.bg(Color::Indexed((n - 40) as u8)),
            49 => style.bg = None,
            90..=97 => *style = style.fg(Color::Indexed((n - 90 + 8) as u8)),
            100..=107 => *style = style.bg(Color::Indexed((n - 100 + 8) as u8)),
            38 | 48 => {
                let color = match nums.get(i + 1) {
                    Some(5) => {
                        let c = nums.get(i + 2).map(|v| Color::Indexed(*v as u8));
                        i += 2;
                        c
                    }
                    Some(2) => {
                        let g = |k: usize| nums.get(i + k).copied().unwrap_or(0) as u8;
                        let c = Some(Color::Rgb(g(2), g(3), g(4)));
                        i += 4;
                        c
                    }
                    _ => None,
                };
                if let Some(c) = color {
                    *style = if n == 38 { style.fg(c) } else { style.bg(c) };
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// A line an extension component rendered (pi-tui style: a string with SGR
/// styling) as a styled [`Line`]: SGR sequences become styles, every other
/// sequence and control character is dropped, so the component cannot move
/// the cursor, set the title or write the clipboard.
pub fn styled_line(s: &str) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut style = Style::default();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    let flush = |text: &mut String, style: Style, spans: &mut Vec<Span<'static>>| {
        if !text.is_empty() {
            spans.push(Span::styled(std::mem::take(text), style));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match read_escape(&mut chars) {
                Some(Seq::Csi(params, 'm')) => {
                    flush(&mut text, style, &mut spans);
                    apply_sgr(&mut style, &params);
                }
                Some(_) => {}
                None => break,
            },
            c if eight_bit(c).is_some() && read_sequence(eight_bit(c).unwrap_or('['), &mut chars).is_none() => break,
            c if eight_bit(c).is_some() => {}
            '\t' => text.push_str(TAB_SPACES),
            c if printable(c) => text.push(c),
            _ => {}
        }
    }
    flush(&mut text, style, &mut spans);
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_removed_whole() {
        assert_eq!(clean("a\x1b[2Jb"), "ab");
        assert_eq!(clean("x\x1b]52;c;aGVsbG8=\x07y"), "xy");
        assert_eq!(clean("x\x1b]0;evil title\x1b\\y"), "xy");
        assert_eq!(clean("\x1b[31mred\x1b[0m"), "red");
        assert_eq!(clean("a\x1bcb"), "ab");
        assert_eq!(clean("a\x1b(Bb"), "ab");
        assert_eq!(clean("a\u{9b}2Jb"), "ab");
        assert_eq!(clean("bell\x07 back\x08space\r\n"), "bell backspace\n");
        assert_eq!(clean("unterminated \x1b]52;c;xxxx"), "unterminated ");
        assert_eq!(clean("tab\there"), "tab   here");
        assert_eq!(clean("plain ünïcode ✓"), "plain ünïcode ✓");
    }

    #[test]
    fn styled_lines_keep_sgr_and_drop_the_rest() {
        let l = styled_line("\x1b[1;31mhot\x1b[0m \x1b[2Jcold\x1b]52;c;eA==\x07");
        assert_eq!(l.spans.len(), 2);
        assert_eq!(l.spans[0].content, "hot");
        assert_eq!(l.spans[0].style.fg, Some(Color::Indexed(1)));
        assert!(l.spans[0].style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(l.spans[1].content, " cold");
        assert_eq!(l.spans[1].style, Style::default());
        let rgb = styled_line("\x1b[38;2;1;2;3mx");
        assert_eq!(rgb.spans[0].style.fg, Some(Color::Rgb(1, 2, 3)));
    }
}
