//! `edit` through the one dispatch path, called as `pi tool edit …` calls
//! it, with the exact texts, details and file bytes the reference (Pi 1.6.0)
//! produces: exact and fuzzy matching against the original, uniqueness,
//! overlaps, all-or-nothing, BOM and line endings, the legacy argument forms,
//! errors, and the diff/patch in `details`.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support;

struct Out {
    json: Value,
    code: i32,
}

impl Out {
    fn text(&self) -> &str {
        self.json["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {}", self.json))
    }
}

fn run(args: Value, cwd: &Path) -> Out {
    let out = support::pi_tool("edit", &args.to_string(), cwd);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    Out { json, code: out.status.code().unwrap_or(-1) }
}

/// A scratch folder holding `f.txt` with `content`.
fn with_file(content: &[u8]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), content).unwrap();
    d
}

fn file(d: &tempfile::TempDir) -> Vec<u8> {
    std::fs::read(d.path().join("f.txt")).unwrap()
}

fn edits(pairs: &[(&str, &str)]) -> Value {
    json!({"path": "f.txt", "edits": pairs.iter().map(|(o, n)| json!({"oldText": o, "newText": n})).collect::<Vec<_>>()})
}

/// Edit `content` successfully; returns the result JSON and the new file bytes.
fn ok(content: &str, args: Value) -> (Value, Vec<u8>) {
    let d = with_file(content.as_bytes());
    let out = run(args, d.path());
    assert_eq!(out.json["isError"], json!(false), "{}", out.json);
    assert_eq!(out.code, 0);
    (out.json, file(&d))
}

/// Edit `content` and fail; checks the file is byte-for-byte unchanged and returns the message.
fn fails(content: &str, args: Value) -> String {
    let d = with_file(content.as_bytes());
    let out = run(args, d.path());
    assert_eq!(out.json["isError"], json!(true), "{}", out.json);
    assert_eq!(out.code, 1);
    assert_eq!(file(&d), content.as_bytes(), "a failed edit must not write");
    out.text().to_string()
}

/// Apply a unified patch (as produced in `details.patch`) to `old`; panics if it does not apply.
fn apply_patch(old: &str, patch: &str) -> String {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut at = 0usize;
    let mut lines = patch.split_inclusive('\n').peekable();
    assert!(lines.next().unwrap().starts_with("--- "));
    assert!(lines.next().unwrap().starts_with("+++ "));
    while let Some(header) = lines.next() {
        let nums: Vec<usize> =
            header.trim_start_matches("@@ -").split([' ', ',', '+']).filter_map(|s| s.parse().ok()).collect();
        let start = if nums[1] == 0 { nums[0] } else { nums[0] - 1 };
        out.extend(old_lines[at..start].iter().copied());
        at = start;
        while let Some(l) = lines.next_if(|l| !l.starts_with("@@")) {
            let mut body = l[1..].to_string();
            if lines.peek().is_some_and(|n| n.starts_with('\\')) {
                lines.next();
                body.pop();
            }
            match &l[..1] {
                " " => {
                    assert_eq!(old_lines[at], body, "context mismatch");
                    out.push_str(&body);
                    at += 1;
                }
                "-" => {
                    assert_eq!(old_lines[at], body, "removed line mismatch");
                    at += 1;
                }
                "+" => out.push_str(&body),
                other => panic!("bad patch line {other:?}"),
            }
        }
    }
    out.extend(old_lines[at..].iter().copied());
    out
}

// ---- success, details ----

#[test]
fn single_replacement_with_diff_patch_and_first_changed_line() {
    let (json, bytes) = ok("foo\nbar\nbaz\n", edits(&[("bar", "BAR")]));
    assert_eq!(
        json,
        json!({
            "content": [{"type": "text", "text": "Successfully replaced 1 block(s) in f.txt."}],
            "details": {
                "diff": " 1 foo\n-2 bar\n+2 BAR\n 3 baz",
                "patch": "--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n foo\n-bar\n+BAR\n baz\n",
                "firstChangedLine": 2
            },
            "isError": false
        })
    );
    assert_eq!(bytes, b"foo\nBAR\nbaz\n");
}

