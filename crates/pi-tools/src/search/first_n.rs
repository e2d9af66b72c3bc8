//! A parallel walk that keeps only the first `n` hits in path order and stops
//! descending into folders that sort after the `n`-th hit found so far, so a
//! search whose limit is reached does not walk the whole tree yet answers
//! exactly as an ordered walk would (deterministic output).
//!
//! The parallel walk explores folders in the order the file system lists them,
//! so the bound tightens only as hits accumulate: with a dense pattern most of
//! the tree is skipped, with a sparse one much of it is still walked. (Handing
//! the threads the first levels' folders as separate roots in path order
//! tightens it sooner, but costs each root its own ignore-file set-up: slower
//! on every tree measured.)

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, RwLock};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkState};
use tokio_util::sync::CancellationToken;

use super::{AbortCheck, WalkSpec, builder, path_bytes};

/// Path order component by component: the separator sorts below every other
/// byte (the order of a depth-first walk with each folder's entries sorted by name). The paths are
/// compared as bytes up to their first difference, where only the two
/// differing bytes need mapping.
pub(crate) fn path_cmp(a: &Path, b: &Path) -> Ordering {
    let (a, b) = (path_bytes(a), path_bytes(b));
    let common = common_prefix(a, b);
    let map = |c: u8| if c == b'/' { 0 } else { c };
    match (a.get(common), b.get(common)) {
        (Some(&x), Some(&y)) => map(x).cmp(&map(y)),
        (x, y) => x.is_some().cmp(&y.is_some()),
    }
}

/// The length of the common prefix of `a` and `b`, eight bytes at a time
/// (paths from one walk share a long prefix: the search folder's path).
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let diff =
            u64::from_le_bytes(x.try_into().unwrap_or_default()) ^ u64::from_le_bytes(y.try_into().unwrap_or_default());
        if diff != 0 {
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a[i..].iter().zip(&b[i..]).take_while(|(x, y)| x == y).count()
}

pub(crate) struct Hit<T> {
    pub(crate) path: PathBuf,
    pub(crate) item: T,
}

impl<T> PartialEq for Hit<T> {
    fn eq(&self, other: &Self) -> bool {
        path_cmp(&self.path, &other.path) == Ordering::Equal
    }
}
impl<T> Eq for Hit<T> {}
impl<T> PartialOrd for Hit<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Hit<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        path_cmp(&self.path, &other.path)
    }
}

/// The top of a full heap: anything after it can be skipped. Shared with the
/// walker's entry filter, which drops folders after it before they are read.
#[derive(Default)]
struct Bound {
    path: RwLock<Option<PathBuf>>,
    /// Bumped whenever `path` changes, so visitors re-read it only then (a
    /// plain load per entry instead of a lock shared by every thread).
    generation: AtomicU64,
}

impl Bound {
    /// True when `path` sorts after the bound (a read of the shared lock).
    fn after(&self, path: &Path) -> bool {
        self.path.read().is_ok_and(|b| b.as_deref().is_some_and(|b| path_cmp(path, b).is_gt()))
    }
}

struct Shared<T> {
    n: usize,
    /// The smallest hits so far; the top is the largest of them.
    heap: Mutex<BinaryHeap<Hit<T>>>,
    bound: Arc<Bound>,
}

impl<T> Shared<T> {
    fn new(n: usize) -> Self {
        Shared { n: n.max(1), heap: Mutex::new(BinaryHeap::new()), bound: Arc::default() }
    }

    fn offer(&self, path: PathBuf, item: T) {
        self.offer_all(std::iter::once((path, item)));
    }

    /// Offer hits under one lock; the bound moves when the top of a full heap does.
    fn offer_all(&self, hits: impl IntoIterator<Item = (PathBuf, T)>) {
        let Ok(mut heap) = self.heap.lock() else { return };
        let mut moved = false;
        for (path, item) in hits {
            if heap.len() == self.n && heap.peek().is_some_and(|top| path_cmp(&path, &top.path).is_gt()) {
                continue;
            }
            heap.push(Hit { path, item });
            if heap.len() > self.n {
                heap.pop();
            }
            moved |= heap.len() == self.n;
        }
        if moved && let (Some(top), Ok(mut bound)) = (heap.peek(), self.bound.path.write()) {
            *bound = Some(top.path.clone());
            self.bound.generation.fetch_add(1, AtomicOrdering::Release);
        }
    }
}

