//! One transcript entry and how it draws: user prompts on their background,
//! answers as markdown (thinking shown or folded), tool boxes coloured by
//! state, user commands between rules, notices.

use crate::host::Level;
use std::time::Instant;

use pi_ai::{AssistantMessage, ContentBlock, StopReason};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use serde_json::Value;

use super::{Ctx, PAD_X, format, tools};
use crate::lines::{self, boxed, prefixed, styled};
use crate::text;
use crate::theme::Token;

/// A tool result as the transcript keeps it.
#[derive(Debug, Clone)]
pub struct ToolOutcome {
    /// Content blocks.
    pub content: Vec<pi_tools::Content>,
    /// Details (diff, truncation, …).
    pub details: Option<Value>,
    /// Whether it failed.
    pub is_error: bool,
}

/// A tool call and what came of it.
#[derive(Debug, Clone)]
pub struct ToolState {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments (partial while the model streams them).
    pub args: Value,
    /// The latest partial result.
    pub partial: Option<ToolOutcome>,
    /// The final result.
    pub result: Option<ToolOutcome>,
    /// When it started running.
    pub started: Option<Instant>,
    /// When it ended.
    pub ended: Option<Instant>,
    /// How long it ran, as the agent measured.
    pub duration_ms: Option<u64>,
    /// The extension's drawing of this tool, if it has one.
    pub renderer: Option<crate::host::ToolRenderer>,
}

impl ToolState {
    /// A call not yet run.
    pub fn new(id: &str, name: &str, args: Value) -> ToolState {
        ToolState {
            id: id.to_string(),
            name: name.to_string(),
            args,
            partial: None,
            result: None,
            started: None,
            ended: None,
            duration_ms: None,
            renderer: None,
        }
    }

    /// Whether the final result is an error.
    pub fn is_error(&self) -> bool {
        self.result.as_ref().is_some_and(|r| r.is_error)
    }

    /// `Took 1.2s` when done, `Elapsed 1.2s` while running.
    pub fn timer_text(&self, now: Instant) -> Option<String> {
        if self.result.is_some()
            && let Some(ms) = self.duration_ms
        {
            return Some(text::took(&format::duration(ms)));
        }
        let start = self.started?;
        let end = self.ended.unwrap_or(now);
        let d = format::duration(end.duration_since(start).as_millis() as u64);
        Some(if self.result.is_some() { text::took(&d) } else { text::elapsed(&d) })
    }
}

/// A user command (`!cmd`, `!!cmd`).
#[derive(Debug, Clone, Default)]
pub struct BashState {
    /// The command.
    pub command: String,
    /// Its output so far (sanitised, bounded).
    pub output: String,
    /// Exit code once done.
    pub exit_code: Option<i32>,
    /// Stopped by the user.
    pub cancelled: bool,
    /// Done.
    pub done: bool,
    /// `!!`: kept out of the model's context.
    pub excluded: bool,
    /// Where the full output was saved when cut.
    pub full_output_path: Option<String>,
}

/// What an entry is.
#[derive(Debug, Clone)]
pub enum Kind {
    /// The start-up header: always shown, and more when expanded.
    Header {
        /// Shown always.
        lines: Vec<Line<'static>>,
        /// Shown when expanded.
        more: Vec<Line<'static>>,
    },
    /// A prompt.
    User(String),
    /// An answer (streaming until its message ends).
    Assistant(Box<AssistantMessage>),
    /// A tool call.
    Tool(Box<ToolState>),
    /// A user command.
    Bash(Box<BashState>),
    /// A notice line.
    Notice(Level, String),
    /// Markdown (command output such as `/hotkeys`).
    Markdown(String),
    /// Lines drawn elsewhere.
    Lines(Vec<Line<'static>>),
    /// An extension's `custom` session entry, drawn by its entry renderer
    /// (nothing when the renderer draws nothing).
    Entry {
        /// The entry as JSON.
        entry: serde_json::Value,
        /// The extension's renderer of its type.
        renderer: crate::host::MessageRenderer,
    },
    /// An extension's message (`display: true`): its renderer's lines, or
    /// its type as a label and its text in a box.
    Custom {
        /// Its `customType`.
        custom_type: String,
        /// Its text.
        text: String,
        /// The message as JSON (for the renderer).
        message: serde_json::Value,
        /// The extension's renderer of this type, if any.
        renderer: Option<crate::host::MessageRenderer>,
    },
    /// A compaction's summary: collapsed to a line, the summary expanded.
    Compaction {
        /// The summary (markdown).
        summary: String,
        /// Context tokens before the compaction.
        tokens_before: u64,
    },
}

/// Most bytes of a user command's output kept for display (its tail).
pub const BASH_DISPLAY_MAX_BYTES: usize = 256 * 1024;
/// Output lines a collapsed user command shows (its tail).
pub const USER_BASH_PREVIEW_LINES: usize = 20;

fn spacer(first: bool) -> Vec<Line<'static>> {
    if first { Vec::new() } else { vec![Line::default()] }
}

