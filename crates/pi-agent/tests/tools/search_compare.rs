//! `grep`/`find` (called as `pi tool` calls them, through the one dispatch
//! path) against the real `rg` and `fd` on generated trees:
//! the same (path, line) matches and the same paths as the reference's
//! invocations give (`rg --json --line-number --color=never --hidden …` run
//! inside the search folder; `fd --glob --color=never --hidden
//! [--no-require-git] [--full-path [--ignore-case]] -- PATTERN ROOT`).
//! Outside a git repository grep is compared with `rg --no-require-git`
//! (beyond.md B10). Sets are compared, not formatting or order.
//!
//! Skipped (with a note) when the binaries are absent. CI has Debian's rg 13
//! and fdfind 8.6: fd 8.6 has no `--no-require-git`, so the outside-a-repo
//! find cases need fd ≥ 8.7; rg 13 stops parent rules at a nested repository
//! even with `--no-require-git` (rg 14+ does not), so the outside-a-repo tree
//! holds no nested repository.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support;

fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// `PI_COMPARE_RG` / `PI_COMPARE_FD` name another binary to compare with.
fn from_env(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).map(PathBuf::from).filter(|p| p.is_file())
}

fn rg() -> Option<PathBuf> {
    let r = from_env("PI_COMPARE_RG").or_else(|| which(&["rg"]));
    if r.is_none() {
        eprintln!("note: rg not on PATH; comparison skipped");
    }
    r
}

fn fd() -> Option<PathBuf> {
    let r = from_env("PI_COMPARE_FD").or_else(|| which(&["fdfind", "fd"]));
    if r.is_none() {
        eprintln!("note: fd/fdfind not on PATH; comparison skipped");
    }
    r
}

fn fd_has_no_require_git(fd: &Path) -> bool {
    Command::new(fd)
        .arg("--help")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("--no-require-git"))
        .unwrap_or(false)
}

fn write(dir: &Path, rel: &str, content: &[u8]) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

/// A tree with ignore files at several levels, hidden entries, binaries,
/// symlinks, Unicode and non-UTF-8 names and CRLF text. `repo` adds `.git`
/// folders (the root's and a nested repository's).
fn tree(root: &Path, repo: bool) {
    if repo {
        write(root, ".git/HEAD", b"ref: refs/heads/main\nneedle in HEAD\n");
        write(root, ".git/info/exclude", b"excluded.txt\n");
        write(root, "excluded.txt", b"needle excluded\n");
        write(root, "nested/.git/HEAD", b"ref\n");
        write(root, "nested/x.log", b"needle nested log\n");
        write(root, "nested/.gitignore", b"inner.txt\n");
        write(root, "nested/inner.txt", b"needle inner\n");
        write(root, "nested/kept.txt", b"needle kept\n");
    }
    write(root, ".gitignore", b"*.log\nbuild/\n/rootonly.txt\n!keep.log\n");
    write(root, ".ignore", b"secret*\n");
    write(root, ".rgignore", b"rg-only.txt\n");
    write(root, ".fdignore", b"fd-only.txt\n");
    write(root, "rg-only.txt", b"needle rg-only\n");
    write(root, "fd-only.txt", b"needle fd-only\n");
    write(root, ".hidden/h.txt", b"needle hidden\n");
    write(root, ".env", b"NEEDLE=1\n");
    write(root, "src/main.rs", b"fn main() {\n    // needle\n    println!(\"Needle\");\n}\n");
    write(root, "src/lib.rs", b"pub fn needle() {}\n");
    write(root, "src/.gitignore", b"gen/\n*.tmp\n");
    write(root, "src/gen/x.rs", b"needle generated\n");
    write(root, "src/a.tmp", b"needle tmp\n");
    write(root, "src/sub/rootonly.txt", b"needle deep rootonly\n");
    write(root, "src/sub/deeper/spec.test.ts", b"needle spec\n");
    write(root, "src/Upper.TS", b"needle upper\n");
    write(root, "rootonly.txt", b"needle rootonly\n");
    write(root, "keep.log", b"needle keep\n");
    write(root, "a.log", b"needle a.log\n");
    write(root, "secret.key", b"needle secret\n");
    write(root, "build/out.txt", b"needle build\n");
    write(root, "bin/blob.bin", b"needle\0binary\n");
    let mut late = b"needle before binary\n".to_vec();
    late.extend(std::iter::repeat_n(b'a', 100_000));
    late.extend(b"\n\0\nneedle after\n");
    write(root, "bin/late.bin", &late);
    write(root, "\u{fc}n\u{ef}/\u{e7}\u{f6}d\u{e9}.txt", "needle ünï\n".as_bytes());
    write(root, "\u{65e5}\u{672c}.txt", "needle 日本\n".as_bytes());
    write(root, "crlf.txt", b"needle one\r\nmore needle\r\nnone\r\n");
    write(root, "latin1.txt", b"caf\xe9 needle\n");
    write(root, "a-b/x.txt", b"needle\n");
    write(root, "a/x.txt", b"needle\n");
    write(root, "a.txt", b"needle\nneedle\nneedle\n");
    write(root, "dots.txt", b"a ne.dle here\n");
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let _ = fs::write(root.join(std::ffi::OsStr::from_bytes(b"bad\xffname.txt")), b"needle bad name\n");
        std::os::unix::fs::symlink(root.join("src"), root.join("link_to_src")).unwrap();
        std::os::unix::fs::symlink(root.join("src/main.rs"), root.join("link_file.rs")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("broken")).unwrap();
    }
}

