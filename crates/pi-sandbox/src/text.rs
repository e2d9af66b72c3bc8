//! Every message the sandbox shows a user or a model.

use std::path::Path;

use crate::Mode;

/// The valid mode names, for messages.
pub const MODE_NAMES: &str = "off, read-only, workspace-write";

/// A mode name that is not one of the three.
pub fn invalid_mode(value: &str) -> String {
    format!("Invalid sandbox mode \"{value}\". Valid values: {MODE_NAMES}")
}

/// `--sandbox` without its value.
pub const SANDBOX_REQUIRES_MODE: &str = "--sandbox requires off, read-only or workspace-write";

/// Why pi's own `write` or `edit` refused a path.
pub fn refused(mode: Mode, path: &Path, rule: Option<&str>) -> String {
    match rule {
        Some(rule) => format!("sandbox: {mode}: write to {} refused ({rule})", path.display()),
        None => format!("sandbox: {mode}: write to {} refused", path.display()),
    }
}

/// The rule for a path outside every writable root.
pub const RULE_OUTSIDE: &str = "outside the writable roots";

/// The rule for a path inside a protected folder.
pub fn rule_protected(name: &str) -> String {
    format!("{name} is read-only")
}

/// The rule for a path inside a hidden credential store.
pub const RULE_HIDDEN: &str = "a hidden credential store";

/// A sandboxed command that could not start: nothing ran.
pub fn cannot_start(mode: Mode, why: &str) -> String {
    format!("sandbox: {mode}: the command was not run: {why}")
}

/// The reasons no mechanism could start, joined.
pub fn no_mechanism(bwrap: &str, landlock: &str) -> String {
    format!("no sandbox can start here ({bwrap}; {landlock})")
}

/// bubblewrap is not installed (or switched off).
pub const BWRAP_MISSING: &str = "bubblewrap (bwrap) was not found";

/// bubblewrap is there but could not make a sandbox.
pub fn bwrap_failed(detail: &str) -> String {
    let detail = detail.trim();
    if detail.is_empty() {
        "bubblewrap could not create a sandbox".to_string()
    } else {
        format!("bubblewrap could not create a sandbox: {detail}")
    }
}

/// The test switch turned Landlock off.
pub const LANDLOCK_SWITCHED_OFF: &str = "Landlock is switched off (PI_SANDBOX_LANDLOCK=off)";

/// Landlock cannot be used on this kernel.
pub fn landlock_unavailable(detail: &str) -> String {
    let detail = detail.trim();
    if detail.is_empty() {
        "Landlock (ABI 6 or newer) is not available".to_string()
    } else {
        format!("Landlock (ABI 6 or newer) is not available: {detail}")
    }
}

/// No helper binary was registered.
pub const NO_HELPER: &str = "no sandbox helper is set (the pi binary provides it)";

/// A sandbox mode on a platform that has none.
pub const UNSUPPORTED_PLATFORM: &str = "the sandbox is only available on Linux; use sandbox mode off here";

/// The working folder is inside a hidden store.
pub fn cwd_hidden(cwd: &Path) -> String {
    format!("the working folder {} is inside a hidden credential store", cwd.display())
}

/// A protected name is a symlink that points nowhere.
pub fn dangling_protected(path: &Path) -> String {
    format!("{} is a symlink to nothing; it cannot be kept read-only", path.display())
}

/// A writable root holds more entries than the Landlock-only sandbox takes.
pub fn too_many_entries(path: &Path, limit: usize) -> String {
    format!("{} holds more than {limit} entries for the Landlock-only sandbox", path.display())
}

/// A probe or helper process could not be started or waited for.
pub fn probe_failed(what: &str, detail: &str) -> String {
    format!("{what}: {detail}")
}

/// The probe did not finish in time.
pub fn probe_timed_out(what: &str, ms: u64) -> String {
    format!("{what} did not answer within {ms} ms")
}

/// There is no temp folder to make a private one in.
pub const NO_TEMP: &str = "there is no temp folder (/tmp or TMPDIR) to make a private one in";

/// seccomp filters exist for x86_64, aarch64 and riscv64 only.
pub const SECCOMP_UNSUPPORTED_ARCH: &str = "no seccomp filter for this architecture";

/// The helper's usage line, printed when its arguments make no sense.
pub const HELPER_USAGE: &str =
    "pi sandbox helper: usage: __pi-sandbox [options] -- PROGRAM [ARGS...] (started by pi only)";

/// A session sandbox got a request it could not read.
pub const BAD_SESSION_REQUEST: &str = "the request could not be read";

/// The helper could not restrict itself: nothing ran.
pub fn helper_failed(detail: &str) -> String {
    format!("pi sandbox: the command was not run: {detail}")
}

/// Landlock was required and is not fully enforced.
pub fn landlock_not_enforced(status: &str) -> String {
    format!("Landlock is not fully enforced ({status})")
}

/// The helper could not run the program.
pub fn exec_failed(program: &str, code: &str) -> String {
    format!("pi sandbox: cannot run {program}: {code}")
}

/// A project value that would loosen the user's sandbox.
pub fn project_looser(file: &Path, key: &str, value: &str) -> String {
    format!(
        "{}: \"sandbox.{key}\" {value} would loosen the sandbox of your own settings; ignored (a project may only make it stricter)",
        file.display()
    )
}

/// An `allowWrite` entry that is not a protected name.
pub fn unknown_protected_name(file: &Path, name: &str) -> String {
    format!(
        "{}: \"sandbox.allowWrite\" entry \"{name}\" is not one of \".git\", \".pi\", \".agents\"; ignored",
        file.display()
    )
}

/// The system prompt's sandbox section: the mode, the writable roots and
/// the protected names that stay read-only.
pub fn prompt(mode: Mode, network: bool, roots: &[String], protected: &[&str]) -> Option<String> {
    let network = if network {
        "The network is on."
    } else {
        "The network is off: no connections of any kind (TCP, UDP, unix sockets), so package managers must work offline."
    };
    let hidden = "Credential stores (~/.ssh, ~/.aws, ~/.config/gcloud, ~/.netrc, ~/.docker/config.json, the agent's own folder) are hidden, and environment variables that look like secrets are removed.";
    let advice = "If a task needs more, say so instead of trying to get around the sandbox.";
    match mode {
        Mode::Off => None,
        Mode::ReadOnly => Some(format!(
            "<sandbox mode=\"read-only\">\nCommands run in an OS sandbox. They can read files but cannot write anywhere: temporary files go to a private, empty /tmp that is thrown away. {network} {hidden} The write and edit tools refuse every path. {advice}\n</sandbox>"
        )),
        Mode::WorkspaceWrite => {
            let kept =
                if protected.is_empty() { String::new() } else { format!(" {} stay read-only.", protected.join(", ")) };
            Some(format!(
                "<sandbox mode=\"workspace-write\">\nCommands run in an OS sandbox. They, and the write and edit tools, may write only under {} and the temp folder.{kept} {network} {hidden} {advice}\n</sandbox>",
                roots.join(", ")
            ))
        }
    }
}
