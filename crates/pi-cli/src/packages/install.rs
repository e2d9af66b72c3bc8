//! Installing, removing and updating npm and git packages by running `git`
//! and `npm` (the `npmCommand` setting) as the reference does: npm packages
//! with `npm install <spec> --prefix <agent-dir>/npm`, git packages with
//! `git clone` into `<agent-dir>/git/<host>/<path>` (then `npm install` when
//! the package has a `package.json`); the project's under `.pi/`. A failed
//! clone leaves no folder behind. Commands run with standard input closed
//! and `GIT_TERMINAL_PROMPT=0` (git fails instead of asking for a password).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pi_config::Settings;
use pi_config::packages::{self, PackageSource};
use pi_config::settings::Scope;

use super::error::PackageError;
use super::text;

/// Runs the package commands for one agent dir and working folder.
pub(crate) struct Installer {
    pub agent_dir: PathBuf,
    pub cwd: PathBuf,
    npm: Vec<String>,
    /// The commands' standard output goes to standard error (start-up: the
    /// mode owns standard output).
    pub quiet: bool,
}

/// What an update changed: `(from, to)` (versions or commits).
pub(crate) type Change = (Option<String>, Option<String>);

impl Installer {
    pub(crate) fn new(settings: &Settings, agent_dir: &Path, cwd: &Path) -> Self {
        let npm = settings
            .get(&["npmCommand"])
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect::<Vec<_>>())
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| vec!["npm".to_string()]);
        Installer { agent_dir: agent_dir.to_path_buf(), cwd: cwd.to_path_buf(), npm, quiet: false }
    }

    fn command(&self, program: &str, args: &[String], dir: Option<&Path>) -> Command {
        let mut c = Command::new(program);
        c.args(args).stdin(Stdio::null()).env("GIT_TERMINAL_PROMPT", "0");
        if let Some(d) = dir {
            c.current_dir(d);
        }
        if self.quiet {
            use std::os::fd::AsFd as _;
            // The mode owns standard output: the command's goes to standard error.
            match std::io::stderr().as_fd().try_clone_to_owned() {
                Ok(fd) => c.stdout(Stdio::from(fd)),
                Err(_) => c.stdout(Stdio::null()),
            };
        }
        c
    }

    fn run(&self, program: &str, args: &[String], dir: Option<&Path>) -> Result<(), PackageError> {
        let status = self.command(program, args, dir).status().map_err(|e| not_started(program, e))?;
        if status.success() { Ok(()) } else { Err(failed(program, args.to_vec(), status.code())) }
    }

    fn capture(&self, program: &str, args: &[&str], dir: &Path) -> Result<String, PackageError> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = self
            .command(program, &args, Some(dir))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| not_started(program, e))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            Err(failed(program, args, out.status.code()))
        }
    }

    fn npm(&self, args: Vec<String>, dir: Option<&Path>) -> Result<(), PackageError> {
        let (program, pre) = self.npm.split_first().ok_or(PackageError::InvalidNpmCommand)?;
        if program.is_empty() {
            return Err(PackageError::InvalidNpmCommand);
        }
        let mut all = pre.to_vec();
        all.extend(args);
        self.run(program, &all, dir)
    }

    fn git(&self, args: &[&str], dir: Option<&Path>) -> Result<(), PackageError> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        self.run("git", &args, dir)
    }

    /// Install `source` for `scope` (a local source is only checked).
    pub(crate) fn install(&self, source: &PackageSource, scope: Scope) -> Result<(), PackageError> {
        match source {
            PackageSource::Npm { spec, .. } => self.npm_install(std::slice::from_ref(spec), scope),
            PackageSource::Git { .. } => self.git_install(source, scope),
            PackageSource::Local { path } => {
                let resolved = packages::resolve_path(path, &self.cwd);
                if resolved.exists() { Ok(()) } else { Err(PackageError::PathMissing(resolved)) }
            }
        }
    }

    fn npm_install(&self, specs: &[String], scope: Scope) -> Result<(), PackageError> {
        let root = packages::npm_root(scope, &self.agent_dir, &self.cwd);
        self.npm_install_at(specs, &root)
    }

    /// `npm install spec` into the npm folder `root` (a temporary package's).
    pub(crate) fn npm_install_into(&self, spec: &str, root: &Path) -> Result<(), PackageError> {
        self.npm_install_at(&[spec.to_string()], root)
    }

    fn npm_install_at(&self, specs: &[String], root: &Path) -> Result<(), PackageError> {
        let root = root.to_path_buf();
        ensure_npm_project(&root)?;
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        let mut args = vec!["install".to_string()];
        args.extend(specs.iter().cloned());
        args.extend(["--prefix".to_string(), root.display().to_string()]);
        args.extend(["--legacy-peer-deps", "--no-audit", "--no-fund"].map(String::from));
        self.npm(args, None)
    }

    fn npm_dependencies(&self, dir: &Path) -> Result<(), PackageError> {
        if !dir.join("package.json").exists() {
            return Ok(());
        }
        let args = ["install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund"].map(String::from);
        self.npm(args.to_vec(), Some(dir))
    }

    fn git_install(&self, source: &PackageSource, scope: Scope) -> Result<(), PackageError> {
        let target = packages::install_path(source, scope, &self.agent_dir, &self.cwd);
        if target.exists() {
            return self.git_update(source, scope).map(|_| ());
        }
        let root = packages::git_root(scope, &self.agent_dir, &self.cwd);
        self.git_clone(source, &target, &root)
    }

    /// A temporary git package at `target`: cloned, or fetched and reset to
    /// its ref (or its branch's newest commit).
    pub(crate) fn git_install_into(&self, source: &PackageSource, target: &Path) -> Result<(), PackageError> {
        if target.exists() {
            return self.git_refresh(source, target).map(|_| ());
        }
        let root = target.ancestors().nth(3).unwrap_or(target).to_path_buf();
        self.git_clone(source, target, &root)
    }

    fn git_clone(&self, source: &PackageSource, target: &Path, root: &Path) -> Result<(), PackageError> {
        let PackageSource::Git { repo, git_ref, .. } = source else { return Ok(()) };
        let target = target.to_path_buf();
        ensure_gitignore(root)?;
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| write_failed(parent, e))?;
        }
        let target_text = target.display().to_string();
        let result = self.git(&["clone", repo, &target_text], None).and_then(|()| {
            if let Some(r) = git_ref {
                self.git(&["checkout", r], Some(&target))?;
            }
            self.npm_dependencies(&target)
        });
        if result.is_err() {
            let _ = std::fs::remove_dir_all(&target);
            prune_empty_parents(&target, root);
        }
        result
    }

    /// Bring a git package to its ref or its branch's newest commit; the
    /// commits before and after.
    pub(crate) fn git_update(&self, source: &PackageSource, scope: Scope) -> Result<Change, PackageError> {
        let dir = packages::install_path(source, scope, &self.agent_dir, &self.cwd);
        if !dir.exists() {
            self.git_install(source, scope)?;
            return Ok((None, self.head(&dir)));
        }
        self.git_refresh(source, &dir)
    }

    /// Fetch the clone at `dir` and reset it to its ref (or its branch's
    /// newest commit); the commits before and after.
    fn git_refresh(&self, source: &PackageSource, dir: &Path) -> Result<Change, PackageError> {
        let PackageSource::Git { git_ref, .. } = source else { return Ok((None, None)) };
        let dir = dir.to_path_buf();
        let from = self.head(&dir);
        let target = match git_ref {
            Some(r) => {
                self.git(&["fetch", "origin", r], Some(&dir))?;
                "FETCH_HEAD".to_string()
            }
            None => {
                let upstream = self.capture("git", &["rev-parse", "--abbrev-ref", "@{upstream}"], &dir)?;
                let branch = upstream.strip_prefix("origin/").unwrap_or(&upstream).to_string();
                let refspec = format!("+refs/heads/{branch}:refs/remotes/origin/{branch}");
                self.git(&["fetch", "--prune", "--no-tags", "origin", &refspec], Some(&dir))?;
                "@{upstream}".to_string()
            }
        };
        let commit = format!("{target}^{{commit}}");
        let wanted = self.capture("git", &["rev-parse", &commit], &dir)?;
        if from.as_deref() != Some(wanted.as_str()) {
            self.git(&["reset", "--hard", &commit], Some(&dir))?;
            self.git(&["clean", "-fdx"], Some(&dir))?;
            self.npm_dependencies(&dir)?;
        }
        Ok((from, self.head(&dir)))
    }

    fn head(&self, dir: &Path) -> Option<String> {
        self.capture("git", &["rev-parse", "HEAD"], dir).ok().filter(|s| !s.is_empty())
    }

    /// Reinstall an npm package that is not pinned; its versions before and after.
    pub(crate) fn npm_update(&self, source: &PackageSource, scope: Scope) -> Result<Change, PackageError> {
        let PackageSource::Npm { spec, name, version } = source else { return Ok((None, None)) };
        let dir = packages::install_path(source, scope, &self.agent_dir, &self.cwd);
        let from = installed_version(&dir);
        self.npm_install(&[update_spec(spec, name, version.as_deref())], scope)?;
        Ok((from, installed_version(&dir)))
    }

    /// Remove what pi installed for `source` (nothing for a local source).
    pub(crate) fn remove(&self, source: &PackageSource, scope: Scope) -> Result<(), PackageError> {
        match source {
            PackageSource::Npm { name, .. } => {
                let root = packages::npm_root(scope, &self.agent_dir, &self.cwd);
                if !root.exists() {
                    return Ok(());
                }
                let root = std::fs::canonicalize(&root).unwrap_or(root);
                let mut args =
                    vec!["uninstall".to_string(), name.clone(), "--prefix".into(), root.display().to_string()];
                args.extend(["--legacy-peer-deps", "--no-audit", "--no-fund"].map(String::from));
                self.npm(args, None)
            }
            PackageSource::Git { .. } => {
                let target = packages::install_path(source, scope, &self.agent_dir, &self.cwd);
                let _ = std::fs::remove_dir_all(&target);
                prune_empty_parents(&target, &packages::git_root(scope, &self.agent_dir, &self.cwd));
                Ok(())
            }
            PackageSource::Local { .. } => Ok(()),
        }
    }
}

