//! The session tree: files in the reference's format round-trip, branches,
//! the context with compactions and edits, the tree view, finding sessions.

use super::*;
use crate::messages::{AgentMessage, AgentOnly};

fn user(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1})
}

fn texts(ctx: &SessionContext) -> Vec<String> {
    ctx.messages
        .iter()
        .map(|m| match m {
            AgentMessage::Llm(pi_ai::Message::User(u)) => format!(
                "user:{}",
                u.content
                    .blocks()
                    .iter()
                    .filter_map(|b| match b {
                        pi_ai::ContentBlock::Text { text } => Some(text.clone()),
                        _ => None,
                    })
                    .collect::<String>()
            ),
            AgentMessage::Llm(_) => "llm".into(),
            AgentMessage::Agent(AgentOnly::CompactionSummary(s)) => format!("summary:{}", s.summary),
            AgentMessage::Agent(AgentOnly::System(_)) => "system".into(),
            AgentMessage::Agent(AgentOnly::BranchSummary(s)) => format!("branch:{}", s.summary),
            AgentMessage::Agent(AgentOnly::Custom(c)) => format!("custom:{}", c.content),
            AgentMessage::Agent(AgentOnly::BashExecution(b)) => format!("bash:{}", b.command),
        })
        .collect()
}

/// A file in the reference's format: every entry kind, a branch, a compaction.
const REFERENCE_FILE: &str = r#"{"type":"session","version":3,"id":"0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee","timestamp":"2026-01-02T03:04:05.006Z","cwd":"/p"}
{"type":"model_change","id":"m1","parentId":null,"timestamp":"2026-01-02T03:04:05.100Z","provider":"mock","modelId":"mock-1"}
{"type":"thinking_level_change","id":"t1","parentId":"m1","timestamp":"2026-01-02T03:04:05.100Z","thinkingLevel":"off"}
{"type":"message","id":"s1","parentId":"t1","timestamp":"2026-01-02T03:04:05.200Z","message":{"role":"system","content":"","sections":{"preamble":"P"},"toolsAdded":[{"name":"read"}],"timestamp":2}}
{"type":"message","id":"u1","parentId":"s1","timestamp":"2026-01-02T03:04:05.300Z","message":{"role":"user","content":[{"type":"text","text":"one"}],"timestamp":3}}
{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-02T03:04:05.400Z","message":{"role":"assistant","content":[{"type":"text","text":"A1"}],"api":"openai-completions","provider":"mock","model":"mock-1","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":4,"futureField":{"kept":true}}}
{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-02T03:04:05.500Z","message":{"role":"user","content":"two","timestamp":5}}
{"type":"custom","id":"c1","parentId":"u2","timestamp":"2026-01-02T03:04:05.600Z","customType":"ext","data":{"n":1}}
{"type":"custom_message","id":"cm1","parentId":"c1","timestamp":"2026-01-02T03:04:05.700Z","customType":"ext","content":"injected","display":true}
{"type":"compaction","id":"k1","parentId":"cm1","timestamp":"2026-01-02T03:04:05.800Z","summary":"S","firstKeptEntryId":"u2","tokensBefore":42,"systemMessage":{"role":"system","content":"","sections":{"preamble":"P2"},"timestamp":6}}
{"type":"message","id":"u3","parentId":"k1","timestamp":"2026-01-02T03:04:05.900Z","message":{"role":"user","content":"three","timestamp":7}}
{"type":"label","id":"l1","parentId":"u3","timestamp":"2026-01-02T03:04:06.000Z","targetId":"u1","label":"start"}
{"type":"session_info","id":"i1","parentId":"l1","timestamp":"2026-01-02T03:04:06.100Z","name":"Named"}
{"type":"branch_summary","id":"b1","parentId":"a1","timestamp":"2026-01-02T03:04:06.200Z","fromId":"i1","summary":"left"}
{"type":"usage","id":"g1","parentId":"b1","timestamp":"2026-01-02T03:04:06.300Z","kind":"cache_warm","provider":"mock","model":"mock-1","usage":{}}
{"type":"context_edit","id":"e1","parentId":"g1","timestamp":"2026-01-02T03:04:06.400Z","targetId":"u1","replacement":"one (edited)"}
{"type":"something_new","id":"n1","parentId":"e1","timestamp":"2026-01-02T03:04:06.500Z","x":1}
"#;

fn reference_session(dir: &std::path::Path) -> PathBuf {
    let p = dir.join("2026-01-02T03-04-05-006Z_0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl");
    std::fs::write(&p, REFERENCE_FILE).unwrap();
    p
}

#[test]
fn a_reference_file_opens_its_branch_and_continues() {
    let dir = tempfile::tempdir().unwrap();
    let path = reference_session(dir.path());
    let mut s = Session::open(&path).unwrap();
    assert!(s.bad_lines.is_empty());
    assert_eq!(s.entries().len(), 16);
    assert_eq!(s.leaf_id(), Some("n1"), "the last entry is the leaf");
    assert_eq!(s.name().as_deref(), Some("Named"));
    // The leaf's branch: m1 t1 s1 u1(edited) a1, then the branch summary.
    let ctx = s.context();
    assert_eq!(texts(&ctx), ["system", "user:one (edited)", "llm", "branch:left"]);
    assert_eq!(ctx.model, Some(("mock".into(), "mock-1".into())));
    assert_eq!(ctx.thinking_level.as_deref(), Some("off"));
    // The other branch: the compaction stands for what came before u2.
    s.set_leaf(Some("i1")).unwrap();
    let ctx = s.context();
    assert_eq!(texts(&ctx), ["system", "summary:S", "user:two", "custom:\"injected\"", "user:three"]);
    assert_eq!(ctx.entry_ids[1], "k1");
    // Appending continues from the leaf, in the same file; unknown fields survive.
    let id = s.append_message(&user("four")).unwrap();
    let again = Session::open(&path).unwrap();
    assert_eq!(again.get(&id).unwrap().parent_id(), Some("i1"));
    assert_eq!(again.get("a1").unwrap().field("message")["futureField"], json!({"kept": true}));
    assert_eq!(again.get("n1").unwrap().field("x"), 1);
    // Entries read are kept as their lines, byte for byte.
    let a1 = REFERENCE_FILE.lines().find(|l| l.contains(r#""id":"a1""#)).unwrap();
    assert_eq!(again.get("a1").unwrap().line(), a1);
}

#[test]
fn the_tree_has_every_branch_and_the_labels() {
    let dir = tempfile::tempdir().unwrap();
    let s = Session::open(&reference_session(dir.path())).unwrap();
    let tree: serde_json::Value = serde_json::from_str(&s.tree_json()).unwrap();
    assert_eq!(tree.as_array().unwrap().len(), 1);
    let mut node = &tree[0];
    let mut ids = vec![];
    while node["children"].as_array().unwrap().len() == 1 {
        ids.push(node["entry"]["id"].as_str().unwrap().to_string());
        node = &node["children"][0];
    }
    assert_eq!(ids, ["m1", "t1", "s1", "u1"]);
    assert_eq!(node["entry"]["id"], "a1");
    assert_eq!(node["children"].as_array().unwrap().len(), 2, "a1 has two branches");
    assert_eq!(tree[0]["children"][0]["children"][0]["children"][0]["label"], "start", "u1 is labelled");
}

#[test]
fn new_sessions_are_private_and_in_memory_ones_have_no_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let mut s =
        Session::create(Some(&dir.path().join("s")), Path::new("/p"), Some("abc".into()), Some("/x.jsonl")).unwrap();
    s.append("model_change", json!({"provider": "mock", "modelId": "m"})).unwrap();
    s.append_message(&user("hi")).unwrap();
    let path = s.path().unwrap().to_path_buf();
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(dir.path().join("s")).unwrap().permissions().mode() & 0o777, 0o700);
    let back = Session::open(&path).unwrap();
    assert_eq!(back.header()["parentSession"], "/x.jsonl");
    assert_eq!(texts(&back.context()), ["user:hi"]);
    let mut mem = Session::create(None, Path::new("/p"), None, None).unwrap();
    mem.append_message(&user("x")).unwrap();
    assert!(mem.path().is_none());
    assert_eq!(mem.entries().len(), 1);
}

#[test]
fn bad_lines_old_and_new_versions() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("torn.jsonl");
    std::fs::write(
        &p,
        format!("{}{}", REFERENCE_FILE.lines().take(5).collect::<Vec<_>>().join("\n"), "\n{\"type\":\"mess"),
    )
    .unwrap();
    let s = Session::open(&p).unwrap();
    assert_eq!(s.bad_lines.len(), 1);
    assert_eq!(s.bad_lines[0].0, 6);
    let newer = dir.path().join("newer.jsonl");
    std::fs::write(&newer, "{\"type\":\"session\",\"version\":9,\"id\":\"x\",\"cwd\":\"/\"}\n").unwrap();
    assert!(matches!(Session::open(&newer), Err(SessionError::TooNew { version: 9, .. })));
    let v1 = dir.path().join("v1.jsonl");
    std::fs::write(
        &v1,
        "{\"type\":\"session\",\"id\":\"old\",\"cwd\":\"/\"}\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}}\n{\"type\":\"message\",\"message\":{\"role\":\"hookMessage\",\"customType\":\"x\",\"content\":\"b\",\"display\":false,\"timestamp\":2}}\n",
    )
    .unwrap();
    let s = Session::open(&v1).unwrap();
    assert_eq!(
        texts(&s.context()),
        ["user:a", "custom:\"b\""],
        "linear v1 entries become a chain, hookMessage is custom"
    );
}

#[test]
fn sessions_are_found_by_id_prefix_and_listed_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    for id in ["aaaa1111", "aaaa2222", "bbbb3333"] {
        let mut s = Session::create(Some(dir.path()), Path::new("/p"), Some(id.into()), None).unwrap();
        s.append_message(&user(id)).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(find_by_id(dir.path(), "bbbb").unwrap().to_string_lossy().ends_with("_bbbb3333.jsonl"));
    assert!(matches!(find_by_id(dir.path(), "aaaa"), Err(SessionError::Ambiguous(_))));
    assert!(matches!(find_by_id(dir.path(), "zz"), Err(SessionError::NoMatch(_))));
    let listed = list_sessions(dir.path());
    let ids: Vec<&str> = listed.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["bbbb3333", "aaaa2222", "aaaa1111"]);
    assert_eq!(listed[0].first_message.as_deref(), Some("bbbb3333"));
    assert!(most_recent(dir.path()).unwrap().0.to_string_lossy().contains("bbbb3333"));
}

