//! The in-process file walk shared by `grep` and `find` (no `rg` or `fd`
//! binary involved).
//!
//! The walk is ripgrep's own `ignore` crate configured as the reference's
//! `rg --hidden` and `fd --hidden` invocations configure it:
//!
//! - hidden files and folders are included, `.git/` contents too (neither tool
//!   skips it when `--hidden` is given);
//! - `.gitignore`, `.ignore`, `.git/info/exclude`, the global git excludes file
//!   and the tool's own ignore file (`.rgignore` for grep, `.fdignore` plus
//!   `$XDG_CONFIG_HOME/fd/ignore` for find) are honoured, each nested file
//!   scoped to its folder, parent folders' files included;
//! - symbolic links are not followed (a symlinked search root is);
//! - inside a git repository (`.git` in the search folder or an ancestor)
//!   `.gitignore` rules stop at a nested repository's root; outside one the
//!   walk runs with `require_git(false)` (fd's `--no-require-git`, which the
//!   reference passes there), so `.gitignore` applies and parent rules reach
//!   into nested repositories, exactly as fd does.
//!
//! The walk is parallel; results are collected and sorted by path (component
//! by component, which is the order of a depth-first walk with each folder's
//! entries sorted by name: fd's order for the results it sorts and
//! `rg --sort path`'s order). grep's answer never depends on thread timing;
//! find's, when its limit is reached, is fd's: the first hits the walk meets
//! ([`first_found`]).

mod first_found;
mod order;

pub(crate) use first_found::first_found;
use order::is_ancestor_or_self;
pub(crate) use order::path_cmp;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ignore::overrides::Override;
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use tokio_util::sync::CancellationToken;

/// Most worker threads used by a search (ripgrep's own cap).
const MAX_THREADS: usize = 12;

/// The reference starts `rg`/`fd` with these arguments; one longer than a
/// process argument may be fails as Node fails it (`spawn E2BIG`).
pub(crate) fn check_argument_lengths(args: &[Option<&str>]) -> Result<(), crate::ToolError> {
    if args.iter().flatten().any(|a| a.len() > crate::limits::MAX_ARGUMENT_BYTES) {
        return Err(crate::ToolError::msg(crate::text::common::SPAWN_E2BIG));
    }
    Ok(())
}

/// Worker threads for a walk or a search: the available cores, at most 12.
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS)
}

/// True when `dir` or one of its ancestors holds a `.git` entry (file, folder
/// or symlink to an existing target): the reference's test for passing
/// `--no-require-git` to fd.
pub(crate) fn inside_git_repo(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// Which tool's ignore conventions a walk follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// ripgrep: `.rgignore` files.
    Rg,
    /// fd: `.fdignore` files and the global `fd/ignore` file.
    Fd,
}

/// What to walk and how.
#[derive(Clone)]
pub(crate) struct WalkSpec<'a> {
    /// The search folder.
    pub root: &'a Path,
    /// Whose ignore files apply.
    pub flavor: Flavor,
    /// `--glob` overrides (grep only).
    pub overrides: Option<Override>,
    /// False outside a git repository (see the module doc).
    pub require_git: bool,
}

/// The global fd ignore file: `$XDG_CONFIG_HOME/fd/ignore`, else
/// `~/.config/fd/ignore`.
fn fd_global_ignore() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::paths::home_dir().map(|h| h.join(".config")))?;
    let file = base.join("fd").join("ignore");
    file.is_file().then_some(file)
}

fn builder(spec: WalkSpec<'_>) -> WalkBuilder {
    let mut b = WalkBuilder::new(spec.root);
    b.hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(spec.require_git)
        .follow_links(false)
        .threads(threads());
    match spec.flavor {
        Flavor::Rg => {
            b.add_custom_ignore_filename(".rgignore");
        }
        Flavor::Fd => {
            b.add_custom_ignore_filename(".fdignore");
            if let Some(global) = fd_global_ignore() {
                // A broken global file is fd's problem to report; the walk goes on.
                let _ = b.add_ignore(global);
            }
        }
    }
    if let Some(o) = spec.overrides {
        b.overrides(o);
    }
    b
}

