//! The files that hold a tool's full output: `<prefix>-<16 hex><extension>`
//! in the OS temp dir (`TMPDIR` honoured), mode 0600, created exclusively so an
//! existing path or a planted symlink is never opened, followed or overwritten.
//! bash writes `pi-bash-….log`; codemode spills `pi-codemode-….txt` and saves
//! script images the same way.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How many random names are tried before giving up.
const ATTEMPTS: usize = 16;

/// The output files a session's tools made, newest last (at most
/// [`pi_sandbox::limits::MAX_VISIBLE_OUTPUT_FILES`]): a read-only sandbox,
/// whose temp is private, shows them to later commands. Carried by
/// [`crate::ToolContext`]; clones share it.
#[derive(Debug, Clone, Default)]
pub struct OutputFiles(Arc<Mutex<Vec<PathBuf>>>);

impl OutputFiles {
    /// No files yet.
    pub fn new() -> Self {
        OutputFiles::default()
    }

    /// The output files of earlier commands and tools, newest last.
    pub fn recent(&self) -> Vec<PathBuf> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Create a new output file `<prefix>-<16 hex><extension>` (`pi-bash`,
    /// `.log`) in `dir`, and remember it. The file is open for reading and
    /// writing.
    pub fn create(&self, dir: &Path, prefix: &str, extension: &str) -> io::Result<(File, PathBuf)> {
        let (file, path) = create_with_names(dir, prefix, extension, random_hex)?;
        let mut recent = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() >= pi_sandbox::limits::MAX_VISIBLE_OUTPUT_FILES {
            recent.remove(0);
        }
        recent.push(path.clone());
        Ok((file, path))
    }

    /// Write `data` to a new output file in the OS temp dir, and remember
    /// it; returns its path.
    pub fn write_new(&self, prefix: &str, extension: &str, data: &[u8]) -> io::Result<PathBuf> {
        use std::io::Write;
        let (mut file, path) = self.create(&std::env::temp_dir(), prefix, extension)?;
        file.write_all(data)?;
        Ok(path)
    }
}

/// [`OutputFiles::create`] with the random part of the name supplied by `next_name`
/// (tests use it to aim at a planted path). Names that exist are skipped.
pub(crate) fn create_with_names(
    dir: &Path,
    prefix: &str,
    extension: &str,
    mut next_name: impl FnMut() -> io::Result<String>,
) -> io::Result<(File, PathBuf)> {
    let mut last = io::Error::new(io::ErrorKind::AlreadyExists, "no free output file name");
    for _ in 0..ATTEMPTS {
        let path = dir.join(format!("{prefix}-{}{extension}", next_name()?));
        match open_exclusive(&path) {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Open `path` as a new file: `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600. Fails
/// with `AlreadyExists` when anything (a file, a symlink, dangling or not) is there.
pub(crate) fn open_exclusive(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .mode(0o600)
        .open(path)
}

/// 16 lowercase hex characters from the OS random source.
fn random_hex() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, Write};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn names_are_prefix_16_hex_log_and_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let files = OutputFiles::new();
        let (mut f, path) = files.create(dir.path(), "pi-bash", ".log").unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        let hex = name.strip_prefix("pi-bash-").unwrap().strip_suffix(".log").unwrap();
        assert_eq!(hex.len(), 16);
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        f.write_all(b"abc").unwrap();
        f.rewind().unwrap();
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        assert_eq!(s, "abc");
        let (_, other) = files.create(dir.path(), "pi-bash", ".log").unwrap();
        assert_ne!(path, other);
        assert_eq!(files.clone().recent(), [path, other], "clones share the list");
    }

    #[test]
    fn a_planted_symlink_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let planted = dir.path().join("pi-bash-aaaaaaaaaaaaaaaa.log");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let dangling = dir.path().join("pi-bash-bbbbbbbbbbbbbbbb.log");
        std::os::unix::fs::symlink(dir.path().join("nothing"), &dangling).unwrap();

        // Opening the planted names directly fails and touches nothing.
        assert_eq!(open_exclusive(&planted).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(open_exclusive(&dangling).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert!(!dir.path().join("nothing").exists());

        // The creator aimed at both planted names moves on to a fresh one.
        let mut names = ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc"].into_iter();
        let (mut f, path) = create_with_names(dir.path(), "pi-bash", ".log", || {
            Ok(names.next().unwrap_or("dddddddddddddddd").to_string())
        })
        .unwrap();
        assert_eq!(path, dir.path().join("pi-bash-cccccccccccccccc.log"));
        f.write_all(b"output").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!dir.path().join("nothing").exists());
        assert!(std::fs::symlink_metadata(&planted).unwrap().file_type().is_symlink());
    }

    #[test]
    fn gives_up_when_every_name_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pi-bash-x.log"), "").unwrap();
        let e = create_with_names(dir.path(), "pi-bash", ".log", || Ok("x".to_string())).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        let e = OutputFiles::new().create(&dir.path().join("missing-dir"), "pi-bash", ".log").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