#[test]
fn the_most_recent_session_passes_over_newer_files_without_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("2026-01-01T00-00-00-000Z_aaaa.jsonl");
    std::fs::write(&good, "{\"type\":\"session\",\"version\":3,\"id\":\"aaaa\",\"cwd\":\"/p\"}\n").unwrap();
    let garbage = dir.path().join("2026-01-03T00-00-00-000Z_cccc.jsonl");
    std::fs::write(&garbage, "not json\n").unwrap();
    let folder = dir.path().join("2026-01-04T00-00-00-000Z_dddd.jsonl");
    std::fs::create_dir(&folder).unwrap();
    let fifo = dir.path().join("2026-01-05T00-00-00-000Z_eeee.jsonl");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (path, skipped) = most_recent(dir.path()).unwrap();
    assert_eq!(path, good);
    assert_eq!(skipped, [fifo, folder, garbage]);
    std::fs::remove_file(&good).unwrap();
    assert!(matches!(most_recent(dir.path()), Err(SessionError::NoneFound(_))));
}

#[test]
fn long_lines_left_in_the_file_read_back_whole_and_appends_do_not_disturb_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let long = "lörem ïpsum ✓ ".repeat(60);
    let mut file =
        String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\r\n");
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    for i in 0..20 {
        let line = json!({"type": "message", "id": format!("m{i}"), "parentId": parent, "timestamp": "t", "message": user(&format!("{i} {long}"))}).to_string();
        file.push_str(&line);
        file.push_str(if i % 2 == 0 { "\n" } else { "\r\n" });
        parent = json!(format!("m{i}"));
        lines.push(line);
    }
    std::fs::write(&path, &file).unwrap();
    let mut s = Session::open(&path).unwrap();
    assert!(s.bad_lines.is_empty(), "{:?}", s.bad_lines);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(s.get(&format!("m{i}")).unwrap().line(), line.as_str(), "line {i} byte for byte");
    }
    let id = s.append_message(&user(&long)).unwrap();
    let ctx = s.context();
    assert_eq!(ctx.messages.len(), 21);
    assert_eq!(texts(&ctx)[19], format!("user:19 {long}"));
    assert_eq!(s.get("m3").unwrap().field("message")["content"][0]["text"], format!("3 {long}"));
    let again = Session::open(&path).unwrap();
    assert_eq!(again.get(&id).unwrap().parent_id(), Some("m19"));
    assert_eq!(texts(&again.context()), texts(&ctx));
    // A file rewritten under the session: a line no longer there reads as nothing, not as another entry.
    std::fs::write(&path, file.replacen("\"m0\"", "\"x0\"", 1)).unwrap();
    assert_eq!(again.get("m0").unwrap().value(), Value::Null);
}

