//! `protected-paths`: refuse `write` and `edit` calls that would change a
//! `.env` file or anything inside a `.git` or `node_modules` folder.
//!
//! The path is resolved against the session folder exactly as the tools do
//! ([`pi_tools::paths::resolve`]); then both that path and its canonical form
//! (every symlink of the existing part followed, the missing rest appended)
//! are checked, component by component:
//!
//! - folder rules: a component named `.git` or `node_modules` anywhere in the
//!   path (the folder itself, or anything below it);
//! - file-name rules: a last component named `.env` or `.env.<anything>`.
//!
//! Names are compared ignoring ASCII case on every file system: on a
//! case-insensitive one `.ENV` is `.env`, and on a case-sensitive one
//! refusing `.ENV` costs nothing, while probing which kind a folder is can be
//! fooled (mount points, ext4's per-folder casefolding).

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use pi_agent::{Interceptor, ToolCallDecision, ToolCallEvent};

use crate::text;
use crate::{Approver, NotifyKind, PolicyFailed};

/// Folders nothing may be written into.
const PROTECTED_FOLDERS: &[&str] = &[".git", "node_modules"];
/// File names that may not be written.
const PROTECTED_FILE: &str = ".env";
/// Prefix of the protected file-name family (`.env.local`, `.env.production`).
const PROTECTED_FILE_PREFIX: &str = ".env.";
/// Symlinks followed while canonicalising before giving up (Linux's limit).
const MAX_SYMLINK_HOPS: usize = 40;

/// The tools whose `path` argument is checked (the reference example's scope).
const GUARDED_TOOLS: &[&str] = &["write", "edit"];

/// A component's name as the file system compares it. Windows ignores
/// trailing dots and spaces and reads `name:stream` as the file `name`.
fn effective_name(name: &OsStr) -> &[u8] {
    let b = name.as_encoded_bytes();
    if cfg!(windows) {
        let b = match b.iter().position(|&c| c == b':') {
            Some(i) => &b[..i],
            None => b,
        };
        let end = b.iter().rposition(|&c| c != b'.' && c != b' ').map_or(0, |i| i + 1);
        &b[..end]
    } else {
        b
    }
}

/// Whether `path` is protected by name: a `.git` or `node_modules` component
/// anywhere, or a last component `.env` / `.env.*` (ASCII case ignored).
pub fn is_protected(path: &Path) -> bool {
    let names: Vec<&[u8]> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(effective_name(n)),
            _ => None,
        })
        .collect();
    let folder = names.iter().any(|n| PROTECTED_FOLDERS.iter().any(|p| n.eq_ignore_ascii_case(p.as_bytes())));
    let file = names.last().is_some_and(|n| {
        n.eq_ignore_ascii_case(PROTECTED_FILE.as_bytes())
            || (n.len() >= PROTECTED_FILE_PREFIX.len()
                && n[..PROTECTED_FILE_PREFIX.len()].eq_ignore_ascii_case(PROTECTED_FILE_PREFIX.as_bytes()))
    });
    folder || file
}

/// `path` made absolute with every symlink of its existing part followed and
/// the part that does not exist appended as written (like `realpath -m`). A
/// dangling symlink is followed to its target, since writing through it
/// creates the target. Symlink loops stop after 40 hops and keep the rest
/// unresolved. Never fails: unreadable parts are taken as written.
pub fn canonicalize_lenient(path: &Path) -> PathBuf {
    let abs =
        if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(path) };
    let mut todo: Vec<OsString> = abs.components().rev().map(|c| c.as_os_str().to_owned()).collect();
    let mut out = PathBuf::new();
    let mut hops = 0;
    let mut exists = true;
    while let Some(part) = todo.pop() {
        match Path::new(&part).components().next() {
            None | Some(Component::CurDir) => {}
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::RootDir | Component::Prefix(_)) => out.push(&part),
            Some(Component::Normal(name)) => {
                let candidate = out.join(name);
                if exists {
                    match std::fs::symlink_metadata(&candidate) {
                        Ok(m) if m.file_type().is_symlink() && hops < MAX_SYMLINK_HOPS => {
                            if let Ok(target) = std::fs::read_link(&candidate) {
                                hops += 1;
                                todo.extend(target.components().rev().map(|c| c.as_os_str().to_owned()));
                                continue;
                            }
                        }
                        Ok(_) => {}
                        Err(_) => exists = false,
                    }
                }
                out = candidate;
            }
        }
    }
    out
}

/// Whether writing `input` (as a tool's `path` argument) from `cwd` would
/// touch a protected path: the resolved path or its canonical form. A path
/// that does not resolve (a broken `file://` URL) touches nothing: the tool
/// fails on it.
fn protects(cwd: &Path, input: &str) -> bool {
    let Ok(resolved) = pi_tools::paths::resolve(cwd, input) else {
        return false;
    };
    if is_protected(&resolved) {
        return true;
    }
    let canonical = canonicalize_lenient(&resolved);
    canonical != resolved && is_protected(&canonical)
}

