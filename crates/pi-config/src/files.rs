//! Reading and creating pi's own files safely. A configuration or state file
//! (settings, `models.json`, `trust.json`, context files, `SYSTEM.md`) is
//! read only when it is a regular file no bigger than [`CONFIG_MAX_BYTES`],
//! opened without blocking: a FIFO there cannot hang pi and `/dev/zero`
//! cannot fill its memory; either is an error naming the file. Files and
//! folders pi creates for itself are private (0600 and 0700), whatever the
//! umask.

use std::fs::{File, OpenOptions};
use std::io::{self, Read as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::Path;

use crate::text;

/// Largest configuration or state file pi reads (16 MiB).
pub const CONFIG_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Mode of the files pi writes for itself (`trust.json`, settings, sessions).
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Mode of the folders pi creates for itself (the agent dir, session folders).
pub const PRIVATE_DIR_MODE: u32 = 0o700;

/// Open `path` for reading, without blocking, as a regular file of at most
/// `max` bytes; `Ok(None)` when it does not exist.
pub fn open_regular(path: &Path, max: u64) -> io::Result<Option<File>> {
    let file = match OpenOptions::new().read(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, text::NOT_A_REGULAR_FILE));
    }
    if meta.len() > max {
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, text::file_too_large(meta.len(), max)));
    }
    Ok(Some(file))
}

/// The text of a configuration file (at most [`CONFIG_MAX_BYTES`]); a leading
/// BOM is stripped, invalid UTF-8 replaced (as Node's `utf8` decoding does);
/// `Ok(None)` when it does not exist.
pub fn read_config_text(path: &Path) -> io::Result<Option<String>> {
    let Some(file) = open_regular(path, CONFIG_MAX_BYTES)? else { return Ok(None) };
    let mut bytes = Vec::new();
    // The file may grow after the size check: never read past the limit.
    file.take(CONFIG_MAX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > CONFIG_MAX_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            text::file_too_large(bytes.len() as u64, CONFIG_MAX_BYTES),
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    Ok(Some(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()))
}

/// Create `dir` and its missing parents as private folders (0700); folders
/// that exist keep their mode.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).mode(PRIVATE_DIR_MODE).create(dir)
}

/// Make an open file private (0600), whatever the umask made it.
pub fn make_private(file: &File) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(PRIVATE_FILE_MODE))
}

/// A working folder as one folder name (`--<cwd without leading separator,
/// with / \\ : replaced by ->--`): sessions and checkpoints keep each
/// working folder's own under it.
pub fn encode_cwd(cwd: &Path) -> String {
    let s = cwd.to_string_lossy();
    let s = s.trim_start_matches(['/', '\\']);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("s.json");
        std::fs::write(&f, "\u{feff}{}").unwrap();
        assert_eq!(read_config_text(&f).unwrap().as_deref(), Some("{}"));
        assert_eq!(read_config_text(&d.path().join("none")).unwrap(), None);
        let e = read_config_text(d.path()).unwrap_err();
        assert_eq!(e.to_string(), text::NOT_A_REGULAR_FILE);
        let e = read_config_text(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.to_string(), text::NOT_A_REGULAR_FILE);
        let fifo = d.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let t0 = std::time::Instant::now();
        assert!(read_config_text(&fifo).is_err());
        assert!(t0.elapsed() < std::time::Duration::from_secs(1), "a FIFO never blocks");
        let big = d.path().join("big.json");
        let fh = File::create(&big).unwrap();
        fh.set_len(CONFIG_MAX_BYTES + 1).unwrap();
        let e = read_config_text(&big).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn private_folders_and_files_whatever_the_umask() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("a/b");
        create_private_dir(&dir).unwrap();
        for p in [d.path().join("a"), dir.clone()] {
            assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, PRIVATE_DIR_MODE);
        }
        let f = File::create(dir.join("f")).unwrap();
        f.set_permissions(std::fs::Permissions::from_mode(0o666)).unwrap();
        make_private(&f).unwrap();
        assert_eq!(f.metadata().unwrap().permissions().mode() & 0o777, PRIVATE_FILE_MODE);
    }
}
