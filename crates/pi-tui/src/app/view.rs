//! The frame: the transcript above, and at the bottom the queued messages,
//! widgets, the editor (or a dialog, or the search bar) between two rules,
//! suggestions and the footer. Fullscreen draws the whole screen with the
//! transcript scrolled; regular mode prints finished entries once and keeps
//! only what may still change at the bottom.

use std::time::Instant;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::{App, ScreenMode};
use crate::dialog::DialogCtx;
use crate::keys::Action;
use crate::lines::{self, styled};
use crate::theme::Token;
use crate::transcript::{Kind, Pos};

/// Spinner frames of the working indicator.
pub const SPINNER: &[&str] = &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// The editor shows at most this share of the screen's rows.
const EDITOR_MAX_SHARE: usize = 3;
/// ...and at least this many rows.
const EDITOR_MIN_ROWS: usize = 3;

/// A frame for the regular mode: lines to print for good, then the live part.
pub struct Frame {
    /// Lines of entries that just finished.
    pub commit: Vec<Line<'static>>,
    /// The bottom of the screen.
    pub live: Vec<Line<'static>>,
}

impl App {
    pub(crate) fn last_width(&self) -> usize {
        self.width.max(1)
    }

    /// Rows of the transcript in the last frame.
    pub(crate) fn transcript_height(&self) -> usize {
        self.view_height.max(1)
    }

    /// The first transcript line shown.
    pub(crate) fn top(&mut self, rows: usize) -> Pos {
        let width = self.last_width();
        match self.scroll {
            Some(p) => p,
            None => self.transcript.tail(&ctx!(self, width), rows).0,
        }
    }

    /// Show from `p` (following the end when the rest fits the screen).
    pub(crate) fn set_top(&mut self, p: Pos) {
        let rows = self.transcript_height();
        let width = self.last_width();
        let rest = self.transcript.lines_from(&ctx!(self, width), p, rows + 1);
        self.scroll = (rest > rows).then_some(p);
    }

    /// Scroll by `delta` lines (negative: up).
    pub(crate) fn scroll_by(&mut self, delta: isize) {
        let rows = self.transcript_height();
        let top = self.top(rows);
        let width = self.last_width();
        let p = self.transcript.step(&ctx!(self, width), top, delta);
        self.set_top(p);
    }