/// A visitor's copy of the shared bound.
#[derive(Default)]
struct LocalBound {
    generation: u64,
    bound: Option<PathBuf>,
}

impl LocalBound {
    fn after<T>(&mut self, shared: &Shared<T>, path: &Path) -> bool {
        let g = shared.bound.generation.load(AtomicOrdering::Acquire);
        if g != self.generation {
            self.generation = g;
            self.bound = shared.bound.path.read().ok().and_then(|b| b.clone());
        }
        self.bound.as_deref().is_some_and(|b| path_cmp(path, b) == Ordering::Greater)
    }
}

struct Visitor<'s, T, F> {
    shared: &'s Shared<T>,
    /// This thread's own copy (a glob's regex then has no pool shared between threads).
    keep: F,
    abort: AbortCheck<'s>,
    seen_upto: Option<&'s Path>,
    bound: LocalBound,
    /// Hits not yet offered: threads that find hits densely would otherwise
    /// queue for the heap's lock on every one.
    pending: Vec<(PathBuf, T)>,
}

/// Hits a walker thread gathers before it offers them.
const OFFER_BATCH: usize = 32;

impl<T, F> Drop for Visitor<'_, T, F> {
    fn drop(&mut self) {
        self.shared.offer_all(self.pending.drain(..));
    }
}

impl<T: Send, F: Fn(&DirEntry) -> Option<T> + Send> ParallelVisitor for Visitor<'_, T, F> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.abort.aborted() {
            return WalkState::Quit;
        }
        let Ok(e) = entry else { return WalkState::Continue };
        // What the ordered walk already saw never gets here (the walker's entry
        // filter drops it), except the folders on the way to where it stopped.
        if self.seen_upto.is_some_and(|u| is_ancestor_or_self(e.path(), u)) {
            return WalkState::Continue;
        }
        if e.depth() == 0 {
            // The search folder, or one of its folders walked as a root of its own.
            let later = self.bound.after(self.shared, e.path());
            return if later { WalkState::Skip } else { WalkState::Continue };
        }
        if self.bound.after(self.shared, e.path()) {
            // Everything below a folder sorts after it.
            return if is_dir(&e) { WalkState::Skip } else { WalkState::Continue };
        }
        if let Some(item) = (self.keep)(&e) {
            self.pending.push((e.into_path(), item));
            if self.pending.len() >= OFFER_BATCH {
                self.shared.offer_all(self.pending.drain(..));
            }
        }
        WalkState::Continue
    }
}

struct Builder<'s, T, F> {
    shared: &'s Shared<T>,
    keep: &'s F,
    abort: &'s CancellationToken,
    seen_upto: Option<&'s Path>,
}

impl<'s, T: Send + 's, F: Fn(&DirEntry) -> Option<T> + Clone + Send + 's> ParallelVisitorBuilder<'s>
    for Builder<'s, T, F>
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            shared: self.shared,
            keep: self.keep.clone(),
            abort: AbortCheck::new(self.abort),
            seen_upto: self.seen_upto,
            bound: LocalBound::default(),
            pending: Vec::new(),
        })
    }
}

/// True when `a` is `b` or one of its ancestors (compared as bytes: both
/// come from the same walk, so they are spelled alike).
pub(crate) fn is_ancestor_or_self(a: &Path, b: &Path) -> bool {
    let (a, b) = (path_bytes(a), path_bytes(b));
    b.starts_with(a) && (b.len() == a.len() || b[a.len()] == b'/' || a.ends_with(b"/"))
}

/// What an ordered walk that stopped early already found: its hits, and the
/// last entry it saw (everything before it in path order was seen).
pub(crate) struct Seen<T> {
    /// The hits, in path order.
    pub hits: Vec<(PathBuf, T)>,
    /// The last entry seen.
    pub upto: PathBuf,
}

/// Fewest folders directly in the search folder, per walker thread, for
/// them to be walked as separate roots in path order.
const ROOTS_PER_THREAD: usize = 2;

