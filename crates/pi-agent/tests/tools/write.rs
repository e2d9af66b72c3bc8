//! `write` through the one dispatch path, called as `pi tool write …` calls
//! it, with the exact texts the reference (Pi 1.6.0) produces: success text,
//! parent folders, overwrite, Node-style errors.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support;

/// Run `pi tool write ARGS --cwd DIR`; returns the printed JSON and the exit code.
fn write_tool(args: Value, cwd: &Path) -> (Value, i32) {
    let out = support::pi_tool("write", &args.to_string(), cwd);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (json, out.status.code().unwrap_or(-1))
}

fn ok(args: Value, cwd: &Path) -> Value {
    let (json, code) = write_tool(args, cwd);
    assert_eq!(json["isError"], json!(false), "{json}");
    assert_eq!(code, 0);
    json
}

fn err(args: Value, cwd: &Path) -> String {
    let (json, code) = write_tool(args, cwd);
    assert_eq!(json["isError"], json!(true), "{json}");
    assert_eq!(code, 1);
    json["content"][0]["text"].as_str().unwrap().to_string()
}

#[test]
fn writes_a_new_file_and_reports_the_path_as_given() {
    let d = tempfile::tempdir().unwrap();
    let out = ok(json!({"path": "a.txt", "content": "hello\n"}), d.path());
    assert_eq!(
        out,
        json!({"content": [{"type": "text", "text": "Successfully wrote to a.txt"}], "details": null, "isError": false})
    );
    assert_eq!(std::fs::read(d.path().join("a.txt")).unwrap(), b"hello\n");
}

#[test]
fn creates_parent_folders() {
    let d = tempfile::tempdir().unwrap();
    let out = ok(json!({"path": "new/deep/f.txt", "content": "x"}), d.path());
    assert_eq!(out["content"][0]["text"], "Successfully wrote to new/deep/f.txt");
    assert_eq!(std::fs::read(d.path().join("new/deep/f.txt")).unwrap(), b"x");
}

#[test]
fn overwrites_and_truncates() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), "a much longer old content\r\n").unwrap();
    ok(json!({"path": "f.txt", "content": "new"}), d.path());
    assert_eq!(std::fs::read(d.path().join("f.txt")).unwrap(), b"new");
}

#[test]
fn content_is_written_byte_for_byte() {
    let d = tempfile::tempdir().unwrap();
    let content = "\u{feff}caf\u{e9}\r\nline\rend\u{1F600}";
    ok(json!({"path": "u.txt", "content": content}), d.path());
    assert_eq!(std::fs::read(d.path().join("u.txt")).unwrap(), content.as_bytes());
    ok(json!({"path": "empty.txt", "content": ""}), d.path());
    assert_eq!(std::fs::read(d.path().join("empty.txt")).unwrap(), b"");
}

#[test]
fn paths_absolute_at_sign_and_dotdot() {
    let d = tempfile::tempdir().unwrap();
    let abs = d.path().join("abs.txt");
    let out = ok(json!({"path": abs.to_str().unwrap(), "content": "1"}), d.path());
    assert_eq!(out["content"][0]["text"], format!("Successfully wrote to {}", abs.display()));
    let out = ok(json!({"path": "@at.txt", "content": "2"}), d.path());
    assert_eq!(out["content"][0]["text"], "Successfully wrote to @at.txt");
    assert!(d.path().join("at.txt").is_file());
    // `missing/..` is resolved lexically: the file lands in the cwd.
    ok(json!({"path": "missing/../dd.txt", "content": "3"}), d.path());
    assert!(d.path().join("dd.txt").is_file());
    assert!(!d.path().join("missing").exists());
}

#[test]
fn number_content_is_coerced_to_text() {
    let d = tempfile::tempdir().unwrap();
    ok(json!({"path": "n.txt", "content": 42}), d.path());
    assert_eq!(std::fs::read_to_string(d.path().join("n.txt")).unwrap(), "42");
}

