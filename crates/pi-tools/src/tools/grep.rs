//! The `grep` tool: search file contents with ripgrep's engine, in process.
//!
//! Behaves as the reference's `rg --json --line-number --color=never --hidden
//! [--ignore-case] [--fixed-strings] [--glob G] [--context C] -- PATTERN .`
//! run inside the search folder (or on the single file given), formatted as
//! `path:<n>: text` / `path-<n>- text`, with the reference's match limit,
//! trailing-context window, 500-character line cut and 50 KiB cap.
//!
//! Files are searched in parallel but reported in path order (see
//! [`crate::search`]); after the first `limit` matches in that order the search
//! stops as soon as one more match proves the limit cut something off.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::limits::{GREP_DEFAULT_LIMIT, GREP_MAX_LINE_LENGTH, MAX_BYTES};
use crate::search::{self, Flavor, WalkSpec};
use crate::text::common::{byte_limit_reached, first_argument_with_nul, path_not_found};
use crate::text::grep as text;
use crate::truncate::truncate_line;
use crate::{ToolContext, ToolError, ToolResult};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    ignore_case: Option<bool>,
    literal: Option<bool>,
    context: Option<f64>,
    limit: Option<f64>,
}

/// One validated grep request, ready to run on a blocking thread.
struct Request {
    root: PathBuf,
    is_dir: bool,
    pattern: String,
    glob: Option<String>,
    ignore_case: bool,
    literal: bool,
    context: u64,
    limit: usize,
    /// Allowance for the single-threaded path-order attempt (see `first_in_order`).
    budget: search::Budget,
}

/// `Math.max(1, Math.floor(limit ?? default))`, saturating.
pub(crate) fn effective_limit(limit: Option<f64>, default: usize) -> usize {
    match limit {
        None => default,
        Some(v) if v.is_nan() || v < 1.0 => 1,
        Some(v) => {
            let f = v.floor();
            if f >= usize::MAX as f64 { usize::MAX } else { f as usize }
        }
    }
}

/// The error Node gives when the reference starts rg with an argument holding
/// a NUL byte (pattern, glob or path): the arguments are rebuilt as the
/// reference lays them out, as the message names the argument's index.
fn nul_in_rg_arguments(a: &GrepArgs, root: &Path, is_dir: bool, context: u64) -> Option<String> {
    let root_s = root.to_string_lossy();
    let has_nul = |s: &str| s.contains('\0');
    if !has_nul(&a.pattern) && !a.glob.as_deref().is_some_and(has_nul) && !has_nul(&root_s) {
        return None;
    }
    let mut args: Vec<String> =
        ["--no-config", "--json", "--line-number", "--color=never", "--hidden"].map(String::from).to_vec();
    if a.ignore_case.unwrap_or(false) {
        args.push("--ignore-case".into());
    }
    if a.literal.unwrap_or(false) {
        args.push("--fixed-strings".into());
    }
    if let Some(g) = a.glob.as_deref().filter(|g| !g.is_empty()) {
        args.extend(["--glob".into(), strip_dot_slash(g)]);
    }
    if context > 0 {
        args.extend(["--context".into(), context.min(crate::jsnum::MAX_SAFE_INTEGER).to_string()]);
    }
    let path = if is_dir { ".".to_string() } else { root_s.into_owned() };
    args.extend(["--".into(), a.pattern.clone(), path]);
    first_argument_with_nul(&args)
}

