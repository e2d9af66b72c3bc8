//! The bubblewrap command line: new namespaces, the root read-only, temp
//! private (read-only mode) or shared (workspace-write), the writable roots
//! bound writable with their protected names read-only, the hidden stores
//! covered by empty read-only mounts. The helper then adds Landlock,
//! seccomp and no-new-privs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::spec::{HelperSpec, LandlockUse, Network};
use crate::limits::MAX_VISIBLE_OUTPUT_FILES;
use crate::view::{Kind, View};
use crate::{Command, Guard, Mode, Prepared, Reason};

/// The namespaces and process settings of every sandbox: its own pid, ipc,
/// uts and cgroup namespaces (and network, unless allowed); a new session
/// (no `TIOCSTI` into the agent's terminal); killed with its parent; no
/// capabilities (root included).
pub(super) fn namespace_flags(network: bool) -> Vec<OsString> {
    let mut f: Vec<OsString> = [
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    if !network {
        f.push("--unshare-net".into());
    }
    f.extend(["--cap-drop", "ALL"].map(OsString::from));
    f
}

/// `/` read-only, a private `/dev` and a `/proc` of the new pid namespace.
pub(super) fn base_mounts() -> Vec<OsString> {
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"].into_iter().map(OsString::from).collect()
}

/// Builds the arguments. Empty folders are made read-only only at the end,
/// once whatever is shown again inside them has been mounted.
struct Args {
    args: Vec<OsString>,
    remount_ro: Vec<PathBuf>,
}

impl Args {
    fn op(&mut self, op: &str, paths: &[&Path]) {
        self.args.push(op.into());
        self.args.extend(paths.iter().map(|p| OsString::from(p.as_os_str())));
    }

    /// An empty folder over `p`, read-only once [`Args::finish`] runs.
    fn empty_dir(&mut self, p: &Path) {
        self.op("--tmpfs", &[p]);
        self.remount_ro.push(p.to_path_buf());
    }

    fn finish(mut self) -> Vec<OsString> {
        for p in std::mem::take(&mut self.remount_ro) {
            self.op("--remount-ro", &[&p]);
        }
        self.args
    }
}

/// The mounts of temp and the writable roots, and what Landlock may write.
fn writable_mounts(view: &View, a: &mut Args, mount_points: &mut Vec<PathBuf>) -> Result<Vec<PathBuf>, Reason> {
    let mut writes: Vec<PathBuf> = view.temps.clone();
    match view.mode {
        Mode::ReadOnly => {
            for t in &view.temps {
                a.op("--tmpfs", &[t]);
            }
            // The working folder stays visible (read-only) even under temp.
            if view.in_temp(&view.cwd) {
                a.op("--ro-bind", &[&view.cwd, &view.cwd]);
            }
        }
        Mode::WorkspaceWrite | Mode::Off => {
            for t in &view.temps {
                a.op("--bind", &[t, t]);
            }
            for r in &view.roots {
                a.op("--bind", &[r, r]);
                writes.push(r.clone());
            }
            for p in &view.protected {
                match p.kind {
                    Kind::Dir | Kind::File => a.op("--ro-bind", &[&p.path, &p.path]),
                    Kind::Missing => {
                        mount_points.push(p.path.clone());
                        a.empty_dir(&p.path);
                    }
                    Kind::Dangling => return Err(Reason::DanglingProtected(p.path.clone())),
                }
            }
        }
    }
    Ok(writes)
}

/// A sandbox's bubblewrap arguments (up to the `--` before the helper) and
/// the helper's rules.
pub(super) struct Layout {
    /// bubblewrap's arguments.
    pub args: Vec<OsString>,
    /// The helper's rules.
    pub spec: HelperSpec,
    /// Folders bubblewrap will create for missing protected names.
    pub mount_points: Vec<PathBuf>,
    /// Private temp folders (read-only mode).
    pub private_temps: Vec<PathBuf>,
}

/// The sandbox for `view`: namespaces, mounts and the helper's rules.
pub(super) fn layout(view: &View, helper: &Path, landlock_off: bool, visible: &[PathBuf]) -> Result<Layout, Reason> {
    let mut mount_points = Vec::new();
    let mut a = Args { args: namespace_flags(view.network), remount_ro: Vec::new() };
    a.args.extend(base_mounts());
    let writes = writable_mounts(view, &mut a, &mut mount_points)?;
    for h in &view.hidden {
        if h.is_dir {
            a.empty_dir(&h.path);
        } else {
            a.op("--ro-bind", &[Path::new("/dev/null"), &h.path]);
        }
    }
    // Shown again read-only: the agent's `bin`, the helper itself (when a
    // hidden store or the private temp covers it), and in read-only mode the
    // full-output files of earlier commands.
    let covered = |p: &Path| view.is_hidden(p) || (view.mode == Mode::ReadOnly && view.in_temp(p));
    for p in view.exposed.iter().map(PathBuf::as_path).chain([helper]) {
        if covered(p) && p.exists() {
            a.op("--ro-bind", &[p, p]);
        }
    }
    if view.mode == Mode::ReadOnly {
        let shown = visible.iter().rev().filter(|f| view.in_temp(f) && f.is_file()).take(MAX_VISIBLE_OUTPUT_FILES);
        for f in shown {
            a.op("--ro-bind", &[f, f]);
        }
    }
    let cwd = view.cwd.clone();
    a.op("--chdir", &[&cwd]);
    let spec = HelperSpec {
        landlock: if landlock_off { LandlockUse::Off } else { LandlockUse::Optional },
        write: writes,
        dev: vec![PathBuf::from("/dev")],
        network: if view.network { Network::On } else { Network::OwnLoopback },
        ..HelperSpec::default()
    };
    let private_temps = if view.mode == Mode::ReadOnly { view.temps.clone() } else { Vec::new() };
    Ok(Layout { args: a.finish(), spec, mount_points, private_temps })
}

/// Wrap `command` in bubblewrap and the helper.
pub(super) fn wrap(
    view: &View,
    bwrap: &Path,
    helper: &Path,
    landlock_off: bool,
    mut command: Command,
    visible: &[PathBuf],
) -> Result<Prepared, Reason> {
    let layout = layout(view, helper, landlock_off, visible)?;
    let guard = Guard::for_mount_points(&view.mount_points, layout.mount_points);
    let mut args = layout.args;
    args.push("--".into());
    args.push(helper.into());
    args.extend(super::helper_command(&layout.spec, &command.program, &command.args));
    command.program = bwrap.to_path_buf();
    command.args = args;
    Ok(Prepared { command, guard })
}
