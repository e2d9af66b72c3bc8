//! The `find` tool: find files by glob with ripgrep's walker, in process.
//!
//! Behaves as the reference's `fd --glob --color=never --hidden
//! [--no-require-git] --max-results <limit+1> [--full-path [--ignore-case]] --
//! PATTERN ROOT`:
//!
//! - a pattern without `/` is matched against entry names at any depth;
//! - a pattern with `/` is matched against the whole path, anchored at the
//!   search folder (`<root>/<pattern>`), `*` not crossing `/`; an absolute
//!   pattern is matched against the absolute path as it is;
//! - a pattern without upper-case letters matches case-insensitively (fd's
//!   smart case); braces, classes and `**` are globset's (fd's) syntax;
//! - a leading `./` is dropped; folders are listed with a trailing `/`;
//!   symbolic links are listed, not followed; hidden entries and `.git/`
//!   contents are included; ignore files apply as described in
//!   [`crate::search`].
//!
//! Results are sorted by path (fd's order for small result sets) and cut at
//! `limit`, then at 50 KiB.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::grep::effective_limit;
use crate::limits::{FIND_DEFAULT_LIMIT, MAX_BYTES};
use crate::search::{self, Flavor, WalkSpec};
use crate::text::common::{byte_limit_reached, first_argument_with_nul};
use crate::text::find as text;
use crate::{ToolContext, ToolError, ToolResult};

#[derive(Deserialize)]
struct FindArgs {
    pattern: String,
    path: Option<String>,
    limit: Option<f64>,
}

/// Run `find`.
pub async fn run(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let a: FindArgs = super::parse(args)?;
    let root = crate::paths::resolve(&ctx.cwd, a.path.as_deref().filter(|p| !p.is_empty()).unwrap_or("."))
        .map_err(ToolError::msg)?;
    let max_results = crate::jsnum::js_number(a.limit.map_or(FIND_DEFAULT_LIMIT as f64, |l| l.floor().max(1.0)) + 1.0);
    if let Err(e) = max_results.parse::<usize>() {
        return Err(ToolError::msg(text::invalid_max_results(&max_results, &e.to_string())));
    }
    if let Some(message) = nul_in_fd_arguments(&root, &a.pattern, &max_results) {
        return Err(ToolError::msg(message));
    }
    search::check_argument_lengths(&[Some(a.pattern.as_str())])?;
    let limit = effective_limit(a.limit, FIND_DEFAULT_LIMIT);
    let abort = ctx.abort.clone();
    let task = tokio::task::spawn_blocking(move || execute(&root, &a.pattern, limit, &abort));
    tokio::select! {
        r = task => r.map_err(super::worker_failed)?,
        _ = ctx.abort.cancelled() => Err(ToolError::Aborted),
    }
}

/// The error Node gives when the reference starts fd with an argument holding
/// a NUL byte (the pattern or the search folder): the arguments are rebuilt
/// as the reference lays them out, as the message names the argument's index.
fn nul_in_fd_arguments(root: &Path, pattern: &str, max_results: &str) -> Option<String> {
    let root_s = root.to_string_lossy();
    if !pattern.contains('\0') && !root_s.contains('\0') {
        return None;
    }
    let mut args: Vec<String> = vec!["--color=never".into(), "--hidden".into()];
    if !search::inside_git_repo(root) {
        args.push("--no-require-git".into());
    }
    args.extend(["--glob".into(), "--max-results".into(), max_results.to_string()]);
    let p = without_dot_slash(pattern);
    if p.contains('/') {
        args.push("--full-path".into());
        if !p.starts_with('/') && p == p.to_lowercase() {
            args.push("--ignore-case".into());
        }
    }
    args.extend(["--".into(), fd_glob(root, p), root_s.into_owned()]);
    first_argument_with_nul(&args)
}

/// `pattern` without its leading `./`s (fd's full paths never contain them).
fn without_dot_slash(mut pattern: &str) -> &str {
    while let Some(rest) = pattern.strip_prefix("./") {
        pattern = rest;
    }
    pattern
}

/// The glob fd receives for `p` (already without `./`): a relative path
/// pattern is anchored at the escaped search folder; others are as given.
fn fd_glob(root: &Path, p: &str) -> String {
    if p.contains('/') && !p.starts_with('/') {
        let root_s = root.to_string_lossy();
        format!("{}/{p}", escape_glob(root_s.trim_end_matches('/')))
    } else {
        p.to_string()
    }
}

/// How entries are tested against the pattern.
#[derive(Clone)]
struct Pattern {
    glob: GlobMatcher,
    full_path: bool,
}

impl Pattern {
    /// Whether the entry at `path` matches (`None`: the empty pattern, which matches all).
    fn matches(pattern: &Option<Pattern>, path: &Path) -> bool {
        match pattern {
            None => true,
            Some(p) if p.full_path => p.glob.is_match(path),
            Some(p) => p.glob.is_match(Path::new(search::file_name(path))),
        }
    }
}