/// Run `grep`.
pub async fn run(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let a: GrepArgs = super::parse(args)?;
    let root = crate::paths::resolve(&ctx.cwd, a.path.as_deref().filter(|p| !p.is_empty()).unwrap_or("."))
        .map_err(ToolError::msg)?;
    let meta = std::fs::metadata(&root).map_err(|_| ToolError::msg(path_not_found(&root.to_string_lossy())))?;
    let context = match a.context {
        Some(c) if c > 0.0 => {
            let f = c.floor();
            if f >= u64::MAX as f64 { u64::MAX } else { f as u64 }
        }
        _ => 0,
    };
    if let Some(message) = nul_in_rg_arguments(&a, &root, meta.is_dir(), context) {
        return Err(ToolError::msg(message));
    }
    search::check_argument_lengths(&[Some(a.pattern.as_str()), a.glob.as_deref()])?;
    let req = Request {
        root,
        is_dir: meta.is_dir(),
        pattern: a.pattern,
        glob: a.glob,
        ignore_case: a.ignore_case.unwrap_or(false),
        literal: a.literal.unwrap_or(false),
        context,
        limit: effective_limit(a.limit, GREP_DEFAULT_LIMIT),
        budget: search::Budget::DEFAULT,
    };
    let abort = ctx.abort.clone();
    let task = tokio::task::spawn_blocking(move || execute(req, &abort));
    tokio::select! {
        r = task => r.map_err(super::worker_failed)?,
        _ = ctx.abort.cancelled() => Err(ToolError::Aborted),
    }
}

fn build_matcher(req: &Request) -> Result<RegexMatcher, ToolError> {
    let mut b = RegexMatcherBuilder::new();
    b.multi_line(true)
        .unicode(true)
        .octal(false)
        .fixed_strings(req.literal)
        .case_insensitive(req.ignore_case)
        .line_terminator(Some(b'\n'))
        .dot_matches_new_line(false)
        .ban_byte(Some(0));
    b.build(&req.pattern).map_err(|e| {
        let base = text::rg_error(&e.to_string());
        ToolError::msg(match e.kind() {
            grep_regex::ErrorKind::NotAllowed(_) => format!("{base}\n\n{}", text::MULTILINE_HINT),
            grep_regex::ErrorKind::Banned(_) => format!("{base}\n\n{}", text::NUL_HINT),
            _ => base,
        })
    })
}

/// One line rg would report: a match or a context line.
struct Event {
    line: u64,
    is_match: bool,
    /// The line without its terminator, cut to 500 characters; `None` once
    /// the file alone is past the byte cap (then only its length is kept).
    text: Option<String>,
    text_len: usize,
    cut: bool,
}

/// What one file gave.
#[derive(Default)]
struct FileHits {
    display: String,
    events: Vec<Event>,
    matches: usize,
    error: Option<String>,
}

/// Collects a file's events, stopping once nothing more can be shown.
struct Collector<'a> {
    hits: &'a mut FileHits,
    /// Search folder and file, to name the file once it has something.
    name: (Option<&'a Path>, &'a Path),
    named: bool,
    limit: usize,
    context: u64,
    /// Line of the file's `limit+1`-th match plus the context: nothing past it
    /// can reach the output.
    stop_after: Option<u64>,
    bytes: usize,
}

impl Collector<'_> {
    fn push(&mut self, line: u64, is_match: bool, raw: &[u8]) -> bool {
        if self.stop_after.is_some_and(|end| line > end) {
            return false;
        }
        if !self.named {
            self.hits.display = names(self.name.0, self.name.1).0;
            self.named = true;
        }
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let decoded = String::from_utf8_lossy(raw);
        let (cut_text, cut) = truncate_line(&decoded, GREP_MAX_LINE_LENGTH);
        let text_len = cut_text.len();
        let keep = self.bytes <= MAX_BYTES + 1;
        // Same length for `:n:` and `-n-` lines.
        self.bytes += self.hits.display.len() + line.to_string().len() + 3 + text_len + 1;
        self.hits.events.push(Event { line, is_match, text: keep.then_some(cut_text), text_len, cut });
        if is_match {
            self.hits.matches += 1;
            if self.hits.matches == self.limit.saturating_add(1) {
                self.stop_after = Some(line.saturating_add(self.context));
            }
        }
        true
    }
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let line = m.line_number().unwrap_or(0);
        Ok(self.push(line, true, m.bytes()))
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let line = c.line_number().unwrap_or(0);
        Ok(self.push(line, false, c.bytes()))
    }
}

