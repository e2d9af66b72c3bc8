//! The Landlock-only sandbox, where bubblewrap cannot start (no user
//! namespaces): the helper runs the program itself under Landlock (reads
//! everywhere except the hidden stores and raw devices, writes only to the
//! roots, no TCP, no signals or abstract sockets out of the sandbox),
//! seccomp (no sockets at all) and no-new-privs. Without a mount namespace,
//! read-only mode's temp is a private folder made for the command, and a
//! writable root with protected names is writable only inside what it
//! already holds (new entries directly in it cannot be made).

use std::path::{Path, PathBuf};

use super::spec::{HelperSpec, LandlockUse, Network};
use crate::paths::is_within;
use crate::view::{Kind, View};
use crate::{Command, Guard, Mode, Prepared, Reason};

/// Devices a command may use (everything else under `/dev` is unreadable:
/// a raw disk would bypass every other rule).
const DEVICES: [&str; 8] =
    ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"];

/// A new private temp folder (0700) under `parent`.
fn private_temp(parent: &Path) -> Result<PathBuf, Reason> {
    use std::os::unix::fs::DirBuilderExt;
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(Reason::Random)?;
    let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let dir = parent.join(format!("pi-sandbox-{name}"));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|source| Reason::PrivateTemp { path: dir.clone(), source })?;
    Ok(dir)
}

/// Wrap `command` in the helper alone.
pub(super) fn wrap(view: &View, helper: &Path, mut command: Command) -> Result<Prepared, Reason> {
    let mut guard = Guard::default();
    let mut spec = HelperSpec {
        landlock: LandlockUse::Required,
        network: if view.network { Network::On } else { Network::Off },
        ..HelperSpec::default()
    };
    spec.hide = view.hidden.iter().map(|h| h.path.clone()).collect();
    spec.hide.push(PathBuf::from("/dev"));
    spec.dev = DEVICES.iter().map(PathBuf::from).filter(|p| p.exists()).collect();
    spec.readable = view.exposed.clone();
    if view.is_hidden(helper) {
        spec.readable.push(helper.to_path_buf());
    }
    match view.mode {
        Mode::ReadOnly => {
            let parent = view.temps.last().ok_or(Reason::NoTemp)?;
            let dir = private_temp(parent)?;
            command.set_env("TMPDIR", dir.clone());
            spec.write.push(dir.clone());
            guard.set_private_temp(dir);
        }
        Mode::WorkspaceWrite | Mode::Off => {
            if let Some(p) = view.protected.iter().find(|p| p.kind == Kind::Dangling) {
                return Err(Reason::DanglingProtected(p.path.clone()));
            }
            // Landlock cannot take back what a rule above gives: a writable
            // folder holding a hidden store or a protected name is writable
            // only around them.
            let hidden = view.hidden.iter().map(|h| h.path.clone());
            let protected = view.protected.iter().flat_map(|p| std::iter::once(p.path.clone()).chain(p.target.clone()));
            let kept: Vec<PathBuf> = hidden.chain(protected).collect();
            for w in view.temps.iter().chain(&view.roots) {
                let inside: Vec<&PathBuf> = kept.iter().filter(|k| is_within(k, w)).collect();
                if inside.is_empty() {
                    spec.write.push(w.clone());
                } else {
                    spec.write_around.push(w.clone());
                    for k in inside {
                        if !spec.not_write.contains(k) {
                            spec.not_write.push(k.clone());
                        }
                    }
                }
            }
        }
    }
    command.args = super::helper_command(&spec, &command.program, &command.args);
    command.program = helper.to_path_buf();
    Ok(Prepared { command, guard })
}
