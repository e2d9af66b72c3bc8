//! `bash` through the one dispatch path, called as `pi tool bash` calls it:
//! texts, exit codes and signals, timeouts, the order of the two streams,
//! background output and process groups. The command starts directly (no
//! supervisor: that is the `pi` binary's), and writes no output file here.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support;

/// One `pi tool` call.
struct Run {
    json: Value,
    status: i32,
    elapsed: Duration,
}

impl Run {
    fn text(&self) -> &str {
        self.json["content"][0]["text"].as_str().unwrap_or_default()
    }
    fn is_error(&self) -> bool {
        self.json["isError"] == true
    }
}

/// `pi tool <tool> <args> --cwd <cwd>`, timed.
fn pi_tool(tool: &str, args: Value, cwd: &Path) -> Run {
    let t0 = Instant::now();
    let out = support::pi_tool(tool, &args.to_string(), cwd);
    let elapsed = t0.elapsed();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("not JSON: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    Run { json, status: out.status.code().unwrap_or(-1), elapsed }
}

/// A scratch folder (the cwd).
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        Scratch { dir: tempfile::tempdir().unwrap() }
    }
    fn bash(&self, args: Value) -> Run {
        pi_tool("bash", args, self.dir.path())
    }
    fn cmd(&self, command: &str) -> Run {
        self.bash(json!({ "command": command }))
    }
}

/// Whether any process of group `pgid` is still alive after a short wait (a
/// killed process needs a moment to die; zombies, dead but not yet reaped by
/// init, do not count).
fn group_alive(pgid: i32) -> bool {
    let t0 = Instant::now();
    while group_alive_now(pgid) {
        if t0.elapsed() > Duration::from_secs(1) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

fn group_alive_now(pgid: i32) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { return false };
        let Some((_, rest)) = stat.rsplit_once(')') else { return false };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.len() > 2 && fields[0] != "Z" && fields[2].parse::<i32>().ok() == Some(pgid)
    })
}

#[test]
fn echo_keeps_its_newline_and_has_no_details() {
    let s = Scratch::new();
    let r = s.cmd("echo hi");
    assert_eq!((r.text(), r.is_error(), r.status), ("hi\n", false, 0));
    assert_eq!(r.json["details"], Value::Null);
    let r = s.cmd("true");
    assert_eq!(r.text(), "(no output)");
}

#[test]
fn non_zero_exit_is_an_error_with_the_code_after_a_blank_line() {
    let s = Scratch::new();
    let r = s.cmd("exit 1");
    assert_eq!((r.text(), r.is_error(), r.status), ("(no output)\n\nCommand exited with code 1", true, 1));
    assert_eq!(s.cmd("printf 'out\\n'; exit 3").text(), "out\n\n\nCommand exited with code 3");
    assert_eq!(s.cmd("printf out; exit 3").text(), "out\n\nCommand exited with code 3");
}

#[test]
fn signals_report_128_plus_the_signal() {
    let s = Scratch::new();
    assert_eq!(s.cmd("kill -9 $$").text(), "(no output)\n\nCommand exited with code 137");
    assert_eq!(s.cmd("kill -TERM $$").text(), "(no output)\n\nCommand exited with code 143");
}

#[test]
fn stdout_comes_first_when_both_streams_have_output_waiting() {
    // As the reference, which reads two pipes: what arrives together is
    // stdout's, then stderr's; what arrives apart keeps its order.
    let s = Scratch::new();
    assert_eq!(s.cmd("echo a; echo b >&2; echo c; echo d >&2").text(), "a\nc\nb\nd\n");
    assert_eq!(s.cmd("echo 1 >&2; echo 2").text(), "2\n1\n");
    assert_eq!(s.cmd("echo 1 >&2; sleep 0.2; echo 2").text(), "1\n2\n");
}

#[test]
fn output_after_the_shell_exits_is_read_while_it_keeps_coming() {
    let s = Scratch::new();
    let r = s.cmd("(for i in 1 2 3 4 5 6; do sleep 0.02; echo $i; done) & echo hi");
    // All six on a quiet machine; a loaded one may pause the writer past the
    // idle cut (100 ms), but what came after the shell's exit is read.
    let text = r.text();
    assert!(text.starts_with("hi\n1\n") && "hi\n1\n2\n3\n4\n5\n6\n".starts_with(text), "{text}");
}

