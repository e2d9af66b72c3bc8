//! `pi tool bash` / `pi tool powershell` as a process: output files in the
//! process's `TMPDIR`, the process's peak memory, a background process that
//! outlives the call, and the command's environment and `PATH`. What `bash`
//! does otherwise is tested in-process in crates/pi-agent/tests/tools/bash.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// One `pi tool` run.
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

/// Run `pi tool <tool> <args> --cwd <cwd>` with `TMPDIR=<tmp>` and extra env.
fn pi_tool(tool: &str, args: Value, cwd: &Path, tmp: &Path, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pi"));
    cmd.arg("tool").arg(tool).arg(args.to_string()).arg("--cwd").arg(cwd).env("TMPDIR", tmp);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let t0 = Instant::now();
    let out = cmd.output().expect("run pi");
    let elapsed = t0.elapsed();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("not JSON: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    Run { json, status: out.status.code().unwrap_or(-1), elapsed }
}

/// A scratch folder (the cwd) and a private temp dir for output files.
struct Scratch {
    dir: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        Scratch { dir: tempfile::tempdir().unwrap(), tmp: tempfile::tempdir().unwrap() }
    }
    fn bash(&self, args: Value) -> Run {
        pi_tool("bash", args, self.dir.path(), self.tmp.path(), &[])
    }
    fn cmd(&self, command: &str) -> Run {
        self.bash(json!({ "command": command }))
    }
    fn output_files(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.tmp.path()).unwrap().flatten().map(|e| e.path()).collect()
    }
}

/// `[…. Full output: <path>]` → the path.
fn full_output_path(text: &str) -> PathBuf {
    let at = text.rfind("Full output: ").expect("a full-output notice");
    let rest = &text[at + "Full output: ".len()..];
    PathBuf::from(&rest[..rest.find(']').unwrap()])
}

fn numbers(from: u32, to: u32) -> String {
    (from..=to).map(|i| i.to_string()).collect::<Vec<_>>().join("\n")
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

/// SIGKILL a process group we started (cleanup of deliberate leftovers).
fn kill_group(pgid: i32) {
    let _ = Command::new("kill").args(["-s", "KILL", "--", &format!("-{pgid}")]).status();
    assert!(!group_alive(pgid), "group {pgid} survived the cleanup");
}

#[test]
fn timeout_keeps_the_truncation_notice_and_the_full_file() {
    let s = Scratch::new();
    let r = s.bash(json!({"command": "seq 3000; sleep 5", "timeout": 1}));
    let path = full_output_path(r.text());
    assert_eq!(
        r.text(),
        format!(
            "{}\n\n[Showing lines 1001-3000 of 3000. Full output: {}]\n\nCommand timed out after 1 seconds",
            numbers(1001, 3000),
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), numbers(1, 3000) + "\n");
}

#[test]
fn line_truncation_without_counting_the_trailing_newline() {
    let s = Scratch::new();
    let r = s.cmd("seq 4000");
    let path = full_output_path(r.text());
    assert_eq!(
        r.text(),
        format!("{}\n\n[Showing lines 2001-4000 of 4000. Full output: {}]", numbers(2001, 4000), path.display())
    );
    assert_eq!(path.parent(), Some(s.tmp.path()), "TMPDIR is honoured");
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with("pi-bash-") && name.ends_with(".log") && name.len() == "pi-bash-.log".len() + 16);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), numbers(1, 4000) + "\n");
    let d = &r.json["details"];
    assert_eq!(d["fullOutputPath"], path.to_string_lossy().as_ref());
    let t = &d["truncation"];
    assert_eq!(
        (&t["truncatedBy"], &t["totalLines"], &t["outputLines"], &t["totalBytes"]),
        (&json!("lines"), &json!(4000), &json!(2000), &json!(18893))
    );
    assert_eq!(t["content"], numbers(2001, 4000));
    // Exactly 2000 lines: nothing cut, no file.
    let s = Scratch::new();
    assert_eq!(s.cmd("seq 2000").text(), numbers(1, 2000) + "\n");
    assert!(s.output_files().is_empty());
}

