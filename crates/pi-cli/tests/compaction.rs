//! Compaction through the binary against the mock model: past the threshold
//! the session compacts once and goes on with the summary and the kept
//! messages; an overflow error and a `length` stop each compact and retry
//! once; RPC `compact` with instructions; an extension cancels one and
//! supplies another's summary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use pi_test_support::{MockServer, Turn, read_until, user_texts};
use serde_json::{Value, json};

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
}

impl Env {
    /// A scratch home whose model has a 100-token window; `settings` go to the user file.
    fn new(server: &MockServer, settings: Value) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
        for d in [&home.join(".pi/agent"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        let agent = home.join(".pi/agent");
        server.write_models_json_with(&agent, "openai-completions", json!({"contextWindow": 100, "maxTokens": 50}));
        std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
        Env { _dir: dir, home, work, tmp }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &self.tmp);
        c.args(["--offline", "--no-session", "--model", "mock/mock-1"]).args(args);
        c
    }

    /// JSON mode over `messages`: the events.
    fn json_run(&self, messages: &[&str]) -> Vec<Value> {
        let mut args = vec!["--mode", "json"];
        args.extend_from_slice(messages);
        let out = self.cmd(&args).stdin(Stdio::null()).output().unwrap();
        String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }
}

fn system_text(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap_or_default().to_string()
}

fn types(events: &[Value]) -> Vec<String> {
    events.iter().map(|e| e["type"].as_str().unwrap_or_default().to_string()).collect()
}

const SUMMARY_PREFIX: &str = "The conversation history before this point was compacted into the following summary:";

#[test]
fn past_the_threshold_the_session_compacts_after_each_run() {
    let server = MockServer::start(vec![
        Turn::text("first answer"),
        Turn::text("SUMMARY OF ONE"),
        Turn::text("second answer"),
        Turn::text("HISTORY"),
        Turn::text("PREFIX"),
    ]);
    let env = Env::new(&server, json!({"compaction": {"reserveTokens": 90, "keepRecentTokens": 1}}));
    let events = env.json_run(&["one", "two"]);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 5, "answer, summary, answer, two summaries");
    // The cut (one token kept) splits the span of "one": only its start is
    // summarized, with our own prompt, as a record.
    assert!(system_text(&reqs[1].body).starts_with("You write the working summary"));
    let asked = user_texts(&reqs[1].body).join("");
    assert!(asked.contains("[User]: one"), "{asked}");
    // The next request: the summary, the kept answer, the new prompt.
    let texts = user_texts(&reqs[2].body);
    assert!(texts[0].starts_with(SUMMARY_PREFIX) && texts[0].contains("SUMMARY OF ONE"), "{texts:?}");
    assert_eq!(texts.last().unwrap(), "two");
    assert!(!texts.iter().any(|t| t == "one"), "the summarized prompt is gone: {texts:?}");
    // Compaction runs after agent_end, before the run settles.
    let t = types(&events);
    let at = t.iter().position(|t| t == "compaction_start").unwrap();
    assert_eq!(t[at - 1], "agent_end");
    assert_eq!(&t[at + 1..at + 4], ["compaction_end", "agent_settled", "agent_start"]);
    let ends: Vec<&Value> = events.iter().filter(|e| e["type"] == "compaction_end").collect();
    assert_eq!(ends.len(), 2, "once after each run");
    assert_eq!((ends[0]["reason"].as_str(), ends[0]["aborted"].as_bool()), (Some("threshold"), Some(false)));
    assert_eq!(
        ends[0]["result"]["summary"],
        "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nSUMMARY OF ONE"
    );
    assert_eq!(ends[1]["result"]["summary"], "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX");
    assert!(user_texts(&reqs[3].body).join("").contains("SUMMARY OF ONE"), "the previous summary is built on");
    assert!(ends[0]["result"]["firstKeptEntryId"].is_string());
    assert!(ends[0]["result"]["estimatedTokensAfter"].as_u64().unwrap() > 0);
}

#[test]
fn an_overflow_error_and_a_length_stop_compact_and_retry_once() {
    let cut = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"mock-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"cut sho\"},\"finish_reason\":null}]}\n\n\
               data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"mock-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n\
               data: [DONE]\n\n";
    for second in [
        Turn::error(
            400,
            "This model's maximum context length is 100 tokens. Please reduce the length of the messages.",
        ),
        Turn::raw_sse(cut),
    ] {
        let server = MockServer::start(vec![
            Turn::text("first answer"),
            second,
            Turn::text("THE SUMMARY"),
            Turn::text("THE PREFIX"),
            Turn::text("retried answer"),
        ]);
        let env = Env::new(
            &server,
            json!({"retry": {"enabled": false}, "compaction": {"keepRecentTokens": 1, "reserveTokens": 0}}),
        );
        let events = env.json_run(&["one", "two"]);
        let reqs = server.requests();
        assert_eq!(reqs.len(), 5, "answer, overflow, two summaries, retry");
        // The failed attempt's input is summarized too: the retry carries
        // only the summary.
        assert!(user_texts(&reqs[3].body).join("").contains("[User]: two"));
        let retried = user_texts(&reqs[4].body);
        assert_eq!(retried.len(), 1, "{retried:?}");
        assert!(retried[0].contains("THE SUMMARY") && retried[0].contains("THE PREFIX"), "{retried:?}");
        let t = types(&events);
        let at = t.iter().position(|t| t == "compaction_start").unwrap();
        assert_eq!(&t[at - 2..at], ["agent_end", "entry_appended"]);
        assert_eq!(
            &t[at + 1..at + 3],
            ["compaction_end", "agent_start"],
            "the retry is a fresh run, not settled before"
        );
        let edit = &events[at - 1]["entry"];
        assert_eq!(edit["type"], "context_edit");
        let end = &events[at + 1];
        assert_eq!((end["reason"].as_str(), end["willRetry"].as_bool()), (Some("overflow"), Some(true)));
        assert_eq!(end["result"]["firstKeptEntryId"], edit["targetId"], "the kept part starts at the omitted attempt");
        let last = events.iter().rev().find(|e| e["type"] == "message_end").unwrap();
        assert_eq!(last["message"]["content"][0]["text"], "retried answer");
        assert_eq!(t.iter().filter(|t| *t == "agent_settled").count(), 2);
    }
}

