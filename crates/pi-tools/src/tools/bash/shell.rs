//! Which program runs a command: shell resolution for `bash` and `powershell`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::paths::home_dir;
use crate::text::bash as text;
use crate::{SessionEnv, ToolError};

/// The two command tools, which share everything but the shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShellKind {
    /// The `bash` tool.
    Bash,
    /// The `powershell` tool.
    PowerShell,
}

impl ShellKind {
    /// The shell's name in messages (`Cannot execute <label> commands.`).
    pub(crate) fn label(self) -> &'static str {
        match self {
            ShellKind::Bash => "bash",
            ShellKind::PowerShell => "PowerShell",
        }
    }

    /// The name prefix of the full-output files.
    pub(crate) fn output_prefix(self) -> &'static str {
        match self {
            ShellKind::Bash => "pi-bash",
            ShellKind::PowerShell => "pi-powershell",
        }
    }
}

/// A resolved shell: the program and the arguments that come before the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shell {
    /// The program to run (absolute, or a bare name looked up on `PATH`).
    pub program: PathBuf,
    /// Arguments before the command (`-c` for bash).
    pub args: Vec<String>,
}

/// Resolve the shell of `kind` for a session, looking programs up on `path_var`.
pub(crate) fn resolve(kind: ShellKind, session: &SessionEnv, path_var: Option<&OsStr>) -> Result<Shell, ToolError> {
    match kind {
        ShellKind::Bash => resolve_bash(session.shell_path.as_deref(), path_var, Path::new("/bin/bash")),
        ShellKind::PowerShell => resolve_powershell(path_var),
    }
}

/// The `shellPath` setting when set (a leading `~` expands; it must exist),
/// else `system_bash` (`/bin/bash`), else `bash` on `PATH`, else `sh`.
fn resolve_bash(custom: Option<&str>, path_var: Option<&OsStr>, system_bash: &Path) -> Result<Shell, ToolError> {
    let args = vec!["-c".to_string()];
    if let Some(custom) = custom.filter(|c| !c.is_empty()) {
        let path = expand_tilde(custom);
        if !path.exists() {
            return Err(ToolError::msg(text::custom_shell_not_found(&path.to_string_lossy())));
        }
        return Ok(Shell { program: path, args });
    }
    let program = if system_bash.exists() {
        system_bash.to_path_buf()
    } else if let Some(found) = find_on_path("bash", path_var) {
        found
    } else {
        PathBuf::from("sh")
    };
    Ok(Shell { program, args })
}

/// `pwsh` on `PATH` with `-NoProfile -NonInteractive -Command`.
fn resolve_powershell(path_var: Option<&OsStr>) -> Result<Shell, ToolError> {
    match find_on_path("pwsh", path_var) {
        Some(program) => {
            Ok(Shell { program, args: ["-NoProfile", "-NonInteractive", "-Command"].map(String::from).to_vec() })
        }
        // Without pwsh, off Windows, the reference's own text (measured on 1.6.0).
        None if cfg!(windows) => Err(ToolError::msg(text::NO_POWERSHELL)),
        None => Err(ToolError::msg(text::POWERSHELL_WINDOWS_ONLY)),
    }
}

fn expand_tilde(p: &str) -> PathBuf {
    match (p, home_dir()) {
        ("~", Some(h)) => h,
        (p, Some(h)) if p.starts_with("~/") => h.join(&p[2..]),
        (p, _) => PathBuf::from(p),
    }
}

/// The first executable file called `name` in the folders of `path_var`.
pub(crate) fn find_on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path_var = path_var?;
    std::env::split_paths(path_var).filter(|d| !d.as_os_str().is_empty()).map(|d| d.join(name)).find(|candidate| {
        candidate.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn executable(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn bash_prefers_the_setting_then_bin_bash_then_path_then_sh() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let custom = executable(d, "mysh");
        let path_var = d.as_os_str();
        let shell = resolve_bash(custom.to_str(), Some(path_var), Path::new("/bin/bash")).unwrap();
        assert_eq!(shell, Shell { program: custom.clone(), args: vec!["-c".into()] });
        let missing = d.join("missing");
        let e = resolve_bash(missing.to_str(), Some(path_var), Path::new("/bin/bash")).unwrap_err();
        assert_eq!(e.to_string(), format!("Custom shell path not found: {}", missing.display()));
        // An empty setting counts as unset.
        let nowhere = d.join("no-bash-here");
        assert_eq!(resolve_bash(Some(""), Some(path_var), &nowhere).unwrap().program, PathBuf::from("sh"));
        let bash = executable(d, "bash");
        assert_eq!(resolve_bash(None, Some(path_var), &nowhere).unwrap().program, bash);
        assert_eq!(resolve_bash(None, Some(path_var), &custom).unwrap().program, custom);
    }

    #[test]
    fn tilde_in_shell_path_expands() {
        if let Some(h) = home_dir() {
            let e = resolve_bash(Some("~/surely-not-a-shell-xyz"), None, Path::new("/bin/bash")).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("Custom shell path not found: {}", h.join("surely-not-a-shell-xyz").display())
            );
        }
    }

    #[test]
    fn powershell_needs_pwsh_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let e = resolve_powershell(Some(dir.path().as_os_str())).unwrap_err();
        assert_eq!(e.to_string(), "The powershell tool is only available on Windows.");
        // A non-executable file does not count.
        std::fs::write(dir.path().join("pwsh"), "").unwrap();
        assert!(resolve_powershell(Some(dir.path().as_os_str())).is_err());
        let pwsh = executable(dir.path(), "pwsh");
        let shell = resolve_powershell(Some(dir.path().as_os_str())).unwrap();
        assert_eq!(shell.program, pwsh);
        assert_eq!(shell.args, ["-NoProfile", "-NonInteractive", "-Command"]);
    }
}
