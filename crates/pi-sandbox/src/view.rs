//! The one rule: what a mode lets a command, and pi's own `write` and
//! `edit`, touch from a given working folder. [`View`] is computed once per
//! command (or write) and both the sandbox's mounts and
//! [`crate::Sandbox::check_write`] are read off it, so they cannot disagree.

use std::path::{Path, PathBuf};

use crate::command::MountPoints;
use crate::error::{Refusal, Rule};
use crate::paths::{canonical, is_within, resolve};
use crate::{Mode, PROTECTED_NAMES, Policy};

/// Credential stores hidden inside every sandbox, relative to the home
/// folder (the agent dir is hidden too, wherever it is).
pub const DEFAULT_HIDDEN: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".gnupg",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/github-copilot",
    ".codex",
    ".claude",
    ".claude.json",
];

/// The temp folder every sandbox knows besides `TMPDIR`.
pub(crate) const SYSTEM_TEMP: &str = "/tmp";

/// What a protected name is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Dir,
    File,
    Missing,
    /// A symlink to nothing: writing through it would create its target.
    Dangling,
}

/// `.git`, `.pi` or `.agents` of a writable root.
#[derive(Debug, Clone)]
pub(crate) struct Protected {
    pub name: &'static str,
    /// `<root>/<name>` as written.
    pub path: PathBuf,
    /// Where it leads (canonical) when it exists.
    pub target: Option<PathBuf>,
    pub kind: Kind,
}

/// A hidden store that exists.
#[derive(Debug, Clone)]
pub(crate) struct Hidden {
    /// Canonical.
    pub path: PathBuf,
    pub is_dir: bool,
}

/// Everything a sandbox needs to know about one working folder.
#[derive(Debug, Clone)]
pub(crate) struct View {
    pub mode: Mode,
    pub network: bool,
    /// The working folder, canonical.
    pub cwd: PathBuf,
    /// Temp folders (canonical, existing): `/tmp` and `TMPDIR`.
    pub temps: Vec<PathBuf>,
    /// Writable roots besides temp (canonical, existing): the working folder
    /// and `writableRoots`; empty in read-only.
    pub roots: Vec<PathBuf>,
    /// The protected names of each root, unless allowed.
    pub protected: Vec<Protected>,
    /// Hidden stores that exist.
    pub hidden: Vec<Hidden>,
    /// Every hidden path as configured (existing or not).
    pub hidden_configured: Vec<PathBuf>,
    /// Paths under a hidden store shown read-only after all (the agent's `bin`).
    pub exposed: Vec<PathBuf>,
    /// The mount points the sandbox's running commands made.
    pub mount_points: MountPoints,
}

fn push_unique(v: &mut Vec<PathBuf>, p: PathBuf) {
    if !v.contains(&p) {
        v.push(p);
    }
}

/// The inputs of a view besides the policy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Places<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    pub agent_dir: Option<&'a Path>,
    /// The temp folders (`/tmp` and `TMPDIR`).
    pub temps: &'a [PathBuf],
    /// The mount points the sandbox's running commands made.
    pub mount_points: &'a MountPoints,
}

/// The temp folders of an environment whose `TMPDIR` is `tmpdir`.
pub(crate) fn temp_dirs(tmpdir: Option<&Path>) -> Vec<PathBuf> {
    std::iter::once(Path::new(SYSTEM_TEMP)).chain(tmpdir).map(Path::to_path_buf).collect()
}

impl View {
    pub(crate) fn new(policy: &Policy, at: Places<'_>) -> View {
        let cwd = canonical(at.cwd);
        let mut temps = Vec::new();
        for t in at.temps {
            if let Ok(c) = std::fs::canonicalize(t)
                && c.is_dir()
            {
                push_unique(&mut temps, c);
            }
        }
        let mut roots = Vec::new();
        if policy.mode == Mode::WorkspaceWrite {
            push_unique(&mut roots, cwd.clone());
            for r in &policy.writable_roots {
                if let Ok(c) = std::fs::canonicalize(r)
                    && c.is_dir()
                {
                    push_unique(&mut roots, c);
                }
            }
        }
        let protected = protected_of(&roots, &policy.allow_write, at.mount_points);
        let (hidden_configured, hidden, exposed) = hidden_of(policy, at);
        View {
            mode: policy.mode,
            network: policy.network,
            cwd,
            temps,
            roots,
            protected,
            hidden,
            hidden_configured,
            exposed,
            mount_points: at.mount_points.clone(),
        }
    }

