//! What still works inside `read-only` and `workspace-write` (beyond.md B5):
//! reading anywhere but the hidden stores, git status/diff/log, compilers
//! and test runners writing into the project (workspace-write) and temp,
//! python3, `cargo build` offline, pipes and job control, the agent's own
//! `bin`, a private loopback, the network when allowed, and (through one pi
//! process) the full-output file of a cut command.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
#![cfg(target_os = "linux")]

use crate::sandbox_support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use pi_test_support::MockServer;
use sandbox_support::{Mech, User, World, cannot_test};
use serde_json::{Value, json};

/// A check: a command and what its output must hold.
struct Works {
    name: &'static str,
    command: &'static str,
    expect: &'static [&'static str],
    /// Only in workspace-write (it writes into the project).
    writes_project: bool,
}

const fn w(name: &'static str, command: &'static str, expect: &'static [&'static str]) -> Works {
    Works { name, command, expect, writes_project: false }
}

fn checks() -> Vec<Works> {
    vec![
        w(
            "reading",
            "cat {HOME}/notes.txt /etc/hostname > /dev/null && ls /usr/bin > /dev/null && echo read-ok",
            &["read-ok"],
        ),
        w("the agent's bin", "agent-tool", &["agent-tool-ran"]),
        w(
            "git status, diff and log",
            "git status --short; git diff --stat | tail -1; git log --oneline | wc -l",
            &[" M a.txt", "1 file changed", "1\n"],
        ),
        w(
            "a C compiler writing to temp",
            "d=$(mktemp -d) && printf 'int main(){return puts(\"c-ok\") < 0;}' > $d/m.c && cc $d/m.c -o $d/m && $d/m",
            &["c-ok"],
        ),
        w(
            "python3 and its temp files",
            "{PY} -c \"import tempfile; d=tempfile.mkdtemp(); open(d+'/f','w').write('x'); print('py-ok')\"",
            &["py-ok"],
        ),
        w("a test runner", "{PY} -m unittest discover -s tests -q 2>&1 | tail -1", &["OK"]),
        w("pipes", "seq 1 1000 | sort -rn | head -1", &["1000"]),
        w(
            "job control",
            "sleep 0.1 & wait $!; echo waited; sleep 30 & kill %1; wait; echo jobs-ok",
            &["waited", "jobs-ok"],
        ),
        w("the sandbox tells the command", "echo $PI_SANDBOX $PI_SANDBOX_NETWORK_DISABLED", &["-", " 1"]),
        Works {
            name: "a compiler writing into the project",
            command: "printf 'int main(){return puts(\"proj-ok\") < 0;}' > build/m.c && cc build/m.c -o build/m && ./build/m",
            expect: &["proj-ok"],
            writes_project: true,
        },
    ]
}

fn prepare(world: &World) {
    std::fs::write(world.cwd.join("a.txt"), "changed\n").unwrap();
    std::fs::create_dir_all(world.cwd.join("tests")).unwrap();
    std::fs::create_dir_all(world.cwd.join("build")).unwrap();
    std::fs::write(
        world.cwd.join("tests/test_x.py"),
        "import unittest\nclass T(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(1 + 1, 2)\n",
    )
    .unwrap();
    if world.user == User::Nobody {
        let _ = std::process::Command::new("chown").args(["-R", "65534:65534"]).arg(&world.cwd).status();
    }
}