/// The entries directly in the search folder that its ignore rules keep, in
/// path order. A one-thread parallel walk lists them without opening them:
/// its entry filter runs before a folder is read (the sequential walker opens,
/// and when sorting reads, every folder it yields, even at its maximum depth).
fn top_level(spec: &WalkSpec<'_>) -> Vec<DirEntry> {
    let found: Arc<Mutex<Vec<DirEntry>>> = Arc::default();
    let sink = found.clone();
    let mut b = builder(spec.clone());
    b.threads(1).filter_entry(move |e| {
        if e.depth() == 1
            && let Ok(mut v) = sink.lock()
        {
            v.push(e.clone());
        }
        e.depth() == 0
    });
    b.build_parallel().run(|| Box::new(|_| WalkState::Continue));
    let mut top = found.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default();
    top.sort_by(|a, b| path_cmp(a.path(), b.path()));
    top
}

/// Whether [`first_n`] walks the search folder's folders as separate roots in
/// path order: when it holds enough of them to share out (counted as listed,
/// before ignore rules: a cheap read of one folder).
pub(crate) fn walks_by_roots(root: &Path) -> bool {
    let folders = std::fs::read_dir(root)
        .map(|r| r.filter(|e| e.as_ref().is_ok_and(|e| e.file_type().is_ok_and(|t| t.is_dir()))).count())
        .unwrap_or(0);
    folders >= ROOTS_PER_THREAD * super::threads()
}

/// The first `n` entries in path order that `keep` maps to `Some` (the root
/// itself is never offered), found by a parallel walk that goes on from what
/// `seen` covers; `by_roots` is [`walks_by_roots`] of the search folder; `None` when aborted.
///
/// When the search folder holds enough folders, they are walked as separate
/// roots of one parallel walk, handed to the threads in path order, so the
/// first hits in path order are found early and the bound that skips the
/// rest tightens soon (a walk from the search folder alone explores in the
/// order the file system lists names, and with a sparse pattern walks about
/// twice what it needs). Folders after the bound are dropped by the walker's
/// entry filter, before they are read.
pub(crate) fn first_n<T, F>(
    spec: WalkSpec<'_>,
    n: usize,
    seen: Option<Seen<T>>,
    by_roots: bool,
    abort: &CancellationToken,
    keep: F,
) -> Option<Vec<(PathBuf, T)>>
where
    T: Send,
    F: Fn(&DirEntry) -> Option<T> + Clone + Send,
{
    let shared = Shared::new(n);
    let upto = seen.map(|s| {
        for (path, item) in s.hits {
            shared.offer(path, item);
        }
        s.upto
    });
    let mut roots = Vec::new();
    if by_roots {
        let mut bound = LocalBound::default();
        for e in top_level(&spec) {
            let on_the_way = upto.as_deref().is_some_and(|u| is_ancestor_or_self(e.path(), u));
            if !on_the_way && upto.as_deref().is_some_and(|u| path_cmp(e.path(), u).is_lt()) {
                continue; // seen with all it holds
            }
            if bound.after(&shared, e.path()) {
                break; // so is everything after it
            }
            if !on_the_way && let Some(item) = keep(&e) {
                shared.offer(e.path().to_path_buf(), item);
            }
            if is_dir(&e) {
                roots.push(e.into_path());
            }
        }
        if roots.is_empty() {
            return Some(finish(shared));
        }
    } else {
        roots.push(spec.root.to_path_buf());
    }
    let mut b = builder(WalkSpec { root: &roots[0], ..spec.clone() });
    for r in &roots[1..] {
        b.add(r);
    }
    let (bound, seen_upto) = (shared.bound.clone(), upto.clone());
    b.filter_entry(move |e| {
        if let Some(u) = &seen_upto {
            // Seen by the ordered walk: all that sorts before `u`, except the
            // folders on the way to it.
            if is_ancestor_or_self(e.path(), u) {
                return true;
            }
            if path_cmp(e.path(), u).is_lt() {
                return false;
            }
        }
        // Everything below a folder sorts after it.
        !(is_dir(e) && bound.after(e.path()))
    });
    let mut visitors = Builder { shared: &shared, keep: &keep, abort, seen_upto: upto.as_deref() };
    b.build_parallel().visit(&mut visitors);
    if abort.is_cancelled() {
        return None;
    }
    Some(finish(shared))
}

fn is_dir(e: &DirEntry) -> bool {
    e.file_type().is_some_and(|t| t.is_dir())
}

fn finish<T>(shared: Shared<T>) -> Vec<(PathBuf, T)> {
    let heap = shared.heap.into_inner().unwrap_or_else(|p| p.into_inner());
    heap.into_sorted_vec().into_iter().map(|h| (h.path, h.item)).collect()
}

#[cfg(test)]
mod tests;