fn searcher(context: u64, binary: BinaryDetection) -> Searcher {
    let c = usize::try_from(context).unwrap_or(usize::MAX);
    SearcherBuilder::new()
        .line_number(true)
        .multi_line(false)
        .before_context(c)
        .after_context(c)
        .binary_detection(binary)
        // Bounded memory: a line longer than this is an error for its file.
        .heap_limit(Some(crate::limits::GREP_MAX_LINE_BYTES))
        .build()
}

/// How a file is named in the output and in rg's error lines: relative to
/// the search folder (`./`-prefixed in errors) or, for a single file, its base
/// name (absolute path in errors).
fn names(root: Option<&Path>, path: &Path) -> (String, String) {
    match root {
        Some(r) => {
            let display = search::relative(r, path);
            let error_path = format!("./{display}");
            (display, error_path)
        }
        None => (
            path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            path.to_string_lossy().into_owned(),
        ),
    }
}

fn search_file(s: &mut Searcher, path: &Path, root: Option<&Path>, req: &Request, m: &RegexMatcher) -> FileHits {
    let mut hits = FileHits::default();
    let result = {
        let mut sink = Collector {
            hits: &mut hits,
            name: (root, path),
            named: false,
            limit: req.limit,
            context: req.context,
            stop_after: None,
            bytes: 0,
        };
        s.search_path(m, path, &mut sink)
    };
    if let Err(e) = result {
        let (display, error_path) = names(root, path);
        hits.display = display;
        // grep-searcher says "configured allocation limit (…) exceeded".
        let why = if e.to_string().contains("allocation limit") {
            text::line_too_long(crate::limits::GREP_MAX_LINE_BYTES)
        } else {
            e.to_string()
        };
        hits.error = Some(text::rg_error(&format!("{error_path}: {why}")));
    }
    hits
}

/// A file to report on and its hits once searched (`None` inside when it
/// gave nothing).
struct Item {
    path: PathBuf,
    hits: Option<Option<FileHits>>,
}

impl Item {
    fn new(path: PathBuf) -> Item {
        Item { path, hits: None }
    }

    /// Search the file; `root` is the search folder (`None` for a single file).
    fn search(&mut self, s: &mut Searcher, root: Option<&Path>, req: &Request, m: &RegexMatcher) -> usize {
        let h = search_file(s, &self.path, root, req, m);
        let n = h.matches;
        self.hits = Some((!h.events.is_empty() || h.error.is_some()).then_some(h));
        n
    }
}

/// The reference's treatment of rg's event stream, over files in order.
struct Output {
    lines: Vec<String>,
    bytes: usize,
    count: usize,
    matches: usize,
    limit_hit: bool,
    trailing_end: u64,
    last_file: usize,
    match_limit_reached: bool,
    lines_truncated: bool,
    done: bool,
}

impl Output {
    fn new() -> Self {
        Output {
            lines: Vec::new(),
            bytes: 0,
            count: 0,
            matches: 0,
            limit_hit: false,
            trailing_end: 0,
            last_file: usize::MAX,
            match_limit_reached: false,
            lines_truncated: false,
            done: false,
        }
    }

    fn push(&mut self, file: usize, display: &str, ev: &Event, as_match: bool) {
        self.last_file = file;
        if ev.cut {
            self.lines_truncated = true;
        }
        let len = display.len() + ev.line.to_string().len() + 3 + ev.text_len;
        if self.bytes <= MAX_BYTES + 1 {
            let t = ev.text.as_deref().unwrap_or_default();
            self.lines.push(if as_match {
                text::match_line(display, ev.line, t)
            } else {
                text::context_line(display, ev.line, t)
            });
        }
        self.bytes += len + 1;
        self.count += 1;
    }

