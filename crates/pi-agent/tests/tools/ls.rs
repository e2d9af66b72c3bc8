//! `ls` through the one dispatch path, called as `pi tool ls …` calls it:
//! order, suffixes, links, limits, notices and errors, with the exact texts
//! the reference (Pi 1.6.0) produces.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{self, Raw, run_raw};

fn ls(args: Value, cwd: &Path) -> Raw {
    run_raw("ls", &args, cwd)
}

fn ok_text(args: Value, cwd: &Path) -> String {
    support::ok_text("ls", args, cwd)
}

fn err_text(args: Value, cwd: &Path) -> String {
    support::err_text("ls", args, cwd)
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn touch(dir: &Path, names: &[&str]) {
    for n in names {
        std::fs::write(dir.join(n), "").unwrap();
    }
}

#[test]
fn entries_follow_icu_root_collation_of_lowercased_names() {
    let d = dir();
    touch(d.path(), &["Ea", "é", "e", "B", "ab", "a.b", "a-b", "a_b", "9", "10", "~x", "_x"]);
    let out = ls(json!({}), d.path());
    assert_eq!(out.text(), "_x\n~x\n10\n9\na_b\na-b\na.b\nab\nB\ne\né\nEa");
    assert_eq!(out.json["details"], Value::Null);
}

#[test]
fn collation_ties_keep_byte_order_and_folders_sort_by_name() {
    let d = dir();
    touch(d.path(), &["b", "B", "a", "A", "e\u{301}", "é", "x.y", "x-y", "x_y", "x0", "xa"]);
    std::fs::create_dir(d.path().join("x")).unwrap();
    assert_eq!(ok_text(json!({}), d.path()), "A\na\nB\nb\ne\u{301}\né\nx/\nx_y\nx-y\nx.y\nx0\nxa");
}

#[test]
fn dotfiles_folders_and_symlinks() {
    let d = dir();
    touch(d.path(), &[".hidden", "file.txt"]);
    std::fs::create_dir(d.path().join(".hdir")).unwrap();
    std::fs::create_dir(d.path().join("dird")).unwrap();
    std::os::unix::fs::symlink("dird", d.path().join("linkdir")).unwrap();
    std::os::unix::fs::symlink("file.txt", d.path().join("linkfile")).unwrap();
    std::os::unix::fs::symlink("nowhere", d.path().join("broken")).unwrap();
    assert_eq!(ok_text(json!({}), d.path()), ".hdir/\n.hidden\ndird/\nfile.txt\nlinkdir/\nlinkfile");
    // Listing through a link to a folder works.
    assert_eq!(ok_text(json!({"path": "linkdir"}), d.path()), "(empty directory)");
}

#[test]
fn empty_folders() {
    let d = dir();
    assert_eq!(ok_text(json!({}), d.path()), "(empty directory)");
    std::os::unix::fs::symlink("nowhere", d.path().join("broken")).unwrap();
    assert_eq!(ok_text(json!({}), d.path()), "(empty directory)");
}

#[test]
fn names_that_are_not_utf8_are_left_out_without_panicking() {
    use std::os::unix::ffi::OsStrExt;
    let d = dir();
    let name = std::ffi::OsStr::from_bytes(b"bad\xffname");
    if std::fs::write(d.path().join(name), "").is_err() {
        eprintln!("skipped: this file system refuses non-UTF-8 names");
        return;
    }
    touch(d.path(), &["good"]);
    assert_eq!(ok_text(json!({}), d.path()), "good");
}

#[test]
fn errors_name_the_absolute_path() {
    let d = dir();
    let root = d.path().canonicalize().unwrap();
    touch(&root, &["file.txt"]);
    std::os::unix::fs::symlink("nowhere", root.join("broken")).unwrap();
    std::os::unix::fs::symlink("loop2", root.join("loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", root.join("loop2")).unwrap();
    let abs = |n: &str| root.join(n).display().to_string();
    assert_eq!(err_text(json!({"path": "nope"}), &root), format!("Path not found: {}", abs("nope")));
    assert_eq!(err_text(json!({"path": "broken"}), &root), format!("Path not found: {}", abs("broken")));
    assert_eq!(err_text(json!({"path": "loop1"}), &root), format!("Path not found: {}", abs("loop1")));
    assert_eq!(err_text(json!({"path": "file.txt/x"}), &root), format!("Path not found: {}", abs("file.txt/x")));
    assert_eq!(err_text(json!({"path": "a\u{0}b"}), &root), format!("Path not found: {}", abs("a\u{0}b")));
    assert_eq!(err_text(json!({"path": "file.txt"}), &root), format!("Not a directory: {}", abs("file.txt")));
}

fn thirteen(d: &Path) {
    std::fs::create_dir(d.join("empty")).unwrap();
    for i in 1..=12 {
        touch(d, &[&format!("f{i}")]);
    }
}

#[test]
fn entry_limit_notice_and_details() {
    let d = dir();
    thirteen(d.path());
    let out = ls(json!({"limit": 5}), d.path());
    assert_eq!(out.text(), "empty/\nf1\nf10\nf11\nf12\n\n[5 entries limit reached. Use limit=10 for more]");
    assert_eq!(out.json["details"], json!({"entryLimitReached": 5}));
    // Exactly as many entries as the limit: no notice.
    let out = ls(json!({"limit": 13}), d.path());
    assert_eq!(out.text(), "empty/\nf1\nf10\nf11\nf12\nf2\nf3\nf4\nf5\nf6\nf7\nf8\nf9");
    assert_eq!(out.json["details"], Value::Null);
    assert_eq!(
        ok_text(json!({"limit": 12}), d.path()),
        "empty/\nf1\nf10\nf11\nf12\nf2\nf3\nf4\nf5\nf6\nf7\nf8\n\n[12 entries limit reached. Use limit=24 for more]"
    );
}

#[test]
fn limit_edge_values() {
    let d = dir();
    thirteen(d.path());
    let one = "empty/\n\n[1 entries limit reached. Use limit=2 for more]";
    for limit in [json!(0), json!(-1), json!(0.5), json!(1.9), json!("1")] {
        let out = ls(json!({ "limit": limit }), d.path());
        assert_eq!(out.text(), one, "limit {limit}");
        assert_eq!(out.json["details"], json!({"entryLimitReached": 1}));
    }
    assert_eq!(
        ok_text(json!({"limit": 2.5}), d.path()),
        "empty/\nf1\n\n[2 entries limit reached. Use limit=4 for more]"
    );
    assert!(!ok_text(json!({"limit": 1e300}), d.path()).contains('['));
}

#[test]
fn the_limit_is_checked_before_entries_are_stated() {
    // A broken link after the limit still makes the limit "reached".
    let d = dir();
    touch(d.path(), &["f1", "f2"]);
    std::os::unix::fs::symlink("nowhere", d.path().join("zz")).unwrap();
    assert_eq!(ok_text(json!({"limit": 2}), d.path()), "f1\nf2\n\n[2 entries limit reached. Use limit=4 for more]");
    assert_eq!(ok_text(json!({"limit": 3}), d.path()), "f1\nf2");
}

#[test]
fn byte_limit_notice_and_details() {
    let d = dir();
    for i in 0..300 {
        touch(d.path(), &[&format!("{i:03}{}", "n".repeat(200))]);
    }
    let out = ls(json!({}), d.path());
    let names: Vec<String> = (0..250).map(|i| format!("{i:03}{}", "n".repeat(200))).collect();
    let kept = names.join("\n");
    assert_eq!(out.text(), format!("{kept}\n\n[50.0KB limit reached]"));
    let details = &out.json["details"];
    assert_eq!(details.as_object().unwrap().keys().collect::<Vec<_>>(), ["truncation"]);
    let t = &details["truncation"];
    assert_eq!(t["content"], json!(kept));
    assert_eq!(t["truncatedBy"], json!("bytes"));
    assert_eq!((t["totalLines"].as_u64(), t["totalBytes"].as_u64()), (Some(300), Some(61199)));
    assert_eq!((t["outputLines"].as_u64(), t["outputBytes"].as_u64()), (Some(250), Some(50999)));
    assert_eq!(t["maxLines"], json!(9_007_199_254_740_991u64));
    assert_eq!(t["maxBytes"], json!(51200));
}

#[test]
fn both_limits_in_one_notice() {
    let d = dir();
    for i in 0..600 {
        touch(d.path(), &[&format!("{i:03}{}", "n".repeat(150))]);
    }
    let out = ls(json!({}), d.path());
    assert!(out.text().ends_with("\n\n[500 entries limit reached. Use limit=1000 for more. 50.0KB limit reached]"));
    let details = &out.json["details"];
    assert_eq!(details.as_object().unwrap().keys().collect::<Vec<_>>(), ["entryLimitReached", "truncation"]);
    assert_eq!(details["entryLimitReached"], json!(500));
    let t = &details["truncation"];
    assert_eq!((t["totalLines"].as_u64(), t["totalBytes"].as_u64()), (Some(500), Some(76999)));
    assert_eq!((t["outputLines"].as_u64(), t["outputBytes"].as_u64()), (Some(332), Some(51127)));
}

#[test]
fn bad_arguments_are_invalid_calls() {
    let d = dir();
    let out = support::pi_tool("ls", r#"{"limit":"many"}"#, d.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Validation failed for tool \"ls\""));
    let out = support::pi_tool("ls", r#"{"path":5}"#, d.path());
    // A number is coerced to the string "5" (a missing folder), as in the reference.
    assert_eq!(out.status.code(), Some(1));
}
