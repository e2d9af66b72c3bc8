//! Running `git` on the shadow store with the working folder as its work
//! tree, isolated from everything of the user's: no system or global
//! configuration, no hooks, no environment variable that points git
//! elsewhere (`env_clear`), and the project's own `.git` never touched
//! (`GIT_DIR` is the store; git never adds a `.git` folder).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::CheckpointError;
use crate::text;

/// Settings every command runs with (`-c`): they override anything a
/// configuration could say.
const CONFIG: &[&str] = &[
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.quotePath=false",
    "core.symlinks=true",
    "core.fileMode=true",
    "core.trustctime=true",
    "core.checkStat=default",
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=true",
    "core.bare=false",
    "gc.auto=0",
    "commit.gpgSign=false",
    "advice.addEmbeddedRepo=false",
    "safe.directory=*",
];

/// One store and one work tree, with a session's own index.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    /// The shadow store (`GIT_DIR`).
    pub dir: PathBuf,
    /// The working folder (`GIT_WORK_TREE`).
    pub work: PathBuf,
    /// The session's index (`GIT_INDEX_FILE`).
    pub index: PathBuf,
}

impl Git {
    /// `git <args>`, isolated.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(text::GIT);
        c.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            c.env("PATH", path);
        }
        c.env("HOME", &self.dir)
            .env("GIT_DIR", &self.dir)
            .env("GIT_WORK_TREE", &self.work)
            .env("GIT_INDEX_FILE", &self.index)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env("GIT_AUTHOR_NAME", "pi")
            .env("GIT_AUTHOR_EMAIL", "pi@localhost")
            .env("GIT_COMMITTER_NAME", "pi")
            .env("GIT_COMMITTER_EMAIL", "pi@localhost");
        for setting in CONFIG {
            c.arg("-c").arg(setting);
        }
        // The project's own local excludes count as its .gitignore does.
        let excludes = self.work.join(".git/info/exclude");
        if excludes.is_file() {
            c.arg("-c").arg(format!("core.excludesFile={}", excludes.display()));
        }
        c.args(args).current_dir(&self.work).stderr(Stdio::piped()).stdout(Stdio::piped());
        c
    }

    /// Run `git <args>` (with `input` on its standard input); its output.
    pub fn run(&self, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, CheckpointError> {
        self.run_allowing(args, input, false)
    }

    /// [`Git::run`]; with `partial_ok`, a failure that still wrote output
    /// (`add --ignore-errors`) is not one.
    pub fn run_allowing(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
        partial_ok: bool,
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut c = self.command(args);
        c.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = c.spawn().map_err(|e| CheckpointError::NoGit(e.to_string()))?;
        // Standard input is written from another thread, so a large output
        // cannot hold the writer back.
        let writer = match (input, child.stdin.take()) {
            (Some(data), Some(mut stdin)) => {
                let data = data.to_vec();
                Some(std::thread::spawn(move || stdin.write_all(&data)))
            }
            _ => None,
        };
        let out = child.wait_with_output().map_err(|e| CheckpointError::Git(args.join(" "), e.to_string()))?;
        if let Some(w) = writer {
            let _ = w.join();
        }
        if !out.status.success() && !partial_ok {
            let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return Err(CheckpointError::Git(args.first().copied().unwrap_or_default().to_string(), why));
        }
        Ok(out.stdout)
    }

    /// `git <args>` as text, trimmed.
    pub fn text(&self, args: &[&str]) -> Result<String, CheckpointError> {
        Ok(String::from_utf8_lossy(&self.run(args, None)?).trim().to_string())
    }
}

/// NUL-separated items of `out`, as paths.
pub(crate) fn nul_items(out: &[u8]) -> Vec<String> {
    out.split(|b| *b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect()
}

/// Create the store at `dir` when it does not exist yet.
pub(crate) fn init_store(dir: &Path) -> Result<(), CheckpointError> {
    if dir.join("HEAD").is_file() {
        return Ok(());
    }
    pi_config::files::create_private_dir(dir).map_err(|e| CheckpointError::Io(dir.display().to_string(), e))?;
    let git = Git { dir: dir.to_path_buf(), work: dir.to_path_buf(), index: dir.join("index") };
    let mut c = git.command(&["init", "--bare", "--quiet"]);
    c.env_remove("GIT_WORK_TREE").env_remove("GIT_DIR").arg(dir);
    let out = c.output().map_err(|e| CheckpointError::NoGit(e.to_string()))?;
    if !out.status.success() {
        return Err(CheckpointError::Git("init".into(), String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    Ok(())
}