#[test]
fn byte_truncation_notice() {
    let s = Scratch::new();
    let r = s.cmd("for i in $(seq 100); do head -c 1000 /dev/zero | tr '\\0' b; echo; done");
    let path = full_output_path(r.text());
    let line = "b".repeat(1000);
    let kept = vec![line.as_str(); 51].join("\n");
    assert_eq!(
        r.text(),
        format!("{kept}\n\n[Showing lines 50-100 of 100 (50.0KB limit). Full output: {}]", path.display())
    );
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 100_100);
}

#[test]
fn one_long_line_shows_its_last_bytes() {
    let s = Scratch::new();
    let r = s.cmd("head -c 100000 /dev/zero | tr '\\0' a");
    let path = full_output_path(r.text());
    assert_eq!(
        r.text(),
        format!(
            "{}\n\n[Showing last 50.0KB of line 1 (line is 97.7KB). Full output: {}]",
            "a".repeat(51200),
            path.display()
        )
    );
    let r = s.cmd("seq 10; head -c 1000000 /dev/zero | tr '\\0' a");
    assert!(r.text().ends_with(&format!(
        "\n\n[Showing last 50.0KB of line 11 (line is 976.6KB). Full output: {}]",
        full_output_path(r.text()).display()
    )));
    assert_eq!(std::fs::metadata(full_output_path(r.text())).unwrap().len(), 1_000_021);
    // Ending in a newline, the reference reports the (empty) text after it: `line is 0B`.
    let r = s.cmd("head -c 100000 /dev/zero | tr '\\0' a; echo");
    assert!(r.text().ends_with(&format!(
        "\n\n[Showing last 50.0KB of line 1 (line is 0B). Full output: {}]",
        full_output_path(r.text()).display()
    )));
}

/// Whether the file system holding `dir` has room for `bytes` more and a
/// margin: the large-output tests write their whole output to disk, and a CI
/// machine's shared disk may be nearly full (the tool then says "Full output
/// could not be saved", which is right, but not what these tests check).
fn room_for(dir: &Path, bytes: u64) -> bool {
    const MARGIN: u64 = 1 << 30;
    match rustix::fs::statvfs(dir) {
        Ok(st) => {
            let free = st.f_bavail.saturating_mul(st.f_frsize);
            let ok = free >= bytes.saturating_add(MARGIN);
            if !ok {
                eprintln!(
                    "skipped: {} has {free} bytes free, the test needs {bytes} and a 1 GiB margin",
                    dir.display()
                );
            }
            ok
        }
        Err(e) => panic!("statvfs {}: {e}", dir.display()),
    }
}

#[test]
fn huge_line_without_newline() {
    // 100 MB in one line: the last bytes are shown, the file holds every byte
    // (memory stays bounded: see peak_memory_is_bounded_for_large_output).
    let s = Scratch::new();
    if !room_for(s.tmp.path(), 100_000_000) {
        return;
    }
    let r = s.cmd("head -c 100000000 /dev/zero | tr '\\0' z");
    assert!(r.text().starts_with(&"z".repeat(51200)));
    assert!(
        r.text().contains("\n\n[Showing last 50.0KB of line 1 (line is 95.4MB). Full output: "),
        "{}",
        tail(r.text())
    );
    assert_eq!(std::fs::metadata(full_output_path(r.text())).unwrap().len(), 100_000_000);
}

/// The last 300 bytes of a tool's text (its notice), for failure messages.
fn tail(text: &str) -> &str {
    let mut from = text.len().saturating_sub(300);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    &text[from..]
}

#[test]
fn peak_memory_is_bounded_for_large_output() {
    // 150 MB of output, more than four times the bound on the process's peak.
    let s = Scratch::new();
    if !room_for(s.tmp.path(), 150_000_000) {
        return;
    }
    let args = json!({"command": "yes 0123456789abcdef | head -c 150000000"}).to_string();
    let script = "\"$0\" tool bash \"$1\" --cwd \"$2\" > /dev/null";
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_pi"))
        .arg(&args)
        .arg(s.dir.path())
        .env("TMPDIR", s.tmp.path())
        .spawn()
        .unwrap();
    let mut peak_kb = 0u64;
    let pid = child.id();
    while child.try_wait().unwrap().is_none() {
        // Find the pi process (child of the shell) and read its VmHWM.
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { continue };
            let Some((_, rest)) = stat.rsplit_once(')') else { continue };
            if rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) != Some(pid) {
                continue;
            }
            if let Ok(status) = std::fs::read_to_string(e.path().join("status"))
                && let Some(l) = status.lines().find(|l| l.starts_with("VmHWM:"))
            {
                let kb: u64 = l.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0);
                peak_kb = peak_kb.max(kb);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(peak_kb > 0, "pi process seen");
    assert!(peak_kb < 32 * 1024, "peak {peak_kb} KiB");
    let files = s.output_files();
    assert_eq!(files.len(), 1);
    assert_eq!(std::fs::metadata(&files[0]).unwrap().len(), 150_000_000);
}

