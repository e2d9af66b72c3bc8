#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! Scripts through the one pipeline: parallel calls, results per tool,
//! output layout, errors, and the texts of the reference.

mod common;

use common::{Harness, mask};

#[tokio::test(flavor = "multi_thread")]
async fn parallel_calls_text_console_and_error() {
    let h = Harness::new();
    let code = "const [a, b, c] = await Promise.allSettled([tools.read({path: 'a.txt'}), tools.bash({command: 'echo hi; exit 3'}), tools.ls({path: '.'})]);\ntext(a);\ntext(b);\nconsole.log('x', 1, {a: 2});\nreturn c.reason.message;";
    let r = h.call(code).await;
    assert!(r.is_error);
    let text = mask(&r.text_content());
    let want = "Script failed\nWall time X seconds\nOutput:\n\n==> text 1/2 <==\n{\"status\":\"fulfilled\",\"value\":\"hello\\nworld\\n\"}\n==> text 2/2 <==\n{\"status\":\"fulfilled\",\"value\":{\"output\":\"hi\\n\",\"truncated\":false,\"exit_code\":3,\"wall_time_seconds\":WALL}}\n<console_output>\nx 1 {\"a\":2}\n</console_output>\nScript error:\nTypeError: cannot read property 'message' of undefined\n    at <anonymous> (codemode.js:5:8)\n\nTool calls made before the failure (they are not undone): read (ok), bash (error), ls (ok)";
    let wall = regex_lite(&text);
    assert_eq!(text.replace(&wall, "WALL"), want);
    let d = common::details(&r);
    assert_eq!(d["calls"][0]["id"], "call_0/1");
    assert_eq!(d["calls"][1]["status"], "error");
}

/// The bash wall time in the output (varies).
fn regex_lite(text: &str) -> String {
    let at = text.find("\"wall_time_seconds\":").unwrap() + "\"wall_time_seconds\":".len();
    text[at..].split('}').next().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_and_values_read_as_the_reference() {
    let h = Harness::new();
    let cases = [
        (
            "throw 'x'",
            "Script failed\nWall time X seconds\nOutput:\n\nScript error:\nError: x\n\nNo tool calls were made.",
        ),
        (
            "const = 1;",
            "Script failed\nWall time X seconds\nOutput:\n\nScript error:\nSyntaxError: variable name expected\n    at codemode.js:1:35\n\nNo tool calls were made.",
        ),
        (
            "await new Promise(() => {}); return 1",
            "Script failed\nWall time X seconds\nOutput:\n\nScript error:\nError: The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here.\n\nNo tool calls were made.",
        ),
        (
            "return {a: [1,2], b: undefined, c: 'x'}",
            "Script completed\nWall time X seconds\nOutput:\n\n{\"a\":[1,2],\"c\":\"x\"}",
        ),
        (
            "text('a'); text(''); text({x:1}); text(null); text(undefined); text(5)",
            "Script completed\nWall time X seconds\nOutput:\n\n==> text 1/6 <==\na\n==> text 2/6 <==\n==> text 3/6 <==\n{\"x\":1}\n==> text 4/6 <==\nnull\n==> text 5/6 <==\nundefined\n==> text 6/6 <==\n5",
        ),
        ("text('before'); exit(); text('after')", "Script completed\nWall time X seconds\nOutput:\n\nbefore"),
        (
            "return ALL_TOOLS.map(t => t.name)",
            "Script completed\nWall time X seconds\nOutput:\n\n[\"read\",\"bash\",\"ls\"]",
        ),
        (
            "try { await tools.read({path:'nope'}) } catch(e) { return e.message }",
            "Script completed\nWall time X seconds\nOutput:\n\nENOENT: no such file or directory, access 'DIR/nope'",
        ),
        (
            "try { await tools.read({}) } catch(e) { return e.message }",
            "Script completed\nWall time X seconds\nOutput:\n\nValidation failed for tool \"read\":\n  - path: missing\n\nReceived arguments:\n{}",
        ),
        (
            "await tools.grep({pattern: 'x'})",
            "Script failed\nWall time X seconds\nOutput:\n\nScript error:\nTypeError: tools.grep does not exist. Available: read, bash, ls. ALL_TOOLS lists every tool; searchTools(query) finds tools by topic. Check for a member with \"grep\" in tools.\n    at <anonymous> (codemode.js:1:35)\n\nNo tool calls were made.",
        ),
        (
            "await tools.codemode({code: '1'})",
            "Script failed\nWall time X seconds\nOutput:\n\nScript error:\nTypeError: tools.codemode does not exist. Available: read, bash, ls. ALL_TOOLS lists every tool; searchTools(query) finds tools by topic. Check for a member with \"codemode\" in tools.\n    at <anonymous> (codemode.js:1:35)\n\nNo tool calls were made.",
        ),
    ];
    let dir = h.dir.path().to_string_lossy().to_string();
    for (code, want) in cases {
        assert_eq!(h.text(code).await.replace(&dir, "DIR"), want, "{code}");
    }
}
