//! The edit tool's diff (`+12 new`, `-12 old`, ` 12 same`, `   ...`) in
//! colour; a line changed in place shows its changed words reversed.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::sanitize::TAB_SPACES;
use crate::theme::{Theme, Token};

/// A diff line: sign, line-number column (spaces and digits), content after
/// one separating space.
fn parse(line: &str) -> Option<(char, &str, &str)> {
    let sign = line.chars().next().filter(|c| matches!(c, '+' | '-' | ' '))?;
    let rest = &line[1..];
    let lead = rest.len() - rest.trim_start_matches(' ').len();
    let after = &rest[lead..];
    let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        let num = rest.get(..lead.checked_sub(1)?)?;
        return Some((sign, num, &rest[lead..]));
    }
    let num = &rest[..lead + digits];
    let content = rest[lead + digits..].strip_prefix(' ')?;
    Some((sign, num, content))
}

fn word_diff(old: &str, new: &str, base_old: Style, base_new: Style) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
    let indent = old.chars().zip(new.chars()).take_while(|(a, b)| a == b && a.is_whitespace()).count();
    let (io, in_) = (
        old.char_indices().nth(indent).map_or(old.len(), |x| x.0),
        new.char_indices().nth(indent).map_or(new.len(), |x| x.0),
    );
    let mut o = vec![Span::styled(old[..io].to_string(), base_old)];
    let mut n = vec![Span::styled(new[..in_].to_string(), base_new)];
    let diff = similar::TextDiff::from_words(&old[io..], &new[in_..]);
    for change in diff.iter_all_changes() {
        let v = change.value().to_string();
        match change.tag() {
            similar::ChangeTag::Equal => {
                o.push(Span::styled(v.clone(), base_old));
                n.push(Span::styled(v, base_new));
            }
            similar::ChangeTag::Delete => o.push(Span::styled(v, base_old.add_modifier(Modifier::REVERSED))),
            similar::ChangeTag::Insert => n.push(Span::styled(v, base_new.add_modifier(Modifier::REVERSED))),
        }
    }
    (o, n)
}

/// The lines of a diff.
pub fn render(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    let diff = crate::sanitize::clean(diff);
    let (add, del, ctx) =
        (theme.style(Token::ToolDiffAdded), theme.style(Token::ToolDiffRemoved), theme.style(Token::ToolDiffContext));
    let lines: Vec<&str> = diff.split('\n').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((sign, num, content)) = parse(lines[i]) else {
            out.push(Line::from(Span::styled(lines[i].to_string(), ctx)));
            i += 1;
            continue;
        };
        if sign != '-' {
            let style = if sign == '+' { add } else { ctx };
            out.push(Line::from(Span::styled(format!("{sign}{num} {}", content.replace('\t', TAB_SPACES)), style)));
            i += 1;
            continue;
        }
        let mut removed = Vec::new();
        while let Some(('-', n, c)) = lines.get(i).and_then(|l| parse(l)) {
            removed.push((n, c));
            i += 1;
        }
        let mut added = Vec::new();
        while let Some(('+', n, c)) = lines.get(i).and_then(|l| parse(l)) {
            added.push((n, c));
            i += 1;
        }
        if let ([(rn, rc)], [(an, ac)]) = (removed.as_slice(), added.as_slice()) {
            let (o, n) = word_diff(&rc.replace('\t', TAB_SPACES), &ac.replace('\t', TAB_SPACES), del, add);
            let mut ol = vec![Span::styled(format!("-{rn} "), del)];
            ol.extend(o);
            let mut nl = vec![Span::styled(format!("+{an} "), add)];
            nl.extend(n);
            out.push(Line::from(ol));
            out.push(Line::from(nl));
        } else {
            for (n, c) in removed {
                out.push(Line::from(Span::styled(format!("-{n} {}", c.replace('\t', TAB_SPACES)), del)));
            }
            for (n, c) in added {
                out.push(Line::from(Span::styled(format!("+{n} {}", c.replace('\t', TAB_SPACES)), add)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_shows_its_changed_words() {
        let theme = Theme::dark(true);
        let out = render(" 1 one\n-2 two three\n+2 TWO three\n 3 four\n   ...", &theme);
        let text: Vec<String> = out.iter().map(crate::lines::plain).collect();
        assert_eq!(text, [" 1 one", "-2 two three", "+2 TWO three", " 3 four", "   ..."]);
        let reversed: Vec<&str> = out[1..3]
            .iter()
            .flat_map(|l| l.spans.iter())
            .filter(|s| s.style.add_modifier.contains(Modifier::REVERSED))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(reversed, ["two", "TWO"]);
        assert_eq!(out[0].spans[0].style, theme.style(Token::ToolDiffContext));
    }
}