#[test]
fn a_background_process_holding_the_pipe_does_not_hold_the_tool() {
    let s = Scratch::new();
    let r = s.cmd("echo $$; (sleep 30 &); echo done");
    assert!(r.elapsed < Duration::from_secs(2), "took {:?}", r.elapsed);
    let pgid: i32 = r.text().lines().next().unwrap().parse().unwrap();
    assert_eq!(r.text(), format!("{pgid}\ndone\n"));
    // The background sleep is left running, as in the reference; clean it up.
    kill_group(pgid);

    // A background process that floods the pipe after the shell exits.
    let r = s.cmd("echo $$ > pid; (yes &); echo done");
    let pgid: i32 = std::fs::read_to_string(s.dir.path().join("pid")).unwrap().trim().parse().unwrap();
    kill_group(pgid);
    assert!(r.elapsed < Duration::from_secs(3), "took {:?}", r.elapsed);
    assert!(!r.is_error());
    assert!(r.text().contains("y\ny\ny\n"));
}

#[test]
fn environment_of_the_command() {
    let s = Scratch::new();
    let agent = s.dir.path().join("agent-dir");
    let r = pi_tool(
        "bash",
        json!({"command": "echo \"$PATH\"; echo $AI_AGENT $PI_CODING_AGENT $PI_REASONING_LEVEL ${PI_SESSION_ID-unset} ${PI_MODEL-unset}"}),
        s.dir.path(),
        s.tmp.path(),
        &[
            ("PI_CODING_AGENT_DIR", agent.to_str().unwrap()),
            ("PI_SESSION_ID", "stale"),
            ("PI_MODEL", "stale"),
            ("PATH", "/usr/bin:/bin"),
        ],
    );
    assert_eq!(r.text(), format!("{}/bin:/usr/bin:/bin\npi true off unset unset\n", agent.display()));
    // T6: the folder is the session's; a `cwd` argument from the model changes nothing.
    let r = s.bash(json!({"command": "pwd", "cwd": "/"}));
    assert_eq!(r.text(), format!("{}\n", s.dir.path().display()));
}

#[test]
fn powershell_without_pwsh() {
    let s = Scratch::new();
    let empty = tempfile::tempdir().unwrap();
    let r = pi_tool(
        "powershell",
        json!({"command": "Get-Date"}),
        s.dir.path(),
        s.tmp.path(),
        &[("PATH", empty.path().to_str().unwrap())],
    );
    assert_eq!((r.text(), r.status), ("The powershell tool is only available on Windows.", 1));
}

#[test]
fn powershell_shares_the_machinery() {
    // A stand-in `pwsh` that runs its -Command with sh proves the arguments,
    // the output files and the messages without PowerShell installed.
    let s = Scratch::new();
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("pwsh");
    std::fs::write(
        &fake,
        "#!/bin/sh\n[ \"$1 $2 $3\" = '-NoProfile -NonInteractive -Command' ] || { echo bad args; exit 9; }\nexec /bin/sh -c \"$4\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let env = [("PATH", path.as_str())];
    let r = pi_tool("powershell", json!({"command": "seq 3000"}), s.dir.path(), s.tmp.path(), &env);
    let file = full_output_path(r.text());
    assert!(file.file_name().unwrap().to_str().unwrap().starts_with("pi-powershell-"));
    assert!(r.text().ends_with(&format!("[Showing lines 1001-3000 of 3000. Full output: {}]", file.display())));
    let r = pi_tool("powershell", json!({"command": "exit 4"}), s.dir.path(), s.tmp.path(), &env);
    assert_eq!(r.text(), "(no output)\n\nCommand exited with code 4");
    let gone = s.dir.path().join("gone");
    let r = pi_tool("powershell", json!({"command": "echo"}), &gone, s.tmp.path(), &env);
    assert_eq!(
        r.text(),
        format!("Working directory does not exist: {}\nCannot execute PowerShell commands.", gone.display())
    );
}