/// The `protected-paths` policy.
pub struct ProtectedPaths {
    cwd: PathBuf,
    ui: Option<Arc<dyn Approver>>,
}

impl ProtectedPaths {
    /// Its name.
    pub const NAME: &'static str = "protected-paths";
    const SOURCE: &'static str = "builtin:protected-paths";

    /// The policy for a session in `cwd`; `ui` is told about refusals.
    pub fn new(cwd: PathBuf, ui: Option<Arc<dyn Approver>>) -> Self {
        ProtectedPaths { cwd, ui }
    }

    async fn decide(&self, ev: &ToolCallEvent) -> Result<Option<ToolCallDecision>, PolicyFailed> {
        if !GUARDED_TOOLS.contains(&ev.tool_name.as_str()) {
            return Ok(None);
        }
        let Some(path) = ev.input.get("path").and_then(|p| p.as_str()) else {
            return Ok(None);
        };
        let (cwd, input) = (self.cwd.clone(), path.to_string());
        let protected = match tokio::runtime::Handle::try_current() {
            Ok(rt) => rt
                .spawn_blocking(move || protects(&cwd, &input))
                .await
                .map_err(|source| PolicyFailed { policy: Self::NAME, source })?,
            Err(_) => protects(&cwd, &input),
        };
        if !protected {
            return Ok(None);
        }
        if let Some(ui) = &self.ui {
            ui.notify(&text::blocked_write_notice(path), NotifyKind::Warning);
        }
        Ok(Some(ToolCallDecision::block(text::path_protected(path))))
    }
}

impl Interceptor for ProtectedPaths {
    fn source(&self) -> &str {
        Self::SOURCE
    }

    fn judges_final_input(&self) -> bool {
        true
    }

    fn on_tool_call<'a>(
        &'a self,
        ev: &'a mut ToolCallEvent,
    ) -> BoxFuture<'a, Result<Option<ToolCallDecision>, pi_agent::HandlerError>> {
        Box::pin(async move { self.decide(ev).await.map_err(|e| pi_agent::HandlerError::new(e.to_string())) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_folders() {
        for p in [
            "/p/.env",
            "/p/sub/.env.local",
            "/p/.ENV",
            "/p/.Env.Production",
            "/p/.env.",
            "/p/.git",
            "/p/.git/config",
            "/p/a/.GIT/hooks/pre-commit",
            "/p/node_modules",
            "/p/node_modules/x/index.js",
            "/p/Node_Modules/x",
        ] {
            assert!(is_protected(Path::new(p)), "{p} should be protected");
        }
        for p in [
            "/p/my.env.bak",
            "/p/.envrc",
            "/p/env",
            "/p/.env/lib/site.py",
            "/p/x.env",
            "/p/.github/workflows/ci.yml",
            "/p/a.git/x",
            "/p/.gitignore",
            "/p/node_modules_backup/x",
            "/p/my_node_modules",
            "/",
        ] {
            assert!(!is_protected(Path::new(p)), "{p} should not be protected");
        }
    }

    #[test]
    fn odd_inputs_never_panic() {
        let dir = tempfile::tempdir().unwrap();
        let long = "a/".repeat(5000) + ".env";
        for input in ["", ".", "/", "..", "../../../../../..", "a\0b", "\u{0}", "~", "@", "file://", &long] {
            let _ = protects(dir.path(), input);
        }
        assert!(protects(dir.path(), &long));
        assert!(!protects(dir.path(), ""));
        assert!(protects(Path::new("relative/cwd"), ".env"));
    }

    #[cfg(unix)]
    #[test]
    fn canonicalisation_follows_live_and_dangling_links() {
        let dir = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(d.join("real")).unwrap();
        std::os::unix::fs::symlink("real", d.join("alias")).unwrap();
        std::os::unix::fs::symlink(".env", d.join("dangling")).unwrap();
        std::os::unix::fs::symlink("../real/x", d.join("real/up")).unwrap();
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        assert_eq!(canonicalize_lenient(&d.join("alias/new/file")), d.join("real/new/file"));
        assert_eq!(canonicalize_lenient(&d.join("dangling")), d.join(".env"));
        assert_eq!(canonicalize_lenient(&d.join("alias/up")), d.join("real/x"));
        assert_eq!(canonicalize_lenient(&d.join("missing/a/b")), d.join("missing/a/b"));
        // A loop ends; the result is some path under d, not a hang.
        assert!(canonicalize_lenient(&d.join("loop/x")).starts_with(&d));
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_names_are_checked_on_both_sides() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("secrets.txt"), "x").unwrap();
        std::os::unix::fs::symlink("secrets.txt", d.join(".env")).unwrap();
        std::os::unix::fs::symlink(".env.prod", d.join("config")).unwrap();
        assert!(protects(d, ".env"), "a link named .env");
        assert!(protects(d, "config"), "a dangling link to .env.prod");
        assert!(!protects(d, "secrets.txt"), "the target itself is not named .env");
    }
}
