//! Locked, atomic file access shared by the trust store and the settings
//! files.
//!
//! A lock is an OS file lock (`File::lock`) on `<file>.lock`, waited for at
//! most [`LOCK_WAIT_LIMIT`]. (The reference polls 10 times, 20 ms apart: under
//! steady contention from several processes that gives up while the lock is
//! merely busy, and a decision is lost. A blocking wait is woken by the
//! kernel when the holder lets go.) The lock file exists only while it
//! is held: the holder removes it before unlocking, and a process that locked
//! a file that was removed meanwhile notices (the path no longer names the
//! file it locked) and tries again. That keeps the path free for the
//! reference, whose `proper-lockfile` takes the same path as a *directory*:
//! a directory there is treated as a lock held by the reference (stale after
//! [`FOREIGN_LOCK_STALE`], as `proper-lockfile` does).
//!
//! Writes go to a temporary file in the target's folder, are flushed, and
//! renamed over the target, so a reader never sees a partial file. A target
//! that is a symbolic link is written through (the link stays).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Poll interval while the reference's directory lock is present.
pub const LOCK_RETRY_DELAY: Duration = Duration::from_millis(20);
/// How long a busy lock is waited for before giving up.
pub const LOCK_WAIT_LIMIT: Duration = Duration::from_secs(5);
/// A directory lock (the reference's) older than this is stale.
pub const FOREIGN_LOCK_STALE: Duration = Duration::from_secs(10);

/// Why a lock was not taken.
#[derive(Debug)]
pub(crate) enum LockError {
    /// Still held by someone else at the wait limit.
    Busy,
    /// The lock file could not be created or locked.
    Io(io::Error),
}

/// A held lock; released (and its file removed) on drop.
#[derive(Debug)]
pub(crate) struct FileLock {
    path: PathBuf,
    file: Option<File>,
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Remove first, unlock second: whoever locks the old file after this
        // sees that the path no longer names it and retries.
        let _ = fs::remove_file(&self.path);
        if let Some(f) = self.file.take() {
            let _ = f.unlock();
        }
    }
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    true
}

fn foreign_lock_is_stale(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else { return false };
    let Ok(modified) = meta.modified() else { return false };
    SystemTime::now().duration_since(modified).map(|age| age > FOREIGN_LOCK_STALE).unwrap_or(false)
}

/// What one attempt found.
enum Attempt {
    /// Locked, and the path still names the locked file.
    Locked(FileLock),
    /// Held by another process of ours (a `File` on the lock file) or by the
    /// reference (a directory).
    Busy(Option<File>),
    /// The file we locked was removed meanwhile: try again at once.
    Again,
}

/// Check that `file`, now locked, is still the one at `lock_path`.
fn verify(file: File, lock_path: &Path) -> io::Result<Attempt> {
    let ours = file.metadata()?;
    match fs::metadata(lock_path) {
        Ok(now) if same_file(&ours, &now) => {
            Ok(Attempt::Locked(FileLock { path: lock_path.to_path_buf(), file: Some(file) }))
        }
        // Removed (and maybe re-created) by the previous holder: not ours.
        _ => {
            let _ = file.unlock();
            Ok(Attempt::Again)
        }
    }
}