/// Long lines written by this run are read back from the file (one copy of
/// the conversation in memory), byte for byte, after another writer
/// appended to the file too, in a copy made from them, and after the file
/// was removed (the session keeps it open).
#[test]
fn long_lines_written_are_left_in_the_file_and_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::create(Some(dir.path()), Path::new("/p"), None, None).unwrap();
    let long = "dolor sït ✓ ".repeat(40);
    let short_id = s.append_message(&user("short")).unwrap();
    let first = s.append_message(&user(&format!("1 {long}"))).unwrap();
    let path = s.path().unwrap().to_path_buf();
    // Another writer appends a line of its own.
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"type\":\"other\"}\n").unwrap();
    let second = s.append_message(&user(&format!("2 {long}"))).unwrap();
    // Every line pi writes (an id, a parent, a time) is long enough to be left there.
    assert!(s.get(&short_id).unwrap().is_in_file(), "a short message line is left in the file too");
    for (id, n) in [(&first, 1), (&second, 2)] {
        let e = s.get(id).unwrap();
        assert!(e.is_in_file(), "entry {n} is left in the file");
        assert_eq!(e.field("message")["content"][0]["text"], format!("{n} {long}"));
    }
    assert_eq!(texts(&s.context()), ["user:short".to_string(), format!("user:1 {long}"), format!("user:2 {long}")]);
    // A copy (fork) reads its lines from its own file.
    let mut copy = Session::create(Some(&dir.path().join("forks")), Path::new("/p"), None, None).unwrap();
    copy.copy_branch_of(&s).unwrap();
    let copied = copy.get(&second).unwrap();
    assert!(copied.is_in_file());
    assert_eq!(copied.line(), s.get(&second).unwrap().line());
    let copy_file = std::fs::read_to_string(copy.path().unwrap()).unwrap();
    assert!(copy_file.contains(&*copied.line()));
    // The files removed: the open sessions still read their lines.
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(copy.path().unwrap()).unwrap();
    assert_eq!(s.get(&first).unwrap().field("message")["content"][0]["text"], format!("1 {long}"));
    assert_eq!(copy.get(&second).unwrap().field("message")["content"][0]["text"], format!("2 {long}"));
}

