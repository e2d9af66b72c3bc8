//! `find` through the one dispatch path, called as `pi tool find` calls it:
//! every find behaviour of pi-behaviour.md §0.6, §2 (tools.test.ts,
//! regressions 3302/3303) and every notice and error of §4.8.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{self, Out, write};

fn find(dir: &Path, args: Value) -> Out {
    support::run_tool("find", dir, &args)
}

fn ok(dir: &Path, args: Value) -> String {
    let o = find(dir, args);
    assert!(!o.is_error, "unexpected error: {}", o.text);
    o.text
}

fn err(dir: &Path, args: Value) -> String {
    let o = find(dir, args);
    assert!(o.is_error, "expected an error, got: {}", o.text);
    o.text
}

#[test]
fn hidden_files_included_and_gitignore_respected_outside_git() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(r, ".secret.txt", "");
    write(r, "visible.txt", "");
    write(r, "ignored.txt", "");
    write(r, ".gitignore", "ignored.txt\n");
    let o = find(r, json!({"pattern": "*.txt"}));
    assert_eq!(o.text, ".secret.txt\nvisible.txt");
    assert!(o.details.is_null());
}

#[test]
fn nested_gitignore_is_scoped_to_its_folder() {
    // Regression 3303.
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    fs::create_dir_all(r.join(".git")).unwrap();
    write(r, "a/.gitignore", "skip.txt\n");
    write(r, "a/skip.txt", "");
    write(r, "b/skip.txt", "");
    write(r, ".ignore", "also.txt\n");
    write(r, "c/also.txt", "");
    assert_eq!(ok(r, json!({"pattern": "*.txt"})), "b/skip.txt");
}

#[test]
fn nested_repository_stops_parent_rules_inside_a_repository_only() {
    // fd's behaviour, which the reference shows: with require-git (inside a
    // repository) a nested repository starts afresh; outside one, parent
    // .gitignore rules reach into it.
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(r, "p/.gitignore", "*.log\n");
    write(r, "p/top.log", "");
    write(r, "p/nested/.git/HEAD", "");
    write(r, "p/nested/n.log", "");
    assert_eq!(ok(r, json!({"pattern": "*.log", "path": "p"})), "No files found matching pattern");
    fs::create_dir_all(r.join("p/.git")).unwrap();
    assert_eq!(ok(r, json!({"pattern": "*.log", "path": "p"})), "nested/n.log");
}

#[test]
fn invalid_glob_surfaces_fds_error() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.txt", "");
    assert_eq!(
        err(d.path(), json!({"pattern": "["})),
        "[fd error]: error parsing glob '[': unclosed character class; missing ']'"
    );
    let root = d.path().to_string_lossy().into_owned();
    assert_eq!(
        err(d.path(), json!({"pattern": "src/["})),
        format!("[fd error]: error parsing glob '{root}/src/[': unclosed character class; missing ']'")
    );
}

#[test]
fn help_is_a_pattern_not_a_flag() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.txt", "");
    let o = find(d.path(), json!({"pattern": "--help"}));
    assert_eq!((o.text.as_str(), o.is_error, o.details.is_null()), ("No files found matching pattern", false, true));
}

#[test]
fn folders_get_a_trailing_slash_and_results_are_in_path_order() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for f in ["b.txt", "a/z.txt", "a-b/y.txt", "A.txt", "a.txt"] {
        write(r, f, "");
    }
    assert_eq!(ok(r, json!({"pattern": "*"})), "A.txt\na/\na/z.txt\na-b/\na-b/y.txt\na.txt\nb.txt");
    assert_eq!(ok(r, json!({"pattern": "a*"})), "A.txt\na/\na-b/\na.txt");
}