#[test]
fn a_timeout_while_background_output_is_read_says_the_shell_had_exited() {
    let s = Scratch::new();
    let r = s.bash(json!({"command": "(while :; do sleep 0.08; printf .; done) & echo hi; exit 4", "timeout": 0.5}));
    assert!(r.is_error());
    let text = r.text();
    // At least one dot: a loaded machine may run the loop only a few times.
    assert!(text.starts_with("hi\n."), "{text}");
    // The shell's exit time is rounded to 0.1 s: 0 on a quiet machine, a
    // little more on a loaded one.
    let (head, tail) = text.rsplit_once(" after ").unwrap();
    assert!(head.ends_with("\n\nCommand timed out after 0.5 seconds. The shell exited with code 4"), "{text}");
    let (secs, rest) = tail.split_once(" seconds, ").unwrap();
    assert!(secs.parse::<f64>().unwrap() < 0.5, "{text}");
    assert!(rest == "but background processes it started kept writing output until the timeout.", "{text}");
}

#[test]
fn stdin_is_empty() {
    let s = Scratch::new();
    let r = s.cmd("cat; echo rc=$?");
    assert_eq!(r.text(), "rc=0\n");
    assert!(r.elapsed < Duration::from_secs(2));
}

#[test]
fn timeout_texts() {
    let s = Scratch::new();
    let r = s.bash(json!({"command": "sleep 5", "timeout": 0.05}));
    assert_eq!((r.text(), r.is_error(), r.status), ("Command timed out after 0.05 seconds", true, 1));
    assert!(r.elapsed < Duration::from_secs(2));
    let r = s.bash(json!({"command": "echo x; sleep 5", "timeout": 1}));
    assert_eq!(r.text(), "x\n\n\nCommand timed out after 1 seconds");
    let r = s.bash(json!({"command": "printf x; sleep 5", "timeout": "0.5"}));
    assert_eq!(r.text(), "x\n\nCommand timed out after 0.5 seconds");
}

#[test]
fn invalid_timeouts() {
    let s = Scratch::new();
    for t in [json!(0), json!(-1), json!(-0.5)] {
        let r = s.bash(json!({"command": "echo a", "timeout": t}));
        assert_eq!((r.text(), r.status), ("Invalid timeout: must be a finite number of seconds", 1));
    }
    let r = s.bash(json!({"command": "echo a", "timeout": 3000000}));
    assert_eq!(r.text(), "Invalid timeout: maximum is 2147483.647 seconds");
    let r = s.bash(json!({"command": "echo a", "timeout": 2147483.647}));
    assert_eq!(r.text(), "a\n");
}

#[test]
fn missing_working_directory() {
    let s = Scratch::new();
    let gone = s.dir.path().join("nonexistent");
    let r = pi_tool("bash", json!({"command": "echo"}), &gone);
    assert_eq!(
        r.text(),
        format!("Working directory does not exist: {}\nCannot execute bash commands.", gone.display())
    );
    assert_eq!(r.status, 1);
}

#[test]
fn invalid_utf8_is_replaced_and_split_characters_are_joined() {
    let s = Scratch::new();
    assert_eq!(s.cmd("printf '\\377\\376abc\\n'").text(), "\u{FFFD}\u{FFFD}abc\n");
    assert_eq!(s.cmd("printf '\\342'; sleep 0.2; printf '\\202\\254\\n'").text(), "€\n");
    assert_eq!(s.cmd("printf 'a\\342\\202'").text(), "a\u{FFFD}");
}

#[test]
fn timeout_kills_the_whole_group_quickly() {
    let s = Scratch::new();
    let r = s.bash(json!({"command": "echo $$; sleep 100 & sleep 100", "timeout": 1}));
    assert!(r.elapsed < Duration::from_secs(2), "took {:?}", r.elapsed);
    let pgid: i32 = r.text().lines().next().unwrap().parse().unwrap();
    assert_eq!(r.text(), format!("{pgid}\n\n\nCommand timed out after 1 seconds"));
    assert!(!group_alive(pgid), "a process of group {pgid} survived");
}

#[test]
fn nul_byte_in_the_command() {
    let s = Scratch::new();
    let r = s.cmd("echo a\u{0}b");
    assert_eq!(r.text(), "The argument 'args[1]' must be a string without null bytes. Received 'echo a\\x00b'");
}