/// One non-blocking attempt.
fn try_once(lock_path: &Path) -> io::Result<Attempt> {
    let file = match OpenOptions::new().read(true).write(true).create(true).truncate(false).open(lock_path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::IsADirectory || lock_path.is_dir() => {
            // The reference's lock (a directory). Clear it when stale.
            if foreign_lock_is_stale(lock_path) && fs::remove_dir(lock_path).is_ok() {
                return Ok(Attempt::Again);
            }
            return Ok(Attempt::Busy(None));
        }
        Err(e) => return Err(e),
    };
    match file.try_lock() {
        Ok(()) => verify(file, lock_path),
        Err(fs::TryLockError::WouldBlock) => Ok(Attempt::Busy(Some(file))),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Lock `lock_path`, waiting while it is busy.
pub(crate) fn lock(lock_path: &Path) -> Result<FileLock, LockError> {
    lock_within(lock_path, LOCK_WAIT_LIMIT)
}

/// Wait for the lock on `file` in a helper thread (the kernel wakes it when
/// the holder lets go, which is fairer than polling), at most `limit`. After
/// a timeout the thread stays blocked until the lock frees, then drops it.
fn wait_blocking(file: File, limit: Duration) -> Option<io::Result<File>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("pi-lock-wait".into()).spawn(move || {
        let r = file.lock().map(|()| file);
        let _ = tx.send(r);
    });
    if spawned.is_err() {
        std::thread::sleep(LOCK_RETRY_DELAY.min(limit));
        return None;
    }
    rx.recv_timeout(limit).ok()
}

fn lock_within(lock_path: &Path, limit: Duration) -> Result<FileLock, LockError> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let remaining = deadline.saturating_duration_since(std::time::Instant::now());
        match try_once(lock_path).map_err(LockError::Io)? {
            Attempt::Locked(l) => return Ok(l),
            _ if remaining.is_zero() => return Err(LockError::Busy),
            Attempt::Again => {}
            Attempt::Busy(Some(file)) => match wait_blocking(file, remaining) {
                Some(Ok(file)) => {
                    if let Attempt::Locked(l) = verify(file, lock_path).map_err(LockError::Io)? {
                        return Ok(l);
                    }
                }
                Some(Err(e)) => return Err(LockError::Io(e)),
                None => {}
            },
            Attempt::Busy(None) => std::thread::sleep(LOCK_RETRY_DELAY.min(remaining)),
        }
    }
}

/// `<path>.lock`.
pub(crate) fn lock_path_for(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Write `bytes` to `path` atomically (temp file + rename). A symbolic link at
/// `path` is followed, so the link's target is replaced, not the link.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = if fs::symlink_metadata(path).map(|m| m.file_type().is_symlink()).unwrap_or(false) {
        fs::canonicalize(path)?
    } else {
        path.to_path_buf()
    };
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let tmp = dir.join(format!(
        ".{name}.{}.{}.{nanos}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        // pi's own files are private (0600), whatever the umask or the old mode.
        let mut f = OpenOptions::new().write(true).create_new(true).mode(crate::files::PRIVATE_FILE_MODE).open(&tmp)?;
        crate::files::make_private(&f)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Read a text file: `Ok(None)` when it does not exist; a leading BOM is
/// stripped; invalid UTF-8 is replaced (as Node's `utf8` decoding does).
/// Only regular files within the size limit are read (see [`crate::files`]).
pub(crate) fn read_text(path: &Path) -> io::Result<Option<String>> {
    crate::files::read_config_text(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_is_exclusive_and_its_file_goes_away() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        let held = lock(&p).unwrap();
        assert!(p.exists());
        assert!(matches!(try_once(&p), Ok(Attempt::Busy(Some(_)))));
        let started = std::time::Instant::now();
        assert!(matches!(lock_within(&p, Duration::from_millis(100)), Err(LockError::Busy)));
        assert!(started.elapsed() >= Duration::from_millis(100));
        drop(held);
        assert!(!p.exists());
        let again = lock(&p).unwrap();
        drop(again);
    }

    #[test]
    fn a_fresh_directory_lock_is_busy_and_a_stale_one_is_cleared() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        fs::create_dir(&p).unwrap();
        assert!(matches!(try_once(&p), Ok(Attempt::Busy(None))));
        let old = SystemTime::now() - Duration::from_secs(60);
        File::open(&p).unwrap().set_modified(old).unwrap();
        let l = lock(&p).unwrap();
        assert!(p.is_file());
        drop(l);
        // A stale one that cannot be removed (not empty) is busy, not a hang.
        fs::create_dir_all(p.join("x")).unwrap();
        File::open(&p).unwrap().set_modified(old).unwrap();
        assert!(matches!(lock_within(&p, Duration::from_millis(100)), Err(LockError::Busy)));
    }

    #[test]
    fn atomic_write_replaces_and_follows_links() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.json");
        fs::write(&real, "old").unwrap();
        let link = d.path().join("link.json");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, &link).unwrap();
        #[cfg(unix)]
        {
            write_atomic(&link, b"new").unwrap();
            assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        }
        write_atomic(&d.path().join("fresh"), b"x").unwrap();
        assert_eq!(fs::read_to_string(d.path().join("fresh")).unwrap(), "x");
        // No temporary files left behind.
        let names: Vec<_> = fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(names.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn read_text_strips_bom() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        fs::write(&p, b"\xef\xbb\xbf{}").unwrap();
        assert_eq!(read_text(&p).unwrap().as_deref(), Some("{}"));
        assert_eq!(read_text(&d.path().join("missing")).unwrap(), None);
    }
}