#[test]
fn edits_match_the_original_not_incrementally() {
    let (json, bytes) = ok("foo\nbar\nbaz\n", edits(&[("foo\n", "foo bar\n"), ("bar\n", "BAR\n")]));
    assert_eq!(bytes, b"foo bar\nBAR\nbaz\n");
    assert_eq!(json["content"][0]["text"], "Successfully replaced 2 block(s) in f.txt.");
    assert_eq!(json["details"]["diff"], "-1 foo\n-2 bar\n+1 foo bar\n+2 BAR\n 3 baz");
}

#[test]
fn two_disjoint_edits_and_adjacent_edits() {
    let (json, bytes) = ok("abc\n", edits(&[("ab", "X"), ("c", "Y")]));
    assert_eq!(bytes, b"XY\n");
    assert_eq!(json["content"][0]["text"], "Successfully replaced 2 block(s) in f.txt.");
}

#[test]
fn large_gaps_are_collapsed_in_the_diff_and_split_in_the_patch() {
    let content: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    let (json, bytes) = ok(&content, edits(&[("line 10\n", "LINE 10\n"), ("line 150\n", "L150a\nL150b\n")]));
    let diff = json["details"]["diff"].as_str().unwrap();
    assert_eq!(
        diff,
        "     ...\n   6 line 6\n   7 line 7\n   8 line 8\n   9 line 9\n- 10 line 10\n+ 10 LINE 10\n  11 line 11\n  12 line 12\n  13 line 13\n  14 line 14\n     ...\n 146 line 146\n 147 line 147\n 148 line 148\n 149 line 149\n-150 line 150\n+150 L150a\n+151 L150b\n 151 line 151\n 152 line 152\n 153 line 153\n 154 line 154\n     ..."
    );
    assert!(diff.lines().count() < 50);
    let patch = json["details"]["patch"].as_str().unwrap();
    assert!(patch.contains("@@ -6,9 +6,9 @@\n") && patch.contains("@@ -146,9 +146,10 @@\n"), "{patch}");
    assert_eq!(apply_patch(&content, patch).as_bytes(), &bytes[..]);
    assert_eq!(json["details"]["firstChangedLine"], 10);
}

#[test]
fn gap_of_eight_lines_stays_one_hunk_nine_splits() {
    let content: String = (1..=30).map(|i| format!("{i}\n")).collect();
    let (json, _) = ok(&content, edits(&[("\n5\n", "\nX5\n"), ("\n14\n", "\nX14\n")]));
    assert_eq!(json["details"]["patch"].as_str().unwrap().matches("@@ -").count(), 1);
    assert!(!json["details"]["diff"].as_str().unwrap().contains("...\n 10"));
    let (json, _) = ok(&content, edits(&[("\n5\n", "\nX5\n"), ("\n15\n", "\nX15\n")]));
    assert_eq!(
        json["details"]["patch"],
        "--- f.txt\n+++ f.txt\n@@ -1,9 +1,9 @@\n 1\n 2\n 3\n 4\n-5\n+X5\n 6\n 7\n 8\n 9\n@@ -11,9 +11,9 @@\n 11\n 12\n 13\n 14\n-15\n+X15\n 16\n 17\n 18\n 19\n"
    );
}

