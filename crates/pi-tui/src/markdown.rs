//! Markdown (CommonMark with tables, strikethrough and task lists, via
//! pulldown-cmark) as styled lines at a width: headings, emphasis, inline
//! code, links, lists, quotes, rules, tables and fenced code blocks with
//! their fences shown and the code highlighted. Text is sanitised first.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::lines::{self, prefixed, styled};
use crate::theme::{Theme, Token};

/// Indent of a code block's lines.
pub const CODE_BLOCK_INDENT: &str = "  ";
/// Widest a horizontal rule is drawn.
const RULE_MAX_WIDTH: usize = 80;

/// A container whose prefix goes before each line inside it.
enum Container {
    Quote,
    Item { first: String, rest: String, used: bool },
}

struct Table {
    align: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    cell: Vec<Span<'static>>,
    row: Vec<Vec<Span<'static>>>,
}

struct Renderer<'t> {
    theme: &'t Theme,
    width: usize,
    base: Style,
    out: Vec<Line<'static>>,
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    containers: Vec<Container>,
    lists: Vec<Option<u64>>,
    code: Option<(Option<&'static crate::highlight::Lang>, String)>,
    links: Vec<String>,
    table: Option<Table>,
    blank_pending: bool,
    code_closed: bool,
}

/// Whether a fenced code block's source ends with its closing fence (a
/// streaming answer may not have sent it yet).
fn fence_closed(block: &str) -> bool {
    let mut lines = block.trim_end().lines();
    let first = lines.next().unwrap_or("").trim_start();
    let fence: String = first.chars().take_while(|c| *c == '`' || *c == '~').collect();
    lines.next_back().is_some_and(|last| {
        let l = last.trim();
        !fence.is_empty() && l.starts_with(&fence) && l.chars().all(|c| c == fence.chars().next().unwrap_or('`'))
    })
}

/// Render `text` as markdown at `width` columns; `base` is the text style.
pub fn render(text: &str, width: usize, theme: &Theme, base: Style) -> Vec<Line<'static>> {
    let clean = crate::sanitize::clean(text);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut r = Renderer {
        theme,
        width: width.max(4),
        base,
        out: Vec::new(),
        inline: Vec::new(),
        styles: vec![base],
        containers: Vec::new(),
        lists: Vec::new(),
        code: None,
        links: Vec::new(),
        table: None,
        blank_pending: false,
        code_closed: true,
    };
    for (ev, range) in Parser::new_ext(&clean, opts).into_offset_iter() {
        if let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) = &ev {
            r.code_closed = fence_closed(&clean[range.clone()]);
        }
        r.event(ev);
    }
    if let Some((lang, code)) = r.code.take() {
        r.code_block(lang, &code, false);
    }
    r.flush();
    r.out
}