/// A linear session of `n` user/assistant entries with, along the way, a
/// compaction keeping some entries (a system message among them), an
/// edit, an omission, an extension's message, a line with `type` not first,
/// a blank line and a bad line; `pad` makes lines long enough to stay in the
/// file.
fn linear_file(n: usize, pad: usize) -> String {
    let mut out =
        String::from(r#"{"type":"session","version":3,"id":"lin","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#);
    out.push('\n');
    let mut parent = serde_json::Value::Null;
    let text = "x".repeat(pad);
    let line = |v: Value, out: &mut String| {
        out.push_str(&v.to_string());
        out.push('\n');
    };
    for i in 0..n {
        let id = format!("{i:08x}");
        let entry = match i {
            _ if i == n / 2 => {
                json!({"type": "compaction", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
                "summary": "S", "firstKeptEntryId": format!("{:08x}", n / 2 - 6), "tokensBefore": 1})
            }
            _ if i == n / 2 - 5 => json!({"type": "message", "id": id, "parentId": parent, "timestamp": "t",
                "message": {"role": "system", "content": "", "sections": {"a": "b"}, "timestamp": 1}}),
            _ if i == n / 2 + 3 => json!({"type": "context_edit", "id": id, "parentId": parent, "timestamp": "t",
                "targetId": format!("{:08x}", n / 2 + 2), "replacement": "edited"}),
            _ if i == n / 2 + 4 => json!({"type": "context_edit", "id": id, "parentId": parent, "timestamp": "t",
                "targetId": format!("{:08x}", n / 2 + 1), "replacement": null}),
            _ if i == n / 2 + 7 => json!({"type": "custom_message", "id": id, "parentId": parent, "timestamp": "t",
                "customType": "ext", "content": "injected", "display": true}),
            _ if i == n / 2 + 9 => json!({"id": id, "type": "message", "parentId": parent, "timestamp": "t",
                "message": user(&format!("type later {i}"))}),
            _ if i % 2 == 0 => json!({"type": "message", "id": id, "parentId": parent, "timestamp": "t",
                "message": user(&format!("{i} {text}"))}),
            _ => json!({"type": "message", "id": id, "parentId": parent, "timestamp": "t", "message": {
                "role": "assistant", "content": [{"type": "text", "text": format!("a{i}")}], "api": "x", "provider": "p",
                "model": "m", "usage": {}, "stopReason": "stop", "timestamp": 2}}),
        };
        line(entry, &mut out);
        if i == 10 {
            out.push_str("\n{\"type\":\"message\",\"id\":\"torn\n");
        }
        parent = json!(id);
    }
    out
}

/// Reading the messages with the file gives the very context reading them
/// afterwards gives: linear files (small, and long enough to be read side
/// by side), with a compaction, edits and odd lines, and a branched file.
#[test]
fn messages_read_with_the_file_give_the_same_context() {
    let dir = tempfile::tempdir().unwrap();
    let long_pad = (super::load::PARALLEL_READ_MIN_BYTES as usize) / (super::load::PARALLEL_CONTEXT_MIN_ENTRIES * 2);
    let files = [
        linear_file(40, 10),
        linear_file(super::load::PARALLEL_CONTEXT_MIN_ENTRIES * 3, long_pad),
        REFERENCE_FILE.to_string(),
    ];
    for (i, text) in files.iter().enumerate() {
        let p = dir.path().join(format!("{i}.jsonl"));
        std::fs::write(&p, text).unwrap();
        let expected = Session::open(&p).unwrap().context();
        let mut s = Session::open_to_continue(&p).unwrap();
        let read_at_once = s.preparsed.by_line.iter().filter(|m| m.is_some()).count();
        let messages = s.entries().iter().filter(|e| e.kind() == "message").count();
        let later = usize::from(i < 2);
        assert_eq!(read_at_once, messages - later, "file {i}: all but one with `type` later");
        assert_eq!(s.bad_lines, Session::open(&p).unwrap().bad_lines, "file {i}");
        let got = s.take_context();
        assert!(!expected.messages.is_empty(), "file {i}");
        assert!(got.entry_ids.is_empty(), "file {i}: the ids are not gathered for an agent taking the messages");
        assert!(got.messages == expected.messages, "file {i}: {:?}", texts(&got));
        assert_eq!((got.model, got.thinking_level), (expected.model, expected.thinking_level), "file {i}");
        assert!(s.preparsed.by_line.is_empty(), "file {i}: dropped once used");
        assert!(s.take_context().messages == expected.messages, "file {i}: and read again later");
    }
    let small = texts(&Session::open(&dir.path().join("0.jsonl")).unwrap().context());
    assert!(
        small.contains(&"user:edited".to_string()) && small.contains(&"custom:\"injected\"".to_string()),
        "{small:?}"
    );
    assert!(small.iter().all(|t| t != "system"), "the kept system message is left out: {small:?}");
    assert_eq!(small[0], "summary:S");
}
