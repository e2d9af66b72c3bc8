//! The session sandbox (beyond.md B5): with bubblewrap, one pi's commands
//! run in one sandbox made once, whose server forks each command. What a
//! sandbox per command gave must still hold: nothing a command leaves
//! behind (processes, read-only temp files) reaches the next one; the
//! server cannot be read, traced or used by a command, and a command that
//! kills it only ends itself; an abort kills the command's whole tree; and
//! when pi ends, however it ends, nothing of the sandbox is left.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
#![cfg(target_os = "linux")]

use crate::sandbox_support;

use std::time::Duration;

use sandbox_support::rpc::processes_mentioning;
use sandbox_support::{Mech, User, World, cannot_test};
use serde_json::json;

/// How long processes may take to go after they were killed.
const GONE_WITHIN: Duration = Duration::from_secs(15);

fn world() -> Option<World> {
    if let Some(why) = cannot_test(User::Root, Mech::Bwrap) {
        println!("skipped: {why}");
        return None;
    }
    Some(World::new(User::Root, Mech::Bwrap))
}

#[test]
fn what_a_command_leaves_does_not_reach_the_next() {
    let Some(world) = world() else { return };
    let mut s = world.session("read-only");
    let left = s.bash(
        &world,
        "(setsid sh -c 'sleep 1000; : {PFX}left' > /dev/null 2>&1 &); sh -c 'sleep 1000; : {PFX}bg' > /dev/null 2>&1 & echo x > /tmp/{PFX}tmp; echo started",
    );
    assert_eq!(left.text, "started\n");
    let next = s.bash(
        &world,
        // (Only the earlier command's file is looked for: a project that lies
        // under /tmp has its mount point there.)
        "ls -A /tmp | grep -c '{PFX}tmp'; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done 2>/dev/null | grep -c -e '{PFX}le[f]t' -e '{PFX}b[g]'",
    );
    assert_eq!(
        next.text, "0\n0\n",
        "the private temp lost the earlier file and no process of the command before is left"
    );
    for tag in ["left", "bg"] {
        let marker = format!("{}{tag}", world.pfx);
        assert!(processes_mentioning(std::path::Path::new(&marker), GONE_WITHIN).is_empty(), "{marker} lives on");
    }
    // The same session still takes commands, with the environment of each.
    let again = s.bash(&world, "echo $PI_SANDBOX; printenv OPENAI_API_KEY; pwd");
    assert_eq!(again.text, format!("read-only\n{}\n", world.cwd.display()));
}

#[test]
fn the_server_cannot_be_read_and_killing_it_ends_only_that_command() {
    let Some(world) = world() else { return };
    let mut s = world.session("workspace-write");
    let peek = s.bash(
        &world,
        "ls -l /proc/$PPID/fd 2>&1 | grep -c socket; for f in environ mem; do head -c 64 /proc/$PPID/$f > /dev/null 2>&1 || echo refused; done",
    );
    assert_eq!(peek.text, "0\nrefused\nrefused\n", "the server's descriptors, environment and memory");
    let killed = s.bash(&world, "kill -9 $PPID; sleep 5; echo not-reached");
    assert!(!killed.text.contains("not-reached"), "{}", killed.text);
    let after = s.bash(&world, "echo still here > still.txt; cat still.txt");
    assert_eq!(after.text, "still here\n", "a new session sandbox takes over");
}

#[test]
fn abort_kills_the_whole_tree() {
    let Some(world) = world() else { return };
    let mut s = world.session("workspace-write");
    let marker = format!("{}abort", world.pfx);
    let id = s.send(json!({"type": "bash", "command": format!(
        "sh -c 'sleep 1000; : {marker}' & (setsid sh -c 'sleep 1000; : {marker}' &); echo started; sleep 1000"
    )}));
    let deadline = std::time::Instant::now() + GONE_WITHIN;
    while processes_mentioning(std::path::Path::new(&marker), Duration::ZERO).len() < 2 {
        assert!(std::time::Instant::now() < deadline, "the command did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    s.send(json!({"type": "abort_bash"}));
    let r = s.response(&id);
    assert_eq!(r["data"]["cancelled"], true, "{r}");
    let left = processes_mentioning(std::path::Path::new(&marker), GONE_WITHIN);
    assert!(left.is_empty(), "left after the abort: {left:?}");
}

#[test]
fn nothing_is_left_when_pi_ends_or_is_killed() {
    let Some(world) = world() else { return };
    let s = {
        let mut s = world.session("workspace-write");
        assert_eq!(s.bash(&world, "echo hi").text, "hi\n");
        assert!(!processes_mentioning(&world.cwd, Duration::ZERO).is_empty(), "the session sandbox runs");
        assert!(world.cwd.join(".pi").is_dir(), "its mount point for the missing .pi");
        s
    };
    s.close();
    let left = processes_mentioning(&world.cwd, GONE_WITHIN);
    assert!(left.is_empty(), "left after pi ended: {left:?}");
    assert!(!world.cwd.join(".pi").exists(), "the mount point is removed when pi ends");

    let mut s = world.session("read-only");
    s.send(json!({"type": "bash", "command": "sleep 1000"}));
    let deadline = std::time::Instant::now() + GONE_WITHIN;
    while processes_mentioning(&world.cwd, Duration::ZERO).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the session sandbox did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    s.kill();
    let left = processes_mentioning(&world.cwd, GONE_WITHIN);
    assert!(left.is_empty(), "left after pi was killed: {left:?}");
}