    fn editor_box(&mut self, width: usize, height: usize) -> Vec<Line<'static>> {
        let th = &self.theme;
        let border_style = if self.editor.text().trim_start().starts_with('!') {
            th.style(Token::BashMode)
        } else {
            th.style(Token::for_thinking(self.thinking.as_deref().unwrap_or("off")))
        };
        let mut top = "─".repeat(width);
        if let Some(msg) = self.working_text() {
            let spinner = SPINNER[self.spinner % SPINNER.len()];
            let head = format!("── {spinner} {msg} ");
            let rest = width.saturating_sub(lines::width(&head));
            top = format!("{head}{}", "─".repeat(rest));
        }
        let rows = (height / EDITOR_MAX_SHARE).max(EDITOR_MIN_ROWS);
        self.editor.width = width;
        self.editor.page = rows;
        let show_cursor = self.dialog.is_none() && self.search.is_none();
        let view = self.editor.view(width, rows, th.style(Token::Text), show_cursor);
        let mut out = vec![lines::truncate(&styled(top, border_style), width, "")];
        out.extend(view.lines);
        out.push(styled("─".repeat(width), border_style));
        out
    }

    fn working_text(&self) -> Option<String> {
        if let Some((attempt, max, at)) = self.retry {
            let secs = at.saturating_duration_since(Instant::now()).as_secs_f64().ceil() as u64;
            return Some(crate::text::retrying(attempt, max, secs, &self.keys.hint(Action::Interrupt)));
        }
        if let Some(reason) = &self.compacting {
            return Some(crate::text::compacting(reason, &self.keys.hint(Action::Interrupt)));
        }
        if self.running || self.bash.is_some() {
            return Some(self.working.clone().unwrap_or_else(|| crate::text::WORKING.to_string()));
        }
        None
    }

    fn queued(&self, width: usize) -> Vec<Line<'static>> {
        let (steer, follow) = self.controls.queued();
        if steer.is_empty() && follow.is_empty() {
            return Vec::new();
        }
        let dim = self.theme.style(Token::Dim);
        let mut out = vec![Line::default()];
        let one = |label: &str, t: &str| {
            lines::truncate(&styled(format!(" {label}{}", crate::sanitize::clean_line(t)), dim), width, "…")
        };
        out.extend(steer.iter().map(|s| one(crate::text::STEERING, s)));
        out.extend(follow.iter().map(|s| one(crate::text::FOLLOW_UP, s)));
        out.push(styled(crate::text::dequeue_hint(&lines_title(&self.keys.hint(Action::Dequeue))), dim));
        out
    }

    fn widget_lines(map: &std::collections::BTreeMap<String, Vec<String>>, width: usize) -> Vec<Line<'static>> {
        map.values().flatten().map(|l| lines::truncate(&crate::sanitize::styled_line(l), width, "")).collect()
    }

    fn search_bar(&self, width: usize) -> Vec<Line<'static>> {
        let th = &self.theme;
        let s = self.search.as_ref();
        let query = s.map(|s| s.query.clone()).unwrap_or_default();
        let count = s.map_or((0, 0), |s| (if s.matches.is_empty() { 0 } else { s.current + 1 }, s.matches.len()));
        let border = th.style(Token::Border);
        let line = Line::from(vec![
            Span::styled(crate::text::SEARCH_LABEL, th.style(Token::Accent)),
            Span::raw(query),
            Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
            Span::styled(crate::text::search_count(count.0, count.1), th.style(Token::Dim)),
        ]);
        vec![styled("─".repeat(width), border), lines::truncate(&line, width, "…"), styled("─".repeat(width), border)]
    }

    fn footer_lines(&mut self, width: usize) -> Vec<Line<'static>> {
        if let Some(r) = &mut self.footer_component {
            let w = u16::try_from(width).unwrap_or(u16::MAX);
            return r
                .component
                .render(w)
                .iter()
                .map(|l| lines::truncate(&crate::sanitize::styled_line(l), width, ""))
                .collect();
        }
        let providers = {
            let mut p: Vec<&str> = self.models.iter().map(|m| m.provider.as_str()).collect();
            p.sort_unstable();
            p.dedup();
            p.len()
        };
        let data = crate::footer::FooterData {
            cwd: &self.cwd,
            home: self.home.as_deref(),
            branch: self.branch.as_deref(),
            session_name: self.session_name.as_deref(),
            totals: &self.totals,
            model: &self.model,
            thinking: self.thinking.as_deref(),
            providers,
            statuses: &self.statuses,
            auto_compact: self.auto_compact,
        };
        crate::footer::render(&data, width, &self.theme)
    }

    /// The bottom of the screen at `width` (the screen has `height` rows).
    fn chrome(&mut self, width: usize, height: usize) -> Vec<Line<'static>> {
        let mut out = self.queued(width);
        out.extend(Self::widget_lines(&self.widgets_above, width));
        // One blank line between the transcript (or the queue) and the editor.
        out.push(Line::default());
        if let Some((dialog, _)) = &mut self.dialog {
            let ctx = DialogCtx { theme: &self.theme, keys: &self.keys };
            let body = dialog.lines(width, &ctx);
            if dialog.bordered() {
                let border = self.theme.style(Token::Border);
                out.push(styled("─".repeat(width), border));
                out.extend(body.into_iter().map(|l| lines::truncate(&l, width, "")));
                out.push(styled("─".repeat(width), border));
            } else {
                out.extend(body);
            }
        } else if self.search.is_some() {
            out.extend(self.search_bar(width));
        } else {
            out.extend(self.editor_box(width, height));
        }
        out.extend(Self::widget_lines(&self.widgets_below, width));
        if self.dialog.is_none()
            && let Some(c) = &self.completion
        {
            out.extend(c.lines(width, self.autocomplete_max_visible, &self.theme));
        }
        out.extend(self.footer_lines(width));
        out
    }

    fn sync_header(&mut self, width: usize) {
        if let Some(r) = &mut self.header_component {
            let w = u16::try_from(width).unwrap_or(u16::MAX);
            let lines = r.component.render(w).iter().map(|l| crate::sanitize::styled_line(l)).collect();
            self.transcript.replace_first(Kind::Lines(lines));
        }
    }

    /// The whole screen (fullscreen): exactly `height` lines of `width`.
    pub fn screen(&mut self, width: usize, height: usize) -> Vec<Line<'static>> {
        self.width = width;
        self.sync_header(width);
        let mut chrome = self.chrome(width, height);
        if chrome.len() > height {
            chrome.drain(..chrome.len() - height);
        }
        let rows = height - chrome.len();
        self.view_height = rows;
        if let Some(p) = self.scroll
            && self.transcript.lines_from(&ctx!(self, width), p, rows + 1) <= rows
        {
            self.scroll = None;
        }
        let mut body = match self.scroll {
            Some(p) => self.transcript.from(&ctx!(self, width), p, rows),
            None => self.transcript.tail(&ctx!(self, width), rows).1,
        };
        if let Some(s) = &self.search
            && !s.query.is_empty()
        {
            let style = self.theme.style(Token::SearchMatchBg).patch(self.theme.style(Token::SearchMatchText));
            body = body.into_iter().map(|l| highlight(l, &s.query, style)).collect();
        }
        body.resize(rows, Line::default());
        if self.scroll.is_some() && rows > 0 {
            let label = crate::text::jump_to_latest(&self.keys.hint(Action::ScrollBottom));
            let style = self.theme.style(Token::SelectedBg).patch(self.theme.style(Token::Text));
            body[rows - 1] = styled(label, style);
        }
        body.extend(chrome);
        body
    }

    /// A regular-mode frame: entries finished since the last frame, then the
    /// unfinished ones (their last lines when they do not fit) and the bottom.
    pub fn regular(&mut self, width: usize, height: usize) -> Frame {
        self.width = width;
        self.sync_header(width);
        let done = self.transcript.finished_prefix();
        let mut commit = Vec::new();
        for i in self.committed..done {
            commit.extend(self.transcript.entry_lines(i, &ctx!(self, width)).iter().cloned());
        }
        self.committed = self.committed.max(done);
        let mut live = Vec::new();
        for i in done..self.transcript.len() {
            live.extend(self.transcript.entry_lines(i, &ctx!(self, width)).iter().cloned());
        }
        let chrome = self.chrome(width, height);
        let room = height.saturating_sub(chrome.len() + 1);
        if live.len() > room {
            live.drain(..live.len() - room);
        }
        live.extend(chrome);
        if live.len() > height {
            live.drain(..live.len() - height);
        }
        Frame { commit, live }
    }

    /// Regular mode must print everything again (expansion, theme or width changed).
    pub fn reprint(&mut self) {
        self.committed = 0;
    }
}