    fn feed(&mut self, file: usize, hits: &FileHits, limit: usize, context: u64) {
        for ev in &hits.events {
            if self.done {
                return;
            }
            if !self.limit_hit {
                self.push(file, &hits.display, ev, ev.is_match);
                if ev.is_match {
                    self.matches += 1;
                    if self.matches >= limit {
                        self.limit_hit = true;
                        self.trailing_end = ev.line.saturating_add(context);
                    }
                }
                continue;
            }
            let in_window = self.last_file == file && ev.line <= self.trailing_end;
            if in_window {
                self.push(file, &hits.display, ev, false);
            }
            if ev.is_match {
                self.match_limit_reached = true;
            }
            if self.match_limit_reached && !(in_window && ev.line < self.trailing_end) {
                self.done = true;
            }
        }
    }
}

/// Rewrite a walk error's absolute paths the way rg prints them from `.`.
fn walk_error(root: &Path, err: &ignore::Error) -> String {
    let msg = err.to_string();
    let root_s = root.to_string_lossy();
    let msg = if root_s == "/" { msg } else { msg.replace(&format!("{root_s}/"), "./").replace(&*root_s, ".") };
    text::rg_error(&msg)
}

fn execute(req: Request, abort: &CancellationToken) -> Result<ToolResult, ToolError> {
    let matcher = build_matcher(&req)?;
    let mut errors: Vec<String> = Vec::new();
    let (mut items, root): (Vec<Item>, Option<PathBuf>) = if req.is_dir {
        // rg runs inside the folder, whose path the OS resolves.
        let root = req.root.canonicalize().unwrap_or_else(|_| req.root.clone());
        let overrides = match &req.glob {
            Some(g) if !g.is_empty() => {
                let g = strip_dot_slash(g);
                let mut ob = OverrideBuilder::new(&root);
                ob.add(&g).map_err(|e| ToolError::msg(text::rg_error(&e.to_string())))?;
                Some(ob.build().map_err(|e| ToolError::msg(text::rg_error(&e.to_string())))?)
            }
            _ => None,
        };
        let spec =
            WalkSpec { root: &root, flavor: Flavor::Rg, overrides, require_git: search::inside_git_repo(&req.root) };
        let seen = match first_in_order(spec.clone(), &root, &req, &matcher, abort)? {
            Ordered::Done(out, errors) => return finish(out, errors, &req),
            Ordered::Stopped(seen) => seen,
        };
        let (items, walk_errors) = walk_and_search(spec, &root, &req, &matcher, seen, abort)?;
        errors.extend(walk_errors);
        (items, Some(root))
    } else {
        let is_file = std::fs::metadata(&req.root).map(|m| m.is_file()).unwrap_or(false);
        // Devices, FIFOs and sockets are not read: they could block forever.
        (if is_file { vec![Item::new(req.root.clone())] } else { vec![] }, None)
    };
    search_in_order(&mut items, root.as_deref(), &req, &matcher, abort);
    if abort.is_cancelled() {
        return Err(ToolError::Aborted);
    }
    let mut out = Output::new();
    for (i, item) in items.iter().enumerate() {
        let Some(searched) = &item.hits else { break };
        if let Some(h) = searched {
            if let Some(e) = &h.error {
                errors.push(e.clone());
            }
            out.feed(i, h, req.limit, req.context);
        }
        if out.done {
            break;
        }
    }
    finish(out, errors, &req)
}

/// The result from the processed event stream and the errors rg would print.
fn finish(out: Output, errors: Vec<String>, req: &Request) -> Result<ToolResult, ToolError> {
    if !out.match_limit_reached && !errors.is_empty() {
        return Err(ToolError::msg(errors.join("\n")));
    }
    if out.matches == 0 {
        return Ok(ToolResult::success(text::NO_MATCHES));
    }
    let capped = search::cap_output(&out.lines, out.count, out.bytes.saturating_sub(1));
    let mut output = capped.text;
    let mut details = Map::new();
    let mut notices = Vec::new();
    if out.match_limit_reached {
        notices.push(text::match_limit_reached(req.limit));
        details.insert("matchLimitReached".into(), json!(req.limit));
    }
    if let Some(t) = capped.truncation {
        notices.push(byte_limit_reached());
        details.insert("truncation".into(), t);
    }
    if out.lines_truncated {
        notices.push(text::lines_truncated());
        details.insert("linesTruncated".into(), json!(true));
    }
    search::append_notices(&mut output, &notices);
    let result = ToolResult::success(output);
    Ok(if details.is_empty() { result } else { result.with_details(Value::Object(details)) })
}

