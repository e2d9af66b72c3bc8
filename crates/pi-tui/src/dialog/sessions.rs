//! The session picker of `--resume`: this folder's sessions, most recently
//! active first, as the reference lists them: one row each with the name
//! (or the first message), the message count and the age; forks under the
//! session they came from (threaded order); a search line (see
//! [`super::session_search`]); `ctrl+s` cycles the order (threaded, recent,
//! relevance), `ctrl+n` shows named sessions only, `ctrl+p` shows paths.
//! Enter answers the session's index; escape cancels.

use std::collections::HashMap;

use pi_agent::session::SessionInfo;
use ratatui::crossterm::event::KeyEvent;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::session_search::filter;
use super::{Answer, Dialog, DialogCtx, Outcome};
use crate::keys::{Action, Key, KeyId, Keybindings};
use crate::lines::{self, styled};
use crate::text;
use crate::theme::Token;

/// Rows shown at once.
pub const SESSION_PICKER_ROWS: usize = 10;

/// The list's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Threaded,
    Recent,
    Relevance,
}

/// The picker.
pub struct SessionPicker {
    sessions: Vec<SessionInfo>,
    query: String,
    selected: usize,
    sort: Sort,
    named_only: bool,
    show_path: bool,
    now_ms: i64,
}

/// How long ago, as the reference says it: `now`, `5m`, `3h`, `2d`, `1w`, `4mo`, `1y`.
pub fn age(now_ms: i64, then_ms: i64) -> String {
    let mins = (now_ms - then_ms).max(0) / 60_000;
    let (hours, days) = (mins / 60, mins / 1440);
    match () {
        _ if mins < 1 => "now".into(),
        _ if mins < 60 => format!("{mins}m"),
        _ if hours < 24 => format!("{hours}h"),
        _ if days < 7 => format!("{days}d"),
        _ if days < 30 => format!("{}w", days / 7),
        _ if days < 365 => format!("{}mo", days / 30),
        _ => format!("{}y", days / 365),
    }
}

impl SessionPicker {
    /// A picker over `sessions` (most recent first), ages counted from `now_ms`.
    pub fn new(sessions: Vec<SessionInfo>, now_ms: i64) -> SessionPicker {
        SessionPicker {
            sessions,
            query: String::new(),
            selected: 0,
            sort: Sort::Threaded,
            named_only: false,
            show_path: false,
            now_ms,
        }
    }

    /// The rows shown: (index into the sessions, tree prefix).
    fn rows(&self) -> Vec<(usize, String)> {
        let pool: Vec<usize> = (0..self.sessions.len())
            .filter(|&i| !self.named_only || self.sessions[i].name.as_deref().is_some_and(|n| !n.trim().is_empty()))
            .collect();
        if self.sort == Sort::Threaded && self.query.trim().is_empty() {
            return self.threaded(&pool);
        }
        if self.query.trim().is_empty() {
            return pool.into_iter().map(|i| (i, String::new())).collect();
        }
        let refs: Vec<&SessionInfo> = pool.iter().map(|&i| &self.sessions[i]).collect();
        filter(&refs, &self.query, self.sort == Sort::Recent).into_iter().map(|k| (pool[k], String::new())).collect()
    }