/// How much a search first spends on a single-threaded walk in path order,
/// which can stop as soon as the first `limit` results are known (a common
/// pattern), before it falls back to a parallel walk of the whole tree (then
/// sorted): 5 ms of the thread's CPU time, or 50 ms of wall time (a cold disk).
/// CPU time keeps the choice independent of how busy the machine is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    cpu: Duration,
    wall: Duration,
    /// Most entries looked at (tests stop an ordered walk at every point with it).
    calls: u32,
}

impl Budget {
    /// The default budget.
    pub(crate) const DEFAULT: Budget =
        Budget { cpu: Duration::from_millis(5), wall: Duration::from_millis(50), calls: u32::MAX };
    /// No budget: go parallel at once (tests).
    #[cfg(test)]
    pub(crate) const NONE: Budget = Budget { cpu: Duration::ZERO, wall: Duration::ZERO, calls: u32::MAX };
    /// Unlimited: stay single-threaded (tests).
    #[cfg(test)]
    pub(crate) const UNLIMITED: Budget = Budget { cpu: Duration::MAX, wall: Duration::MAX, calls: u32::MAX };

    /// Stop after `calls` entries, whatever the time (tests).
    #[cfg(test)]
    pub(crate) const fn after(calls: u32) -> Budget {
        Budget { cpu: Duration::MAX, wall: Duration::MAX, calls }
    }

    /// Start spending this budget now.
    pub(crate) fn start(self) -> Spending {
        Spending { budget: self, cpu0: thread_cpu(), wall0: Instant::now(), calls: 0 }
    }
}

/// A budget being spent by the current thread.
pub(crate) struct Spending {
    budget: Budget,
    cpu0: Duration,
    wall0: Instant,
    calls: u32,
}

impl Spending {
    /// True once either the CPU or the wall-time allowance is used up. The
    /// clocks are read on every 16th call only (reading the thread's CPU
    /// clock is a system call).
    pub(crate) fn exhausted(&mut self) -> bool {
        self.calls = self.calls.saturating_add(1);
        if self.calls > self.budget.calls {
            return true;
        }
        if self.calls % 16 != 1 {
            return false;
        }
        self.wall0.elapsed() > self.budget.wall || thread_cpu().saturating_sub(self.cpu0) > self.budget.cpu
    }
}

/// CPU time (user + system) used by the calling thread.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

/// A single-threaded walk yielding entries in path order (each folder's
/// entries sorted by name, depth first: the order of [`path_cmp`]).
///
/// Entries of one folder share their path up to the name, so comparing whole
/// paths as bytes orders them by name; `sort_by_file_name` would find each
/// name by parsing the path's components on every comparison (a fifth of the
/// walk's CPU time on a node_modules tree).
pub(crate) fn sorted_walk(spec: WalkSpec<'_>) -> ignore::Walk {
    let mut b = builder(spec);
    b.sort_by_file_path(|a, b| path_bytes(a).cmp(path_bytes(b)));
    b.build()
}

/// The last component of a path from a walk (`Path::file_name` parses every
/// component from the end; a walker's paths need only the last separator).
#[cfg(unix)]
pub(crate) fn file_name(path: &Path) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    let b = path_bytes(path);
    std::ffi::OsStr::from_bytes(memchr::memrchr(b'/', b).map_or(b, |i| &b[i + 1..]))
}

/// The last component of a path from a walk.
#[cfg(not(unix))]
pub(crate) fn file_name(path: &Path) -> &std::ffi::OsStr {
    path.file_name().unwrap_or(path.as_os_str())
}

