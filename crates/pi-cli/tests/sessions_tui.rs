#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! `pi --resume` on a terminal (under tmux): the picker lists this folder's
//! sessions (named ones by name, most recent first), searching narrows it,
//! enter continues the chosen one in the UI, escape ends the run. `/resume`
//! inside the UI opens the same picker and switches to the chosen session.

use crate::tui_support;

use std::path::PathBuf;

use pi_test_support::Turn;
use serde_json::json;
use tui_support::{Scene, Tmux, have_tmux, idle, messages_of};

/// `pi` in the project folder with sessions kept (Scene's command has `--no-session`).
fn command(s: &Scene, flags: &str) -> String {
    format!(
        "cd {work} && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u PI_CODING_AGENT_DIR -u PI_CODING_AGENT_SESSION_DIR \
         HOME={home} TMPDIR={tmp} COLORTERM= {bin} --offline --model mock/mock-1 {flags}; echo PI-EXIT-$?; sleep 600",
        work = s.work().display(),
        home = s.home().display(),
        tmp = s.tmp().display(),
        bin = env!("CARGO_BIN_EXE_pi"),
    )
}

fn session_dir(s: &Scene) -> PathBuf {
    let work = s.work().canonicalize().unwrap();
    let encoded = format!("--{}--", work.to_string_lossy().trim_start_matches('/').replace('/', "-"));
    s.agent_dir().join("sessions").join(encoded)
}

/// A session file of `prompt` and `answer` at `minute` past midnight (named when `name`).
fn write_session(s: &Scene, id: &str, minute: u32, prompt: &str, answer: &str, name: Option<&str>) -> PathBuf {
    let dir = session_dir(s);
    std::fs::create_dir_all(&dir).unwrap();
    let ts = format!("2026-01-01T00:{minute:02}:00.000Z");
    let ms = 1_767_225_600_000_i64 + i64::from(minute) * 60_000;
    let cwd = s.work().canonicalize().unwrap();
    let mut lines = vec![json!({"type": "session", "version": 3, "id": id, "timestamp": ts, "cwd": cwd})];
    let mut parent = None::<String>;
    let mut push = |mut e: serde_json::Value, n: u32| {
        let eid = format!("{id}-{n}");
        e["id"] = json!(eid);
        e["parentId"] = json!(parent);
        e["timestamp"] = json!(ts);
        lines.push(e);
        parent = Some(eid);
    };
    if let Some(n) = name {
        push(json!({"type": "session_info", "name": n}), 0);
    }
    push(
        json!({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": ms}}),
        1,
    );
    push(
        json!({"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": answer}],
            "api": "openai-completions", "provider": "mock", "model": "mock-1", "stopReason": "stop", "timestamp": ms,
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}}}),
        2,
    );
    let path = dir.join(format!("2026-01-01T00-{minute:02}-00-000Z_{id}.jsonl"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn resume_picks_a_session_by_search_and_continues_it() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::text("resumed answer")]);
    let alpha = write_session(&s, "aaaa-1111", 1, "alpha question", "alpha answer", None);
    write_session(&s, "bbbb-2222", 2, "beta question", "beta answer", Some("beta named"));
    write_session(&s, "cccc-3333", 3, "gamma question", "gamma answer", None);
    let t = Tmux::start(100, 30, &command(&s, "--resume"));
    let screen = t.wait_for("Resume Session (Current Folder)");
    let rows: Vec<&str> =
        screen.lines().filter(|l| l.starts_with("› ") || (l.starts_with("  ") && !l.trim().is_empty())).collect();
    assert_eq!(rows.len(), 3, "{screen}");
    assert!(rows[0].starts_with("› gamma question"), "most recent first: {screen}");
    assert_eq!(rows[0].split_whitespace().rev().nth(1), Some("2"), "the message count, then the age: {screen}");
    assert!(rows[1].starts_with("  beta named"), "{screen}");
    assert!(rows[2].starts_with("  alpha question"), "{screen}");
    t.type_text("alpha");
    let screen = t.wait("the search", |sc| !sc.contains("gamma question"));
    assert!(screen.contains("› alpha question"), "{screen}");
    t.keys(&["Enter"]);
    let screen = t.wait("the UI with the old conversation", |sc| sc.contains("alpha answer") && idle(sc));
    assert!(!screen.contains("Resume Session"), "{screen}");
    t.type_text("go on");
    t.keys(&["Enter"]);
    t.wait("the answer", |sc| sc.contains("resumed answer") && idle(sc));
    let users = messages_of(&s.server, "user");
    assert_eq!(users.len(), 2, "{users:?}");
    assert!(
        users[0].contains("alpha question") && users[1].contains("go on"),
        "the chosen session's context: {users:?}"
    );
    let written = std::fs::read_to_string(&alpha).unwrap();
    assert!(written.contains("go on") && written.contains("resumed answer"), "continued in its own file");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

