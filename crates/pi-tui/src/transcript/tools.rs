//! Each tool drawn for what it is (the reference's renderers): bash with its
//! command, a live tail and its timing; read with path and range; edit with a
//! coloured diff; write with a preview; grep, find and ls with their results;
//! any other tool with its arguments and output. Collapsed by default,
//! expanded with the expand key.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::format;
use super::{Ctx, ToolState};
use crate::lines::{self, styled};
use crate::sanitize::TAB_SPACES;
use crate::text;
use crate::theme::Token;

/// Output lines a collapsed bash call shows (its tail).
pub const BASH_PREVIEW_LINES: usize = 5;
/// Lines a collapsed read or write shows.
pub const FILE_PREVIEW_LINES: usize = 10;
/// Lines a collapsed grep shows.
pub const GREP_PREVIEW_LINES: usize = 15;
/// Lines a collapsed find or ls shows.
pub const LIST_PREVIEW_LINES: usize = 20;
/// Lines a collapsed unknown tool shows.
pub const GENERIC_PREVIEW_LINES: usize = 10;
/// Characters of a collapsed unknown tool's arguments.
pub const COLLAPSED_ARGS_CHARS: usize = 100;
/// The default byte limit of truncated output (for its notice).
const DEFAULT_MAX_BYTES: usize = 50 * 1024;

/// A string argument: missing or null is empty; another type is invalid.
fn arg(args: &Value, key: &str) -> Result<String, ()> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(crate::sanitize::clean_line(s)),
        Some(_) => Err(()),
    }
}

/// A path argument (`path`, or `file_path` as older models send it).
fn path_arg(args: &Value) -> Result<String, ()> {
    match args.get("file_path") {
        Some(Value::String(_)) => arg(args, "file_path"),
        _ => arg(args, "path"),
    }
}

/// The text blocks of a result (images as a placeholder), sanitised.
pub fn text_output(state: &ToolState) -> String {
    let Some(r) = state.result.as_ref().or(state.partial.as_ref()) else { return String::new() };
    let mut parts = Vec::new();
    for c in &r.content {
        match c {
            pi_tools::Content::Text { text } => parts.push(crate::sanitize::clean(text)),
            pi_tools::Content::Image { mime_type, .. } => parts.push(text::image_placeholder(mime_type)),
        }
    }
    parts.join("\n")
}

fn details(state: &ToolState) -> Option<&Value> {
    state.result.as_ref().or(state.partial.as_ref()).and_then(|r| r.details.as_ref())
}

