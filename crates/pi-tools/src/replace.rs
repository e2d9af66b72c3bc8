//! Changing a file so that no reader ever sees half of it and no edit is
//! lost to another process.
//!
//! [`replace`] writes the new bytes to a temporary file in the same folder,
//! flushes it to disk and renames it over the target, keeping the target's
//! mode (and owner, where the process may). A symlinked path replaces the
//! file the link leads to; the link stays. A target that is not a regular
//! file (a FIFO, `/dev/null`) is written in place, as before, and so is a
//! file beside which no temporary file can be made (a folder pi may not
//! write to, `/proc`): there is no other way to change it.
//!
//! [`FileLock`] serialises read-modify-write across processes: an advisory
//! lock (`flock`) on the target's inode, taken again if the path has been
//! replaced meanwhile (the lock of a replaced inode guards nothing).
//! Extensions and other tools that change files should take it too.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::limits::{FILE_LOCK_POLL_MS, FILE_LOCK_WAIT_SECS, MAX_SYMLINK_HOPS};

/// Why a lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// The abort signal fired while waiting.
    Aborted,
    /// Another process held the file for longer than the wait.
    Busy,
    /// The file could not be opened or locked.
    Io(io::Error),
}

/// The path a write to `path` changes: `path` itself, or for a symlink
/// (chains included, dangling ones too) the path it finally leads to.
pub fn final_target(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        match std::fs::read_link(&p) {
            Ok(next) => {
                p = match p.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                }
            }
            Err(_) => break,
        }
    }
    p
}

/// An exclusive advisory lock on a file's current inode, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Lock the regular file at `path` (after symlinks); `Ok(None)` when there
    /// is nothing to lock (no file yet, or not a regular file). Waits while
    /// another process holds it, up to [`FILE_LOCK_WAIT_SECS`], watching `abort`.
    pub fn acquire(path: &Path, abort: &CancellationToken) -> Result<Option<FileLock>, LockError> {
        let started = Instant::now();
        loop {
            let file =
                match OpenOptions::new().read(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path)
                {
                    Ok(f) => f,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(LockError::Io(e)),
                };
            let meta = file.metadata().map_err(LockError::Io)?;
            if !meta.is_file() {
                return Ok(None);
            }
            loop {
                match file.try_lock() {
                    Ok(()) => break,
                    Err(std::fs::TryLockError::WouldBlock) => {}
                    Err(std::fs::TryLockError::Error(e)) => return Err(LockError::Io(e)),
                }
                if abort.is_cancelled() {
                    return Err(LockError::Aborted);
                }
                if started.elapsed() > Duration::from_secs(FILE_LOCK_WAIT_SECS) {
                    return Err(LockError::Busy);
                }
                std::thread::sleep(Duration::from_millis(FILE_LOCK_POLL_MS));
            }
            // Still the file at the path? A writer that held the lock may have
            // renamed a new file over it; then lock that one.
            match std::fs::metadata(path) {
                Ok(now) if now.ino() == meta.ino() && now.dev() == meta.dev() => return Ok(Some(FileLock { file })),
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(LockError::Io(e)),
            }
        }
    }

    /// The locked file, for reading it.
    pub fn file(&self) -> &File {
        &self.file
    }
}

/// A temporary file's name beside `target`: hidden, unique, recognisably pi's.
fn temp_path(target: &Path) -> PathBuf {
    let mut rnd = [0u8; 6];
    if getrandom::fill(&mut rnd).is_err() {
        let n = Instant::now().elapsed().as_nanos() as u64 ^ u64::from(std::process::id());
        rnd.copy_from_slice(&n.to_le_bytes()[..6]);
    }
    let hex: String = rnd.iter().map(|b| format!("{b:02x}")).collect();
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    target.with_file_name(format!(".{name}.pi-{hex}.tmp"))
}

/// The mode and owner of the file a replacement stands in for.
#[derive(Clone, Copy)]
struct Keep {
    mode: u32,
    uid: u32,
    gid: u32,
}

/// How the target is written.
enum Plan {
    /// Through a temporary file and a rename, keeping what the old file had
    /// (`None`: a new file, created as any file is: 0666 less the umask).
    Rename(Option<Keep>),
    /// In place (not a regular file, or no temporary file can be made).
    InPlace,
}

