//! Paths as the kernel resolves them: symlinks followed (dangling ones too,
//! since writing through one creates its target), `..` applied to the real
//! parent of what came before.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::limits::MAX_SYMLINK_HOPS;

/// `path` (relative paths from `cwd`) resolved the way `open(O_CREAT)` would
/// reach it: every existing symlink followed, including the last component
/// and a dangling one; components after the first missing one are taken as
/// written. Never fails: a symlink loop stops after [`MAX_SYMLINK_HOPS`] and
/// keeps what was resolved so far.
pub fn resolve(cwd: &Path, path: &Path) -> PathBuf {
    let start = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, &start);
    pending.reverse();
    let mut done = PathBuf::from("/");
    let mut missing = false;
    let mut hops = 0;
    while let Some(part) = pending.pop() {
        if part == ".." {
            done.pop();
            continue;
        }
        let next = done.join(&part);
        if missing {
            done = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() && hops < MAX_SYMLINK_HOPS => {
                hops += 1;
                let Ok(target) = std::fs::read_link(&next) else {
                    done = next;
                    continue;
                };
                if target.is_absolute() {
                    done = PathBuf::from("/");
                }
                let mut more = Vec::new();
                push_components(&mut more, &target);
                pending.extend(more.into_iter().rev());
            }
            Ok(_) => done = next,
            Err(_) => {
                missing = true;
                done = next;
            }
        }
    }
    done
}

/// The normal components of `p` and its `..`s, in order (`.` and the root
/// left out).
fn push_components(out: &mut Vec<OsString>, p: &Path) {
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n.to_os_string()),
            Component::ParentDir => out.push(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
}

/// `p` canonical when it exists, else resolved as [`resolve`] does.
pub fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| resolve(Path::new("/"), p))
}

/// Whether `path` is `root` or inside it (whole components).
pub fn is_within(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
}

/// `~` and `~/…` expanded with `home`; relative paths taken from `base`.
pub fn expand(p: &str, home: Option<&Path>, base: &Path) -> PathBuf {
    let expanded = match (p, home) {
        ("~", Some(h)) => h.to_path_buf(),
        (s, Some(h)) if s.starts_with("~/") => h.join(&s[2..]),
        (s, _) => PathBuf::from(s),
    };
    if expanded.is_absolute() { expanded } else { base.join(expanded) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn dotdot_and_symlinks_resolve_like_the_kernel() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let cwd = root.join("proj");
        std::fs::create_dir_all(cwd.join("sub")).unwrap();
        std::fs::create_dir_all(root.join("out/deep")).unwrap();
        symlink(root.join("out/deep"), cwd.join("link")).unwrap();
        symlink("../out/new.txt", cwd.join("dangling")).unwrap();
        symlink("loop", cwd.join("loop")).unwrap();
        assert_eq!(resolve(&cwd, Path::new("sub/../x")), cwd.join("x"));
        assert_eq!(resolve(&cwd, Path::new("../out")), root.join("out"));
        // `link/..` is the parent of the link's target, not `proj`.
        assert_eq!(resolve(&cwd, Path::new("link/../f")), root.join("out/f"));
        assert_eq!(resolve(&cwd, Path::new("dangling")), root.join("out/new.txt"));
        assert_eq!(resolve(&cwd, Path::new("missing/../../y")), root.join("y"));
        assert_eq!(resolve(&cwd, Path::new("/proc/self/root/etc/x")), PathBuf::from("/etc/x"));
        let _ = resolve(&cwd, Path::new("loop/x"));
    }

    #[test]
    fn within_is_by_components() {
        assert!(is_within(Path::new("/a/b/c"), Path::new("/a/b")));
        assert!(is_within(Path::new("/a/b"), Path::new("/a/b")));
        assert!(!is_within(Path::new("/a/bc"), Path::new("/a/b")));
    }

    #[test]
    fn tilde_and_relative_expansion() {
        let home = Path::new("/h");
        assert_eq!(expand("~", Some(home), Path::new("/b")), PathBuf::from("/h"));
        assert_eq!(expand("~/x", Some(home), Path::new("/b")), PathBuf::from("/h/x"));
        assert_eq!(expand("x", Some(home), Path::new("/b")), PathBuf::from("/b/x"));
        assert_eq!(expand("/abs", None, Path::new("/b")), PathBuf::from("/abs"));
    }
}
