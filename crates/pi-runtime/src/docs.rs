//! Where pi's own documentation is: the folder holding `README.md` and
//! `docs/` of the source this binary was built from. The system prompt's
//! `<docs>` section and codemode's description point there.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The source tree's root, as this build knows it (canonical when it exists).
fn built_root() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::canonicalize(&p).unwrap_or(p)
}

/// The documentation's root, when it is there to read (a binary copied away
/// from its source has none).
pub fn root() -> Option<PathBuf> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| Some(built_root()).filter(|r| r.join("README.md").is_file() && r.join("docs").is_dir())).clone()
}

/// A file of `docs/` (named even when it is not there).
pub fn file(name: &str) -> PathBuf {
    built_root().join("docs").join(name)
}