#[test]
fn writing_onto_a_folder_is_eisdir() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("dir")).unwrap();
    let abs = d.path().join("dir");
    assert_eq!(
        err(json!({"path": "dir", "content": "x"}), d.path()),
        format!("EISDIR: illegal operation on a directory, open '{}'", abs.display())
    );
    // A trailing slash names the same folder.
    assert_eq!(
        err(json!({"path": "dir/", "content": "x"}), d.path()),
        format!("EISDIR: illegal operation on a directory, open '{}'", abs.display())
    );
    // The empty path is the cwd itself.
    assert_eq!(
        err(json!({"path": "", "content": "x"}), d.path()),
        format!("EISDIR: illegal operation on a directory, open '{}'", d.path().display())
    );
}

#[test]
fn writing_below_a_file_is_eexist_or_enotdir() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("file"), "keep").unwrap();
    assert_eq!(
        err(json!({"path": "file/x", "content": "x"}), d.path()),
        format!("EEXIST: file already exists, mkdir '{}'", d.path().join("file").display())
    );
    assert_eq!(
        err(json!({"path": "file/x/y", "content": "x"}), d.path()),
        format!("ENOTDIR: not a directory, mkdir '{}'", d.path().join("file/x").display())
    );
    assert_eq!(std::fs::read(d.path().join("file")).unwrap(), b"keep");
}

#[test]
fn writes_through_a_symlink_to_its_target() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("real.txt"), "old").unwrap();
    std::os::unix::fs::symlink("real.txt", d.path().join("link.txt")).unwrap();
    ok(json!({"path": "link.txt", "content": "new"}), d.path());
    assert_eq!(std::fs::read_to_string(d.path().join("real.txt")).unwrap(), "new");
    assert!(d.path().join("link.txt").symlink_metadata().unwrap().file_type().is_symlink());
}

#[test]
fn read_only_folder_is_eacces() {
    use std::os::unix::fs::PermissionsExt;
    // Root ignores permission bits, so this check only means something for other users.
    if rustix_euid_is_root() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let target = ro.join("f.txt");
    assert_eq!(
        err(json!({"path": "ro/f.txt", "content": "x"}), d.path()),
        format!("EACCES: permission denied, open '{}'", target.display())
    );
    assert!(!target.exists());
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn rustix_euid_is_root() -> bool {
    // `id -u` avoids a dependency just for geteuid.
    Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(true)
}

#[test]
fn missing_arguments_are_an_invalid_call() {
    let d = tempfile::tempdir().unwrap();
    let out = support::pi_tool("write", r#"{"path":"a.txt"}"#, d.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "Validation failed for tool \"write\":\n  - content: missing\n\nReceived arguments:\n{\n  \"path\": \"a.txt\"\n}"
    );
    assert!(!d.path().join("a.txt").exists());
}

#[test]
fn a_fifo_nobody_reads_fails_instead_of_hanging() {
    // The reference would block; opening without blocking gives ENXIO.
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("p");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert_eq!(
        err(json!({"path": "p", "content": "x"}), d.path()),
        format!("ENXIO: no such device or address, open '{}'", fifo.display())
    );
}

#[test]
fn file_urls_and_nul_bytes_fail_as_node_fails_them() {
    let d = tempfile::tempdir().unwrap();
    let host = r#"File URL host must be "localhost" or empty on linux"#;
    assert_eq!(err(json!({"path": "file://w.txt", "content": "x"}), d.path()), host);
    assert!(!d.path().join("w.txt").exists(), "nothing written");
    assert_eq!(
        err(json!({"path": "file:///dev/null/x%2Fy/c.txt", "content": "x"}), d.path()),
        "File URL path must not include encoded / characters"
    );
    assert_eq!(err(json!({"path": "file:///tmp/%zz", "content": "x"}), d.path()), "URI malformed");
    let abs = d.path().join("w\0.txt");
    assert_eq!(
        err(json!({"path": "w\u{0}.txt", "content": "x"}), d.path()),
        format!(
            "The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received '{}'",
            abs.display().to_string().replace('\0', "\\x00")
        )
    );
    let url = format!("file://{}/u%20v.txt", d.path().display());
    ok(json!({"path": url, "content": "y"}), d.path());
    assert_eq!(std::fs::read(d.path().join("u v.txt")).unwrap(), b"y");
}
