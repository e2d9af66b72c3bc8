//! fd's way of answering a search with a result limit: walk in parallel and
//! stop as soon as `n` hits are known, whichever they are, then sort them.
//!
//! The walk is `ignore`'s parallel walker, as in fd, so the hits come in the
//! order fd meets them: each thread takes the entry it queued last (a folder's
//! entries are queued in the order the file system lists them, so the last
//! listed is met first) and an idle thread takes the oldest entries of a busy
//! one. On a small tree a single thread does all the work before the other
//! looks, and the answer is the one fd, and so the reference, gives on the
//! same folder; on a large tree which hits arrive first depends on the
//! threads' timing, as it does for fd. A walk that ends before `n` hits sees
//! every match, so an answer within the limit is always complete and the
//! same.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkState};
use tokio_util::sync::CancellationToken;

use super::{AbortCheck, WalkSpec, builder, path_cmp};

/// What the walker threads share: how many hits were claimed, and the hits.
struct Shared<T> {
    n: usize,
    claimed: AtomicUsize,
    hits: Mutex<Vec<(PathBuf, T)>>,
}

impl<T> Shared<T> {
    /// Claims a place for one more hit: true while fewer than `n` were claimed.
    fn claim(&self) -> bool {
        self.claimed.fetch_add(1, Ordering::AcqRel) < self.n
    }

    fn full(&self) -> bool {
        self.claimed.load(Ordering::Acquire) >= self.n
    }
}

struct Visitor<'s, T, F> {
    shared: &'s Shared<T>,
    /// This thread's own copy (a glob's regex then has no pool shared between threads).
    keep: F,
    abort: AbortCheck<'s>,
    hits: Vec<(PathBuf, T)>,
}

impl<T: Send, F: Fn(&DirEntry) -> Option<T> + Send> ParallelVisitor for Visitor<'_, T, F> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.abort.aborted() || self.shared.full() {
            return WalkState::Quit;
        }
        // fd does not report walk errors unless asked (--show-errors).
        let Ok(e) = entry else { return WalkState::Continue };
        if e.depth() == 0 {
            return WalkState::Continue;
        }
        if let Some(item) = (self.keep)(&e) {
            if !self.shared.claim() {
                return WalkState::Quit;
            }
            self.hits.push((e.into_path(), item));
            if self.shared.full() {
                return WalkState::Quit;
            }
        }
        WalkState::Continue
    }
}

impl<T, F> Drop for Visitor<'_, T, F> {
    fn drop(&mut self) {
        if let Ok(mut hits) = self.shared.hits.lock() {
            hits.append(&mut self.hits);
        }
    }
}

struct Builder<'s, T, F> {
    shared: &'s Shared<T>,
    keep: &'s F,
    abort: &'s CancellationToken,
}

impl<'s, T: Send + 's, F: Fn(&DirEntry) -> Option<T> + Clone + Send + 's> ParallelVisitorBuilder<'s>
    for Builder<'s, T, F>
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            shared: self.shared,
            keep: self.keep.clone(),
            abort: AbortCheck::new(self.abort),
            hits: Vec::new(),
        })
    }
}

/// The first `n` entries (the search folder itself left out) that `keep`
/// maps to `Some`, in the order a parallel walk meets them, then sorted in
/// path order; every such entry when there are at most `n`. `None` when
/// aborted.
pub(crate) fn first_found<T, F>(
    spec: WalkSpec<'_>,
    n: usize,
    abort: &CancellationToken,
    keep: F,
) -> Option<Vec<(PathBuf, T)>>
where
    T: Send,
    F: Fn(&DirEntry) -> Option<T> + Clone + Send,
{
    let shared = Shared { n: n.max(1), claimed: AtomicUsize::new(0), hits: Mutex::new(Vec::new()) };
    builder(spec).build_parallel().visit(&mut Builder { shared: &shared, keep: &keep, abort });
    if abort.is_cancelled() {
        return None;
    }
    let mut hits = shared.hits.into_inner().unwrap_or_else(|p| p.into_inner());
    hits.sort_by(|a, b| path_cmp(&a.0, &b.0));
    Some(hits)
}

#[cfg(test)]
mod tests;