/// A path's bytes (on Windows, its UTF-8 form; paths that are not UTF-8 sort first).
#[cfg(unix)]
pub(crate) fn path_bytes(p: &Path) -> &[u8] {
    std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())
}

/// A path's bytes (on Windows, its UTF-8 form; paths that are not UTF-8 sort first).
#[cfg(not(unix))]
pub(crate) fn path_bytes(p: &Path) -> &[u8] {
    p.to_str().map(str::as_bytes).unwrap_or_default()
}

/// What a walk collected.
pub(crate) struct Walked<T> {
    /// The kept items, in no particular order (callers sort).
    pub items: Vec<T>,
    /// Errors met on the way (unreadable folders, bad ignore files).
    pub errors: Vec<ignore::Error>,
    /// True when the walk stopped because the call was aborted.
    pub aborted: bool,
}

/// Entries a walker thread visits between two looks at the abort signal
/// (looking takes the token's lock, which every walker thread shares).
const ABORT_CHECK_EVERY: u32 = 64;

/// A walker thread's view of the abort signal: it looks at the token on its
/// first call and every [`ABORT_CHECK_EVERY`] calls after (for walks whose
/// work per entry is small).
pub(crate) struct AbortCheck<'a> {
    token: &'a CancellationToken,
    calls: u32,
    period: u32,
}

impl<'a> AbortCheck<'a> {
    /// A view of `token`.
    pub(crate) fn new(token: &'a CancellationToken) -> Self {
        Self::every(token, ABORT_CHECK_EVERY)
    }

    /// A view of `token` that looks at it every `period` calls.
    pub(crate) fn every(token: &'a CancellationToken, period: u32) -> Self {
        AbortCheck { token, calls: 0, period: period.max(1) }
    }

    /// True once the call was aborted (noticed within its period of calls).
    pub(crate) fn aborted(&mut self) -> bool {
        let look = self.calls.is_multiple_of(self.period);
        self.calls = self.calls.wrapping_add(1);
        look && self.token.is_cancelled()
    }
}

struct Shared<T> {
    items: Mutex<Vec<T>>,
    errors: Mutex<Vec<ignore::Error>>,
}

struct Visitor<'s, T, S, F> {
    keep: &'s F,
    state: S,
    abort: AbortCheck<'s>,
    seen_upto: Option<&'s Path>,
    shared: &'s Shared<T>,
    items: Vec<T>,
    errors: Vec<ignore::Error>,
}

impl<T: Send, S: Send, F: Fn(&mut S, &DirEntry) -> Option<T> + Sync> ParallelVisitor for Visitor<'_, T, S, F> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.abort.aborted() {
            return WalkState::Quit;
        }
        match entry {
            Ok(e) => {
                // The folders on the way to what an ordered walk saw last, and that
                // entry itself, are not offered again.
                let seen = self.seen_upto.is_some_and(|u| is_ancestor_or_self(e.path(), u));
                if e.depth() > 0
                    && !seen
                    && let Some(item) = (self.keep)(&mut self.state, &e)
                {
                    self.items.push(item);
                }
            }
            Err(err) => self.errors.push(err),
        }
        WalkState::Continue
    }
}

impl<T, S, F> Drop for Visitor<'_, T, S, F> {
    fn drop(&mut self) {
        if let Ok(mut items) = self.shared.items.lock() {
            items.append(&mut self.items);
        }
        if let Ok(mut errors) = self.shared.errors.lock() {
            errors.append(&mut self.errors);
        }
    }
}

struct Builder<'s, T, M, F> {
    make: &'s M,
    keep: &'s F,
    abort: &'s CancellationToken,
    seen_upto: Option<&'s Path>,
    shared: &'s Shared<T>,
}