#[test]
fn path_patterns_are_anchored_at_the_search_folder() {
    // Regression 3302 and §0.6.
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(r, "src/a.spec.ts", "");
    write(r, "src/deep/er/b.spec.ts", "");
    write(r, "src/c.ts", "");
    write(r, "lib/src/d.spec.ts", "");
    assert_eq!(ok(r, json!({"pattern": "src/**/*.spec.ts"})), "src/a.spec.ts\nsrc/deep/er/b.spec.ts");
    assert_eq!(ok(r, json!({"pattern": "./src/*.ts"})), "src/a.spec.ts\nsrc/c.ts");
    assert_eq!(ok(r, json!({"pattern": "**/src/*.spec.ts"})), "lib/src/d.spec.ts\nsrc/a.spec.ts");
    assert_eq!(ok(r, json!({"pattern": "deep/**"})), "No files found matching pattern");
    assert_eq!(ok(r, json!({"pattern": "deep/**", "path": "src"})), "deep/er/\ndeep/er/b.spec.ts");
    let abs = format!("{}/src/*.ts", r.to_string_lossy());
    assert_eq!(ok(r, json!({"pattern": abs})), "src/a.spec.ts\nsrc/c.ts");
    // Without '/', names match at any depth.
    assert_eq!(ok(r, json!({"pattern": "*.spec.ts"})), "lib/src/d.spec.ts\nsrc/a.spec.ts\nsrc/deep/er/b.spec.ts");
}

#[test]
fn smart_case_and_braces() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for f in ["README.md", "readme.txt", "Notes.MD", "x.rs", "y.toml"] {
        write(r, f, "");
    }
    assert_eq!(ok(r, json!({"pattern": "readme*"})), "README.md\nreadme.txt");
    assert_eq!(ok(r, json!({"pattern": "README*"})), "README.md");
    assert_eq!(ok(r, json!({"pattern": "*.md"})), "Notes.MD\nREADME.md");
    assert_eq!(ok(r, json!({"pattern": "*.{rs,toml}"})), "x.rs\ny.toml");
}

#[test]
fn limit_notice_and_details() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..5 {
        write(d.path(), &format!("f{i}.txt"), "");
    }
    // Which three depends on the order the walk meets them (fd's way); they
    // are three of the five, sorted.
    let names = |t: &str| -> Vec<String> { t.lines().take_while(|l| !l.is_empty()).map(String::from).collect() };
    let o = find(d.path(), json!({"pattern": "*.txt", "limit": 3}));
    let (body, notice) = o.text.split_once("\n\n").unwrap();
    assert_eq!(notice, "[3 results limit reached. Use limit=6 for more, or refine pattern]");
    let got = names(body);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got.windows(2).all(|w| w[0] < w[1]), "sorted, distinct: {got:?}");
    assert!(got.iter().all(|n| n.len() == 6 && n.starts_with('f') && n.ends_with(".txt")), "{got:?}");
    assert_eq!(o.details, json!({"resultLimitReached": 3}));
    assert_eq!(ok(d.path(), json!({"pattern": "*.txt", "limit": 5})), "f0.txt\nf1.txt\nf2.txt\nf3.txt\nf4.txt");
    let one = ok(d.path(), json!({"pattern": "*.txt", "limit": 0}));
    let (body, notice) = one.split_once("\n\n").unwrap();
    assert_eq!(notice, "[1 results limit reached. Use limit=2 for more, or refine pattern]");
    assert_eq!(names(body).len(), 1);
}

#[test]
fn default_limit_is_1000_and_output_is_capped_at_50kb() {
    let d = tempfile::tempdir().unwrap();
    let long = "n".repeat(60);
    for i in 0..1100 {
        write(d.path(), &format!("{long}{i:04}.txt"), "");
    }
    let o = find(d.path(), json!({"pattern": "*.txt"}));
    let (body, notice) = o.text.split_once("\n\n[").unwrap();
    assert_eq!(notice, "1000 results limit reached. Use limit=2000 for more, or refine pattern. 50.0KB limit reached]");
    assert!(body.len() <= 50 * 1024);
    let n = body.lines().count();
    // 69 bytes per line with its newline: 742 * 69 - 1 <= 51200.
    assert_eq!(n, 742);
    assert_eq!(o.details["resultLimitReached"], json!(1000));
    assert_eq!(o.details["truncation"]["totalLines"], json!(1000));
    assert_eq!(o.details["truncation"]["totalBytes"], json!(1000 * 69 - 1));
    assert_eq!(o.details["truncation"]["outputLines"], json!(n));
    assert_eq!(o.details["truncation"]["truncatedBy"], json!("bytes"));
}

