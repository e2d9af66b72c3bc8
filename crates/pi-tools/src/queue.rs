//! The per-file mutation queue: `edit` and `write` calls on one file run one at
//! a time, calls on different files run in parallel.
//!
//! A file is known by its real path (symlinks resolved), so two names for one
//! file share a queue; a path that does not exist yet is known by the path as
//! resolved. The queue is fair: callers get the file in the order they asked.
//! Extensions (or any other code) that change files should take the same lock.
//!
//! The lock is a guard that can be moved into a blocking task: when a call is
//! aborted while its file operation is in flight, the file stays locked until
//! that operation has settled, so the next call never sees a half-done change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

type Slots = Arc<Mutex<HashMap<PathBuf, Arc<AsyncMutex<()>>>>>;

/// A handle to a set of per-file locks; clones share the same set.
#[derive(Clone, Default)]
pub struct FileMutationQueue {
    slots: Slots,
}

impl std::fmt::Debug for FileMutationQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileMutationQueue").field("files", &self.len()).finish()
    }
}

/// Holds one file's turn in the queue; the next caller goes when it is dropped.
pub struct FileMutationGuard {
    guard: Option<OwnedMutexGuard<()>>,
    key: PathBuf,
    slots: Slots,
}

impl std::fmt::Debug for FileMutationGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileMutationGuard").field("key", &self.key).finish()
    }
}

impl FileMutationGuard {
    /// The key the file is queued under (its real path, or the resolved path).
    pub fn key(&self) -> &Path {
        &self.key
    }
}

impl Drop for FileMutationGuard {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        // Only the map still holds the lock: nobody is waiting, forget the file.
        if slots.get(&self.key).is_some_and(|m| Arc::strong_count(m) == 1) {
            slots.remove(&self.key);
        }
    }
}

impl FileMutationQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// The key a path is queued under: its canonical path when it exists,
    /// else the path itself (callers pass it already resolved).
    pub fn key_for(path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }

    /// Wait for the file's turn and hold it until the guard is dropped.
    pub async fn lock(&self, path: &Path) -> FileMutationGuard {
        let key = Self::key_for(path);
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.entry(key.clone()).or_default())
        };
        let guard = slot.lock_owned().await;
        FileMutationGuard { guard: Some(guard), key, slots: Arc::clone(&self.slots) }
    }

    /// Run `f` while holding the file's turn.
    pub async fn run<F, Fut, T>(&self, path: &Path, f: F) -> T
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = T>,
    {
        let _guard = self.lock(path).await;
        f().await
    }

    /// How many files currently have a holder or waiters.
    pub fn len(&self) -> usize {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// True when no file is locked or awaited.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    async fn max_concurrency(queue: &FileMutationQueue, paths: Vec<PathBuf>) -> usize {
        let inside = Arc::new(AtomicUsize::new(0));
        let max = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for p in paths {
            let (q, inside, max) = (queue.clone(), Arc::clone(&inside), Arc::clone(&max));
            tasks.push(tokio::spawn(async move {
                q.run(&p, || async {
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    max.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    inside.fetch_sub(1, Ordering::SeqCst);
                })
                .await
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        max.load(Ordering::SeqCst)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn same_file_runs_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "x").unwrap();
        let q = FileMutationQueue::new();
        assert_eq!(max_concurrency(&q, vec![f.clone(); 5]).await, 1);
        assert!(q.is_empty(), "entries are forgotten once nobody holds them");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn different_files_run_in_parallel() {
        let dir = tempfile::tempdir().unwrap();
        let q = FileMutationQueue::new();
        let paths = vec![dir.path().join("a"), dir.path().join("b"), dir.path().join("c")];
        assert_eq!(max_concurrency(&q, paths).await, 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn symlink_aliases_share_a_queue() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(FileMutationQueue::key_for(&link), FileMutationQueue::key_for(&real));
        let q = FileMutationQueue::new();
        assert_eq!(max_concurrency(&q, vec![real, link.clone(), link]).await, 1);
    }

    #[test]
    fn missing_file_is_keyed_by_its_path() {
        let p = Path::new("/nonexistent-pi-queue-test/dir/file.txt");
        assert_eq!(FileMutationQueue::key_for(p), p);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn guard_moved_into_blocking_work_keeps_the_file_locked_after_abort() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        let q = FileMutationQueue::new();
        let guard = q.lock(&f).await;
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        // The "in-flight operation": holds the guard until told to finish.
        let work = tokio::task::spawn_blocking(move || {
            let _g = guard;
            rx.recv().ok();
        });
        // The caller gave up (aborted): the next caller must still wait.
        let next = tokio::time::timeout(Duration::from_millis(100), q.lock(&f)).await;
        assert!(next.is_err(), "the file must stay locked while the operation is in flight");
        tx.send(()).unwrap();
        work.await.unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), q.lock(&f)).await;
        assert!(next.is_ok(), "the file is free once the operation settled");
    }
}