fn pi(tool: &str, dir: &Path, args: Value) -> (String, bool) {
    let o = support::pi_tool(tool, &args.to_string(), dir);
    let v: Value = serde_json::from_slice(&o.stdout).expect("pi prints JSON");
    let text = v["content"][0]["text"].as_str().unwrap_or_default().to_string();
    (text, v["isError"].as_bool().unwrap_or(false))
}

fn b64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn rg_text(v: &Value) -> String {
    match v.get("text").and_then(Value::as_str) {
        Some(t) => t.to_string(),
        None => String::from_utf8_lossy(&b64(v["bytes"].as_str().unwrap_or_default())).into_owned(),
    }
}

/// (path, line) of every match rg reports.
fn rg_matches(rg: &Path, root: &Path, flags: &[&str], pattern: &str) -> BTreeSet<(String, u64)> {
    let o = Command::new(rg)
        .args(["--no-config", "--json", "--line-number", "--color=never", "--hidden"])
        .args(flags)
        .args(["--", pattern, "."])
        .current_dir(root)
        .output()
        .expect("run rg");
    let mut set = BTreeSet::new();
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        if v["type"] == "match" {
            let p = rg_text(&v["data"]["path"]);
            let p = p.strip_prefix("./").unwrap_or(&p).to_string();
            set.insert((p, v["data"]["line_number"].as_u64().unwrap()));
        }
    }
    set
}

fn pi_matches(root: &Path, mut args: Value) -> BTreeSet<(String, u64)> {
    args["limit"] = json!(1_000_000);
    let (text, is_error) = pi("grep", root, args);
    assert!(!is_error, "{text}");
    if text == "No matches found" {
        return BTreeSet::new();
    }
    text.lines()
        .filter_map(|l| {
            let (head, _) = l.split_once(": ")?;
            let (p, n) = head.rsplit_once(':')?;
            Some((p.to_string(), n.parse().ok()?))
        })
        .collect()
}

struct GrepCase {
    pattern: &'static str,
    flags: &'static [&'static str],
    args: Value,
}

fn grep_cases() -> Vec<GrepCase> {
    vec![
        GrepCase { pattern: "needle", flags: &[], args: json!({}) },
        GrepCase { pattern: "needle", flags: &["--ignore-case"], args: json!({"ignoreCase": true}) },
        GrepCase { pattern: "ne.dle", flags: &["--fixed-strings"], args: json!({"literal": true}) },
        GrepCase { pattern: "ne.dle", flags: &[], args: json!({}) },
        GrepCase { pattern: "^needle$", flags: &[], args: json!({}) },
        GrepCase { pattern: "needle", flags: &["--glob", "*.rs"], args: json!({"glob": "*.rs"}) },
        GrepCase { pattern: "needle", flags: &["--glob", "src/**"], args: json!({"glob": "src/**"}) },
        GrepCase { pattern: "needle", flags: &["--glob", "src/*.rs"], args: json!({"glob": "./src/*.rs"}) },
        GrepCase { pattern: "needle", flags: &["--glob", "!*.txt"], args: json!({"glob": "!*.txt"}) },
        GrepCase { pattern: "needle", flags: &["--glob", "*.{ts,TS}"], args: json!({"glob": "*.{ts,TS}"}) },
        GrepCase { pattern: "n[e]+dle\\s", flags: &[], args: json!({}) },
        GrepCase { pattern: "日本", flags: &[], args: json!({}) },
    ]
}