#[test]
fn line_number_width_and_context_numbers() {
    // Deleted lines: old numbers; added: new numbers; context: old numbers.
    let content: String = (1..=30).map(|i| format!("{i}\n")).collect();
    let (json, _) = ok(&content, edits(&[("\n5\n6\n", "\n"), ("\n15\n", "\nX\n")]));
    assert_eq!(
        json["details"]["diff"],
        "  1 1\n  2 2\n  3 3\n  4 4\n- 5 5\n- 6 6\n  7 7\n  8 8\n  9 9\n 10 10\n 11 11\n 12 12\n 13 13\n 14 14\n-15 15\n+13 X\n 16 16\n 17 17\n 18 18\n 19 19\n    ..."
    );
    assert_eq!(json["details"]["firstChangedLine"], 5);
    // 8 lines and a final newline: 9 parts, one digit; 9 lines: two digits.
    let (json, _) = ok("1\n2\n3\n4\n5\n6\n7\n8\n", edits(&[("1\n", "0\n")]));
    assert_eq!(json["details"]["diff"], "-1 1\n+1 0\n 2 2\n 3 3\n 4 4\n 5 5\n   ...");
    let (json, _) = ok("1\n2\n3\n4\n5\n6\n7\n8\n9\n", edits(&[("\n9\n", "\n9\n10\n")]));
    assert_eq!(json["details"]["diff"], "    ...\n  6 6\n  7 7\n  8 8\n  9 9\n+10 10");
    assert_eq!(json["details"]["patch"], "--- f.txt\n+++ f.txt\n@@ -6,4 +6,5 @@\n 6\n 7\n 8\n 9\n+10\n");
}

#[test]
fn missing_final_newline_in_the_patch() {
    let (json, bytes) = ok("a\nb\nc", edits(&[("c", "C")]));
    assert_eq!(bytes, b"a\nb\nC");
    assert_eq!(
        json["details"]["patch"],
        "--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+C\n\\ No newline at end of file\n"
    );
    let (json, _) = ok("abc", edits(&[("abc", "")]));
    assert_eq!(json["details"]["patch"], "--- f.txt\n+++ f.txt\n@@ -1,1 +0,0 @@\n-abc\n\\ No newline at end of file\n");
    assert_eq!(json["details"]["diff"], "-1 abc");
    let (json, _) = ok("a\nb\nc", edits(&[("c", "c\n")]));
    assert_eq!(json["details"]["diff"], " 1 a\n 2 b\n-3 c\n+3 c");
}

#[test]
fn diff_aligns_like_the_reference() {
    let (json, _) = ok("a\nb\nc\nd\n", edits(&[("b\nc", "c\nb")]));
    assert_eq!(json["details"]["diff"], " 1 a\n-2 b\n 3 c\n+3 b\n 4 d");
    let (json, _) = ok("a\nb\n", edits(&[("a\n", "a\nb\n")]));
    assert_eq!(json["details"]["diff"], " 1 a\n 2 b\n+3 b");
    assert_eq!(json["details"]["firstChangedLine"], 3);
}

#[test]
fn patch_applies_to_the_original_for_many_edits() {
    let content: String = (1..=120).map(|i| format!("row {} {}\n", i % 7, i)).collect();
    let pairs = [("row 3 10\n", ""), ("row 0 35\nrow 1 36\n", "new\n"), ("row 4 60", "R\nS"), ("row 0 119\n", "end\n")];
    let (json, bytes) = ok(&content, edits(&pairs));
    assert_eq!(apply_patch(&content, json["details"]["patch"].as_str().unwrap()).as_bytes(), &bytes[..]);
}

// ---- errors: nothing is written ----

