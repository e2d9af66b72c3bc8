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

use super::{AbortCheck, WalkSpec, builder};

/// Path order component by component: the separator sorts below every other byte
/// (the order of [`super::sort_key`], without building keys).
pub(crate) fn path_cmp(a: &Path, b: &Path) -> Ordering {
    let map = |c: &u8| if *c == b'/' { 0 } else { *c };
    bytes(a).iter().map(map).cmp(bytes(b).iter().map(map))
}

#[cfg(unix)]
fn bytes(p: &Path) -> &[u8] {
    std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())
}

#[cfg(not(unix))]
fn bytes(p: &Path) -> &[u8] {
    p.to_str().map(str::as_bytes).unwrap_or_default()
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

struct Shared<T> {
    n: usize,
    /// The smallest hits so far; the top is the largest of them.
    heap: Mutex<BinaryHeap<Hit<T>>>,
    /// The top of a full heap: anything after it can be skipped.
    bound: RwLock<Option<PathBuf>>,
    /// Bumped whenever `bound` changes, so visitors re-read it only then (a
    /// plain load per entry instead of a lock shared by every thread).
    generation: AtomicU64,
}

impl<T> Shared<T> {
    fn new(n: usize) -> Self {
        Shared {
            n: n.max(1),
            heap: Mutex::new(BinaryHeap::new()),
            bound: RwLock::new(None),
            generation: AtomicU64::new(0),
        }
    }

    fn offer(&self, path: PathBuf, item: T) {
        let Ok(mut heap) = self.heap.lock() else { return };
        heap.push(Hit { path, item });
        if heap.len() > self.n {
            heap.pop();
        }
        if heap.len() == self.n
            && let (Some(top), Ok(mut bound)) = (heap.peek(), self.bound.write())
        {
            *bound = Some(top.path.clone());
            self.generation.fetch_add(1, AtomicOrdering::Release);
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
        let g = shared.generation.load(AtomicOrdering::Acquire);
        if g != self.generation {
            self.generation = g;
            self.bound = shared.bound.read().ok().and_then(|b| b.clone());
        }
        self.bound.as_deref().is_some_and(|b| path_cmp(path, b) == Ordering::Greater)
    }
}

struct Visitor<'s, T, F> {
    shared: &'s Shared<T>,
    keep: &'s F,
    abort: AbortCheck<'s>,
    seen_upto: Option<&'s Path>,
    bound: LocalBound,
}

impl<T: Send, F: Fn(&DirEntry) -> Option<T> + Sync> ParallelVisitor for Visitor<'_, T, F> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.abort.aborted() {
            return WalkState::Quit;
        }
        let Ok(e) = entry else { return WalkState::Continue };
        if e.depth() == 0 {
            // The search folder, or one of its folders walked as a root of its own.
            let later = self.bound.after(self.shared, e.path());
            return if later { WalkState::Skip } else { WalkState::Continue };
        }
        if let Some(upto) = self.seen_upto {
            // An ordered walk already saw everything up to `upto`: the folders on
            // the way to it are entered again, whatever sorts before it is skipped.
            if upto.starts_with(e.path()) {
                return WalkState::Continue;
            }
            if path_cmp(e.path(), upto).is_lt() {
                return WalkState::Skip;
            }
        }
        if self.bound.after(self.shared, e.path()) {
            // Everything below a folder sorts after it.
            return if e.file_type().is_some_and(|t| t.is_dir()) { WalkState::Skip } else { WalkState::Continue };
        }
        if let Some(item) = (self.keep)(&e) {
            self.shared.offer(e.path().to_path_buf(), item);
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

impl<'s, T: Send + 's, F: Fn(&DirEntry) -> Option<T> + Sync> ParallelVisitorBuilder<'s> for Builder<'s, T, F> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            shared: self.shared,
            keep: self.keep,
            abort: AbortCheck::new(self.abort),
            seen_upto: self.seen_upto,
            bound: LocalBound::default(),
        })
    }
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
/// Root folders per thread walked in one batch.
const ROOT_BATCH: usize = 16;
/// How much larger each batch of roots is than the one before.
const ROOT_BATCH_GROWTH: usize = 2;

/// The entries directly in the search folder that its ignore rules keep, in
/// path order. The parallel walker lists them without opening them (its entry
/// filter runs before a folder is read).
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
/// roots handed to the threads in path order, so the first hits in path order
/// are found first and the bound that skips the rest tightens early (a walk
/// from the search folder alone explores in the order the file system lists
/// names, and with a sparse pattern walks about twice what it needs).
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
    F: Fn(&DirEntry) -> Option<T> + Sync,
{
    let shared = Shared::new(n);
    let upto = seen.map(|s| {
        for (path, item) in s.hits {
            shared.offer(path, item);
        }
        s.upto
    });
    if by_roots {
        let top = top_level(&spec);
        let mut roots = Vec::new();
        let mut bound = LocalBound::default();
        for e in &top {
            let on_the_way = upto.as_deref().is_some_and(|u| u.starts_with(e.path()));
            if !on_the_way && upto.as_deref().is_some_and(|u| path_cmp(e.path(), u).is_lt()) {
                continue; // seen with all it holds
            }
            if bound.after(&shared, e.path()) {
                break; // so is everything after it
            }
            if !on_the_way && let Some(item) = keep(e) {
                shared.offer(e.path().to_path_buf(), item);
            }
            if is_dir(e) {
                roots.push(e.path().to_path_buf());
            }
        }
        // In batches, each twice the one before, so roots after the bound are
        // mostly dropped before their set-up, for a few more thread start-ups.
        let mut size = ROOT_BATCH * super::threads();
        let mut rest_roots: &[PathBuf] = &roots;
        while !rest_roots.is_empty() {
            let (batch, later) = rest_roots.split_at(size.min(rest_roots.len()));
            rest_roots = later;
            size *= ROOT_BATCH_GROWTH;
            let batch: Vec<&PathBuf> = batch.iter().filter(|r| !bound.after(&shared, r)).collect();
            let Some((first, rest)) = batch.split_first() else { break };
            let mut b = builder(WalkSpec { root: first, ..spec.clone() });
            for r in rest {
                b.add(r);
            }
            let mut visitors = Builder { shared: &shared, keep: &keep, abort, seen_upto: upto.as_deref() };
            b.build_parallel().visit(&mut visitors);
            if abort.is_cancelled() {
                return None;
            }
        }
    } else {
        let mut visitors = Builder { shared: &shared, keep: &keep, abort, seen_upto: upto.as_deref() };
        builder(spec).build_parallel().visit(&mut visitors);
    }
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