#[test]
fn resume_escape_selects_nothing_and_named_filter_hides_the_rest() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![]);
    write_session(&s, "aaaa-1111", 1, "alpha question", "alpha answer", None);
    write_session(&s, "bbbb-2222", 2, "beta question", "beta answer", Some("beta named"));
    let t = Tmux::start(100, 30, &command(&s, "--resume"));
    t.wait_for("alpha question");
    t.keys(&["C-n"]);
    let screen = t.wait("the named filter", |sc| !sc.contains("alpha question"));
    assert!(screen.contains("› beta named") && screen.contains("Name: Named"), "{screen}");
    t.keys(&["Escape"]);
    let screen = t.wait_for("PI-EXIT-0");
    assert!(screen.contains("No session selected"), "{screen}");
    assert!(s.server.requests().is_empty());
}

#[test]
fn slash_resume_switches_to_the_chosen_session() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::text("fresh answer"), Turn::text("resumed answer")]);
    let alpha = write_session(&s, "aaaa-1111", 1, "alpha question", "alpha answer", None);
    write_session(&s, "bbbb-2222", 2, "beta question", "beta answer", None);
    let t = Tmux::start(100, 30, &command(&s, ""));
    t.type_text("fresh prompt");
    t.keys(&["Enter"]);
    t.wait("the first answer", |sc| sc.contains("fresh answer") && idle(sc));
    t.type_text("/resume");
    t.keys(&["Enter"]);
    let screen = t.wait_for("Resume Session (Current Folder)");
    // The session just used is listed too (it has messages), most recent first.
    assert!(screen.contains("› fresh prompt"), "{screen}");
    t.type_text("alpha");
    t.wait("the search", |sc| sc.contains("› alpha question") && !sc.contains("beta question"));
    t.keys(&["Enter"]);
    let screen = t.wait("the resumed session", |sc| sc.contains("Resumed session") && idle(sc));
    assert!(screen.contains("alpha answer") && !screen.contains("fresh answer"), "{screen}");
    t.type_text("go on");
    t.keys(&["Enter"]);
    t.wait("the answer", |sc| sc.contains("resumed answer") && idle(sc));
    let users = messages_of(&s.server, "user");
    assert_eq!(users.len(), 2, "{users:?}");
    assert!(users[0].contains("alpha question") && users[1].contains("go on"), "the chosen context: {users:?}");
    let written = std::fs::read_to_string(&alpha).unwrap();
    assert!(written.contains("go on") && written.contains("resumed answer"), "continued in its own file");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}

/// `/resume` of a session made in another folder moves the run there, as
/// the reference does (docs/sessions.md): the next request's system prompt
/// has that folder's context file and path, and the footer shows it.
#[test]
#[ignore = "the picker lists only sessions of the current folder (no all-folders scope yet), so a session made elsewhere cannot be picked; RPC switch_session covers the move (session_cwd_e2e)"]
fn slash_resume_moves_to_the_sessions_folder() {
    if !have_tmux() {
        return;
    }
    let s = Scene::new(vec![Turn::text("fresh answer"), Turn::text("resumed answer")]);
    let there = s.tmp().join("elsewhere");
    std::fs::create_dir_all(&there).unwrap();
    std::fs::write(there.join("AGENTS.md"), "Rules of elsewhere").unwrap();
    std::fs::write(s.work().join("AGENTS.md"), "Rules of here").unwrap();
    let file = write_session(&s, "cccc-3333", 1, "far question", "far answer", None);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    lines[0]["cwd"] = json!(there.canonicalize().unwrap());
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let t = Tmux::start(100, 30, &command(&s, ""));
    t.type_text("fresh prompt");
    t.keys(&["Enter"]);
    t.wait("the first answer", |sc| sc.contains("fresh answer") && idle(sc));
    t.type_text("/resume");
    t.keys(&["Enter"]);
    t.wait_for("Resume Session (Current Folder)");
    t.type_text("far");
    t.wait("the search", |sc| sc.contains("› far question") && !sc.contains("fresh prompt"));
    t.keys(&["Enter"]);
    let screen = t.wait("the resumed session", |sc| sc.contains("Resumed session") && idle(sc));
    assert!(screen.contains("elsewhere"), "the footer shows the session's folder: {screen}");
    t.type_text("go on");
    t.keys(&["Enter"]);
    t.wait("the answer", |sc| sc.contains("resumed answer") && idle(sc));
    let requests = s.server.requests();
    let prompt = requests.last().unwrap().body["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(prompt.contains("Rules of elsewhere") && !prompt.contains("Rules of here"), "{prompt}");
    let first = requests[0].body["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(first.contains("Rules of here"), "the run started here: {first}");
    t.keys(&["C-d"]);
    t.wait_for("PI-EXIT-0");
}
