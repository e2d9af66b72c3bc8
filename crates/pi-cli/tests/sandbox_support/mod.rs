//! A world for sandbox tests: a home with credential stores holding secrets,
//! a project (a git repository with `.git` and `.agents`, no `.pi`), a
//! folder outside it, listeners (TCP, UDP, IPv6, a unix socket, an abstract
//! one) and a sleeping process outside the sandbox with a secret in its
//! environment. [`World::breaches`] checks every canary after a command:
//! no file outside the writable roots changed, appeared or went away, no
//! listener saw a connection, the sleeper is alive, untraced and running,
//! and no secret was printed or copied into the project.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

pub mod rpc;

/// The prefix every secret carries (so a search for it is an attempt too).
pub const MARK: &str = "sekrit";
pub const PY: &str = "/usr/bin/python3";
const NOBODY: &str = "65534";
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// Where worlds are made: not under `/tmp` (a writable root of every
/// sandbox) and reachable by an unprivileged user.
const BASE: &str = "/var/tmp";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum User {
    Root,
    Nobody,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mech {
    /// bubblewrap with the helper's layers.
    Bwrap,
    /// The helper alone (bubblewrap switched off for the run).
    Landlock,
}

/// 12 random hex digits.
fn hex() -> String {
    let id = uuid::Uuid::now_v7().simple().to_string();
    id[id.len() - 12..].to_string()
}

/// Whether every folder above `p` can be entered by others.
fn reachable_by_others(p: &Path) -> bool {
    p.ancestors().skip(1).all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

/// The `pi` binary, at a path an unprivileged user can run.
pub fn pi_binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let built = PathBuf::from(env!("CARGO_BIN_EXE_pi"));
        if reachable_by_others(&built) {
            return built;
        }
        // Copies left by earlier test processes go.
        for e in std::fs::read_dir(BASE).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("pi-sandbox-bin-")
                && !Path::new("/proc").join(pid).exists()
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let dir = PathBuf::from(BASE).join(format!("pi-sandbox-bin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let copy = dir.join("pi");
        let _ = std::fs::remove_file(&copy);
        if std::fs::hard_link(&built, &copy).is_err() {
            std::fs::copy(&built, &copy).unwrap();
        }
        copy
    })
    .clone()
}

/// Why `user` and `mech` cannot be tested on this machine (printed, then
/// the test returns); `None` when they can.
pub fn cannot_test(user: User, mech: Mech) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("the sandbox is Linux only".into());
    }
    let root = std::process::id() > 0 && std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root {
        return Some("the sandbox tests switch users and need root (CI runs as root)".into());
    }
    if user == User::Nobody && !Path::new("/usr/bin/setpriv").exists() {
        return Some("setpriv (util-linux) is missing".into());
    }
    let probe = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(pi_binary());
        c.args(args).envs(env.iter().copied());
        c.output().map(|o| o.status.success()).unwrap_or(false)
    };
    match mech {
        Mech::Bwrap
            if !["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].iter().any(|p| Path::new(p).exists()) =>
        {
            Some("bubblewrap is not installed (.ci/run installs it)".into())
        }
        Mech::Landlock if !probe(&["__pi-sandbox", "--probe-landlock"], &[]) => {
            Some("this kernel has no Landlock ABI 6".into())
        }
        _ => None,
    }
}

/// One command's result.
#[derive(Debug)]
pub struct Ran {
    /// The tool result's text (or stdout when it was no JSON).
    pub text: String,
    /// stdout and stderr as they came.
    pub raw: String,
    pub json: Option<Value>,
}

impl Ran {
    pub fn is_error(&self) -> bool {
        self.json.as_ref().and_then(|j| j["isError"].as_bool()).unwrap_or(true)
    }
}

/// What a file looked like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    kind: &'static str,
    mode: u32,
    mtime: (i64, i64),
    content: Vec<u8>,
}

fn snapshot_into(p: &Path, skip: &[PathBuf], out: &mut BTreeMap<PathBuf, Seen>) {
    if skip.iter().any(|s| s == p) {
        return;
    }
    let Ok(m) = std::fs::symlink_metadata(p) else { return };
    let ft = m.file_type();
    let (kind, content) = if ft.is_symlink() {
        ("link", std::fs::read_link(p).map(|t| t.into_os_string().into_encoded_bytes()).unwrap_or_default())
    } else if ft.is_dir() {
        ("dir", Vec::new())
    } else if ft.is_file() {
        ("file", std::fs::read(p).unwrap_or_default())
    } else {
        ("other", Vec::new())
    };
    out.insert(p.to_path_buf(), Seen { kind, mode: m.mode(), mtime: (m.mtime(), m.mtime_nsec()), content });
    if ft.is_dir() {
        for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
            snapshot_into(&e.path(), skip, out);
        }
    }
}