/// How the ordered first pass ended.
enum Ordered {
    /// The output is known (the search ended, or its limit was passed).
    Done(Output, Vec<String>),
    /// The time budget ran out; what was seen is handed on.
    Stopped(Seen),
}

/// What an ordered pass that stopped early had seen.
#[derive(Default)]
struct Seen {
    /// The files searched that gave something (hits or an error), in path order.
    items: Vec<Item>,
    /// Matches in them.
    matches: usize,
    /// rg-style walk errors met.
    errors: Vec<String>,
    /// The last entry seen: everything before it in path order was searched.
    upto: Option<PathBuf>,
}

/// Search in path order on one thread, which ends early once the output is
/// known (a common pattern); stops after the time budget, handing on what it saw.
fn first_in_order(
    spec: WalkSpec<'_>,
    root: &Path,
    req: &Request,
    matcher: &RegexMatcher,
    abort: &CancellationToken,
) -> Result<Ordered, ToolError> {
    let mut spending = req.budget.start();
    let mut s = searcher(req.context, BinaryDetection::quit(0));
    let mut out = Output::new();
    let mut seen = Seen::default();
    // Walk and file errors in the order met, for an output known here.
    let mut errors = Vec::new();
    let mut last: Option<ignore::DirEntry> = None;
    for entry in search::sorted_walk(spec) {
        if abort.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        if spending.exhausted() {
            seen.upto = last.map(ignore::DirEntry::into_path);
            return Ok(Ordered::Stopped(seen));
        }
        let e = match entry {
            Ok(e) => e,
            Err(err) => {
                let err = walk_error(root, &err);
                errors.push(err.clone());
                seen.errors.push(err);
                continue;
            }
        };
        if e.depth() == 0 {
            continue;
        }
        if !e.file_type().is_some_and(|t| t.is_file()) {
            last = Some(e);
            continue;
        }
        let mut item = Item::new(e.path().to_path_buf());
        seen.matches += item.search(&mut s, Some(root), req, matcher);
        last = Some(e);
        if let Some(Some(h)) = &item.hits {
            if let Some(err) = &h.error {
                errors.push(err.clone());
            }
            out.feed(seen.items.len(), h, req.limit, req.context);
            seen.items.push(item);
        }
        if out.done {
            break;
        }
    }
    Ok(Ordered::Done(out, errors))
}

/// Walk the folder in parallel from where `seen` ends and, while the matches
/// found stay within the limit, search each file as the walk meets it (as rg
/// does). Returns the files that may matter in path order (those searched
/// that gave something, and those left for later), with `seen`'s first, plus
/// rg-style walk errors.
fn walk_and_search(
    spec: WalkSpec<'_>,
    root: &Path,
    req: &Request,
    matcher: &RegexMatcher,
    seen: Seen,
    abort: &CancellationToken,
) -> Result<(Vec<Item>, Vec<String>), ToolError> {
    // Searching during the walk stops once more than `limit` matches were
    // seen anywhere: the rest is searched afterwards in path order, only as
    // far as the output needs.
    let found = AtomicUsize::new(seen.matches);
    let walked = search::walk(
        spec,
        seen.upto.as_deref(),
        abort,
        || searcher(req.context, BinaryDetection::quit(0)),
        |s, e| {
            if !e.file_type().is_some_and(|t| t.is_file()) {
                return None;
            }
            let mut item = Item::new(e.path().to_path_buf());
            if found.load(Ordering::Relaxed) <= req.limit {
                let n = item.search(s, Some(root), req, matcher);
                found.fetch_add(n, Ordering::Relaxed);
                if matches!(item.hits, Some(None)) {
                    return None; // searched, nothing to show
                }
            }
            Some(item)
        },
    );
    if walked.aborted {
        return Err(ToolError::Aborted);
    }
    let mut errors = seen.errors;
    errors.extend(walked.errors.iter().map(|e| walk_error(root, e)));
    let mut items = walked.items;
    items.sort_unstable_by(|a, b| search::path_cmp(&a.path, &b.path));
    let mut all = seen.items;
    all.append(&mut items);
    Ok((all, errors))
}

