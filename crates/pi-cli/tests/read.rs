//! `pi tool read …` as a process: reading as another user, `~` with a
//! changed `HOME`, and bounded memory (the process's peak resident size).
//! What `read` does is tested in-process in crates/pi-agent/tests/tools/read.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common;

use common::{Raw, pi, run_raw, unprivileged_pi};

fn run_with(cmd: &mut Command, args: &Value, cwd: &Path) -> Raw {
    run_raw(cmd, "read", args, cwd)
}

fn ok_text(args: Value, cwd: &Path) -> String {
    common::ok_text("read", args, cwd)
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

// ---------- errors ----------

fn world_accessible_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let d = dir();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    d
}

#[test]
fn permission_denied_passes_through() {
    // Root reads anything, so as root this runs `pi` as `nobody` via setpriv;
    // it skips when that is not possible.
    use std::os::unix::fs::PermissionsExt;
    let _nobody = common::nobody_shared();
    let Some(mut cmd) = unprivileged_pi() else {
        eprintln!("skipped: running as root and setpriv cannot drop privileges here");
        return;
    };
    let d = world_accessible_dir();
    let root = d.path().canonicalize().unwrap();
    let p = write(&root, "secret.txt", "s");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    let out = run_with(&mut cmd, &json!({"path": "secret.txt"}), &root);
    assert!(out.is_error());
    assert_eq!(out.text(), format!("EACCES: permission denied, access '{}'", p.display()));
}

// ---------- paths ----------

#[test]
fn paths_at_prefix_tilde_absolute_and_dotdot() {
    let d = dir();
    let home = dir();
    write(d.path(), "a.txt", "here\n");
    write(home.path(), "h.txt", "home\n");
    std::fs::create_dir(d.path().join("sub")).unwrap();
    assert_eq!(ok_text(json!({"path": "@a.txt"}), d.path()), "here\n");
    assert_eq!(ok_text(json!({"path": "sub/../a.txt"}), d.path()), "here\n");
    let abs = d.path().join("a.txt");
    assert_eq!(ok_text(json!({"path": abs.to_str().unwrap()}), home.path()), "here\n");
    let out = run_with(pi().env("HOME", home.path()), &json!({"path": "~/h.txt"}), d.path());
    assert_eq!(out.text(), "home\n");
    // `~foo` is a relative name, not a home folder.
    write(d.path(), "~foo", "tilde\n");
    assert_eq!(ok_text(json!({"path": "~foo"}), d.path()), "tilde\n");
}

// ---------- memory ----------

/// Peak resident memory (VmHWM, KiB) of a `pi tool read` run, sampled from
/// /proc while it runs; and its output.
fn peak_rss_kib(args: &Value, cwd: &Path) -> (u64, Value) {
    let mut child = pi()
        .arg("tool")
        .arg("read")
        .arg(args.to_string())
        .arg("--cwd")
        .arg(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut { stdout }, &mut s).unwrap();
        s
    });
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_path)
            && let Some(kib) = status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        {
            peak = peak.max(kib);
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = reader.join().unwrap();
    (peak, serde_json::from_str(&out).unwrap())
}

const PEAK_LIMIT_KIB: u64 = 64 * 1024;

/// Write at least `bytes` of short numbered lines; returns the line count as
/// `read` counts it (the final newline adds an empty line).
fn write_lines_file(path: &Path, bytes: u64) -> usize {
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let block: String = (0..20_000).map(|i| format!("line {i:08}\n")).collect();
    let (mut written, mut blocks) = (0u64, 0usize);
    while written < bytes {
        f.write_all(block.as_bytes()).unwrap();
        written += block.len() as u64;
        blocks += 1;
    }
    f.flush().unwrap();
    blocks * 20_000 + 1
}

fn check_big_file_memory(bytes: u64) {
    let d = dir();
    let p = d.path().join("big.txt");
    let total_lines = write_lines_file(&p, bytes);
    let t0 = std::time::Instant::now();
    let (peak, out) = peak_rss_kib(&json!({"path": "big.txt"}), d.path());
    let took = t0.elapsed();
    let text = out["content"][0]["text"].as_str().unwrap();
    assert!(
        text.ends_with(&format!("\n\n[Showing lines 1-2000 of {total_lines}. Use offset=2001 to continue.]")),
        "{}",
        &text[text.len().saturating_sub(120)..]
    );
    assert_eq!(out["details"]["truncation"]["totalLines"], json!(total_lines - 1));
    eprintln!("read of {bytes} bytes: peak RSS {peak} KiB, {took:?}");
    assert!(peak > 0, "could not sample the process");
    assert!(peak < PEAK_LIMIT_KIB, "peak RSS {peak} KiB");

    // A window in the middle, and a sparse file that is one huge line.
    let (peak, out) = peak_rss_kib(&json!({"path": "big.txt", "offset": total_lines - 2, "limit": 2}), d.path());
    assert_eq!(
        out["content"][0]["text"],
        json!(format!("line 00019998\nline 00019999\n\n[1 more lines in file. Use offset={total_lines} to continue.]"))
    );
    assert!(peak < PEAK_LIMIT_KIB, "peak RSS {peak} KiB");
    std::fs::remove_file(&p).unwrap();
    let sparse = std::fs::File::create(d.path().join("zeros.bin")).unwrap();
    sparse.set_len(bytes).unwrap();
    let (peak, out) = peak_rss_kib(&json!({"path": "zeros.bin"}), d.path());
    let size = format!("{:.1}MB", bytes as f64 / f64::from(1 << 20));
    assert_eq!(
        out["content"][0]["text"],
        json!(format!("[Line 1 is {size}, exceeds 50.0KB limit. Use bash: sed -n '1p' zeros.bin | head -c 51200]"))
    );
    assert!(peak < PEAK_LIMIT_KIB, "peak RSS {peak} KiB");
}

#[test]
fn a_big_file_is_streamed_in_bounded_memory() {
    check_big_file_memory(200 << 20);
}

#[test]
#[ignore = "writes a 1 GiB file; run with --ignored"]
fn a_1gib_file_is_streamed_in_bounded_memory() {
    check_big_file_memory(1 << 30);
}
