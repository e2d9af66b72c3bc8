//! `-e npm:…` and `-e git:…`: a package tried for one run, as the reference
//! keeps them: installed under `<agent-dir>/tmp/extensions/` (npm packages in
//! one npm folder, each git repository in a folder of its own), not written
//! to any settings. At every start an npm package whose version is not pinned
//! is installed again (npm takes the newest that matches), a git package is
//! fetched and reset to its ref or branch; offline, or when that fails, the
//! cached copy loads.

use std::path::{Path, PathBuf};

use pi_config::packages::{self, PackageSource};
use sha2::{Digest, Sha256};

use super::error::PackageError;
use super::install::Installer;

/// The folder temporary packages live under.
fn temp_root(agent_dir: &Path) -> PathBuf {
    agent_dir.join("tmp").join("extensions")
}

/// The first 8 hex digits of the SHA-256 of `text` (the reference's folder names).
fn short_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// The npm folder of temporary packages.
pub(crate) fn npm_root(agent_dir: &Path) -> PathBuf {
    temp_root(agent_dir).join("npm").join(short_hash("npm-"))
}

/// Where a temporary package is (or will be) installed.
pub(crate) fn install_path(source: &PackageSource, agent_dir: &Path) -> Option<PathBuf> {
    match source {
        PackageSource::Npm { name, .. } => Some(npm_root(agent_dir).join("node_modules").join(name)),
        PackageSource::Git { host, path, git_ref, .. } => {
            let at = git_ref.as_ref().map(|r| format!("@{r}")).unwrap_or_default();
            let folder = short_hash(&format!("git-{host}-{path}{at}"));
            Some(temp_root(agent_dir).join(format!("git-{host}")).join(folder).join(path))
        }
        PackageSource::Local { .. } => None,
    }
}

/// Whether `spec` names a package to fetch (npm or git) rather than a path.
pub(crate) fn is_remote(spec: &str) -> bool {
    !matches!(PackageSource::parse(spec), PackageSource::Local { .. })
}

/// Install or refresh the temporary package `spec` (see the module); its
/// folder, or why it cannot load (shown as a warning).
pub(crate) fn prepare(spec: &str, installer: &Installer, offline: bool) -> Result<PathBuf, PackageError> {
    let source = PackageSource::parse(spec);
    let Some(dir) = install_path(&source, &installer.agent_dir) else {
        return Err(PackageError::PathMissing(PathBuf::from(spec)));
    };
    let failed = |cause| PackageError::Temporary { spec: spec.to_string(), cause: Box::new(cause) };
    let root = temp_root(&installer.agent_dir);
    if std::fs::create_dir_all(&root).is_ok() {
        // The reference keeps this folder to its user.
        use std::os::unix::fs::PermissionsExt as _;
        let _ = std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700));
    }
    let cached = dir.exists();
    // An exact npm version is not checked again (a git ref is: fetched and reset).
    let pinned = matches!(source, PackageSource::Npm { .. }) && source.pinned();
    if offline || (cached && pinned) {
        return if cached { Ok(dir) } else { Err(failed(PackageError::NotCached)) };
    }
    let refreshed = match &source {
        PackageSource::Npm { spec: npm_spec, name, version } => {
            let spec = super::install::update_spec(npm_spec, name, version.as_deref());
            installer.npm_install_into(&spec, &npm_root(&installer.agent_dir))
        }
        _ => installer.git_install_into(&source, &dir),
    };
    match refreshed {
        Ok(()) => Ok(dir),
        // A failed check loads the cached copy.
        Err(_) if cached => Ok(dir),
        Err(cause) => Err(failed(cause)),
    }
}

/// The extension files a temporary package at `dir` offers (a package
/// without a manifest or the conventional folders offers none).
pub(crate) fn extensions(dir: &Path) -> Vec<PathBuf> {
    packages::collect_package(dir, None).map(|[extensions, ..]| extensions).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_the_references() {
        let agent = Path::new("/h/.pi/agent");
        // Measured with Pi 1.6.0: `-e npm:pi-plan-mode@0.2.4` installs under tmp/extensions/npm/f35b2129.
        assert_eq!(
            install_path(&PackageSource::parse("npm:pi-plan-mode@0.2.4"), agent).unwrap(),
            Path::new("/h/.pi/agent/tmp/extensions/npm/f35b2129/node_modules/pi-plan-mode")
        );
        let git = install_path(&PackageSource::parse("git:github.com/u/r@v1"), agent).unwrap();
        let expected =
            format!("/h/.pi/agent/tmp/extensions/git-github.com/{}/u/r", short_hash("git-github.com-u/r@v1"));
        assert_eq!(git, Path::new(&expected));
        assert!(install_path(&PackageSource::parse("./local"), agent).is_none());
        assert!(is_remote("npm:x") && is_remote("git:github.com/u/r") && !is_remote("./x.ts") && !is_remote("x.ts"));
    }
}