/// The `version` of an installed package's `package.json`.
pub(crate) fn installed_version(dir: &Path) -> Option<String> {
    let text = pi_config::files::read_config_text(&dir.join("package.json")).ok()??;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("version")?.as_str().map(String::from)
}

fn write_new(path: &Path, content: &str) -> Result<(), PackageError> {
    if path.exists() {
        return Ok(());
    }
    std::fs::write(path, content).map_err(|e| write_failed(path, e))
}

fn ensure_gitignore(dir: &Path) -> Result<(), PackageError> {
    std::fs::create_dir_all(dir).map_err(|e| write_failed(dir, e))?;
    write_new(&dir.join(".gitignore"), text::INSTALL_GITIGNORE)
}

fn ensure_npm_project(root: &Path) -> Result<(), PackageError> {
    ensure_gitignore(root)?;
    write_new(&root.join("package.json"), text::NPM_PROJECT_JSON)
}

fn not_started(program: &str, source: std::io::Error) -> PackageError {
    PackageError::NotStarted { program: program.to_string(), source }
}

fn failed(program: &str, args: Vec<String>, code: Option<i32>) -> PackageError {
    PackageError::CommandFailed { program: program.to_string(), args, code }
}

fn write_failed(path: &Path, source: std::io::Error) -> PackageError {
    PackageError::Write { path: path.to_path_buf(), source }
}

/// What `npm install` gets to update a package: its spec, or `name@latest`
/// for an unversioned one (a bare name keeps the range npm saved the first
/// time), as the reference does.
pub(crate) fn update_spec(spec: &str, name: &str, version: Option<&str>) -> String {
    if version.is_some() { spec.to_string() } else { format!("{name}@latest") }
}

/// Remove the empty folders between `target` and `root` (not `root`).
fn prune_empty_parents(target: &Path, root: &Path) {
    let mut current = target.parent();
    while let Some(dir) = current {
        if !dir.starts_with(root) || dir == root {
            break;
        }
        if dir.exists() && std::fs::remove_dir(dir).is_err() {
            break;
        }
        current = dir.parent();
    }
}