/// Write `bytes` to `target` (after symlinks) so that readers see the old
/// file or the new one, never a mix. Errors are the failing system call's,
/// with the syscall named (`open`, `write`, `rename`) for the caller's message.
pub fn replace(target: &Path, bytes: &[u8]) -> Result<(), (io::Error, &'static str)> {
    let target = final_target(target);
    let plan = match std::fs::metadata(&target) {
        Ok(m) if m.is_file() => {
            Plan::Rename(Some(Keep { mode: m.permissions().mode() & 0o7777, uid: m.uid(), gid: m.gid() }))
        }
        Ok(_) => Plan::InPlace,
        Err(_) => Plan::Rename(None),
    };
    match plan {
        Plan::InPlace => write_in_place(&target, bytes),
        Plan::Rename(keep) => match write_temp(&target, bytes, keep) {
            Ok(tmp) => std::fs::rename(&tmp, &target).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                (e, "rename")
            }),
            // No temporary file beside the target (a folder pi cannot create
            // files in, a pseudo file system like /proc): write in place, as
            // the reference always does, with its errors.
            Err(TempError::Create) => write_in_place(&target, bytes),
            Err(TempError::Write(e)) => Err((e, "write")),
        },
    }
}

enum TempError {
    /// No temporary file could be made beside the target.
    Create,
    /// Writing it failed.
    Write(io::Error),
}

fn write_temp(target: &Path, bytes: &[u8], keep: Option<Keep>) -> Result<PathBuf, TempError> {
    let tmp = temp_path(target);
    // A replacement starts private and gets the old file's mode once written;
    // a new file is created as any file is.
    let mode = if keep.is_some() { 0o600 } else { 0o666 };
    let mut f = OpenOptions::new().write(true).create_new(true).mode(mode).open(&tmp).map_err(|_| TempError::Create)?;
    let written = (|| {
        f.write_all(bytes)?;
        if let Some(k) = keep {
            // Only root (or the owner, for the group) may; keep what we can.
            let _ = std::os::unix::fs::fchown(&f, Some(k.uid), Some(k.gid));
            f.set_permissions(std::fs::Permissions::from_mode(k.mode))?;
            // The new content reaches the disk before the rename can, so a
            // crash leaves the old file or the new one, never an empty one.
            f.sync_all()?;
        }
        // A new file has no old content to lose: no sync (it can take long on
        // a busy disk, and the reference's write has none).
        Ok(())
    })();
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(TempError::Write(e))
        }
    }
}

fn write_in_place(target: &Path, bytes: &[u8]) -> Result<(), (io::Error, &'static str)> {
    // Without blocking: a FIFO nobody reads fails (ENXIO) instead of hanging.
    let mut file = OpenOptions::new()
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .write(true)
        .create(true)
        .truncate(true)
        .open(target)
        .map_err(|e| (e, "open"))?;
    file.write_all(bytes).map_err(|e| (e, "write"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_keeps_mode_follows_symlinks_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "old").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o751)).unwrap();
        replace(&f, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o7777, 0o751);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("a.txt", &link).unwrap();
        replace(&link, b"via link").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "via link");
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
        replace(&dangling, b"created").unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("made.txt")).unwrap(), "created");
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn a_reader_holding_the_old_file_keeps_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "old contents").unwrap();
        let held = File::open(&f).unwrap();
        replace(&f, b"new").unwrap();
        let mut s = String::new();
        std::io::Read::read_to_string(&mut &held, &mut s).unwrap();
        assert_eq!(s, "old contents");
    }

    #[test]
    fn the_lock_waits_for_the_holder_and_follows_a_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "v1").unwrap();
        let never = CancellationToken::new();
        let held = FileLock::acquire(&f, &never).unwrap().unwrap();
        let path = f.clone();
        let waiter = std::thread::spawn(move || {
            let lock = FileLock::acquire(&path, &CancellationToken::new()).unwrap().unwrap();
            let mut s = String::new();
            std::io::Read::read_to_string(&mut lock.file(), &mut s).unwrap();
            s
        });
        std::thread::sleep(Duration::from_millis(100));
        replace(&f, b"v2").unwrap();
        drop(held);
        assert_eq!(waiter.join().unwrap(), "v2", "the waiter locked the new file, not the replaced one");
        assert!(FileLock::acquire(&dir.path().join("none"), &never).unwrap().is_none());
        let aborted = CancellationToken::new();
        let _held = FileLock::acquire(&f, &never).unwrap().unwrap();
        aborted.cancel();
        assert!(matches!(FileLock::acquire(&f, &aborted), Err(LockError::Aborted)));
    }
}