/// Escape glob metacharacters (`\ * ? [ ] { }`) in the root folder's path.
fn escape_glob(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '*' | '?' | '[' | ']' | '{' | '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The pattern as fd would apply it; `None` for an empty pattern (fd lists
/// everything then).
fn compile(root: &Path, pattern: &str) -> Result<Option<Pattern>, ToolError> {
    let p = without_dot_slash(pattern);
    if p.is_empty() {
        return Ok(None);
    }
    let full_path = p.contains('/');
    let ignore_case = !p.chars().any(char::is_uppercase);
    let glob = GlobBuilder::new(&fd_glob(root, p))
        .literal_separator(full_path)
        .case_insensitive(ignore_case)
        .build()
        .map_err(|e| ToolError::msg(text::fd_error(&e.to_string())))?;
    // globset panics when the regex a glob becomes is too big (a long or
    // very repetitive pattern); that is the pattern's fault, not a crash.
    let matcher = std::panic::catch_unwind(|| glob.compile_matcher())
        .map_err(|_| ToolError::msg(text::fd_error(crate::text::find::PATTERN_TOO_COMPLEX)))?;
    Ok(Some(Pattern { glob: matcher, full_path }))
}

fn execute(root: &Path, pattern: &str, limit: usize, abort: &CancellationToken) -> Result<ToolResult, ToolError> {
    if !root.is_dir() {
        return Err(ToolError::msg(text::search_path_not_a_directory(&root.to_string_lossy())));
    }
    let pat = compile(root, pattern)?;
    let spec = WalkSpec { root, flavor: Flavor::Fd, overrides: None, require_git: search::inside_git_repo(root) };
    let is_dir = |e: &ignore::DirEntry| e.file_type().is_some_and(|t| t.is_dir());
    // Each walker thread clones the closure, and with it the glob's regex.
    let keep = move |e: &ignore::DirEntry| Pattern::matches(&pat, e.path()).then(|| is_dir(e));
    // fd's way: the first `limit + 1` hits the walk meets, sorted.
    let mut found = search::first_found(spec, limit + 1, abort, keep).ok_or(ToolError::Aborted)?;
    if found.is_empty() {
        return Ok(ToolResult::success(text::NO_FILES));
    }
    let limit_reached = found.len() > limit;
    found.truncate(limit);
    let mut lines = Vec::new();
    let mut bytes = 0usize;
    for (path, is_dir) in &found {
        let mut rel = search::relative(root, path);
        if *is_dir && !rel.ends_with('/') {
            rel.push('/');
        }
        // The reference trims each line fd prints, so a name's trailing
        // whitespace is lost there; models see the same names.
        rel.truncate(rel.trim_end_matches(is_js_whitespace).len());
        let len = rel.len();
        if bytes <= MAX_BYTES + 1 {
            lines.push(rel);
        }
        bytes += len + 1;
    }
    let capped = search::cap_output(&lines, found.len(), bytes.saturating_sub(1));
    let mut output = capped.text;
    let mut details = Map::new();
    let mut notices = Vec::new();
    if limit_reached {
        notices.push(text::result_limit_reached(limit));
        details.insert("resultLimitReached".into(), json!(limit));
    }
    if let Some(t) = capped.truncation {
        notices.push(byte_limit_reached());
        details.insert("truncation".into(), t);
    }
    search::append_notices(&mut output, &notices);
    let result = ToolResult::success(output);
    Ok(if details.is_empty() { result } else { result.with_details(Value::Object(details)) })
}

/// Whether JavaScript's `trim` removes `c`.
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(root: &str, pattern: &str, path: &str) -> bool {
        let p = compile(Path::new(root), pattern).unwrap();
        Pattern::matches(&p, Path::new(path))
    }

    #[test]
    fn glob_semantics() {
        assert!(m("/r", "*.txt", "/r/a/b/X.TXT"));
        assert!(!m("/r", "*.TXT", "/r/a/b/x.txt"));
        assert!(m("/r", "a/*.txt", "/r/a/x.txt"));
        assert!(!m("/r", "a/*.txt", "/r/z/a/x.txt"));
        assert!(!m("/r", "a/*.txt", "/r/a/b/x.txt"));
        assert!(m("/r", "**/x.txt", "/r/a/b/x.txt"));
        assert!(m("/r", "./a/*.txt", "/r/a/x.txt"));
        assert!(m("/r[1]", "a/*", "/r[1]/a/x"));
        assert!(m("/r", "{a,b}.txt", "/r/q/b.txt"));
        assert!(m("/r", "/r/a/*.txt", "/r/a/x.txt"));
        assert!(m("/", "a/*", "/a/x"));
        assert!(compile(Path::new("/r"), "././").unwrap().is_none());
        let e = compile(Path::new("/r"), "[").err().unwrap().to_string();
        assert_eq!(e, "[fd error]: error parsing glob '[': unclosed character class; missing ']'");
        let e = compile(Path::new("/r"), "s/[").err().unwrap().to_string();
        assert_eq!(e, "[fd error]: error parsing glob '/r/s/[': unclosed character class; missing ']'");
    }
}