/// `ctrl+x` → `Ctrl+X` for the queued-messages hint.
fn lines_title(k: &str) -> String {
    crate::keys::key_name_title(k)
}

/// `line` with each occurrence of `query` (ignoring case) in `style`.
fn highlight(line: Line<'static>, query: &str, style: Style) -> Line<'static> {
    let plain = lines::plain(&line);
    let lower = plain.to_lowercase();
    let q = query.to_lowercase();
    if q.is_empty() || lower.len() != plain.len() || !lower.contains(&q) {
        return line;
    }
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find(&q) {
        ranges.push((from + i, from + i + q.len()));
        from += i + q.len();
    }
    let original = line.clone();
    let mut out = Vec::new();
    let mut at = 0;
    for span in line.spans {
        let text = span.content.to_string();
        let (start, end) = (at, at + text.len());
        let mut cur = start;
        for &(a, b) in ranges.iter().filter(|(a, b)| *b > start && *a < end) {
            let (a, b) = (a.max(start), b.min(end));
            let (Some(before), Some(hit)) = (text.get(cur - start..a - start), text.get(a - start..b - start)) else {
                return original;
            };
            if !before.is_empty() {
                out.push(Span::styled(before.to_string(), span.style));
            }
            out.push(Span::styled(hit.to_string(), span.style.patch(style)));
            cur = b;
        }
        if cur < end {
            let Some(rest) = text.get(cur - start..) else { return original };
            out.push(Span::styled(rest.to_string(), span.style));
        }
        at = end;
    }
    Line::from(out)
}

impl ScreenMode {
    /// The setting value.
    pub fn as_str(self) -> &'static str {
        match self {
            ScreenMode::Fullscreen => "fullscreen",
            ScreenMode::Regular => "regular",
        }
    }
}
