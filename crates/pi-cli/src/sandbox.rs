//! The run's sandbox (beyond.md B5): the user's `sandbox` settings with the
//! `--sandbox`/`--sandbox-network` flags, tightened by a trusted project's.

use std::path::{Path, PathBuf};

use pi_config::Settings;
use pi_config::settings::Scope;
use pi_sandbox::{Base, Flags, Layer, Sandbox};

/// The sandbox for `cwd`, and the warnings about project values that would
/// have loosened it (the project layer is empty when untrusted).
pub(crate) fn from_settings(settings: &Settings, flags: Flags, cwd: &Path, agent_dir: &Path) -> (Sandbox, Vec<String>) {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let user_file = settings.user_path();
    let project_file = settings.project_path();
    let user = Layer { value: settings.sandbox_layer(Scope::User), file: &user_file };
    let project = Layer { value: settings.sandbox_layer(Scope::Project), file: &project_file };
    let base = Base { home: home.as_deref(), cwd };
    let (policy, warnings) = pi_sandbox::from_settings(user, Some(project), flags, base);
    (Sandbox::new(policy, home, Some(agent_dir.to_path_buf())), warnings)
}

/// When commands are to run sandboxed but no sandbox can start here: the
/// warning start-up shows (each command then fails with the same reason).
pub(crate) fn unavailable(sandbox: &Sandbox) -> Option<String> {
    if !sandbox.mode().is_sandboxed() {
        return None;
    }
    pi_sandbox::mechanism().err().map(|reason| pi_sandbox::text::cannot_start(sandbox.mode(), &reason.to_string()))
}