    /// Whether pi's own tools may write `path` (relative to the working folder).
    pub(crate) fn check_write(&self, path: &Path) -> Result<(), Refusal> {
        let refuse = |path: PathBuf, rule| Err(Refusal { mode: self.mode, path, rule });
        match self.mode {
            Mode::Off => return Ok(()),
            Mode::ReadOnly => return refuse(resolve(&self.cwd, path), Rule::ReadOnly),
            Mode::WorkspaceWrite => {}
        }
        let target = resolve(&self.cwd, path);
        let hidden = self.hidden_configured.iter().chain(self.hidden.iter().map(|h| &h.path));
        if hidden.clone().any(|h| is_within(&target, h)) {
            return refuse(target, Rule::Hidden);
        }
        if !self.roots.iter().chain(&self.temps).any(|r| is_within(&target, r)) {
            return refuse(target, Rule::Outside);
        }
        for p in &self.protected {
            if is_within(&target, &p.path) || p.target.as_ref().is_some_and(|t| is_within(&target, t)) {
                let name = p.name.to_string();
                return refuse(target, Rule::Protected(name));
            }
        }
        Ok(())
    }

    /// Whether `path` is inside a hidden store (or is one).
    pub(crate) fn is_hidden(&self, path: &Path) -> bool {
        self.hidden.iter().any(|h| is_within(path, &h.path))
    }

    /// Whether `path` is inside a temp folder.
    pub(crate) fn in_temp(&self, path: &Path) -> bool {
        self.temps.iter().any(|t| is_within(path, t))
    }
}

fn protected_of(roots: &[PathBuf], allowed: &[String], mount_points: &MountPoints) -> Vec<Protected> {
    let mut out = Vec::new();
    for root in roots {
        for name in PROTECTED_NAMES {
            if allowed.iter().any(|a| a == name) {
                continue;
            }
            let path = root.join(name);
            let (kind, target) = match std::fs::symlink_metadata(&path) {
                Err(_) => (Kind::Missing, None),
                Ok(m) => match std::fs::canonicalize(&path) {
                    Err(_) if m.file_type().is_symlink() => (Kind::Dangling, None),
                    Err(_) => (Kind::Missing, None),
                    // A mount point a sandbox of this pi made (still empty)
                    // is as missing as it was when that sandbox started.
                    Ok(t) if t.is_dir() && mount_points.is_own(&path) => (Kind::Missing, None),
                    Ok(t) if t.is_dir() => (Kind::Dir, Some(t)),
                    Ok(t) => (Kind::File, Some(t)),
                },
            };
            out.push(Protected { name, path, target, kind });
        }
    }
    out
}