/// `top`: the tree's root, where every case must find something.
fn compare_grep(root: &Path, extra: &[&str], top: bool) {
    let Some(rg) = rg() else { return };
    for c in grep_cases() {
        let mut flags: Vec<&str> = extra.to_vec();
        flags.extend_from_slice(c.flags);
        let want = rg_matches(&rg, root, &flags, c.pattern);
        let mut args = c.args.clone();
        args["pattern"] = json!(c.pattern);
        let got = pi_matches(root, args.clone());
        assert_eq!(got, want, "grep {args} in {} (rg flags {flags:?})", root.display());
        assert!(!top || !want.is_empty() || c.pattern == "^needle$", "case finds nothing: {args}");
    }
}

#[test]
fn grep_matches_rg_inside_a_repository() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path(), true);
    compare_grep(d.path(), &[], true);
    // A sub-folder of the repository (parent ignore files apply).
    compare_grep(&d.path().join("src"), &[], false);
}

#[test]
fn grep_matches_rg_no_require_git_outside_a_repository() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path(), false);
    compare_grep(d.path(), &["--no-require-git"], true);
    compare_grep(&d.path().join("src"), &["--no-require-git"], false);
}

fn fd_paths(fd: &Path, root: &Path, pattern: &str, no_require_git: bool) -> BTreeSet<String> {
    let mut args: Vec<String> = vec!["--glob".into(), "--color=never".into(), "--hidden".into()];
    if no_require_git {
        args.push("--no-require-git".into());
    }
    let mut p = pattern;
    while let Some(r) = p.strip_prefix("./") {
        p = r;
    }
    let root_s = root.to_string_lossy().into_owned();
    let effective = if p.contains('/') {
        args.push("--full-path".into());
        if p.starts_with('/') {
            p.to_string()
        } else {
            if p == p.to_lowercase() {
                args.push("--ignore-case".into());
            }
            let escaped: String = root_s
                .trim_end_matches('/')
                .chars()
                .flat_map(|c| if "\\*?[]{}".contains(c) { vec!['\\', c] } else { vec![c] })
                .collect();
            format!("{escaped}/{p}")
        }
    } else {
        p.to_string()
    };
    args.push("--".into());
    args.push(effective);
    args.push(root_s.clone());
    let o = Command::new(fd).args(&args).output().expect("run fd");
    o.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let s = String::from_utf8_lossy(l).into_owned();
            let s = s.strip_prefix(&format!("{root_s}/")).unwrap_or(&s).to_string();
            s.trim_end_matches('/').to_string()
        })
        .collect()
}

fn pi_paths(root: &Path, pattern: &str) -> BTreeSet<String> {
    let (text, is_error) = pi("find", root, json!({"pattern": pattern, "limit": 1_000_000}));
    assert!(!is_error, "{text}");
    if text == "No files found matching pattern" {
        return BTreeSet::new();
    }
    text.lines().map(|l| l.trim_end_matches('/').to_string()).collect()
}

const FIND_PATTERNS: &[&str] = &[
    "*",
    "*.txt",
    "*.TXT",
    "*.ts",
    "*.{rs,log}",
    "src/**/*.rs",
    "src/**",
    "./src/*",
    "**/x.txt",
    "a*",
    "[a-c]*.txt",
    "*.bin",
    "link*",
    ".git*",
    "HEAD",
    "src/*.TS",
    "ünï/*",
];

fn compare_find(root: &Path, no_require_git: bool) {
    let Some(fd) = fd() else { return };
    if no_require_git && !fd_has_no_require_git(&fd) {
        eprintln!("note: {} has no --no-require-git (fd < 8.7); outside-a-repo comparison skipped", fd.display());
        return;
    }
    for p in FIND_PATTERNS {
        let want = fd_paths(&fd, root, p, no_require_git);
        let got = pi_paths(root, p);
        assert_eq!(got, want, "find {p:?} in {}", root.display());
    }
    let abs = format!("{}/src/*.rs", root.to_string_lossy());
    assert_eq!(pi_paths(root, &abs), fd_paths(&fd, root, &abs, no_require_git), "find {abs:?}");
}

#[test]
fn find_matches_fd_inside_a_repository() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path(), true);
    compare_find(d.path(), false);
    compare_find(&d.path().join("src"), false);
}

#[test]
fn find_matches_fd_no_require_git_outside_a_repository() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path(), false);
    compare_find(d.path(), true);
    compare_find(&d.path().join("src"), true);
}