impl Renderer<'_> {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or(self.base)
    }

    fn push_style(&mut self, s: Style) {
        let top = self.style().patch(s);
        self.styles.push(top);
    }

    fn text(&mut self, t: &str) {
        let span = Span::styled(t.to_string(), self.style());
        match &mut self.table {
            Some(table) => table.cell.push(span),
            None => self.inline.push(span),
        }
    }

    /// Width left for content inside the current containers.
    fn room(&self) -> usize {
        let used: usize = self
            .containers
            .iter()
            .map(|c| match c {
                Container::Quote => 2,
                Container::Item { rest, .. } => rest.len(),
            })
            .sum();
        self.width.saturating_sub(used).max(1)
    }

    /// The blank line owed between two blocks, with the enclosing quote bars.
    fn separate(&mut self) {
        if self.blank_pending && !self.out.is_empty() {
            let blank = self.prefix(true);
            self.out.push(blank);
        }
        self.blank_pending = false;
    }

    /// Emit `content` lines with the containers' prefixes.
    fn emit(&mut self, content: Vec<Line<'static>>) {
        self.separate();
        for l in content {
            let mut p = self.prefix(false);
            p.spans.extend(l.spans);
            self.out.push(p);
        }
    }

    /// The prefix of the next line (`blank`: a separator line, items not marked).
    fn prefix(&mut self, blank: bool) -> Line<'static> {
        let quote = self.theme.style(Token::MdQuoteBorder);
        let bullet = self.theme.style(Token::MdListBullet);
        let mut spans = Vec::new();
        for c in &mut self.containers {
            match c {
                Container::Quote => spans.push(Span::styled("│ ", quote)),
                Container::Item { .. } if blank => {}
                Container::Item { first, rest, used } => {
                    if *used {
                        spans.push(Span::raw(rest.clone()));
                    } else {
                        spans.push(Span::styled(first.clone(), bullet));
                        *used = true;
                    }
                }
            }
        }
        Line::from(spans)
    }

    /// Wrap and emit the pending inline text as a block.
    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        let room = self.room();
        let mut content = Vec::new();
        let mut current: Vec<Span<'static>> = Vec::new();
        for s in spans {
            // Hard breaks arrive as newlines inside the text.
            let mut parts = s.content.split('\n').peekable();
            while let Some(p) = parts.next() {
                current.push(Span::styled(p.to_string(), s.style));
                if parts.peek().is_some() {
                    content.extend(lines::wrap(&Line::from(std::mem::take(&mut current)), room));
                }
            }
        }
        content.extend(lines::wrap(&Line::from(current), room));
        self.emit(content);
    }

    fn code_block(&mut self, lang: Option<&'static crate::highlight::Lang>, code: &str, closed: bool) {
        let border = self.theme.style(Token::MdCodeBlockBorder);
        let room = self.room().saturating_sub(CODE_BLOCK_INDENT.len()).max(1);
        let code = code.strip_suffix('\n').unwrap_or(code);
        let body = match lang {
            Some(l) => crate::highlight::highlight(code, l, self.theme),
            None => code.split('\n').map(|l| styled(l, self.theme.style(Token::MdCodeBlock))).collect(),
        };
        let mut content = Vec::new();
        for l in body {
            for w in lines::wrap(&l, room) {
                content.push(prefixed(CODE_BLOCK_INDENT, Style::default(), w));
            }
        }
        if closed {
            content.push(styled("```", border));
        }
        self.emit(content);
    }

    fn start(&mut self, tag: Tag<'_>) {
        let th = self.theme;
        match tag {
            Tag::Paragraph => self.flush(),
            Tag::Heading { level, .. } => {
                self.flush();
                let mut s = th.bold(Token::MdHeading);
                if level == HeadingLevel::H1 {
                    s = s.add_modifier(Modifier::UNDERLINED);
                }
                self.push_style(s);
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.separate();
                self.containers.push(Container::Quote);
                self.push_style(th.style(Token::MdQuote).add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let info = match kind {
                    CodeBlockKind::Fenced(i) => i.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.emit(vec![styled(format!("```{info}"), th.style(Token::MdCodeBlockBorder))]);
                self.code = Some((crate::highlight::language(&info), String::new()));
            }
            Tag::List(start) => {
                self.flush();
                self.separate();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "- ".to_string(),
                };
                let rest = " ".repeat(marker.len());
                self.containers.push(Container::Item { first: marker, rest, used: false });
            }
            Tag::Emphasis => self.push_style(Style::default().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::default().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::default().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(th.style(Token::MdLink).add_modifier(Modifier::UNDERLINED));
            }
            Tag::Image { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(th.style(Token::MdLink));
                self.text("[image: ");
            }
            Tag::Table(align) => {
                self.flush();
                self.table = Some(Table { align, rows: Vec::new(), cell: Vec::new(), row: Vec::new() });
            }
            Tag::TableHead | Tag::TableRow => {}
            Tag::TableCell => {}
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.blank_pending = true;
            }
            TagEnd::Heading(_) => {
                self.flush();
                self.styles.pop();
                self.blank_pending = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.styles.pop();
                self.blank_pending = true;
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    let closed = self.code_closed;
                    self.code_block(lang, &code, closed);
                }
                self.blank_pending = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                self.blank_pending = self.lists.is_empty();
            }
            TagEnd::Item => {
                self.flush();
                self.containers.pop();
                self.blank_pending = false;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                self.link_url();
            }
            TagEnd::Image => {
                self.text("]");
                self.styles.pop();
                self.link_url();
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    t.row.push(cell);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    let rendered = crate::markdown_table::render(&t.rows, &t.align, self.room(), self.theme);
                    self.emit(rendered);
                }
                self.blank_pending = true;
            }
            _ => {}
        }
    }

    fn link_url(&mut self) {
        let Some(url) = self.links.pop() else { return };
        let shown: String = self.inline.iter().rev().take(4).map(|s| s.content.to_string()).collect();
        if !url.is_empty() && !shown.contains(&url) && !url.starts_with('#') {
            let s = Span::styled(format!(" ({url})"), self.theme.style(Token::MdLinkUrl));
            match &mut self.table {
                Some(t) => t.cell.push(s),
                None => self.inline.push(s),
            }
        }
    }

    fn event(&mut self, ev: Event<'_>) {
        if let Some((_, code)) = &mut self.code {
            if let Event::Text(t) = &ev {
                code.push_str(t);
                return;
            }
            if !matches!(ev, Event::End(TagEnd::CodeBlock)) {
                return;
            }
        }
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                let s = Span::styled(t.to_string(), self.style().patch(self.theme.style(Token::MdCode)));
                match &mut self.table {
                    Some(table) => table.cell.push(s),
                    None => self.inline.push(s),
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.text("\n"),
            Event::Rule => {
                self.flush();
                let w = self.room().min(RULE_MAX_WIDTH);
                self.emit(vec![styled("─".repeat(w), self.theme.style(Token::MdHr))]);
                self.blank_pending = true;
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::Html(t) | Event::InlineHtml(t) => self.text(t.trim_end_matches('\n')),
            Event::FootnoteReference(t) => self.text(&format!("[^{t}]")),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(md: &str, width: usize) -> Vec<String> {
        render(md, width, &Theme::dark(true), Style::default()).iter().map(crate::lines::plain).collect()
    }

    #[test]
    fn blocks_and_spacing() {
        let out =
            plain("# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n  - nested\n\n> quoted\n\n---\n\nend", 40);
        assert_eq!(
            out,
            [
                "Title",
                "",
                "Some bold and code.",
                "",
                "- one",
                "- two",
                "  - nested",
                "",
                "│ quoted",
                "",
                &"─".repeat(40),
                "",
                "end"
            ]
        );
    }

    #[test]
    fn code_blocks_keep_fences_and_indent() {
        let out = plain("```rust\nfn main() {}\n```\nafter", 40);
        assert_eq!(out, ["```rust", "  fn main() {}", "```", "", "after"]);
    }

    #[test]
    fn list_items_wrap_with_a_hanging_indent() {
        let out = plain("1. alpha beta gamma delta", 14);
        assert_eq!(out, ["1. alpha beta", "   gamma delta"]);
    }

    #[test]
    fn links_show_their_address() {
        assert_eq!(plain("[docs](https://x.y/z)", 60), ["docs (https://x.y/z)"]);
        assert_eq!(plain("<https://x.y>", 60), ["https://x.y"]);
    }

    #[test]
    fn tables_are_aligned() {
        let out = plain("| a | bb |\n|---|---:|\n| 1 | 2 |", 40);
        assert_eq!(out, ["┌───┬────┐", "│ a │ bb │", "├───┼────┤", "│ 1 │  2 │", "└───┴────┘"]);
    }

    #[test]
    fn escape_sequences_never_pass() {
        let out = plain("a \x1b[2J b \x1b]52;c;eA==\x07", 40);
        assert_eq!(out, ["a  b"]);
    }

    #[test]
    fn an_open_code_block_while_streaming() {
        assert_eq!(plain("```py\nx = 1", 40), ["```py", "  x = 1"]);
    }
}