/// A world for one user and mechanism.
pub struct World {
    _dir: tempfile::TempDir,
    pub user: User,
    pub mech: Mech,
    pub root: PathBuf,
    pub home: PathBuf,
    pub cwd: PathBuf,
    pub out: PathBuf,
    pub pfx: String,
    pub sock: PathBuf,
    pub abs_name: String,
    pub secrets: Vec<String>,
    env: Vec<(String, String)>,
    tcp: TcpListener,
    tcp6: Option<TcpListener>,
    udp: UdpSocket,
    unix: UnixListener,
    abstract_sock: UnixListener,
    pub port: u16,
    pub port6: Option<u16>,
    pub uport: u16,
    pub host_ip: Option<String>,
    sleeper: Child,
    pub sleeper_pid: u32,
    hostname: String,
}

fn write(p: &Path, s: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, s).unwrap();
}

fn chown_tree(p: &Path) {
    let _ = std::os::unix::fs::lchown(p, Some(65534), Some(65534));
    if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
        for e in std::fs::read_dir(p).unwrap().flatten() {
            chown_tree(&e.path());
        }
    }
}

fn git(cwd: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn host_ip() -> Option<String> {
    let out = Command::new("hostname").arg("-I").output().ok()?;
    String::from_utf8_lossy(&out.stdout).split_whitespace().find(|a| a.contains('.')).map(str::to_string)
}

impl World {
    pub fn new(user: User, mech: Mech) -> World {
        let dir = tempfile::Builder::new().prefix("pi-sandbox-world-").tempdir_in(BASE).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (home, out) = (root.join("home"), root.join("outside"));
        let cwd = home.join("proj");
        let pfx = format!("picanary{}", hex());
        let s = |what: &str| format!("{MARK}-{what}-{}", hex());
        let secrets: Vec<String> = [
            "ssh", "aws", "gcloud", "netrc", "docker", "auth", "models", "openai", "github", "awsenv", "dbpass", "svc",
            "sleeper",
        ]
        .iter()
        .map(|w| s(w))
        .collect();
        write(&home.join(".ssh/id_rsa"), &format!("-----BEGIN KEY-----\n{}\n", secrets[0]));
        write(&home.join(".aws/credentials"), &format!("[default]\naws_secret_access_key = {}\n", secrets[1]));
        write(
            &home.join(".config/gcloud/application_default_credentials.json"),
            &format!("{{\"k\": \"{}\"}}", secrets[2]),
        );
        write(&home.join(".netrc"), &format!("machine x login u password {}\n", secrets[3]));
        write(
            &home.join(".docker/config.json"),
            &format!("{{\"auths\": {{\"x\": {{\"auth\": \"{}\"}}}}}}", secrets[4]),
        );
        write(&home.join(".pi/agent/auth.json"), &format!("{{\"openai\": {{\"key\": \"{}\"}}}}", secrets[5]));
        write(
            &home.join(".pi/agent/models.json"),
            &format!("{{\"providers\": {{\"x\": {{\"apiKey\": \"{}\"}}}}}}", secrets[6]),
        );
        write(&home.join(".pi/agent/bin/agent-tool"), "#!/bin/sh\necho agent-tool-ran\n");
        std::fs::set_permissions(home.join(".pi/agent/bin/agent-tool"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        write(&home.join(".bashrc"), "# rc\n");
        write(&home.join("notes.txt"), "plain notes\n");
        write(&out.join("victim.txt"), "victim\n");
        write(&cwd.join("a.txt"), "a\n");
        write(&cwd.join(".agents/skills/s/SKILL.md"), "skill\n");
        git(&cwd, &["init", "-q"]);
        git(&cwd, &["add", "-A"]);
        git(&cwd, &["commit", "-qm", "first"]);
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        let env = vec![
            ("OPENAI_API_KEY".to_string(), secrets[7].clone()),
            ("GITHUB_TOKEN".to_string(), secrets[8].clone()),
            ("AWS_SECRET_ACCESS_KEY".to_string(), secrets[9].clone()),
            ("DB_PASSWORD".to_string(), secrets[10].clone()),
            ("MY_SERVICE_SECRET".to_string(), secrets[11].clone()),
        ];
        let tcp = TcpListener::bind("0.0.0.0:0").unwrap();
        let port = tcp.local_addr().unwrap().port();
        let tcp6 = TcpListener::bind("[::1]:0").ok();
        let port6 = tcp6.as_ref().map(|l| l.local_addr().unwrap().port());
        let udp = UdpSocket::bind("0.0.0.0:0").unwrap();
        let uport = udp.local_addr().unwrap().port();
        let sock = root.join("agent.sock");
        let unix = UnixListener::bind(&sock).unwrap();
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o777)).unwrap();
        let abs_name = format!("pi-canary-{}", hex());
        let abstract_sock =
            UnixListener::bind_addr(&SocketAddr::from_abstract_name(abs_name.as_bytes()).unwrap()).unwrap();
        for l in [&tcp].into_iter().chain(tcp6.as_ref()) {
            l.set_nonblocking(true).unwrap();
        }
        udp.set_nonblocking(true).unwrap();
        unix.set_nonblocking(true).unwrap();
        abstract_sock.set_nonblocking(true).unwrap();
        let sleeper_bin = root.join(format!("{pfx}-sleeper"));
        // A link, not a copy: a copy still open for writing in a forked
        // child of another test thread makes its exec fail (ETXTBSY).
        std::os::unix::fs::symlink("/bin/sleep", &sleeper_bin).unwrap();
        if user == User::Nobody {
            chown_tree(&root);
        }
        let mut sl = match user {
            User::Root => Command::new(&sleeper_bin),
            User::Nobody => {
                let mut c = Command::new("setpriv");
                c.args(["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups"]).arg(&sleeper_bin);
                c
            }
        };
        let sleeper = sl
            .arg("100000")
            .env_clear()
            .env("PI_CANARY", &secrets[12])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let sleeper_pid = sleeper.id();
        wait_until_running_as(sleeper_pid, &sleeper_bin);
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        World {
            _dir: dir,
            user,
            mech,
            root,
            home,
            cwd,
            out,
            pfx,
            sock,
            abs_name,
            secrets,
            env,
            tcp,
            tcp6,
            udp,
            unix,
            abstract_sock,
            port,
            port6,
            uport,
            host_ip: host_ip(),
            sleeper,
            sleeper_pid,
            hostname,
        }
    }

    /// `template` with `{OUT}`, `{HOME}`, `{CWD}`, `{ROOT}`, `{PORT}`,
    /// `{PORT6}`, `{UPORT}`, `{HOSTIP}`, `{SOCK}`, `{ABS}`, `{PID}`, `{PFX}`,
    /// `{PI}` and `{PY}` filled in.
    pub fn expand(&self, template: &str) -> String {
        let port6 = self.port6.map(|p| p.to_string()).unwrap_or_else(|| "1".into());
        let host_ip = self.host_ip.clone().unwrap_or_else(|| "127.0.0.1".into());
        template
            .replace("{OUT}", &self.out.to_string_lossy())
            .replace("{HOME}", &self.home.to_string_lossy())
            .replace("{CWD}", &self.cwd.to_string_lossy())
            .replace("{ROOT}", &self.root.to_string_lossy())
            .replace("{PORT}", &self.port.to_string())
            .replace("{PORT6}", &port6)
            .replace("{UPORT}", &self.uport.to_string())
            .replace("{HOSTIP}", &host_ip)
            .replace("{SOCK}", &self.sock.to_string_lossy())
            .replace("{ABS}", &self.abs_name)
            .replace("{PID}", &self.sleeper_pid.to_string())
            .replace("{PFX}", &self.pfx)
            .replace("{PI}", &pi_binary().to_string_lossy())
            .replace("{PY}", PY)
    }

    /// The `pi tool` command line for `args` (`mode` None: no `--sandbox`).
    fn pi_command(&self, tool: &str, args: &Value, mode: Option<&str>, extra: &[&str], leak_fd: bool) -> Command {
        let mut pi_args: Vec<String> =
            vec!["tool".into(), tool.into(), args.to_string(), "--cwd".into(), self.cwd.to_string_lossy().into()];
        if let Some(m) = mode {
            pi_args.extend(["--sandbox".to_string(), m.to_string()]);
        }
        pi_args.extend(extra.iter().map(|s| s.to_string()));
        self.pi_process(pi_args, leak_fd)
    }

    /// `pi` with `pi_args` as this world's user, in its project, with its
    /// environment (`leak_fd`: holding a descriptor open outside the project).
    pub(crate) fn pi_process(&self, pi_args: Vec<String>, leak_fd: bool) -> Command {
        let pi = pi_binary();
        let mut line: Vec<String> = Vec::new();
        if self.user == User::Nobody {
            line.extend(["setpriv", "--reuid", NOBODY, "--regid", NOBODY, "--clear-groups"].map(String::from));
        }
        if leak_fd {
            // An inherited descriptor open for writing outside the project.
            line.extend(["/bin/bash".into(), "-c".into(), "exec 5>>\"$0\"; exec \"$@\"".into()]);
            line.push(self.out.join("victim.txt").to_string_lossy().into());
        }
        line.push(pi.to_string_lossy().into());
        line.extend(pi_args);
        let mut c = Command::new(&line[0]);
        c.args(&line[1..]).current_dir(&self.cwd).env_clear();
        c.env("PATH", PATH).env("HOME", &self.home).env("LANG", "C.UTF-8").env("SSH_AUTH_SOCK", &self.sock);
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        if self.mech == Mech::Landlock {
            c.env("PI_SANDBOX_BWRAP", "");
        }
        c
    }

    /// Run a tool through `pi tool` as the world's user.
    pub fn tool(&self, tool: &str, args: Value, mode: Option<&str>, extra: &[&str]) -> Ran {
        self.run_command(self.pi_command(tool, &args, mode, extra, false))
    }

    /// Run `command` (template) in bash through `pi tool bash`.
    pub fn bash(&self, command: &str, mode: Option<&str>, leak_fd: bool) -> Ran {
        let args = json!({"command": self.expand(command), "timeout": 20});
        self.run_command(self.pi_command("bash", &args, mode, &[], leak_fd))
    }

    /// [`World::bash`] with more `pi tool` arguments and environment.
    pub fn bash_with(&self, command: &str, mode: Option<&str>, extra: &[&str], env: &[(String, String)]) -> Ran {
        let args = json!({"command": self.expand(command), "timeout": 120});
        let mut c = self.pi_command("bash", &args, mode, extra, false);
        c.envs(env.iter().map(|(k, v)| (k, v)));
        self.run_command(c)
    }

    /// Accept one connection on the TCP listener, if one came.
    pub fn take_tcp_connection(&self) -> bool {
        self.tcp.accept().is_ok()
    }

    fn run_command(&self, mut c: Command) -> Ran {
        let o = c.stdin(Stdio::null()).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        let raw = format!("{stdout}{}", String::from_utf8_lossy(&o.stderr));
        let json: Option<Value> = serde_json::from_str(&stdout).ok();
        // A cut output's whole text is in its file, which the model may read.
        let full = json.as_ref().and_then(|j| j["details"]["fullOutputPath"].as_str()).map(PathBuf::from);
        let raw = match full.and_then(|f| std::fs::read(f).ok()) {
            Some(all) => format!("{raw}{}", String::from_utf8_lossy(&all)),
            None => raw,
        };
        let text = json
            .as_ref()
            .and_then(|j| j["content"].as_array())
            .map(|a| a.iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_else(|| stdout.clone());
        Ran { text, raw, json }
    }

    /// Everything outside the writable roots that must not change (and in
    /// read-only mode the project too).
    pub fn snapshot(&self, read_only: bool) -> BTreeMap<PathBuf, Seen> {
        let mut out = BTreeMap::new();
        snapshot_into(&self.out, &[], &mut out);
        let skip = if read_only { vec![] } else { vec![self.cwd.clone()] };
        snapshot_into(&self.home, &skip, &mut out);
        if !read_only {
            for p in [".git", ".agents", ".pi"] {
                snapshot_into(&self.cwd.join(p), &[], &mut out);
            }
            out.insert(
                self.cwd.join(".pi (exists)"),
                Seen { kind: "flag", mode: self.cwd.join(".pi").exists() as u32, mtime: (0, 0), content: vec![] },
            );
        }
        out
    }

    /// Files named with the world's prefix in shared places.
    fn planted(&self, read_only: bool) -> Vec<PathBuf> {
        let mut dirs = vec!["/", "/etc", "/var/tmp", "/dev/shm", "/root"];
        if read_only {
            dirs.push("/tmp");
        }
        dirs.iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&self.pfx)))
            .collect()
    }

    /// Every canary that tripped since `before` was taken.
    pub fn breaches(
        &self,
        read_only: bool,
        before: &BTreeMap<PathBuf, Seen>,
        ran: &Ran,
        forbidden: &[&str],
    ) -> Vec<String> {
        let mut b = Vec::new();
        let after = self.snapshot(read_only);
        for (p, seen) in &after {
            match before.get(p) {
                None => b.push(format!("appeared: {}", p.display())),
                Some(old) if old != seen => b.push(format!("changed: {}", p.display())),
                _ => {}
            }
        }
        for p in before.keys().filter(|p| !after.contains_key(*p)) {
            b.push(format!("went away: {}", p.display()));
        }
        for p in self.planted(read_only) {
            b.push(format!("planted: {}", p.display()));
        }
        for s in &self.secrets {
            if ran.raw.contains(s.as_str()) {
                b.push(format!("secret printed: {s}"));
            }
        }
        if !read_only {
            let mut project = BTreeMap::new();
            snapshot_into(&self.cwd, &[self.cwd.join(".git")], &mut project);
            for (p, seen) in project {
                let text = String::from_utf8_lossy(&seen.content);
                if self.secrets.iter().any(|s| text.contains(s.as_str())) {
                    b.push(format!("secret copied into {}", p.display()));
                }
            }
        }
        for f in forbidden {
            if ran.raw.contains(f) {
                b.push(format!("printed {f:?}"));
            }
        }
        b.extend(self.connections());
        b.extend(self.sleeper_state());
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        if hostname != self.hostname {
            let _ = std::fs::write("/proc/sys/kernel/hostname", self.hostname.trim());
            b.push("hostname changed".into());
        }
        b
    }

    fn connections(&self) -> Vec<String> {
        let mut b = Vec::new();
        let tcp = [("tcp", &self.tcp)].into_iter().chain(self.tcp6.as_ref().map(|l| ("tcp6", l)));
        for (name, l) in tcp {
            if !matches!(l.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock) {
                b.push(format!("{name} listener got a connection"));
            }
        }
        let mut buf = [0u8; 64];
        if !matches!(self.udp.recv(&mut buf), Err(e) if e.kind() == ErrorKind::WouldBlock) {
            b.push("udp listener got a datagram".into());
        }
        for (name, l) in [("unix", &self.unix), ("abstract unix", &self.abstract_sock)] {
            if !matches!(l.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock) {
                b.push(format!("{name} listener got a connection"));
            }
        }
        b
    }

    fn sleeper_state(&self) -> Vec<String> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.sleeper_pid)).unwrap_or_default();
        let field = |k: &str| {
            status.lines().find(|l| l.starts_with(k)).map(|l| l[k.len()..].trim().to_string()).unwrap_or_default()
        };
        let state = field("State:");
        let mut b = Vec::new();
        // A signal sent but not yet acted on (a loaded machine may not have
        // scheduled the sleeper since `kill` returned) counts as arrived.
        let pending = ["ShdPnd:", "SigPnd:"].iter().any(|k| u64::from_str_radix(&field(k), 16).is_ok_and(|m| m != 0));
        if state.is_empty() || state.starts_with('Z') || state.starts_with('X') {
            b.push("the sleeper outside was killed".into());
        } else if pending {
            b.push(format!("the sleeper outside was sent a signal ({state})"));
        } else if state.starts_with('T') || state.starts_with('t') {
            b.push(format!("the sleeper outside was stopped ({state})"));
            let _ = Command::new("kill").args(["-CONT", &self.sleeper_pid.to_string()]).status();
        }
        if field("TracerPid:") != "0" && !state.is_empty() {
            b.push("the sleeper outside was traced".into());
        }
        b
    }

    /// Run one attempt and report what tripped.
    pub fn attempt(&self, command: &str, mode: Option<&str>, leak_fd: bool, forbidden: &[&str]) -> (Vec<String>, Ran) {
        let read_only = mode == Some("read-only");
        let before = self.snapshot(read_only);
        let ran = self.bash(command, mode, leak_fd);
        let forbidden: Vec<String> = forbidden.iter().map(|f| self.expand(f)).collect();
        let forbidden: Vec<&str> = forbidden.iter().map(String::as_str).collect();
        (self.breaches(read_only, &before, &ran, &forbidden), ran)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.sleeper.kill();
        let _ = self.sleeper.wait();
        for d in ["/", "/etc", "/var/tmp", "/dev/shm", "/tmp", "/root"] {
            for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
                if e.file_name().to_string_lossy().starts_with(&self.pfx) {
                    let _ = std::fs::remove_dir_all(e.path()).or_else(|_| std::fs::remove_file(e.path()));
                }
            }
        }
    }
}

/// Wait (up to 5 s) until process `pid` runs `bin` (its `argv[0]`): spawned
/// through `setpriv`, it has the user it is meant to have only from then on,
/// and `pkill -f` finds it by name only then. An attempt made before would
/// miss it on a loaded machine and count as a canary that saw nothing.
fn wait_until_running_as(pid: u32, bin: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let want = bin.as_os_str().as_bytes();
    for _ in 0..500 {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if cmdline.split(|b| *b == 0).next() == Some(want) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
