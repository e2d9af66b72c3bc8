//! Reading `auth.json` and changing it under the lock.

use std::path::{Path, PathBuf};

use super::{AuthError, AuthFile};
use crate::trust::fsio::{self, FileLock, LockError};

/// The file's name in the agent dir.
pub const AUTH_FILE_NAME: &str = "auth.json";

/// `auth.json` at a path.
#[derive(Debug, Clone)]
pub struct AuthStore {
    path: PathBuf,
}

impl AuthStore {
    /// The store at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// `auth.json` in `agent_dir`.
    pub fn in_dir(agent_dir: &Path) -> Self {
        Self::new(agent_dir.join(AUTH_FILE_NAME))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file as it is now (a missing file is empty); no lock is taken.
    pub fn read(&self) -> Result<AuthFile, AuthError> {
        read_file(&self.path)
    }

    /// Take the lock (waiting while another process holds it), for a
    /// read-change-write that loses nothing. The agent dir is created
    /// (private) when missing.
    pub fn lock(&self) -> Result<AuthLock, AuthError> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            crate::files::create_private_dir(dir)
                .map_err(|source| AuthError::Write { path: self.path.clone(), source })?;
        }
        let lock_path = fsio::lock_path_for(&self.path);
        match fsio::lock(&lock_path) {
            Ok(guard) => Ok(AuthLock { path: self.path.clone(), _guard: guard }),
            Err(LockError::Busy) => Err(AuthError::Locked { path: lock_path }),
            Err(LockError::Io(source)) => Err(AuthError::Write { path: lock_path, source }),
        }
    }

    /// Under the lock: read the file, let `change` edit it, and write it back
    /// when it changed. A file that cannot be read or parsed is not written.
    pub fn update<T>(&self, change: impl FnOnce(&mut AuthFile) -> T) -> Result<T, AuthError> {
        let lock = self.lock()?;
        let mut file = lock.read()?;
        let before = file.clone();
        let out = change(&mut file);
        if file != before {
            lock.write(&file)?;
        }
        Ok(out)
    }
}

/// The held lock on `auth.json`; released on drop.
#[derive(Debug)]
pub struct AuthLock {
    path: PathBuf,
    _guard: FileLock,
}

impl AuthLock {
    /// The file as it is now, read under the lock.
    pub fn read(&self) -> Result<AuthFile, AuthError> {
        read_file(&self.path)
    }

    /// Replace the file with `file` (temporary file, then rename; mode 0600).
    pub fn write(&self, file: &AuthFile) -> Result<(), AuthError> {
        fsio::write_atomic(&self.path, file.to_text().as_bytes())
            .map_err(|source| AuthError::Write { path: self.path.clone(), source })
    }
}

fn read_file(path: &Path) -> Result<AuthFile, AuthError> {
    match fsio::read_text(path) {
        Ok(Some(text)) => AuthFile::parse(path, &text),
        Ok(None) => Ok(AuthFile::empty(path)),
        Err(source) => Err(AuthError::Read { path: path.to_path_buf(), source }),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;
    use crate::auth::{ApiKeyCredential, Credential};

    fn key(k: &str) -> Credential {
        Credential::ApiKey(ApiKeyCredential { key: k.into(), ..Default::default() })
    }

    #[test]
    fn writes_private_and_creates_the_dir() {
        let d = tempfile::tempdir().unwrap();
        let store = AuthStore::in_dir(&d.path().join("agent"));
        assert!(store.read().unwrap().providers().is_empty());
        store.update(|f| f.set("openai", &key("k1"))).unwrap();
        let mode = std::fs::metadata(store.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(d.path().join("agent")).unwrap().permissions().mode() & 0o777;
        assert_eq!(dir_mode, 0o700);
        assert_eq!(store.read().unwrap().get("openai").unwrap(), Some(key("k1")));
        assert!(!fsio::lock_path_for(store.path()).exists());
    }

    #[test]
    fn a_corrupt_file_is_reported_and_never_written() {
        let d = tempfile::tempdir().unwrap();
        let store = AuthStore::in_dir(d.path());
        std::fs::write(store.path(), b"{\"openai\": {\"type\": \"api_key\", \"key\": ").unwrap();
        let before = std::fs::read(store.path()).unwrap();
        let e = store.update(|f| f.set("openai", &key("new"))).unwrap_err();
        assert!(matches!(e, AuthError::Invalid { .. }), "{e}");
        assert!(e.to_string().contains(&store.path().display().to_string()));
        assert_eq!(std::fs::read(store.path()).unwrap(), before);
    }

    #[test]
    fn an_unchanged_file_is_not_rewritten() {
        let d = tempfile::tempdir().unwrap();
        let store = AuthStore::in_dir(d.path());
        std::fs::write(store.path(), "{\"a\":{\"type\":\"api_key\",\"key\":\"1\"}}").unwrap();
        std::fs::set_permissions(store.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        store.update(|f| f.providers().len()).unwrap();
        assert_eq!(std::fs::read_to_string(store.path()).unwrap(), "{\"a\":{\"type\":\"api_key\",\"key\":\"1\"}}");
    }

    #[test]
    fn concurrent_updates_lose_nothing() {
        let d = tempfile::tempdir().unwrap();
        let store = AuthStore::in_dir(d.path());
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                std::thread::spawn(move || store.update(|f| f.set(&format!("p{i}"), &key("k"))).unwrap())
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(store.read().unwrap().providers().len(), 8);
    }
}