/// `glob.replace(/^(!?)(?:\.\/)+/, "$1")`: rg never matches a leading `./`.
fn strip_dot_slash(g: &str) -> String {
    let (neg, mut rest) = match g.strip_prefix('!') {
        Some(r) => ("!", r),
        None => ("", g),
    };
    if !rest.starts_with("./") {
        return g.to_string();
    }
    while let Some(r) = rest.strip_prefix("./") {
        rest = r;
    }
    format!("{neg}{rest}")
}

/// Search the files not searched yet, on worker threads, in path order, up
/// to the point where the matches so far prove the limit was exceeded (files
/// after it stay unsearched: they cannot change the output).
fn search_in_order(
    items: &mut [Item],
    root: Option<&Path>,
    req: &Request,
    matcher: &RegexMatcher,
    abort: &CancellationToken,
) {
    let n = items.len();
    let slots: Vec<Mutex<&mut Item>> = items.iter_mut().map(Mutex::new).collect();
    let done: Vec<AtomicBool> =
        slots.iter().map(|s| AtomicBool::new(s.lock().map(|i| i.hits.is_some()).unwrap_or(true))).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // (files committed in order, matches in them)
    let committed = Mutex::new((0usize, 0usize));
    let advance = || {
        let Ok(mut c) = committed.lock() else { return };
        while c.0 < n && done[c.0].load(Ordering::Acquire) {
            c.1 += slots[c.0]
                .lock()
                .ok()
                .and_then(|i| i.hits.as_ref().and_then(|h| h.as_ref().map(|h| h.matches)))
                .unwrap_or(0);
            c.0 += 1;
            if c.1 > req.limit {
                stop.store(true, Ordering::Relaxed);
                return;
            }
        }
    };
    advance();
    let work = || {
        let mut s = searcher(req.context, if req.is_dir { BinaryDetection::quit(0) } else { BinaryDetection::none() });
        loop {
            if stop.load(Ordering::Relaxed) || abort.is_cancelled() {
                return;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return;
            }
            if done[i].load(Ordering::Acquire) {
                continue;
            }
            if let Ok(mut item) = slots[i].lock() {
                item.search(&mut s, root, req, matcher);
            }
            done[i].store(true, Ordering::Release);
            advance();
        }
    };
    let pending = done.iter().filter(|d| !d.load(Ordering::Relaxed)).count();
    let workers = search::threads().min(pending);
    if workers <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_globs() {
        assert_eq!(effective_limit(None, 100), 100);
        assert_eq!(effective_limit(Some(0.0), 100), 1);
        assert_eq!(effective_limit(Some(-5.0), 100), 1);
        assert_eq!(effective_limit(Some(2.7), 100), 2);
        assert_eq!(strip_dot_slash("./././src/*.ts"), "src/*.ts");
        assert_eq!(strip_dot_slash("!./x"), "!x");
        assert_eq!(strip_dot_slash("*.ts"), "*.ts");
        assert_eq!(strip_dot_slash("!*.ts"), "!*.ts");
    }

    fn req(pattern: &str) -> Request {
        Request {
            root: PathBuf::from("."),
            is_dir: true,
            pattern: pattern.into(),
            glob: None,
            ignore_case: false,
            literal: false,
            context: 0,
            limit: 100,
            budget: search::Budget::DEFAULT,
        }
    }

    #[test]
    fn file_and_walk_errors_read_like_rg() {
        let d = tempfile::tempdir().unwrap();
        let m = build_matcher(&req("x")).unwrap();
        let mut s = searcher(0, BinaryDetection::quit(0));
        let h = search_file(&mut s, &d.path().join("sub/gone.txt"), Some(d.path()), &req("x"), &m);
        assert_eq!(h.error.as_deref(), Some("rg: ./sub/gone.txt: No such file or directory (os error 2)"));
        let h = search_file(&mut s, &d.path().join("gone.txt"), None, &req("x"), &m);
        let abs = d.path().join("gone.txt");
        assert_eq!(h.error, Some(format!("rg: {}: No such file or directory (os error 2)", abs.display())));
        let denied = ignore::Error::WithPath {
            path: d.path().join("locked"),
            err: Box::new(ignore::Error::Io(std::io::Error::from_raw_os_error(13))),
        };
        assert_eq!(walk_error(d.path(), &denied), "rg: ./locked: Permission denied (os error 13)");
    }

    fn text_of(r: Result<ToolResult, ToolError>) -> String {
        match r {
            Ok(t) => t.text_content(),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn the_parallel_path_gives_the_same_answer_as_the_ordered_one() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..60 {
            let body: String = (0..(i % 7))
                .map(|k| if k % 3 == 0 { format!("needle {i} {k}\n") } else { format!("hay {k}\n") })
                .collect();
            let p = d.path().join(format!("d{}/s{}/f{i}.txt", i % 5, i % 3));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        for (limit, context) in [(1, 0), (3, 1), (7, 2), (20, 0), (1000, 1)] {
            let mut r = req("needle");
            r.root = d.path().to_path_buf();
            r.limit = limit;
            r.context = context;
            r.budget = search::Budget::UNLIMITED;
            let ordered = text_of(execute(r, &CancellationToken::new()));
            let mut r = req("needle");
            r.root = d.path().to_path_buf();
            r.limit = limit;
            r.context = context;
            r.budget = search::Budget::NONE;
            let parallel = text_of(execute(r, &CancellationToken::new()));
            assert_eq!(ordered, parallel, "limit {limit} context {context}");
            assert!(ordered.contains("needle"));
        }
    }

    #[test]
    fn the_parallel_walk_goes_on_from_any_point_of_the_ordered_one() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..30 {
            let body: String =
                (0..(i % 5)).map(|k| if k % 2 == 0 { format!("needle {i} {k}\n") } else { "hay\n".into() }).collect();
            let p = d.path().join(format!("d{}/s{}/f{i}.txt", i % 4, i % 3));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        std::fs::write(d.path().join("top.txt"), "needle top\n").unwrap();
        std::fs::write(d.path().join(".gitignore"), "d3/s1/\n").unwrap();
        for (limit, context) in [(1, 0), (4, 1), (1000, 0)] {
            let run = |budget| {
                let mut r = req("needle");
                r.root = d.path().to_path_buf();
                r.limit = limit;
                r.context = context;
                r.budget = budget;
                text_of(execute(r, &CancellationToken::new()))
            };
            let ordered = run(search::Budget::UNLIMITED);
            // Every point the ordered pass can stop at (50 entries are more than the tree holds).
            for calls in 0..50 {
                assert_eq!(run(search::Budget::after(calls)), ordered, "limit {limit} context {context} after {calls}");
            }
        }
    }

    #[test]
    fn regex_errors_read_like_rg() {
        let e = build_matcher(&req("(")).err().unwrap().to_string();
        assert_eq!(e, "rg: regex parse error:\n    (?:()\n    ^\nerror: unclosed group");
        let e = build_matcher(&req("a\\nb")).err().unwrap().to_string();
        assert_eq!(
            e,
            "rg: the literal \"\\n\" is not allowed in a regex\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched."
        );
        let e = build_matcher(&req("a\\x00")).err().unwrap().to_string();
        assert!(
            e.starts_with("rg: pattern contains \"\\0\" but it is impossible to match\n\nConsider enabling text mode")
        );
        let mut r = req("(");
        r.literal = true;
        assert!(build_matcher(&r).is_ok());
    }
}
