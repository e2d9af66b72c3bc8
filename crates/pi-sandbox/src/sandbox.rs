//! [`Sandbox`]: a policy applied from a working folder.

use std::path::{Path, PathBuf};

use crate::command::MountPoints;
use crate::view::{Places, View};
use crate::{Command, Mode, Plan, Policy, Prepared, Reason, Refusal, SandboxError, env, text};

/// Environment variable telling a sandboxed command its mode.
pub const MODE_VAR: &str = "PI_SANDBOX";
/// Environment variable set to `1` in a sandboxed command without network.
pub const NETWORK_DISABLED_VAR: &str = "PI_SANDBOX_NETWORK_DISABLED";

/// A policy and the places it speaks of (home, agent dir). Cheap to clone
/// (clones share the mount points its commands made); `Sandbox::default()`
/// is mode `off`.
#[derive(Debug, Clone, Default)]
pub struct Sandbox {
    policy: Policy,
    home: Option<PathBuf>,
    agent_dir: Option<PathBuf>,
    /// Mount points made by commands it prepared that still run.
    mount_points: MountPoints,
}

/// Two sandboxes are equal when their rules are (whatever runs in them).
impl PartialEq for Sandbox {
    fn eq(&self, other: &Self) -> bool {
        (&self.policy, &self.home, &self.agent_dir) == (&other.policy, &other.home, &other.agent_dir)
    }
}

impl Eq for Sandbox {}

impl Sandbox {
    /// Mode `off`: commands run as they are, every write is allowed.
    pub fn off() -> Self {
        Sandbox::default()
    }

    /// `policy` with the home folder (for the default hidden stores) and the
    /// agent dir (hidden too).
    pub fn new(policy: Policy, home: Option<PathBuf>, agent_dir: Option<PathBuf>) -> Self {
        Sandbox { policy, home, agent_dir, mount_points: MountPoints::default() }
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.policy.mode
    }

    fn view(&self, cwd: &Path, tmpdir: Option<&Path>) -> View {
        let temps = crate::view::temp_dirs(tmpdir);
        let places = Places {
            cwd,
            home: self.home.as_deref(),
            agent_dir: self.agent_dir.as_deref(),
            temps: &temps,
            mount_points: &self.mount_points,
        };
        View::new(&self.policy, places)
    }

    /// The `writableRoots` commands may change besides the working folder
    /// and temp (empty unless the mode is `workspace-write`).
    pub fn extra_writable_roots(&self) -> &[PathBuf] {
        if self.policy.mode == Mode::WorkspaceWrite { &self.policy.writable_roots } else { &[] }
    }

    /// Whether pi's own `write` or `edit` may write `path` (relative paths
    /// from `cwd`): the same rule the command sandbox mounts. In `read-only`
    /// nothing; in `workspace-write` only inside the writable roots (the
    /// working folder, `writableRoots`, temp), never inside `.git`, `.pi`,
    /// `.agents` (unless allowed) or a hidden store. Symlinks are followed.
    pub fn check_write(&self, cwd: &Path, path: &Path) -> Result<(), Refusal> {
        if !self.policy.mode.is_sandboxed() {
            return Ok(());
        }
        let tmpdir = std::env::var_os("TMPDIR").map(PathBuf::from).filter(|p| p.is_absolute());
        self.view(cwd, tmpdir.as_deref()).check_write(path)
    }

    /// The system prompt's section on the sandbox (`None` in mode `off`).
    pub fn prompt_text(&self, cwd: &Path) -> Option<String> {
        if !self.policy.mode.is_sandboxed() {
            return None;
        }
        let view = self.view(cwd, None);
        let roots: Vec<String> = view.roots.iter().map(|r| r.display().to_string()).collect();
        let protected: Vec<&str> =
            crate::PROTECTED_NAMES.into_iter().filter(|n| !self.policy.allow_write.iter().any(|a| a == n)).collect();
        text::prompt(self.policy.mode, self.policy.network, &roots, &protected)
    }

    /// `command` as a sandboxed command: secrets removed from its
    /// environment and the program wrapped (bubblewrap, or the helper alone
    /// with Landlock). `visible` are files under temp that a read-only
    /// sandbox shows anyway (earlier commands' full-output files). In mode
    /// `off` the command comes back unchanged. An error means nothing may
    /// run: the sandbox fails closed.
    pub fn wrap(&self, command: Command, visible: &[PathBuf]) -> Result<Prepared, SandboxError> {
        let mode = self.policy.mode;
        if !mode.is_sandboxed() {
            return Ok(Prepared::unchanged(command));
        }
        let (view, command) = self.scrubbed(command)?;
        crate::platform::wrap(&view, command, visible).map_err(|reason| SandboxError::new(mode, reason))
    }

    /// How `command` runs: as [`Sandbox::wrap`] gives it, or, where
    /// bubblewrap is the mechanism, in a session sandbox (one kept for
    /// commands with the same working folder and rules, see [`Plan`]). An
    /// error means nothing may run.
    pub fn plan(&self, command: Command, visible: &[PathBuf]) -> Result<Plan, SandboxError> {
        let mode = self.policy.mode;
        if !mode.is_sandboxed() {
            return Ok(Plan::Direct(Prepared::unchanged(command)));
        }
        let (view, command) = self.scrubbed(command)?;
        crate::platform::plan(&view, command, visible).map_err(|reason| SandboxError::new(mode, reason))
    }

    /// `command` without secrets in its environment, with the sandbox's
    /// variables, and its view.
    fn scrubbed(&self, mut command: Command) -> Result<(View, Command), SandboxError> {
        let mode = self.policy.mode;
        command.env = env::scrub(command.env, &self.policy.env_keep, &self.policy.env_remove);
        command.set_env(MODE_VAR, mode.as_str());
        if !self.policy.network {
            command.set_env(NETWORK_DISABLED_VAR, "1");
        }
        let tmpdir = command.env_var("TMPDIR").map(PathBuf::from).filter(|p| p.is_absolute());
        let view = self.view(&command.cwd, tmpdir.as_deref());
        if view.is_hidden(&view.cwd) {
            return Err(SandboxError::new(mode, Reason::CwdHidden(view.cwd.clone())));
        }
        Ok((view, command))
    }
}