#[test]
fn missing_path_or_a_file_gives_fds_error() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.txt", "");
    for p in ["nope", "a.txt"] {
        let abs = d.path().join(p);
        assert_eq!(
            err(d.path(), json!({"pattern": "*", "path": p})),
            format!(
                "[fd error]: Search path '{}' is not a directory.\n[fd error]: No valid search paths given.",
                abs.display()
            )
        );
    }
}

#[cfg(unix)]
#[test]
fn symlinks_are_listed_not_followed() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(r, "real/inner.txt", "");
    std::os::unix::fs::symlink(r.join("real"), r.join("link")).unwrap();
    std::os::unix::fs::symlink(r.join("missing"), r.join("broken")).unwrap();
    assert_eq!(ok(r, json!({"pattern": "*"})), "broken\nlink\nreal/\nreal/inner.txt");
    assert_eq!(ok(r, json!({"pattern": "*", "path": "link"})), "inner.txt");
}

#[test]
fn git_contents_are_listed() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), ".git/HEAD", "");
    write(d.path(), "x", "");
    assert_eq!(ok(d.path(), json!({"pattern": "*"})), ".git/\n.git/HEAD\nx");
}

#[cfg(unix)]
#[test]
fn non_utf8_names_are_shown_lossily() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    if fs::write(d.path().join(std::ffi::OsStr::from_bytes(b"bad\xffname.txt")), "").is_err() {
        eprintln!("file system refuses non-UTF-8 names; skipped");
        return;
    }
    assert_eq!(ok(d.path(), json!({"pattern": "*.txt"})), "bad\u{FFFD}name.txt");
    assert_eq!(ok(d.path(), json!({"pattern": "bad*"})), "bad\u{FFFD}name.txt");
}

#[test]
fn nul_bytes_and_impossible_limits_fail_as_the_reference_starting_fd() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.ts", "");
    let root = d.path().display().to_string();
    assert_eq!(
        err(d.path(), json!({"pattern": "a\u{0}"})),
        "The argument 'args[7]' must be a string without null bytes. Received 'a\\x00'"
    );
    assert_eq!(
        err(d.path(), json!({"pattern": "*", "path": "x\u{0}"})),
        format!("The argument 'args[8]' must be a string without null bytes. Received '{root}/x\\x00'")
    );
    assert_eq!(
        err(d.path(), json!({"pattern": "src/a\u{0}"})),
        format!("The argument 'args[9]' must be a string without null bytes. Received '{root}/src/a\\x00'")
    );
    fs::create_dir(d.path().join(".git")).unwrap();
    assert_eq!(
        err(d.path(), json!({"pattern": "a\u{0}"})),
        "The argument 'args[6]' must be a string without null bytes. Received 'a\\x00'",
        "inside a repository the reference passes no --no-require-git"
    );
    assert_eq!(
        err(d.path(), json!({"pattern": "*.ts", "limit": 1e20})),
        "error: invalid value '100000000000000000000' for '--max-results <count>': number too large to fit in target type\n\nFor more information, try '--help'."
    );
    assert_eq!(
        err(d.path(), json!({"pattern": "*.ts", "limit": 1e21})),
        "error: invalid value '1e+21' for '--max-results <count>': invalid digit found in string\n\nFor more information, try '--help'."
    );
    assert_eq!(ok(d.path(), json!({"pattern": "*.ts", "limit": 1e19})), "a.ts");
}

#[test]
fn trailing_whitespace_of_names_is_trimmed_as_the_reference_trims_fds_lines() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "trail.ts ", "");
    write(d.path(), "tab.ts\t", "");
    write(d.path(), " lead.ts", "");
    assert_eq!(ok(d.path(), json!({"pattern": "trail*"})), "trail.ts");
    assert_eq!(ok(d.path(), json!({"pattern": "tab*"})), "tab.ts");
    assert_eq!(ok(d.path(), json!({"pattern": "*lead*"})), " lead.ts");
}