fn title(name: &str, ctx: &Ctx<'_>) -> Span<'static> {
    Span::styled(name.to_string(), ctx.theme.bold(Token::ToolTitle))
}

fn invalid(ctx: &Ctx<'_>) -> Span<'static> {
    Span::styled(text::INVALID_ARG.to_string(), ctx.theme.style(Token::Error))
}

fn path_span(p: Result<String, ()>, fallback: &str, ctx: &Ctx<'_>) -> Span<'static> {
    match p {
        Err(()) => invalid(ctx),
        Ok(p) if p.is_empty() && fallback.is_empty() => Span::styled("...", ctx.theme.style(Token::ToolOutput)),
        Ok(p) => {
            let p = if p.is_empty() { fallback.to_string() } else { p };
            Span::styled(format::home_short(&p, ctx.home), ctx.theme.style(Token::Accent))
        }
    }
}

/// `... (N more lines, ctrl+o to expand)`.
fn more_hint(n: usize, total: Option<usize>, ctx: &Ctx<'_>) -> Line<'static> {
    let muted = ctx.theme.style(Token::Muted);
    let head = match total {
        Some(t) => text::more_lines_total(n, t),
        None => text::more_lines(n),
    };
    Line::from(vec![
        Span::styled(head, muted),
        Span::raw(" "),
        Span::styled(text::expand_hint(ctx.expand_key), ctx.theme.style(Token::Dim)),
        Span::styled(")", muted),
    ])
}

/// Plain output lines, the first `max` of them when collapsed, then the hint.
fn head_lines(out: &str, max: usize, total_in_hint: bool, style: Style, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let all: Vec<&str> = out.split('\n').collect();
    let shown = if ctx.expanded { all.len() } else { max.min(all.len()) };
    let mut v: Vec<Line<'static>> =
        all[..shown].iter().flat_map(|l| lines::wrap(&styled(*l, style), ctx.inner_width())).collect();
    if shown < all.len() {
        v.push(more_hint(all.len() - shown, total_in_hint.then_some(all.len()), ctx));
    }
    v
}

fn warning(msg: String, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let mut v = vec![Line::default()];
    v.extend(lines::wrap_text(&msg, ctx.theme.style(Token::Warning), ctx.inner_width()));
    v
}

fn truncation_of(d: Option<&Value>) -> (bool, &str, u64, u64, usize) {
    let t = d.and_then(|d| d.get("truncation"));
    let get = |k: &str| t.and_then(|t| t.get(k));
    (
        get("truncated").and_then(Value::as_bool).unwrap_or(false),
        get("truncatedBy").and_then(Value::as_str).unwrap_or(""),
        get("outputLines").and_then(Value::as_u64).unwrap_or(0),
        get("totalLines").and_then(Value::as_u64).unwrap_or(0),
        get("maxBytes").and_then(Value::as_u64).map_or(DEFAULT_MAX_BYTES, |b| b as usize),
    )
}

/// `bash` (and `powershell` with its own prompt).
fn bash(state: &ToolState, prompt: &str, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let mut head = vec![match arg(&state.args, "command") {
        Err(()) => invalid(ctx),
        Ok(c) if c.is_empty() => Span::styled(format!("{prompt} ..."), th.bold(Token::ToolTitle)),
        Ok(c) => Span::styled(format!("{prompt} {c}"), th.bold(Token::ToolTitle)),
    }];
    if let Some(t) = state.args.get("timeout").filter(|t| !t.is_null()) {
        head.push(Span::styled(text::timeout_suffix(&t.to_string()), th.style(Token::Muted)));
    }
    let mut out = lines::wrap(&Line::from(head), ctx.inner_width());
    let d = details(state);
    let full_path = d.and_then(|d| d.get("fullOutputPath")).and_then(Value::as_str).map(crate::sanitize::clean_line);
    let (truncated, by, shown, total, max_bytes) = truncation_of(d);
    let mut output = text_output(state).trim().to_string();
    if state.result.is_some()
        && truncated
        && output.ends_with(']')
        && let (Some(p), Some(start)) = (&full_path, output.rfind("\n\n["))
        && output[start..].contains(p.as_str())
    {
        output = output[..start].trim_end().to_string();
    }
    if !output.is_empty() {
        out.push(Line::default());
        let wrapped: Vec<Line<'static>> = output
            .split('\n')
            .flat_map(|l| lines::wrap(&styled(l, th.style(Token::ToolOutput)), ctx.inner_width()))
            .collect();
        if ctx.expanded || wrapped.len() <= BASH_PREVIEW_LINES {
            out.extend(wrapped);
        } else {
            let hidden = wrapped.len() - BASH_PREVIEW_LINES;
            out.push(Line::from(vec![
                Span::styled(text::earlier_lines(hidden), th.style(Token::Muted)),
                Span::raw(" "),
                Span::styled(text::expand_hint(ctx.expand_key), th.style(Token::Dim)),
                Span::styled(")", th.style(Token::Muted)),
            ]));
            out.extend(wrapped.into_iter().skip(hidden));
        }
    }
    if truncated || full_path.is_some() {
        let mut parts = Vec::new();
        if let Some(p) = &full_path {
            parts.push(text::full_output(p));
        }
        if truncated {
            parts.push(if by == "lines" {
                text::truncated_lines(shown, total)
            } else {
                text::truncated_bytes(shown, &pi_tools::truncate::format_size(max_bytes))
            });
        }
        out.extend(warning(format!("[{}]", parts.join(". ")), ctx));
    }
    if let Some(t) = state.timer_text(ctx.now) {
        out.push(Line::default());
        out.push(styled(t, th.style(Token::Muted)));
    }
    out
}

fn read_range(args: &Value) -> String {
    let num = |k: &str| match args.get(k) {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let offset_given = args.get("offset").is_some_and(|v| !v.is_null());
    let limit_given = args.get("limit").is_some_and(|v| !v.is_null());
    if !offset_given && !limit_given {
        return String::new();
    }
    let start = if offset_given { num("offset") } else { Some(1.0) };
    let Some(start) = start.filter(|s| s.is_finite()) else { return String::new() };
    if !limit_given {
        return format!(":{start}");
    }
    let Some(count) = num("limit") else { return String::new() };
    let end = start + count - 1.0;
    if end == 0.0 { format!(":{start}") } else { format!(":{start}-{end}") }
}

/// `read`: path and range; the content only expanded (or an error).
fn read(state: &ToolState, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let header = Line::from(vec![
        title("read", ctx),
        Span::raw(" "),
        path_span(path_arg(&state.args), "", ctx),
        Span::styled(read_range(&state.args), th.style(Token::Warning)),
    ]);
    let mut out = lines::wrap(&header, ctx.inner_width());
    let error = state.is_error();
    if state.result.is_none() || (!ctx.expanded && !error) {
        return out;
    }
    let text_out = text_output(state);
    let lang = path_arg(&state.args).ok().filter(|_| !error).and_then(|p| crate::highlight::language_for_path(&p));
    let mut body: Vec<Line<'static>> = match lang {
        Some(l) => crate::highlight::highlight(&text_out.replace('\t', TAB_SPACES), l, th),
        None => text_out.split('\n').map(|l| styled(l, th.style(Token::ToolOutput))).collect(),
    };
    while body.last().is_some_and(|l| lines::plain(l).is_empty()) {
        body.pop();
    }
    let shown = if ctx.expanded { body.len() } else { FILE_PREVIEW_LINES.min(body.len()) };
    out.push(Line::default());
    let hidden = body.len() - shown;
    out.extend(body.into_iter().take(shown).flat_map(|l| lines::wrap(&l, ctx.inner_width())));
    if hidden > 0 {
        out.push(more_hint(hidden, None, ctx));
    }
    let (truncated, by, shown_l, total, max_bytes) = truncation_of(details(state));
    if truncated {
        let first_too_long = details(state)
            .and_then(|d| d.get("truncation"))
            .and_then(|t| t.get("firstLineExceedsLimit"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let size = pi_tools::truncate::format_size(max_bytes);
        let msg = if first_too_long {
            text::first_line_exceeds(&size)
        } else if by == "lines" {
            text::truncated_lines_limit(shown_l, total)
        } else {
            text::truncated_bytes(shown_l, &size)
        };
        out.extend(warning(format!("[{msg}]"), ctx));
    }
    out
}

/// `edit`: path, then the diff (or the error).
fn edit(state: &ToolState, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let header = Line::from(vec![title("edit", ctx), Span::raw(" "), path_span(path_arg(&state.args), "", ctx)]);
    let mut out = lines::wrap(&header, ctx.inner_width());
    if state.is_error() {
        out.push(Line::default());
        out.extend(lines::wrap_text(&text_output(state), ctx.theme.style(Token::Error), ctx.inner_width()));
    } else if let Some(diff) = details(state).and_then(|d| d.get("diff")).and_then(Value::as_str) {
        out.push(Line::default());
        out.extend(lines::wrap_all(&super::diff::render(diff, ctx.theme), ctx.inner_width()));
    }
    out
}

/// `write`: path, then a preview of the content (highlighted by file type).
fn write(state: &ToolState, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let header = Line::from(vec![title("write", ctx), Span::raw(" "), path_span(path_arg(&state.args), "", ctx)]);
    let mut out = lines::wrap(&header, ctx.inner_width());
    match state.args.get("content") {
        Some(Value::String(content)) if !content.is_empty() => {
            let content = crate::sanitize::clean(content);
            let lang = path_arg(&state.args).ok().and_then(|p| crate::highlight::language_for_path(&p));
            let mut body: Vec<Line<'static>> = match lang {
                Some(l) => crate::highlight::highlight(&content, l, th),
                None => content.split('\n').map(|l| styled(l, th.style(Token::ToolOutput))).collect(),
            };
            while body.last().is_some_and(|l| lines::plain(l).is_empty()) {
                body.pop();
            }
            let total = body.len();
            let shown = if ctx.expanded { total } else { FILE_PREVIEW_LINES.min(total) };
            out.push(Line::default());
            out.extend(body.into_iter().take(shown).flat_map(|l| lines::wrap(&l, ctx.inner_width())));
            if shown < total {
                out.push(more_hint(total - shown, Some(total), ctx));
            }
        }
        Some(Value::String(_)) | None | Some(Value::Null) => {}
        Some(_) => {
            out.push(Line::default());
            out.push(styled(text::INVALID_CONTENT_ARG, th.style(Token::Error)));
        }
    }
    if state.is_error() {
        out.push(Line::default());
        out.extend(lines::wrap_text(&text_output(state), th.style(Token::Error), ctx.inner_width()));
    }
    out
}

/// `grep`, `find`, `ls`: what was searched, then the results and limits.
fn search(state: &ToolState, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let out_style = th.style(Token::ToolOutput);
    let a = &state.args;
    let path = || arg(a, "path").map(|p| format::home_short(if p.is_empty() { "." } else { &p }, ctx.home));
    let mut header = vec![title(&state.name, ctx), Span::raw(" ")];
    let (max, limit_key) = match state.name.as_str() {
        "grep" => {
            header.push(match arg(a, "pattern") {
                Ok(p) => Span::styled(format!("/{p}/"), th.style(Token::Accent)),
                Err(()) => invalid(ctx),
            });
            header
                .push(Span::styled(format!(" in {}", path().unwrap_or_else(|_| text::INVALID_ARG.into())), out_style));
            if let Ok(g) = arg(a, "glob")
                && !g.is_empty()
            {
                header.push(Span::styled(format!(" ({g})"), out_style));
            }
            if let Some(l) = a.get("limit").filter(|l| !l.is_null()) {
                header.push(Span::styled(format!(" limit {l}"), out_style));
            }
            (GREP_PREVIEW_LINES, "matchLimitReached")
        }
        "find" => {
            header.push(match arg(a, "pattern") {
                Ok(p) => Span::styled(p, th.style(Token::Accent)),
                Err(()) => invalid(ctx),
            });
            header
                .push(Span::styled(format!(" in {}", path().unwrap_or_else(|_| text::INVALID_ARG.into())), out_style));
            if let Some(l) = a.get("limit").filter(|l| !l.is_null()) {
                header.push(Span::styled(format!(" (limit {l})"), out_style));
            }
            (LIST_PREVIEW_LINES, "resultLimitReached")
        }
        _ => {
            header.push(path_span(arg(a, "path"), ".", ctx));
            if let Some(l) = a.get("limit").filter(|l| !l.is_null()) {
                header.push(Span::styled(format!(" (limit {l})"), out_style));
            }
            (LIST_PREVIEW_LINES, "entryLimitReached")
        }
    };
    let mut out = lines::wrap(&Line::from(header), ctx.inner_width());
    let output = text_output(state).trim().to_string();
    if !output.is_empty() {
        out.push(Line::default());
        let style = if state.is_error() { th.style(Token::Error) } else { out_style };
        out.extend(head_lines(&output, max, false, style, ctx));
    }
    let d = details(state);
    let mut notes = Vec::new();
    if let Some(n) = d.and_then(|d| d.get(limit_key)).filter(|v| !v.is_null()) {
        notes.push(match state.name.as_str() {
            "grep" => text::matches_limit(&n.to_string()),
            "find" => text::results_limit(&n.to_string()),
            _ => text::entries_limit(&n.to_string()),
        });
    }
    let (truncated, .., max_bytes) = truncation_of(d);
    if truncated {
        notes.push(text::bytes_limit(&pi_tools::truncate::format_size(max_bytes)));
    }
    if d.and_then(|d| d.get("linesTruncated")).and_then(Value::as_bool).unwrap_or(false) {
        notes.push(text::SOME_LINES_TRUNCATED.to_string());
    }
    if !notes.is_empty() {
        out.extend(warning(text::truncated_notes(&notes.join(", ")), ctx));
    }
    out
}

/// Any other tool: its name and arguments, then its output.
fn generic(state: &ToolState, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let th = ctx.theme;
    let name = crate::sanitize::clean_line(&state.name);
    let entries: Vec<(String, Value)> = match &state.args {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Value::Null => Vec::new(),
        other => vec![("args".to_string(), other.clone())],
    };
    let mut out = Vec::new();
    if entries.is_empty() {
        out.push(Line::from(title(&name, ctx)));
    } else if ctx.expanded {
        out.push(Line::from(title(&name, ctx)));
        for (k, v) in entries {
            let text = match v {
                Value::String(s) => s,
                other => serde_json::to_string_pretty(&other).unwrap_or_default(),
            };
            let text = crate::sanitize::clean(&text).replace('\n', "\n    ");
            out.extend(lines::wrap_text(&format!("  {k}: {text}"), th.style(Token::Muted), ctx.inner_width()));
        }
    } else {
        let pairs: Vec<String> = entries.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let pairs = crate::sanitize::clean_line(&pairs.join(" "));
        let preview = if pairs.chars().count() > COLLAPSED_ARGS_CHARS {
            format!("{}...", pairs.chars().take(COLLAPSED_ARGS_CHARS - 3).collect::<String>())
        } else {
            pairs
        };
        let line = Line::from(vec![title(&name, ctx), Span::raw(" "), Span::styled(preview, th.style(Token::Muted))]);
        out.extend(lines::wrap(&line, ctx.inner_width()));
    }
    let output = text_output(state);
    if !output.is_empty() {
        out.push(Line::default());
        let style = if state.is_error() { th.style(Token::Error) } else { th.style(Token::ToolOutput) };
        out.extend(head_lines(&output, GENERIC_PREVIEW_LINES, false, style, ctx));
    }
    out
}

/// A tool row an extension draws: its `renderCall` lines (else the tool's
/// name) and, once there is output, its `renderResult` lines (else the
/// output's text).
fn drawn(state: &ToolState, renderer: &crate::host::ToolRenderer, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    let width = u16::try_from(ctx.inner_width()).unwrap_or(u16::MAX);
    let outcome = state.result.as_ref().or(state.partial.as_ref());
    let request = |slot: &str| {
        serde_json::json!({
            "slot": slot,
            "toolCallId": state.id,
            "args": state.args,
            "result": outcome.map(|o| serde_json::json!({"content": o.content, "details": o.details})),
            "isPartial": state.result.is_none(),
            "expanded": ctx.expanded,
            "isError": state.is_error(),
            "executionStarted": state.started.is_some(),
            "durationMs": state.duration_ms,
        })
    };
    let styled_lines = |ls: Vec<String>| -> Vec<Line<'static>> {
        ls.iter()
            .take(RENDERED_MAX_LINES)
            .flat_map(|l| lines::wrap(&crate::sanitize::styled_line(l), ctx.inner_width()))
            .collect()
    };
    let mut out = match (renderer.0)("call", &request("call"), width) {
        Some(ls) => styled_lines(ls),
        None => vec![Line::from(title(&crate::sanitize::clean_line(&state.name), ctx))],
    };
    if outcome.is_some() {
        match (renderer.0)("result", &request("result"), width) {
            Some(ls) => out.extend(styled_lines(ls)),
            None => {
                let output = text_output(state);
                if !output.is_empty() {
                    out.push(Line::default());
                    let th = ctx.theme;
                    let style = if state.is_error() { th.style(Token::Error) } else { th.style(Token::ToolOutput) };
                    out.extend(head_lines(&output, GENERIC_PREVIEW_LINES, false, style, ctx));
                }
            }
        }
    }
    out
}

/// Most lines an extension's tool renderer may draw per slot.
pub const RENDERED_MAX_LINES: usize = 200;

/// The lines inside a tool's box.
pub fn render(state: &ToolState, ctx: &Ctx<'_>) -> Vec<Line<'static>> {
    if let Some(r) = &state.renderer {
        return drawn(state, r, ctx);
    }
    match state.name.as_str() {
        "bash" => bash(state, "$", ctx),
        "powershell" => bash(state, "PS>", ctx),
        "read" => read(state, ctx),
        "edit" => edit(state, ctx),
        "write" => write(state, ctx),
        "grep" | "find" | "ls" => search(state, ctx),
        _ => generic(state, ctx),
    }
}