impl<'s, T, S, M, F> ParallelVisitorBuilder<'s> for Builder<'s, T, M, F>
where
    T: Send + 's,
    S: Send + 's,
    M: Fn() -> S + Sync,
    F: Fn(&mut S, &DirEntry) -> Option<T> + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            keep: self.keep,
            state: (self.make)(),
            abort: AbortCheck::every(self.abort, WALK_ABORT_CHECK_EVERY),
            seen_upto: self.seen_upto,
            shared: self.shared,
            items: Vec::new(),
            errors: Vec::new(),
        })
    }
}

/// Entries a walker thread that may search files visits between two looks at
/// the abort signal (a search can take a while; looking takes a lock).
const WALK_ABORT_CHECK_EVERY: u32 = 8;

/// Walk `spec.root` in parallel and keep what `keep` maps to `Some` (the root
/// itself is never offered), leaving out what an ordered walk that stopped
/// at `seen_upto` already saw (all that sorts before it, and itself). Each
/// walker thread gets its own state from `make` (a searcher, say). Stops
/// early when `abort` is cancelled.
pub(crate) fn walk<T, S, M, F>(
    spec: WalkSpec<'_>,
    seen_upto: Option<&Path>,
    abort: &CancellationToken,
    make: M,
    keep: F,
) -> Walked<T>
where
    T: Send,
    S: Send,
    M: Fn() -> S + Sync,
    F: Fn(&mut S, &DirEntry) -> Option<T> + Sync,
{
    let shared = Shared { items: Mutex::new(Vec::new()), errors: Mutex::new(Vec::new()) };
    {
        let mut b = Builder { make: &make, keep: &keep, abort, seen_upto, shared: &shared };
        let mut walker = builder(spec);
        if let Some(u) = seen_upto {
            let u = u.to_path_buf();
            // Folders wholly seen are not read again.
            walker.filter_entry(move |e| is_ancestor_or_self(e.path(), &u) || path_cmp(e.path(), &u).is_gt());
        }
        walker.build_parallel().visit(&mut b);
    }
    Walked {
        items: shared.items.into_inner().unwrap_or_default(),
        errors: shared.errors.into_inner().unwrap_or_default(),
        aborted: abort.is_cancelled(),
    }
}

/// A sort key giving the component-by-component path order: the path's bytes
/// with the separator mapped below every other byte (tests check
/// [`path_cmp`] against it).
#[cfg(test)]
pub(crate) fn sort_key(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    let bytes: Vec<u8> = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes: Vec<u8> = path.to_string_lossy().replace('\\', "/").into_bytes();
    bytes.into_iter().map(|b| if b == b'/' { 0 } else { b }).collect()
}

/// A path relative to `root` with `/` separators (lossy for non-UTF-8 names).
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let s = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' { s.into_owned() } else { s.replace(std::path::MAIN_SEPARATOR, "/") }
}

/// `Number.MAX_SAFE_INTEGER`: the reference's "no line limit" for grep/find.
const NO_LINE_LIMIT: u64 = crate::jsnum::MAX_SAFE_INTEGER;

/// Output after the 50 KiB cap, and the `details.truncation` object when the
/// cap cut something.
pub(crate) struct Capped {
    /// The kept lines joined by `\n`.
    pub text: String,
    /// The reference's truncation record (`content`, `truncated`, …).
    pub truncation: Option<serde_json::Value>,
}

/// Join `lines` and keep whole lines within 50 KiB. `total_lines` and
/// `total_bytes` describe the full output (lines past the cap are counted
/// but not stored by the callers).
pub(crate) fn cap_output(lines: &[String], total_lines: usize, total_bytes: usize) -> Capped {
    let joined = lines.join("\n");
    let t = crate::truncate::truncate_head(
        &joined,
        crate::truncate::Limits { max_lines: usize::MAX, max_bytes: crate::limits::MAX_BYTES },
    );
    if !t.truncated {
        return Capped { text: joined, truncation: None };
    }
    let details = serde_json::json!({
        "content": t.content,
        "truncated": true,
        "truncatedBy": t.truncated_by,
        "totalLines": total_lines,
        "totalBytes": total_bytes,
        "outputLines": t.output_lines,
        "outputBytes": t.output_bytes,
        "lastLinePartial": t.last_line_partial,
        "firstLineExceedsLimit": t.first_line_exceeds_limit,
        "maxLines": NO_LINE_LIMIT,
        "maxBytes": t.max_bytes,
    });
    Capped { text: t.content, truncation: Some(details) }
}