    /// Forks under their parent session (when it is listed), depth first.
    fn threaded(&self, pool: &[usize]) -> Vec<(usize, String)> {
        let by_path: HashMap<&std::path::Path, usize> =
            pool.iter().map(|&i| (self.sessions[i].path.as_path(), i)).collect();
        let parent = |i: usize| {
            let p = self.sessions[i].parent_session.as_deref()?;
            by_path.get(std::path::Path::new(p)).copied().filter(|&j| j != i)
        };
        let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut roots = Vec::new();
        for &i in pool {
            match parent(i) {
                Some(p) => children.entry(p).or_default().push(i),
                None => roots.push(i),
            }
        }
        let mut out = Vec::new();
        // (session, ancestors' "continues" flags, is last, depth)
        let mut stack: Vec<(usize, Vec<bool>, bool, usize)> =
            roots.iter().rev().enumerate().map(|(k, &i)| (i, Vec::new(), k == 0, 0)).collect();
        let mut seen = std::collections::HashSet::new();
        while let Some((i, anc, last, depth)) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            let prefix = if depth == 0 {
                String::new()
            } else {
                let mut p: String = anc.iter().skip(1).map(|&c| if c { "│  " } else { "   " }).collect();
                p.push_str(if last { "└─ " } else { "├─ " });
                p
            };
            out.push((i, prefix));
            let kids = children.get(&i).cloned().unwrap_or_default();
            let mut anc2 = anc.clone();
            anc2.push(!last);
            for (k, &c) in kids.iter().enumerate().rev() {
                stack.push((c, anc2.clone(), k + 1 == kids.len(), depth + 1));
            }
        }
        out
    }

    fn header(&self, ctx: &DialogCtx<'_>, width: usize) -> Vec<Line<'static>> {
        let th = ctx.theme;
        let dim = th.style(Token::Dim);
        let sort = match self.sort {
            Sort::Threaded => text::SORT_THREADED,
            Sort::Recent => text::SORT_RECENT,
            Sort::Relevance => text::SORT_FUZZY,
        };
        let name = if self.named_only { text::NAME_NAMED } else { text::NAME_ALL };
        let right = Line::from(vec![
            Span::styled(text::PICKER_NAME_LABEL, dim),
            Span::styled(name, th.style(Token::Accent)),
            Span::styled(text::PICKER_SORT_LABEL, dim),
            Span::styled(sort, th.style(Token::Accent)),
        ]);
        let title = styled(text::RESUME_TITLE, Style::default().add_modifier(Modifier::BOLD));
        let gap = width.saturating_sub(lines::line_width(&title) + lines::line_width(&right)).max(1);
        let mut top = title;
        top.spans.push(Span::raw(" ".repeat(gap)));
        top.spans.extend(right.spans);
        let key = |a: Action| ctx.keys.keys(a).first().map(|k| k.display()).unwrap_or_default();
        let path_state = if self.show_path { text::ON } else { text::OFF };
        vec![
            lines::truncate(&top, width, ""),
            styled(text::RESUME_SEARCH_HINT, dim),
            styled(
                text::resume_key_hint(
                    &key(Action::SessionToggleSort),
                    &key(Action::SessionToggleNamedFilter),
                    &key(Action::SessionTogglePath),
                    path_state,
                ),
                dim,
            ),
            Line::default(),
            Line::from(vec![Span::styled("> ", th.style(Token::Accent)), Span::raw(self.query.clone())]),
            Line::default(),
        ]
    }

    fn row(&self, ctx: &DialogCtx<'_>, width: usize, i: usize, prefix: &str, on: bool) -> Line<'static> {
        let th = ctx.theme;
        let s = &self.sessions[i];
        let shown = s.name.clone().or_else(|| s.first_message.clone()).unwrap_or_else(|| text::NO_MESSAGES.into());
        let shown: String = shown.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let mut right = format!("{} {}", s.message_count, age(self.now_ms, s.modified_ms));
        if self.show_path {
            right = format!("{} {right}", s.path.display());
        }
        let cursor = if on { "› " } else { "  " };
        let room = width.saturating_sub(2 + lines::width(prefix) + lines::width(&right) + 2).max(10);
        let mut msg_style = if s.name.is_some() { th.style(Token::Warning) } else { Style::default() };
        if on {
            msg_style = msg_style.add_modifier(Modifier::BOLD);
        }
        let msg = lines::truncate(&styled(shown.trim().to_string(), msg_style), room, "…");
        let mut left = Line::from(vec![
            Span::styled(cursor, th.style(Token::Accent)),
            Span::styled(prefix.to_string(), th.style(Token::Dim)),
        ]);
        left.spans.extend(msg.spans);
        let gap = width.saturating_sub(lines::line_width(&left) + lines::width(&right)).max(1);
        left.spans.push(Span::raw(" ".repeat(gap)));
        left.spans.push(Span::styled(right, th.style(Token::Dim)));
        let line = lines::truncate(&left, width, "");
        if on { lines::underlay(line, th.style(Token::SelectedBg)) } else { line }
    }
}

impl Dialog for SessionPicker {
    fn lines(&mut self, width: usize, ctx: &DialogCtx<'_>) -> Vec<Line<'static>> {
        let mut out = self.header(ctx, width);
        let rows = self.rows();
        if rows.is_empty() {
            let msg = if self.named_only { text::NO_NAMED_SESSIONS } else { text::NO_SESSIONS };
            out.push(styled(msg, ctx.theme.style(Token::Muted)));
            return out;
        }
        self.selected = self.selected.min(rows.len() - 1);
        let n = SESSION_PICKER_ROWS;
        let start = self.selected.saturating_sub(n / 2).min(rows.len().saturating_sub(n));
        for (k, (i, prefix)) in rows.iter().enumerate().skip(start).take(n) {
            out.push(self.row(ctx, width, *i, prefix, k == self.selected));
        }
        if rows.len() > n {
            out.push(styled(format!("  ({}/{})", self.selected + 1, rows.len()), ctx.theme.style(Token::Muted)));
        }
        out
    }

    fn key(&mut self, ev: &KeyEvent, keys: &Keybindings) -> Outcome {
        let Some(press) = KeyId::from_event(ev) else { return Outcome::Continue };
        let n = self.rows().len();
        if keys.matches(Action::SelectCancel, &press) {
            return Outcome::Close(Answer::Cancel);
        }
        if keys.matches(Action::SelectConfirm, &press) {
            return match self.rows().get(self.selected) {
                Some((i, _)) => Outcome::Close(Answer::Index(*i)),
                None => Outcome::Continue,
            };
        }
        if super::move_selection(keys, &press, &mut self.selected, n, SESSION_PICKER_ROWS) {
            // Moved.
        } else if keys.matches(Action::SessionToggleSort, &press) {
            self.sort = match self.sort {
                Sort::Threaded => Sort::Recent,
                Sort::Recent => Sort::Relevance,
                Sort::Relevance => Sort::Threaded,
            };
        } else if keys.matches(Action::SessionToggleNamedFilter, &press) {
            self.named_only = !self.named_only;
            self.selected = 0;
        } else if keys.matches(Action::SessionTogglePath, &press) {
            self.show_path = !self.show_path;
        } else {
            match press.key {
                Key::Backspace => {
                    self.query.pop();
                    self.selected = 0;
                }
                Key::Char(c) if !press.ctrl && !press.alt => {
                    self.query.push(if press.shift { c.to_ascii_uppercase() } else { c });
                    self.selected = 0;
                }
                _ => {}
            }
        }
        Outcome::Continue
    }

    fn paste(&mut self, text: &str) {
        self.query.push_str(&crate::sanitize::clean_line(text));
        self.selected = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: &str, name: Option<&str>, modified_ms: i64, parent: Option<&str>) -> SessionInfo {
        SessionInfo {
            path: format!("/s/{id}.jsonl").into(),
            id: id.into(),
            cwd: "/p".into(),
            name: name.map(String::from),
            first_message: Some(format!("first of {id}")),
            all_text: format!("first of {id}"),
            message_count: 3,
            created: String::new(),
            modified_ms,
            parent_session: parent.map(String::from),
        }
    }

    #[test]
    fn ages_read_like_the_reference() {
        let m = 60_000;
        let cases = [(0, "now"), (5 * m, "5m"), (3 * 60 * m, "3h"), (2 * 1440 * m, "2d"), (15 * 1440 * m, "2w")];
        for (ago, want) in cases {
            assert_eq!(age(1_000_000_000_000, 1_000_000_000_000 - ago), want);
        }
        assert_eq!(age(0, -(400 * 1440 * m)), "1y");
    }

    #[test]
    fn forks_sit_under_their_parent_and_filters_apply() {
        let list = vec![
            info("c", Some("named"), 30, Some("/s/a.jsonl")),
            info("b", None, 20, None),
            info("a", None, 10, None),
        ];
        let mut p = SessionPicker::new(list, 100);
        let rows: Vec<(usize, String)> = p.rows();
        assert_eq!(rows, [(1, String::new()), (2, String::new()), (0, "└─ ".into())]);
        p.named_only = true;
        assert_eq!(p.rows(), [(0, String::new())]);
        p.named_only = false;
        p.sort = Sort::Recent;
        assert_eq!(p.rows().iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1, 2]);
        p.query = "first of b".into();
        assert_eq!(p.rows().iter().map(|r| r.0).collect::<Vec<_>>(), [1]);
    }
}