/// Every configured hidden path, the existing ones (canonical), and what is
/// shown again under them.
fn hidden_of(policy: &Policy, at: Places<'_>) -> (Vec<PathBuf>, Vec<Hidden>, Vec<PathBuf>) {
    let mut configured = Vec::new();
    if let Some(home) = at.home {
        for rel in DEFAULT_HIDDEN {
            push_unique(&mut configured, home.join(rel));
        }
    }
    if let Some(agent) = at.agent_dir {
        push_unique(&mut configured, agent.to_path_buf());
    }
    for h in &policy.hidden {
        push_unique(&mut configured, h.clone());
    }
    configured.retain(|h| !policy.readable.iter().any(|r| r == h || canonical(r) == canonical(h)));
    let mut hidden: Vec<Hidden> = Vec::new();
    for h in &configured {
        if let Ok(c) = std::fs::canonicalize(h)
            && !hidden.iter().any(|x| x.path == c)
        {
            hidden.push(Hidden { is_dir: c.is_dir(), path: c });
        }
    }
    // A store inside another is covered by it.
    let outer: Vec<PathBuf> = hidden.iter().map(|h| h.path.clone()).collect();
    hidden.retain(|h| !outer.iter().any(|o| o != &h.path && is_within(&h.path, o)));
    let mut exposed = Vec::new();
    if let Some(bin) = at.agent_dir.map(|a| a.join("bin")).and_then(|b| std::fs::canonicalize(b).ok()) {
        exposed.push(bin);
    }
    (configured, hidden, exposed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Fixture {
        _t: tempfile::TempDir,
        root: PathBuf,
        home: PathBuf,
        cwd: PathBuf,
    }

    fn fixture() -> Fixture {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let home = root.join("home");
        let cwd = home.join("proj");
        for d in [".ssh", ".pi/agent/bin", "proj/.git/hooks", "proj/src", "other"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::write(home.join(".netrc"), "machine x").unwrap();
        Fixture { _t: t, root, home, cwd }
    }

    fn view(f: &Fixture, policy: &Policy) -> View {
        let agent = f.home.join(".pi/agent");
        View::new(
            policy,
            Places {
                cwd: &f.cwd,
                home: Some(&f.home),
                agent_dir: Some(&agent),
                temps: &[f.root.join("tmp")],
                mount_points: &MountPoints::default(),
            },
        )
    }

    fn rule(v: &View, p: &str) -> Option<Rule> {
        v.check_write(Path::new(p)).err().map(|r| r.rule)
    }

    #[test]
    fn workspace_write_rules() {
        let f = fixture();
        std::fs::create_dir(f.root.join("tmp")).unwrap();
        symlink(f.home.join("other"), f.cwd.join("out")).unwrap();
        symlink(".git", f.cwd.join("g")).unwrap();
        let v = view(&f, &Policy { mode: Mode::WorkspaceWrite, ..Policy::default() });
        assert_eq!(rule(&v, "src/main.rs"), None);
        assert_eq!(rule(&v, "new/dir/file"), None);
        assert_eq!(rule(&v, &f.root.join("tmp/x").to_string_lossy()), None);
        assert_eq!(rule(&v, "../other/x"), Some(Rule::Outside));
        assert_eq!(rule(&v, "out/x"), Some(Rule::Outside), "a symlink out of the project");
        assert_eq!(rule(&v, "/proc/self/root/etc/passwd"), Some(Rule::Outside));
        assert_eq!(rule(&v, ".git/hooks/pre-commit"), Some(Rule::Protected(".git".into())));
        assert_eq!(rule(&v, "g/config"), Some(Rule::Protected(".git".into())), "a symlink into .git");
        assert_eq!(rule(&v, "src/../.pi/settings.json"), Some(Rule::Protected(".pi".into())), "missing .pi");
        assert_eq!(rule(&v, ".agents/skills/x/SKILL.md"), Some(Rule::Protected(".agents".into())));
        assert_eq!(rule(&v, "../.ssh/authorized_keys"), Some(Rule::Hidden));
        assert!(v.hidden.iter().any(|h| h.path == f.home.join(".netrc") && !h.is_dir));
        assert_eq!(v.exposed, [f.home.join(".pi/agent/bin")]);
        let allowed = Policy { mode: Mode::WorkspaceWrite, allow_write: vec![".git".into()], ..Policy::default() };
        assert_eq!(rule(&view(&f, &allowed), ".git/config"), None);
    }

    #[test]
    fn read_only_refuses_everything_and_off_nothing() {
        let f = fixture();
        let v = view(&f, &Policy { mode: Mode::ReadOnly, ..Policy::default() });
        let e = v.check_write(Path::new("src/a.rs")).unwrap_err();
        assert_eq!(e.to_string(), format!("sandbox: read-only: write to {} refused", f.cwd.join("src/a.rs").display()));
        let v = view(&f, &Policy::default());
        assert!(v.check_write(Path::new("/etc/passwd")).is_ok());
    }

    #[test]
    fn more_roots_hidden_paths_and_readable_ones() {
        let f = fixture();
        let policy = Policy {
            mode: Mode::WorkspaceWrite,
            writable_roots: vec![f.home.join("other"), f.home.join("missing")],
            hidden: vec![f.cwd.join("src")],
            readable: vec![f.home.join(".netrc")],
            ..Policy::default()
        };
        let v = view(&f, &policy);
        assert_eq!(v.roots, [f.cwd.clone(), f.home.join("other")]);
        assert_eq!(rule(&v, "../other/x"), None);
        assert_eq!(rule(&v, "../other/.git/config"), Some(Rule::Protected(".git".into())));
        assert_eq!(rule(&v, "src/a.rs"), Some(Rule::Hidden));
        assert!(!v.hidden.iter().any(|h| h.path.ends_with(".netrc")));
        let e = v.check_write(Path::new("../.ssh/k")).unwrap_err();
        assert!(e.to_string().ends_with("/home/.ssh/k refused (a hidden credential store)"), "{e}");
    }
}