fn works(user: User, mech: Mech) {
    if let Some(why) = cannot_test(user, mech) {
        println!("skipped ({user:?}, {mech:?}): {why}");
        return;
    }
    // The escape suites' control kills every process of nobody's: not while these run.
    let _nobody = (user == User::Nobody).then(crate::common::nobody_shared);
    let world = World::new(user, mech);
    prepare(&world);
    let mut failed = Vec::new();
    let mut ran = 0;
    for mode in ["read-only", "workspace-write"] {
        for c in checks().iter().filter(|c| !c.writes_project || mode == "workspace-write") {
            let out = world.bash(c.command, Some(mode), false);
            ran += 1;
            if let Some(missing) = c.expect.iter().find(|e| !out.text.contains(&world.expand(e))) {
                failed.push(format!("[{mode}] {}: no {missing:?} in:\n{}", c.name, out.text));
            }
        }
        // With bubblewrap, new entries directly in the project too (the
        // Landlock-only sandbox cannot allow them beside protected names).
        if mech == Mech::Bwrap && mode == "workspace-write" {
            let out = world.bash("echo x > new-top-level.txt && mkdir new-dir && echo top-ok", Some(mode), false);
            ran += 1;
            if !out.text.contains("top-ok") {
                failed.push(format!("[{mode}] new entries in the project: {}", out.text));
            }
        }
        // With bubblewrap the network namespace has a loopback of its own.
        if mech == Mech::Bwrap {
            let own = "{PY} -c \"import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); c=socket.create_connection(s.getsockname()); print('loopback-ok')\"";
            let out = world.bash(own, Some(mode), false);
            ran += 1;
            if !out.text.contains("loopback-ok") {
                failed.push(format!("[{mode}] own loopback: {}", out.text));
            }
        }
        // `network: true` (here the flag) lets commands connect.
        let out = world.bash_with(
            "curl -s -m 3 http://127.0.0.1:{PORT}/ ; echo tried",
            Some(mode),
            &["--sandbox-network"],
            &[],
        );
        ran += 1;
        if !world.take_tcp_connection() {
            failed.push(format!("[{mode}] --sandbox-network: no connection: {}", out.text));
        }
    }
    println!("what still works ({user:?}, {mech:?}): {ran} checks, {} failed", failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn what_still_works_with_bubblewrap_as_root() {
    works(User::Root, Mech::Bwrap);
}

#[test]
fn what_still_works_with_bubblewrap_unprivileged() {
    works(User::Nobody, Mech::Bwrap);
}

#[test]
fn what_still_works_with_landlock_only_as_root() {
    works(User::Root, Mech::Landlock);
}

#[test]
fn what_still_works_with_landlock_only_unprivileged() {
    works(User::Nobody, Mech::Landlock);
}

/// `cargo build` of a project in the working folder, offline, network off:
/// into the project (workspace-write) and into temp (read-only). As root
/// only: the toolchain lives in root's home.
#[test]
fn cargo_builds_offline_in_both_modes() {
    for mech in [Mech::Bwrap, Mech::Landlock] {
        if let Some(why) = cannot_test(User::Root, mech) {
            println!("skipped ({mech:?}): {why}");
            continue;
        }
        let world = World::new(User::Root, mech);
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let project = world.cwd.join("hello");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::write(
            project.join("Cargo.toml"),
            "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(project.join("src/main.rs"), "fn main() { println!(\"cargo-ok\"); }\n").unwrap();
        std::fs::write(
            project.join("Cargo.lock"),
            "version = 4\n\n[[package]]\nname = \"hello\"\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        // The Landlock-only sandbox cannot let a command create new entries
        // directly in a folder with protected names (docs/sandbox.md).
        std::fs::create_dir_all(world.cwd.join("hello/target")).unwrap();
        let mut env: Vec<(String, String)> = ["CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"]
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
            .collect();
        let bin = std::path::Path::new(&cargo).parent().unwrap().to_string_lossy().into_owned();
        env.push(("PATH".into(), format!("{bin}:/usr/local/bin:/usr/bin:/bin")));
        let ww = world.bash_with(
            &format!("cd hello && {cargo} build --offline -q && ./target/debug/hello"),
            Some("workspace-write"),
            &[],
            &env,
        );
        assert!(ww.text.contains("cargo-ok"), "{mech:?} workspace-write: {}", ww.text);
        let ro = world.bash_with(
            &format!("cd hello && {cargo} build --offline -q --target-dir ${{TMPDIR:-/tmp}}/t && ${{TMPDIR:-/tmp}}/t/debug/hello"),
            Some("read-only"),
            &[],
            &env,
        );
        assert!(ro.text.contains("cargo-ok"), "{mech:?} read-only: {}", ro.text);
    }
}

/// A read-only sandbox's temp is private, yet the full-output file of a cut
/// command stays readable by the next command of the same pi process.
#[test]
fn the_full_output_file_of_a_cut_command_is_readable_in_read_only() {
    for mech in [Mech::Bwrap, Mech::Landlock] {
        if let Some(why) = cannot_test(User::Root, mech) {
            println!("skipped ({mech:?}): {why}");
            continue;
        }
        let server = MockServer::start(vec![]);
        let dir = tempfile::tempdir().unwrap();
        let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
        for d in [&home.join(".pi/agent"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        server.write_models_json(&home.join(".pi/agent"), "openai-completions");
        let mut cmd = pi_test_support::isolated_pi(&sandbox_support::pi_binary().to_string_lossy(), &home, &work, &tmp);
        cmd.args(["--mode", "rpc", "--no-session", "--offline", "--model", "mock/mock-1", "--sandbox", "read-only"]);
        if mech == Mech::Landlock {
            cmd.env("PI_SANDBOX_BWRAP", "");
        }
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut ask = |id: &str, command: &str| -> Value {
            writeln!(stdin, "{}", json!({"id": id, "type": "bash", "command": command})).unwrap();
            stdin.flush().unwrap();
            loop {
                let v: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap_or(Value::Null);
                if v["type"] == "response" && v["id"] == id {
                    return v;
                }
            }
        };
        let first = ask("b1", "seq 1 100000");
        let full = first["data"]["fullOutputPath"].as_str().unwrap_or_else(|| panic!("{first}")).to_string();
        let second = ask("b2", &format!("wc -l < {full}; echo $PI_SANDBOX"));
        let out = second["data"]["output"].as_str().unwrap();
        assert_eq!(out, "100000\nread-only\n", "{mech:?}: {second}");
        let _ = child.kill();
        let _ = child.wait();
    }
}