/// Append `\n\n[<notices joined by ". ">]` when there are notices.
pub(crate) fn append_notices(output: &mut String, notices: &[String]) {
    if !notices.is_empty() {
        output.push_str("\n\n[");
        output.push_str(&notices.join(". "));
        output.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn names(root: &Path, require_git: bool, flavor: Flavor) -> Vec<String> {
        let w = walk(
            WalkSpec { root, flavor, overrides: None, require_git },
            None,
            &CancellationToken::new(),
            || (),
            |_: &mut (), e: &DirEntry| Some(e.path().to_path_buf()),
        );
        let mut items = w.items;
        items.sort_by_cached_key(|p| sort_key(p));
        items.iter().map(|p| relative(root, p)).collect()
    }

    #[test]
    fn hidden_included_ignores_scoped_and_sorted() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::create_dir_all(r.join("a/b")).unwrap();
        fs::create_dir_all(r.join("a-b")).unwrap();
        fs::write(r.join(".gitignore"), "*.log\n").unwrap();
        fs::write(r.join("a/.gitignore"), "x.txt\n").unwrap();
        fs::write(r.join("a/x.txt"), "").unwrap();
        fs::write(r.join("a-b/x.txt"), "").unwrap();
        fs::write(r.join("a/b/k.log"), "").unwrap();
        fs::write(r.join(".h"), "").unwrap();
        fs::write(r.join("q.rg"), "").unwrap();
        fs::write(r.join(".rgignore"), "q.rg\n").unwrap();
        let got = names(r, false, Flavor::Rg);
        assert_eq!(got, [".gitignore", ".h", ".rgignore", "a", "a/.gitignore", "a/b", "a-b", "a-b/x.txt"]);
        let fd = names(r, false, Flavor::Fd);
        assert!(fd.contains(&"q.rg".to_string()));
        // With require_git and no repository, .gitignore files are not applied.
        let plain = names(r, true, Flavor::Fd);
        assert!(plain.contains(&"a/x.txt".to_string()) && plain.contains(&"a/b/k.log".to_string()));
    }

    #[test]
    fn sort_key_orders_like_paths() {
        let mut v = vec!["a.txt", "a-b/x", "a/x", "A", "a/x/y", "a/.h", "ab"];
        v.sort_by_cached_key(|p| sort_key(Path::new(p)));
        let mut w = v.clone();
        w.sort_by(|a, b| Path::new(a).cmp(Path::new(b)));
        assert_eq!(v, w);
        assert_eq!(v, ["A", "a/.h", "a/x", "a/x/y", "a-b/x", "a.txt", "ab"]);
    }

    #[test]
    fn relative_paths_use_slashes_and_handle_the_file_system_root() {
        assert_eq!(relative(Path::new("/"), Path::new("/etc/x")), "etc/x");
        assert_eq!(relative(Path::new("/a/b"), Path::new("/a/b/c/d.txt")), "c/d.txt");
        let mut out = String::from("x");
        append_notices(&mut out, &["a".into(), "b".into()]);
        assert_eq!(out, "x\n\n[a. b]");
        let mut none = String::from("x");
        append_notices(&mut none, &[]);
        assert_eq!(none, "x");
    }

    #[test]
    fn git_repo_detection() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join("r/.git")).unwrap();
        fs::create_dir_all(d.path().join("r/sub")).unwrap();
        assert!(inside_git_repo(&d.path().join("r/sub")));
        assert!(inside_git_repo(&d.path().join("r")));
    }
}