fn padded(content: Vec<Line<'static>>) -> Vec<Line<'static>> {
    content.into_iter().map(|l| prefixed(&" ".repeat(PAD_X), Style::default(), l)).collect()
}

/// The usage line of an answer (shown expanded): tokens, cost, time.
fn usage_line(m: &AssistantMessage, ctx: &Ctx<'_>) -> Option<Line<'static>> {
    let u = &m.usage;
    if u.input + u.output + u.cache_read + u.cache_write == 0 {
        return None;
    }
    let mut parts = vec![format!("↑{}", format::tokens(u.input)), format!("↓{}", format::tokens(u.output))];
    if u.cache_read > 0 {
        parts.push(format!("R{}", format::tokens(u.cache_read)));
    }
    if u.cache_write > 0 {
        parts.push(format!("W{}", format::tokens(u.cache_write)));
    }
    if u.cost.total > 0.0 {
        parts.push(format!("${:.3}", u.cost.total));
    }
    if let Some(ms) = m.duration_ms {
        parts.push(format::duration(ms));
    }
    Some(styled(parts.join(" "), ctx.theme.style(Token::Dim)))
}

fn assistant(m: &AssistantMessage, first: bool, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let mut out = Vec::new();
    let mut first_block = first;
    let mut block = |out: &mut Vec<Line<'static>>, lines: Vec<Line<'static>>| {
        out.extend(spacer(first_block));
        first_block = false;
        out.extend(padded(lines));
    };
    let text_style = th.style(Token::Text);
    for b in &m.content {
        match b {
            ContentBlock::Text { text } if !text.trim().is_empty() => {
                block(&mut out, crate::markdown::render(text.trim(), ctx.inner_width(), th, text_style));
            }
            ContentBlock::Thinking { thinking, .. } if !thinking.trim().is_empty() => {
                let style = th.style(Token::ThinkingText).add_modifier(Modifier::ITALIC);
                let lines = if ctx.show_thinking {
                    crate::markdown::render(thinking.trim(), ctx.inner_width(), th, style)
                } else {
                    vec![styled(text::THINKING_HIDDEN, style)]
                };
                block(&mut out, lines);
            }
            _ => {}
        }
    }
    let error = th.style(Token::Error);
    let failure = match m.stop_reason {
        StopReason::Length => Some(text::RESPONSE_TRUNCATED.to_string()),
        StopReason::Aborted => Some(match m.error_message.as_deref() {
            Some(e) if e != text::REQUEST_ABORTED && e != text::RUN_ABORTED && !e.is_empty() => {
                crate::sanitize::clean(e)
            }
            _ => text::OPERATION_ABORTED.to_string(),
        }),
        StopReason::Error => {
            Some(text::error_line(&crate::sanitize::clean(m.error_message.as_deref().unwrap_or(text::UNKNOWN_ERROR))))
        }
        _ => None,
    };
    if let Some(f) = failure {
        block(&mut out, lines::wrap_text(&f, error, ctx.inner_width()));
    }
    if ctx.expanded
        && m.stop_reason != StopReason::Pending
        && let Some(u) = usage_line(m, ctx)
    {
        out.extend(padded(vec![u]));
    }
    out
}

fn tool(t: &ToolState, first: bool, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let bg = match &t.result {
        None => th.style(Token::ToolPendingBg),
        Some(r) if r.is_error => th.style(Token::ToolErrorBg),
        Some(_) => th.style(Token::ToolSuccessBg),
    };
    let mut out = spacer(first);
    out.extend(boxed(tools::render(t, ctx), ctx.width, PAD_X, 1, bg));
    out
}

fn user_bash(b: &BashState, first: bool, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let border = styled("─".repeat(ctx.width), th.style(Token::BashMode));
    let mut body = vec![styled(format!("$ {}", crate::sanitize::clean_line(&b.command)), th.bold(Token::ToolTitle))];
    let out_text = b.output.trim_end();
    if !out_text.is_empty() {
        body.push(Line::default());
        let wrapped: Vec<Line<'static>> = out_text
            .split('\n')
            .flat_map(|l| lines::wrap(&styled(l, th.style(Token::ToolOutput)), ctx.inner_width()))
            .collect();
        let keep = if ctx.expanded { wrapped.len() } else { USER_BASH_PREVIEW_LINES.min(wrapped.len()) };
        if keep < wrapped.len() {
            body.push(styled(text::earlier_lines_hint(wrapped.len() - keep, ctx.expand_key), th.style(Token::Muted)));
        }
        let skip = wrapped.len() - keep;
        body.extend(wrapped.into_iter().skip(skip));
    }
    if b.cancelled {
        body.push(Line::default());
        body.push(styled(text::COMMAND_CANCELLED, th.style(Token::Warning)));
    } else if let Some(code) = b.exit_code.filter(|c| *c != 0) {
        body.push(Line::default());
        body.push(styled(text::exit_code(code), th.style(Token::Error)));
    }
    if let Some(p) = &b.full_output_path {
        body.push(styled(text::full_output(&crate::sanitize::clean_line(p)), th.style(Token::Warning)));
    }
    let mut out = spacer(first);
    out.push(border.clone());
    out.extend(padded(body));
    out.push(border);
    out
}

fn compaction(summary: &str, tokens_before: u64, first: bool, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let tokens = format::grouped(tokens_before);
    let mut body = vec![styled(text::COMPACTION_LABEL, th.bold(Token::CustomMessageLabel)), Line::default()];
    let style = th.style(Token::CustomMessageText);
    if ctx.expanded {
        let md = format!("{}\n\n{}", text::compacted_from_heading(&tokens), summary);
        body.extend(crate::markdown::render(&md, ctx.inner_width(), th, style));
    } else {
        body.extend(lines::wrap_text(&text::compacted_from(&tokens, ctx.expand_key), style, ctx.inner_width()));
    }
    let mut out = spacer(first);
    out.extend(boxed(body, ctx.width, PAD_X, 1, th.style(Token::CustomMessageBg)));
    out
}

/// Draw an entry (`first`: no blank line before it).
pub fn render(kind: &Kind, first: bool, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    match kind {
        Kind::Header { lines, more } => {
            let mut v: Vec<Line<'static>> = lines.iter().flat_map(|l| lines::wrap(l, ctx.inner_width())).collect();
            if ctx.expanded {
                v.extend(more.iter().flat_map(|l| lines::wrap(l, ctx.inner_width())));
            }
            let mut out = spacer(first);
            out.extend(padded(v));
            out
        }
        Kind::User(t) => {
            let style = th.style(Token::UserMessageText);
            let md = crate::markdown::render(t, ctx.inner_width(), th, style);
            let mut out = spacer(first);
            out.extend(boxed(md, ctx.width, PAD_X, 1, th.style(Token::UserMessageBg)));
            out
        }
        Kind::Assistant(m) => assistant(m, first, ctx),
        Kind::Tool(t) => tool(t, first, ctx),
        Kind::Bash(b) => user_bash(b, first, ctx),
        Kind::Notice(level, t) => {
            let style = match level {
                Level::Info => th.style(Token::Dim),
                Level::Warning => th.style(Token::Warning),
                Level::Error => th.style(Token::Error),
            };
            let mut out = spacer(first);
            out.extend(padded(lines::wrap_text(&crate::sanitize::clean(t), style, ctx.inner_width())));
            out
        }
        Kind::Markdown(md) => {
            let mut out = spacer(first);
            out.extend(padded(crate::markdown::render(md, ctx.inner_width(), th, th.style(Token::Text))));
            out
        }
        Kind::Lines(ls) => {
            let mut out = spacer(first);
            out.extend(ls.iter().flat_map(|l| lines::wrap(l, ctx.width)));
            out
        }
        Kind::Compaction { summary, tokens_before } => compaction(summary, *tokens_before, first, ctx),
        Kind::Custom { custom_type, text, message, renderer } => {
            custom(custom_type, text, message, renderer.as_ref(), first, ctx)
        }
        Kind::Entry { entry, renderer } => {
            let width = u16::try_from(ctx.width).unwrap_or(u16::MAX);
            match (renderer.0)(entry, ctx.expanded, width) {
                Some(drawn) if !drawn.is_empty() => {
                    let mut out = spacer(first);
                    let drawn = drawn.iter().take(CUSTOM_MESSAGE_MAX_LINES).map(|l| crate::sanitize::styled_line(l));
                    out.extend(drawn.flat_map(|l| lines::wrap(&l, ctx.width)));
                    out
                }
                _ => Vec::new(),
            }
        }
    }
}

fn custom(
    custom_type: &str,
    text: &str,
    message: &serde_json::Value,
    renderer: Option<&crate::host::MessageRenderer>,
    first: bool,
    ctx: &Ctx<'_>,
) -> Vec<Line<'static>> {
    let mut out = spacer(first);
    let width = u16::try_from(ctx.width).unwrap_or(u16::MAX);
    if let Some(drawn) = renderer.and_then(|r| (r.0)(message, ctx.expanded, width)) {
        let drawn = drawn.iter().take(CUSTOM_MESSAGE_MAX_LINES).map(|l| crate::sanitize::styled_line(l));
        out.extend(drawn.flat_map(|l| lines::wrap(&l, ctx.width)));
        return out;
    }
    let th = ctx.theme;
    let label = format!("[{}]", crate::sanitize::clean_line(custom_type));
    let mut body = vec![styled(label, th.bold(Token::CustomMessageLabel)), Line::default()];
    body.extend(crate::markdown::render(
        &crate::sanitize::clean(text),
        ctx.inner_width(),
        th,
        th.style(Token::CustomMessageText),
    ));
    out.extend(boxed(body, ctx.width, PAD_X, 1, th.style(Token::CustomMessageBg)));
    out
}

/// Most lines an extension's message renderer may draw.
pub const CUSTOM_MESSAGE_MAX_LINES: usize = 200;