/// An RPC session: send commands, read records until a predicate holds.
fn rpc(
    env: &Env,
    extra: &[&str],
) -> (std::process::Child, std::process::ChildStdin, BufReader<std::process::ChildStdout>) {
    let mut args = vec!["--mode", "rpc"];
    args.extend_from_slice(extra);
    let mut child = env.cmd(&args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, out)
}

#[test]
fn rpc_compact_with_instructions_and_extensions_that_cancel_or_supply() {
    let ext = r#"export default function (pi) {
  pi.on("session_before_compact", (event) => {
    if (event.customInstructions === "cancel please") return { cancel: true };
    if (event.customInstructions === "mine") {
      return { compaction: { summary: "EXTENSION SUMMARY", firstKeptEntryId: event.preparation.firstKeptEntryId, tokensBefore: event.preparation.tokensBefore } };
    }
  });
}
"#;
    let server = MockServer::start(vec![
        Turn::text("a1"),
        Turn::text("a2"),
        Turn::text("a3"),
        Turn::text("MODEL SUMMARY"),
        Turn::text("PREFIX SUMMARY"),
    ]);
    let env = Env::new(&server, json!({"compaction": {"enabled": false, "keepRecentTokens": 1}}));
    std::fs::write(env.work.join("ext.ts"), ext).unwrap();
    let (mut child, mut stdin, mut out) = rpc(&env, &["-e", "ext.ts"]);
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    for (i, m) in ["one", "two"].iter().enumerate() {
        send(json!({"id": format!("p{i}"), "type": "prompt", "message": m}));
        read_until(&mut out, |v| v["type"] == "agent_settled");
    }
    send(json!({"id": "c1", "type": "compact", "customInstructions": "cancel please"}));
    let end = read_until(&mut out, |v| v["type"] == "compaction_end");
    assert_eq!(end["aborted"], true);
    let r = read_until(&mut out, |v| v["id"] == "c1");
    assert_eq!((r["success"].as_bool(), r["error"].as_str()), (Some(false), Some("Compaction cancelled")));
    assert_eq!(server.requests().len(), 2, "a cancelled compaction asks the model nothing");

    send(json!({"id": "c2", "type": "compact", "customInstructions": "mine"}));
    let r = read_until(&mut out, |v| v["id"] == "c2");
    assert_eq!(r["data"]["summary"], "EXTENSION SUMMARY", "{r}");
    assert_eq!(server.requests().len(), 2, "the extension's summary needs no request");
    send(json!({"id": "c2b", "type": "compact"}));
    let r = read_until(&mut out, |v| v["id"] == "c2b");
    assert_eq!(r["error"], "Already compacted", "{r}");

    send(json!({"id": "p3", "type": "prompt", "message": "three"}));
    read_until(&mut out, |v| v["type"] == "agent_settled");
    let texts = user_texts(&server.requests()[2].body);
    assert!(texts[0].contains("EXTENSION SUMMARY"), "{texts:?}");

    // The cut (keep one token) falls inside the span of "three": the span's
    // start is summarized on its own and the two summaries are joined.
    send(json!({"id": "c3", "type": "compact", "customInstructions": "the tests"}));
    let r = read_until(&mut out, |v| v["id"] == "c3");
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(
        r["data"]["summary"].as_str().unwrap(),
        "MODEL SUMMARY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX SUMMARY"
    );
    let reqs = server.requests();
    let history = user_texts(&reqs[3].body).join("");
    assert!(history.contains("EXTENSION SUMMARY") && history.contains("Focus especially on: the tests"), "{history}");
    assert!(user_texts(&reqs[4].body).join("").contains("[User]: three"));
    assert!(r["data"]["estimatedTokensAfter"].is_u64());

    send(json!({"id": "m", "type": "get_messages"}));
    let r = read_until(&mut out, |v| v["id"] == "m");
    let roles: Vec<&str> =
        r["data"]["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "compactionSummary", "assistant"], "{roles:?}");
    drop(stdin);
    child.wait().unwrap();
}