#[test]
fn not_found_single_and_multi() {
    assert_eq!(
        fails("abc\n", edits(&[("zz", "X")])),
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
    assert_eq!(
        fails("a\na\nb\n", edits(&[("zz", "X"), ("a", "X")])),
        "Could not find edits[0] in f.txt. The oldText must match exactly including all whitespace and newlines."
    );
    assert_eq!(
        fails("abc\n", edits(&[("a", "X"), ("zz", "X")])),
        "Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines."
    );
}

#[test]
fn duplicates_single_and_multi() {
    assert_eq!(
        fails("x\nx\nx\n", edits(&[("x", "y")])),
        "Found 3 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
    // Errors come edit by edit: edits[0]'s duplicates before edits[1]'s absence.
    assert_eq!(
        fails("a\na\nb\n", edits(&[("a", "X"), ("zz", "X")])),
        "Found 2 occurrences of edits[0] in f.txt. Each oldText must be unique. Please provide more context to make it unique."
    );
    // Non-overlapping count: "aa" occurs once in "aaa".
    let (_, bytes) = ok("aaa\n", edits(&[("aa", "X")]));
    assert_eq!(bytes, b"Xa\n");
}

#[test]
fn overlapping_and_nested_edits_are_rejected() {
    assert_eq!(
        fails("abc\n", edits(&[("ab", "X"), ("bc", "Y")])),
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
    assert_eq!(
        fails("a\nb\n", edits(&[("b", "X"), ("a\nb", "X")])),
        "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
    assert_eq!(
        fails("abc\n", edits(&[("ab", "X"), ("ab", "Y")])),
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
}

#[test]
fn no_partial_application() {
    let content = "one\ntwo\nthree\n";
    fails(content, edits(&[("one", "1"), ("two", "2"), ("missing", "x")]));
    fails(content, edits(&[("one", "1"), ("o", "0")]));
}

#[test]
fn empty_edits_and_empty_old_text() {
    assert_eq!(
        fails("ab\n", json!({"path": "f.txt", "edits": []})),
        "Edit tool input is invalid. edits must contain at least one replacement."
    );
    assert_eq!(fails("ab\n", edits(&[("", "X")])), "oldText must not be empty in f.txt.");
    assert_eq!(fails("ab\n", edits(&[("a", "X"), ("", "Y")])), "edits[1].oldText must not be empty in f.txt.");
    // Empty edits are reported before the file is looked at.
    let d = tempfile::tempdir().unwrap();
    let out = run(json!({"path": "nope", "edits": []}), d.path());
    assert_eq!(out.text(), "Edit tool input is invalid. edits must contain at least one replacement.");
}

#[test]
fn no_changes_single_and_multi() {
    assert_eq!(
        fails("abc\n", edits(&[("abc", "abc")])),
        "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
    );
    assert_eq!(
        fails("abc\n", edits(&[("a", "a"), ("c", "c")])),
        "No changes made to f.txt. The replacements produced identical content."
    );
}

#[test]
fn missing_file_folder_and_below_a_file() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("dir")).unwrap();
    std::fs::write(d.path().join("file"), "x").unwrap();
    let e = |path: &str| run(json!({"path": path, "edits": [{"oldText": "a", "newText": "b"}]}), d.path());
    let out = e("nope.txt");
    assert_eq!(out.text(), "Could not edit file: nope.txt. Error code: ENOENT.");
    assert_eq!(out.code, 1);
    assert!(!d.path().join("nope.txt").exists());
    assert_eq!(e("file/x").text(), "Could not edit file: file/x. Error code: ENOTDIR.");
    assert_eq!(e("dir").text(), "EISDIR: illegal operation on a directory, read");
    assert_eq!(
        e("~/pi-edit-test-surely-missing/q").text(),
        "Could not edit file: ~/pi-edit-test-surely-missing/q. Error code: ENOENT."
    );
}

fn euid_is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(true)
}

#[test]
fn read_only_and_unreadable_files() {
    use std::os::unix::fs::PermissionsExt;
    // Root passes every permission check, so these only mean something for other users.
    if euid_is_root() {
        return;
    }
    for mode in [0o444, 0o222, 0o000] {
        let d = with_file(b"abc\n");
        let f = d.path().join("f.txt");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = run(edits(&[("abc", "X")]), d.path());
        assert_eq!(out.text(), "Could not edit file: f.txt. Error code: EACCES.");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(file(&d), b"abc\n");
    }
}

// ---- fuzzy matching ----

#[test]
fn fuzzy_trailing_whitespace() {
    let (json, bytes) = ok(
        "function a() {  \n  return 1;\t\n}\n",
        edits(&[("function a() {\n  return 1;\n}", "function a() {\n  return 2;\n}")]),
    );
    assert_eq!(bytes, b"function a() {\n  return 2;\n}\n");
    assert_eq!(
        json["details"]["diff"],
        "-1 function a() {  \n-2   return 1;\t\n+1 function a() {\n+2   return 2;\n 3 }"
    );
}

#[test]
fn fuzzy_nfkc_cjk_compatibility_and_combining() {
    let (_, b) = ok(
        "console.log(\u{201c}你好，世界！\u{201d});\n",
        edits(&[("console.log(\"你好,世界!\");", "console.log(\"hi\");")]),
    );
    assert_eq!(b, b"console.log(\"hi\");\n");
    let (_, b) = ok("const ＡＢＣ１２３ = 1;\n", edits(&[("const ABC123 = 1;", "const ABC = 2;")]));
    assert_eq!(b, b"const ABC = 2;\n");
    let (_, b) = ok("cafe\u{301} = 1;\nother\n", edits(&[("caf\u{e9} = 1;", "cafe = 2;")]));
    assert_eq!(b, b"cafe = 2;\nother\n");
}

#[test]
fn fuzzy_quotes_dashes_and_special_spaces() {
    let (json, b) = ok("say(\u{2018}hi\u{2019});\nsay(\u{201c}bye\u{201d});\n", edits(&[("say('hi');", "say('HI');")]));
    // Only the touched line is rewritten; the other keeps its smart quotes.
    assert_eq!(b, "say('HI');\nsay(\u{201c}bye\u{201d});\n".as_bytes());
    assert_eq!(json["details"]["diff"], "-1 say(\u{2018}hi\u{2019});\n+1 say('HI');\n 2 say(\u{201c}bye\u{201d});");
    let (_, b) = ok("a \u{2013} b \u{2014} c\n", edits(&[("a - b - c", "abc")]));
    assert_eq!(b, b"abc\n");
    let (_, b) = ok("let\u{a0}x = 1;\n", edits(&[("let x = 1;", "let y = 1;")]));
    assert_eq!(b, b"let y = 1;\n");
}

#[test]
fn exact_match_is_preferred_and_keeps_the_rest_of_the_line() {
    let (_, b) = ok("x \u{2018}b\u{2019} y  \nz\n", edits(&[("x", "X")]));
    assert_eq!(b, "X \u{2018}b\u{2019} y  \nz\n".as_bytes());
}

#[test]
fn fuzzy_still_fails_when_absent_and_counts_duplicates_after_normalisation() {
    assert_eq!(
        fails("say(\u{201c}bye\u{201d});\n", edits(&[("say('hi');", "x")])),
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
    // An exact match still fails when a fuzzy twin exists.
    assert_eq!(
        fails("a \u{201c}q\u{201d}\na \"q\"\n", edits(&[("a \"q\"", "X")])),
        "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
}

#[test]
fn multi_edit_fuzzy_keeps_untouched_lines_and_patch_applies() {
    let content = "one\u{a0}two\nkeep  \nthree \u{2014} four\n";
    let (json, b) = ok(content, edits(&[("one two", "1 2"), ("three - four", "3 4")]));
    assert_eq!(b, b"1 2\nkeep  \n3 4\n");
    assert_eq!(apply_patch(content, json["details"]["patch"].as_str().unwrap()).as_bytes(), &b[..]);
}

#[test]
fn fuzzy_edits_the_right_occurrence() {
    let content = "if (a) {\n  x = \u{201c}1\u{201d};\n}\nif (b) {\n  y = \u{201c}1\u{201d};\n}\n";
    let (json, b) = ok(content, edits(&[("if (b) {\n  y = \"1\";", "if (b) {\n  y = \"2\";")]));
    assert_eq!(b, "if (a) {\n  x = \u{201c}1\u{201d};\n}\nif (b) {\n  y = \"2\";\n}\n".as_bytes());
    assert_eq!(json["details"]["firstChangedLine"], 5);
}

#[test]
fn fuzzy_rewrites_whole_touched_lines_and_merges_lines_shared_by_two_edits() {
    // Exact "k" and fuzzy "a\nb": all edits go through fuzzy space; lines 1..3
    // are rewritten (normalised), line 4 keeps its trailing spaces.
    let (_, b) = ok("k\na  \nb \u{201c}q\u{201d}\nc  \n", edits(&[("a\nb", "a\nB"), ("k", "K")]));
    assert_eq!(b, b"K\na\nB \"q\"\nc  \n");
    // Two edits sharing line 2 form one block: its breaks take line 1's CRLF.
    let (_, b) = ok("a\r\nb \u{201c}q\u{201d} c\nd\r\n", edits(&[("a\nb \"q\"", "A\nB"), ("c\nd", "C\nD")]));
    assert_eq!(b, b"A\r\nB C\r\nD\r\n");
}

// ---- line endings and BOM ----

#[test]
fn crlf_file_matched_with_lf_old_text_stays_crlf() {
    let (json, b) = ok("a\r\nb\r\nc\r\n", edits(&[("a\nb", "A\nB")]));
    assert_eq!(b, b"A\r\nB\r\nc\r\n");
    assert_eq!(json["details"]["patch"], "--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n-a\n-b\n+A\n+B\n c\n");
    // CRLF in oldText and newText is normalised too.
    let (_, b) = ok("a\r\nb\r\n", edits(&[("a\r\nb", "X\r\nY")]));
    assert_eq!(b, b"X\r\nY\r\n");
    let (_, b) = ok("a\nb\n", edits(&[("a", "X\r\nY\rZ")]));
    assert_eq!(b, b"X\nY\nZ\nb\n");
}

#[test]
fn duplicates_across_crlf_and_lf_variants() {
    assert_eq!(
        fails("a\r\nb\nx\na\nb\n", edits(&[("a\nb", "X")])),
        "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
}

#[test]
fn mixed_line_endings_stay_mixed() {
    let (_, b) = ok("a\r\nb\nc\r\nd\n", edits(&[("b\nc", "X\nY\nZ")]));
    assert_eq!(b, b"a\r\nX\nY\nZ\r\nd\n");
    let (_, b) = ok("a\nb\r\nc\nd\r\n", edits(&[("a\nb", "1\n2\n3")]));
    assert_eq!(b, b"1\n2\n3\r\nc\nd\r\n");
    // Starting on line 1's CRLF break: CRLF.
    let (_, b) = ok("a\r\nb\nc\n", edits(&[("\nb", "\nX\nY")]));
    assert_eq!(b, b"a\r\nX\r\nY\nc\n");
    // The next LF decides, past lines that end in a lone CR.
    let (_, b) = ok("a\rb\rc\n", edits(&[("a", "x\ny")]));
    assert_eq!(b, b"x\ny\rb\rc\n");
    // On the last line: the file's last LF decides.
    let (_, b) = ok("x\ny\na\r\nb", edits(&[("b", "b\nc")]));
    assert_eq!(b, b"x\ny\na\r\nb\r\nc");
}

#[test]
fn cr_only_file_stays_cr_only() {
    let (json, b) = ok("a\rb\rc\r", edits(&[("b\n", "B1\nB2\n")]));
    assert_eq!(b, b"a\rB1\rB2\rc\r");
    assert_eq!(json["details"]["diff"], " 1 a\n-2 b\n+2 B1\n+3 B2\n 3 c");
}

#[test]
fn bom_is_preserved_single_and_multi() {
    let (json, b) = ok("\u{feff}a\r\nb\r\n", edits(&[("a", "A\nA2")]));
    assert_eq!(b, "\u{feff}A\r\nA2\r\nb\r\n".as_bytes());
    assert_eq!(json["details"]["diff"], "-1 a\n+1 A\n+2 A2\n 2 b");
    let (_, b) = ok("\u{feff}a\r\nb\r\nc\r\n", edits(&[("a", "A"), ("c", "C")]));
    assert_eq!(b, "\u{feff}A\r\nb\r\nC\r\n".as_bytes());
}

// ---- argument forms ----

#[test]
fn legacy_and_stringified_arguments() {
    let (_, b) = ok("a\nb\n", json!({"path": "f.txt", "oldText": "a", "newText": "X"}));
    assert_eq!(b, b"X\nb\n");
    let (_, b) = ok("a\nb\n", json!({"path": "f.txt", "edits": "[{\"oldText\":\"a\",\"newText\":\"X\"}]"}));
    assert_eq!(b, b"X\nb\n");
    let (_, b) = ok("a\nb\n", json!({"path": "f.txt", "edits": {"oldText": "b", "newText": "Y"}}));
    assert_eq!(b, b"a\nY\n");
    // Legacy fields are appended to the existing edits (a multi-edit call).
    let (json, b) = ok(
        "a\nb\n",
        json!({"path": "f.txt", "edits": [{"oldText": "a", "newText": "X"}], "oldText": "b", "newText": "Y"}),
    );
    assert_eq!(b, b"X\nY\n");
    assert_eq!(json["content"][0]["text"], "Successfully replaced 2 block(s) in f.txt.");
}

#[test]
fn invalid_edits_are_an_invalid_call() {
    let d = with_file(b"a\n");
    let out = support::pi_tool("edit", r#"{"path":"f.txt","edits":"notjson"}"#, d.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("Validation failed for tool \"edit\":\n  - edits.0: expected object, got string\n"),
        "{err}"
    );
    assert_eq!(file(&d), b"a\n");
}

#[test]
fn path_forms_and_symlinks() {
    let d = with_file(b"a\n");
    let out = run(json!({"path": "@f.txt", "edits": [{"oldText": "a", "newText": "b"}]}), d.path());
    assert_eq!(out.text(), "Successfully replaced 1 block(s) in @f.txt.");
    assert_eq!(out.json["details"]["patch"], "--- @f.txt\n+++ @f.txt\n@@ -1,1 +1,1 @@\n-a\n+b\n");
    std::os::unix::fs::symlink("f.txt", d.path().join("link.txt")).unwrap();
    run(json!({"path": "link.txt", "edits": [{"oldText": "b", "newText": "c"}]}), d.path());
    assert_eq!(file(&d), b"c\n");
    assert!(d.path().join("link.txt").symlink_metadata().unwrap().file_type().is_symlink());
}

#[test]
fn invalid_utf8_is_read_as_replacement_characters() {
    // As the reference: the file is decoded lossily, so invalid bytes become U+FFFD.
    let d = with_file(b"ok \xff\nline\n");
    let out = run(edits(&[("line", "LINE")]), d.path());
    assert_eq!(out.json["isError"], json!(false));
    assert_eq!(file(&d), "ok \u{fffd}\nLINE\n".as_bytes());
}

#[test]
fn fifos_and_devices_do_not_hang_or_fill_memory() {
    // The reference would block on a FIFO and read /dev/zero forever; a
    // non-regular file reads as empty here (as /dev/null does in the reference).
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("p");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let not_found = |p: &str| {
        format!(
            "Could not find the exact text in {p}. The old text must match exactly including all whitespace and newlines."
        )
    };
    assert_eq!(run(json!({"path": "p", "edits": [{"oldText": "a", "newText": "b"}]}), d.path()).text(), not_found("p"));
    for dev in ["/dev/zero", "/dev/null"] {
        assert_eq!(
            run(json!({"path": dev, "edits": [{"oldText": "a", "newText": "b"}]}), d.path()).text(),
            not_found(dev)
        );
    }
}

#[test]
fn file_urls_and_nul_bytes_fail_as_node_fails_them() {
    let host = r#"File URL host must be "localhost" or empty on linux"#;
    let args = |path: &str| json!({"path": path, "edits": [{"oldText": "a", "newText": "b"}]});
    assert_eq!(fails("a\n", args("file://f.txt")), host);
    assert_eq!(fails("a\n", args("file:///x/%zz")), "URI malformed");
    let msg = fails("a\n", args("f.txt\u{0}"));
    assert!(
        msg.starts_with("The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received '")
            && msg.ends_with("f.txt\\x00'"),
        "{msg}"
    );
}
