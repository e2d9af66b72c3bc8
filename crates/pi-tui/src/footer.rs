//! The footer: the folder (with the git branch and the session's name), then
//! usage so far, context use and the model with its thinking level, then the
//! extensions' statuses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::host::ModelInfo;
use crate::lines::{self, styled};
use crate::theme::{Theme, Token};
use crate::transcript::format::{fixed1, home_short, tokens};

/// Usage summed over the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes.
    pub cache_write: u64,
    /// Dollars.
    pub cost: f64,
    /// The last answer's cache hit rate, percent.
    pub cache_hit_rate: Option<f64>,
    /// Tokens of the last request (its context use).
    pub context_tokens: u64,
}

impl Totals {
    /// The totals of a conversation's answers.
    pub fn of(history: &[pi_agent::AgentMessage]) -> Totals {
        let mut totals = Totals::default();
        for m in history {
            if let pi_agent::AgentMessage::Llm(pi_ai::Message::Assistant(a)) = m {
                totals.add(&a.usage);
            }
        }
        totals
    }

    /// Count an answer's usage.
    pub fn add(&mut self, u: &pi_ai::Usage) {
        self.input += u.input;
        self.output += u.output;
        self.cache_read += u.cache_read;
        self.cache_write += u.cache_write;
        self.cost += u.cost.total;
        let prompt = u.input + u.cache_read + u.cache_write;
        self.cache_hit_rate = (prompt > 0).then(|| u.cache_read as f64 / prompt as f64 * 100.0);
        self.context_tokens = u.input + u.output + u.cache_read + u.cache_write;
    }
}

/// What the footer shows.
pub struct FooterData<'a> {
    /// The working folder.
    pub cwd: &'a Path,
    /// The home folder (shown as `~`).
    pub home: Option<&'a Path>,
    /// The git branch.
    pub branch: Option<&'a str>,
    /// The session's name.
    pub session_name: Option<&'a str>,
    /// Usage.
    pub totals: &'a Totals,
    /// The model.
    pub model: &'a ModelInfo,
    /// The thinking level (`None`: off).
    pub thinking: Option<&'a str>,
    /// How many providers have models (the provider is shown when several do).
    pub providers: usize,
    /// Extension statuses by key.
    pub statuses: &'a BTreeMap<String, String>,
    /// Automatic compaction is on (` (auto)` after the context use).
    pub auto_compact: bool,
}

/// The footer's lines.
pub fn render(d: &FooterData<'_>, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.style(Token::Dim);
    let mut pwd = home_short(&d.cwd.to_string_lossy(), d.home);
    if let Some(b) = d.branch {
        pwd = format!("{pwd} ({b})");
    }
    if let Some(n) = d.session_name {
        pwd = format!("{pwd} • {}", crate::sanitize::clean_line(n));
    }
    let pwd_line = lines::truncate(&styled(pwd, dim), width, "...");
    let t = d.totals;
    let mut parts = Vec::new();
    if t.input > 0 {
        parts.push(format!("↑{}", tokens(t.input)));
    }
    if t.output > 0 {
        parts.push(format!("↓{}", tokens(t.output)));
    }
    if t.cache_read > 0 {
        parts.push(format!("R{}", tokens(t.cache_read)));
    }
    if t.cache_write > 0 {
        parts.push(format!("W{}", tokens(t.cache_write)));
    }
    if (t.cache_read > 0 || t.cache_write > 0)
        && let Some(rate) = t.cache_hit_rate
    {
        parts.push(format!("CH{}%", fixed1(rate)));
    }
    if t.cost > 0.0 {
        parts.push(format!("${:.3}", t.cost));
    }
    let percent =
        if d.model.context_window > 0 { t.context_tokens as f64 / d.model.context_window as f64 * 100.0 } else { 0.0 };
    let auto = if d.auto_compact { crate::text::AUTO_COMPACT } else { "" };
    let ctx_text = format!("{}%/{}{auto}", fixed1(percent), tokens(d.model.context_window));
    let ctx_style = if percent > 90.0 {
        theme.style(Token::Error)
    } else if percent > 70.0 {
        theme.style(Token::Warning)
    } else {
        dim
    };
    let mut left: Vec<Span<'static>> = Vec::new();
    let head = parts.join(" ");
    if !head.is_empty() {
        left.push(Span::styled(format!("{head} "), dim));
    }
    left.push(Span::styled(ctx_text, ctx_style));
    let mut left_line = Line::from(left);
    if lines::line_width(&left_line) > width {
        left_line = lines::truncate(&left_line, width, "...");
    }
    let left_w = lines::line_width(&left_line);
    // No model: none configured (the `unknown` stand-in) or none yet.
    let none = d.model.id.is_empty()
        || (d.model.provider == pi_config::UNKNOWN_MODEL && d.model.id == pi_config::UNKNOWN_MODEL);
    let model_id = if none { crate::text::NO_MODEL.to_string() } else { d.model.id.clone() };
    let mut right = model_id.clone();
    if d.model.reasoning {
        right = match d.thinking {
            None | Some("off") => format!("{model_id} • {}", crate::text::THINKING_OFF),
            Some(level) => format!("{model_id} • {level}"),
        };
    }
    const MIN_GAP: usize = 2;
    if d.providers > 1 && !none {
        let with = format!("({}) {right}", d.model.provider);
        if left_w + MIN_GAP + lines::width(&with) <= width {
            right = with;
        }
    }
    let room = width.saturating_sub(left_w + MIN_GAP);
    let mut stats = left_line.spans;
    if room > 0 {
        let r = lines::truncate(&styled(right, dim), room, "");
        let gap = width - left_w - lines::line_width(&r);
        stats.push(Span::styled(" ".repeat(gap), dim));
        stats.extend(r.spans);
    }
    let mut out = vec![pwd_line, Line::from(stats)];
    if !d.statuses.is_empty() {
        let joined: Vec<String> = d.statuses.values().map(|s| crate::sanitize::clean_line(s)).collect();
        out.push(lines::truncate(&styled(joined.join(" "), Style::default()), width, "..."));
    }
    out
}

/// The git branch of `cwd` (read from `.git/HEAD`; a detached head shows
/// its short commit).
pub fn git_branch(cwd: &Path) -> Option<String> {
    let git = cwd.ancestors().map(|d| d.join(".git")).find(|p| p.exists())?;
    let git_dir: PathBuf = if git.is_file() {
        let body = std::fs::read_to_string(&git).ok()?;
        let target = body.trim().strip_prefix("gitdir:")?.trim().to_string();
        let p = PathBuf::from(&target);
        if p.is_absolute() { p } else { git.parent()?.join(p) }
    } else {
        git
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref: ") {
        Some(r) => Some(crate::sanitize::clean_line(r.strip_prefix("refs/heads/").unwrap_or(r))),
        None => Some(head.chars().take(7).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_from_head_and_worktree_files() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join(".git")).unwrap();
        std::fs::write(tmp.path().join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        std::fs::create_dir_all(tmp.path().join("sub")).unwrap();
        assert_eq!(git_branch(&tmp.path().join("sub")).as_deref(), Some("feature/x"));
        let wt = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("wtmeta")).unwrap();
        std::fs::write(tmp.path().join("wtmeta/HEAD"), "0123456789abcdef\n").unwrap();
        std::fs::write(wt.path().join(".git"), format!("gitdir: {}\n", tmp.path().join("wtmeta").display())).unwrap();
        assert_eq!(git_branch(wt.path()).as_deref(), Some("0123456"));
    }
}
