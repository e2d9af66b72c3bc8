//! End-to-end checkpoints (B11): the real `pi` runs a turn of `write`,
//! `edit` and `bash` (`sed -i`, `rm`, `mv`, `mkdir`, `rmdir`, `chmod`, `ln`) against
//! the mock model, and `pi checkpoints undo` brings every file back byte for
//! byte, leaving the project's own `.git` as it was; a file changed by the
//! user since the turn is refused by name; read-only turns make no
//! checkpoint; the off switch holds; RPC's `undo` restores and notes it in
//! the conversation.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::process::Output;

use crate::rpc_driver;

use pi_test_support::folders::{dot_git, git, tree_state as state};
use pi_test_support::{MockServer, Scratch, ToolCallSpec, Turn};
use rpc_driver::Rpc;
use serde_json::{Value, json};

/// A project under git (a commit, a stash) with files the turn will change.
fn project(work: &Path) {
    for (name, text) in [("a.txt", "alpha\n"), ("b.txt", "x marks\n"), ("c.txt", "removed\n"), ("d.txt", "moved\n")] {
        std::fs::write(work.join(name), text).unwrap();
    }
    std::fs::write(work.join("script.sh"), "echo hi\n").unwrap();
    std::fs::write(work.join("private.key"), "k\n").unwrap();
    std::fs::set_permissions(work.join("private.key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    std::fs::create_dir(work.join("empty")).unwrap();
    git(work, &["init", "-q"]);
    git(work, &["add", "."]);
    git(work, &["commit", "-qm", "start"]);
    std::fs::write(work.join("a.txt"), "stashed\n").unwrap();
    git(work, &["stash", "-q"]);
}

/// The turn: a write, an edit and one bash command changing many things.
fn changing_turn() -> Vec<Turn> {
    vec![
        Turn::tools(vec![
            ToolCallSpec::new("write", json!({"path": "new/file.txt", "content": "new\n"})),
            ToolCallSpec::new("edit", json!({"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "ALPHA"}]})),
            ToolCallSpec::new(
                "bash",
                json!({"command": "sed -i s/x/y/ b.txt && rm c.txt && mv d.txt e.txt && mkdir -p made/dir && chmod +x script.sh && ln -s a.txt link && rmdir empty && rm private.key"}),
            ),
        ]),
        Turn::text("done"),
    ]
}

fn pi(scratch: &Scratch, args: &[&str]) -> Output {
    scratch.pi(env!("CARGO_BIN_EXE_pi")).args(args).output().unwrap()
}

fn run_turn(scratch: &Scratch) {
    let out = pi(scratch, &["-p", "--offline", "--model", "mock/mock-1", "change things"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn list(scratch: &Scratch) -> Vec<Value> {
    let out = pi(scratch, &["checkpoints", "list", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

#[test]
fn a_turn_of_writes_edits_and_commands_is_undone_byte_for_byte() {
    let server = MockServer::start(changing_turn());
    let scratch = Scratch::new(&server);
    project(&scratch.work);
    let before = state(&scratch.work);
    let git_before = dot_git(&scratch.work);
    run_turn(&scratch);
    assert_ne!(state(&scratch.work), before, "the turn changed files");
    let turns = list(&scratch);
    assert_eq!(turns.len(), 1, "{turns:?}");
    let files: Vec<&str> = turns[0]["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    for f in ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "link", "new/file.txt", "script.sh"] {
        assert!(files.contains(&f), "{f} in {files:?}");
    }
    // `show` says what undoing the turn takes back, file by file.
    let shown = pi(&scratch, &["checkpoints", "show", turns[0]["id"].as_str().unwrap()]);
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    for line in [
        "changed: a.txt (undo: +1 -1)",
        "changed: c.txt (undo: back (+1 -0))",
        "changed: e.txt (undo: removed (+0 -1))",
    ] {
        assert!(shown.contains(line), "{line} in {shown}");
    }
    let out = pi(&scratch, &["checkpoints", "undo"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Restored "), "{}", String::from_utf8_lossy(&out.stdout));
    // Byte for byte, modes and removed empty folders included; the empty
    // folders the command made stay (an undo never removes what it cannot
    // tell was the turn's).
    let mut after = state(&scratch.work);
    assert_eq!(after.remove("made/"), Some(String::new()));
    assert_eq!(after.remove("made/dir/"), Some(String::new()));
    assert_eq!(after, before);
    assert_eq!(dot_git(&scratch.work), git_before, "the project's .git is untouched");
    // Nothing left to undo.
    let again = pi(&scratch, &["checkpoints", "undo"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("Nothing to undo"));
}

#[test]
fn a_file_the_user_changed_since_is_named_and_not_overwritten() {
    let server = MockServer::start(changing_turn());
    let scratch = Scratch::new(&server);
    project(&scratch.work);
    run_turn(&scratch);
    std::fs::write(scratch.work.join("a.txt"), "the user's edit\n").unwrap();
    let now = state(&scratch.work);
    let out = pi(&scratch, &["checkpoints", "undo"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Not restored: this file changed after the agent's turn: a.txt"), "{err}");
    assert_eq!(state(&scratch.work), now, "nothing written");
    let id = list(&scratch)[0]["id"].as_str().unwrap().to_string();
    let forced = pi(&scratch, &["checkpoints", "restore", &id[..12], "--force"]);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    assert_eq!(std::fs::read_to_string(scratch.work.join("a.txt")).unwrap(), "alpha\n");
}

#[test]
fn read_only_turns_make_no_checkpoint_and_the_off_switch_holds() {
    let server = MockServer::start(vec![Turn::tool("read", json!({"path": "a.txt"})), Turn::text("read it")]);
    let scratch = Scratch::new(&server);
    project(&scratch.work);
    run_turn(&scratch);
    assert!(list(&scratch).is_empty());

    let server = MockServer::start(changing_turn());
    let scratch = Scratch::new(&server);
    project(&scratch.work);
    std::fs::write(scratch.agent_dir().join("settings.json"), r#"{"checkpoints": {"enabled": false}}"#).unwrap();
    run_turn(&scratch);
    assert!(list(&scratch).is_empty());
    let bad = pi(&scratch, &["checkpoints", "restore", "--nope"]);
    assert_eq!(bad.status.code(), Some(2));
    let help = pi(&scratch, &["checkpoints", "--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("Usage: pi checkpoints list"));
    let bad_days = pi(&scratch, &["checkpoints", "prune", "--days", "soon"]);
    assert_eq!(bad_days.status.code(), Some(2));
    let pruned = pi(&scratch, &["checkpoints", "prune"]);
    assert!(pruned.status.success(), "{}", String::from_utf8_lossy(&pruned.stderr));
    assert_eq!(String::from_utf8_lossy(&pruned.stdout), "Dropped 0 sessions' checkpoints older than 14 days.\n");
    let unknown = pi(&scratch, &["checkpoints", "restore", "deadbeef"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("No checkpoint deadbeef"));
}

#[test]
fn rpc_undo_restores_the_turn_and_notes_it_in_the_conversation() {
    let server = MockServer::start(changing_turn());
    let scratch = Scratch::new(&server);
    project(&scratch.work);
    let before = state(&scratch.work);
    let mut rpc = Rpc::start(&scratch, &[]);
    let within = std::time::Duration::from_secs(30);
    let nothing = rpc.ask(json!({"type": "undo"}), within).unwrap();
    assert_eq!(nothing["success"], false);
    assert!(nothing["error"].as_str().unwrap().starts_with("Nothing to undo"), "{nothing}");
    rpc.ask(json!({"type": "prompt", "message": "change things"}), within).unwrap();
    rpc.find(within, |e| e["type"] == "agent_end").expect("the run ends");
    let bad = rpc.ask(json!({"type": "undo", "force": "yes"}), within).unwrap();
    assert_eq!(bad["success"], false, "{bad}");
    // What an undo would change, before anything is written.
    let changed_by_turn = state(&scratch.work);
    let preview = rpc.ask(json!({"type": "undo", "dryRun": true}), within).unwrap();
    assert_eq!(preview["success"], true, "{preview}");
    assert_eq!(preview["data"]["dryRun"], true, "{preview}");
    let files = preview["data"]["files"].as_array().unwrap();
    let a = files.iter().find(|f| f["path"] == "a.txt").expect("a.txt would change");
    assert_eq!((a["change"].as_str(), a["added"].as_u64(), a["removed"].as_u64()), (Some("written"), Some(1), Some(1)));
    let new = files.iter().find(|f| f["path"] == "new/file.txt").expect("the new file would go");
    assert_eq!(new["change"], "removed", "{preview}");
    let gone = files.iter().find(|f| f["path"] == "c.txt").expect("the removed file would come back");
    assert_eq!(gone["change"], "recreated", "{preview}");
    assert_eq!(state(&scratch.work), changed_by_turn, "a dry run writes nothing");
    let undone = rpc.ask(json!({"type": "undo"}), within).unwrap();
    assert_eq!(undone["success"], true, "{undone}");
    let restored: Vec<&str> =
        undone["data"]["restored"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert!(restored.contains(&"a.txt") && restored.contains(&"new/file.txt"), "{undone}");
    let mut after = state(&scratch.work);
    after.remove("made/");
    after.remove("made/dir/");
    assert_eq!(after, before);
    let messages = rpc.ask(json!({"type": "get_messages"}), within).unwrap();
    let last = messages["data"]["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "custom", "{last}");
    assert_eq!(last["customType"], "checkpoint-restore");
    assert!(last["content"].as_str().unwrap().contains("a.txt"), "{last}");
    rpc.close_and_wait(within);
}

#[test]
fn two_sessions_in_one_folder_keep_their_own_checkpoints() {
    let turn = |path: &str| {
        vec![
            Turn::tool("write", json!({"path": path, "content": format!("{path} from its session\n")})),
            Turn::text("done"),
        ]
    };
    let first = MockServer::start(turn("one.txt"));
    let second = MockServer::start(turn("two.txt"));
    let scratch = Scratch::new(&first);
    project(&scratch.work);
    // One session's turn, then another's in the same folder.
    let one = pi(&scratch, &["-p", "--offline", "--model", "mock/mock-1", "one"]);
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    second.write_models_json(&scratch.agent_dir(), "openai-completions");
    let two = pi(&scratch, &["-p", "--offline", "--model", "mock/mock-1", "two"]);
    assert!(two.status.success(), "{}", String::from_utf8_lossy(&two.stderr));
    let turns = list(&scratch);
    assert_eq!(turns.len(), 2, "{turns:?}");
    let session_of = |file: &str| {
        turns.iter().find(|t| t["files"] == json!([file])).unwrap_or_else(|| panic!("{file}: {turns:?}"))["session"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (s1, s2) = (session_of("one.txt"), session_of("two.txt"));
    assert_ne!(s1, s2);
    let out = pi(&scratch, &["checkpoints", "undo", "--session", &s1]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!scratch.work.join("one.txt").exists(), "the first session's file is undone");
    assert!(scratch.work.join("two.txt").exists(), "the second session's file stays");
}

#[test]
fn extensions_may_cancel_a_restore_and_hear_of_it() {
    let server = MockServer::start(changing_turn());
    let scratch = Scratch::new(&server);
    project(&scratch.work);
    let heard = scratch.tmp.join("heard.json");
    let ext = scratch.tmp.join("restore.ts");
    std::fs::write(
        &ext,
        format!(
            r#"import {{ writeFileSync }} from "node:fs";
let asked = 0;
export default function (pi: any) {{
  pi.on("session_before_restore", (e: any) => {{
    asked += 1;
    if (asked === 1) return {{ cancel: true }};
  }});
  pi.on("session_restore", (e: any) => {{ writeFileSync({heard:?}, JSON.stringify(e)); }});
}}
"#,
            heard = heard.display().to_string()
        ),
    )
    .unwrap();
    let mut rpc = Rpc::start(&scratch, &["-e", ext.to_str().unwrap()]);
    let within = std::time::Duration::from_secs(30);
    rpc.ask(json!({"type": "prompt", "message": "change things"}), within).unwrap();
    rpc.find(within, |e| e["type"] == "agent_end").expect("the run ends");
    let changed = state(&scratch.work);
    let cancelled = rpc.ask(json!({"type": "undo"}), within).unwrap();
    assert_eq!(cancelled["success"], false, "{cancelled}");
    assert_eq!(cancelled["error"], "Restore cancelled by an extension.");
    assert_eq!(state(&scratch.work), changed, "nothing restored");
    assert!(!heard.exists());
    let undone = rpc.ask(json!({"type": "undo"}), within).unwrap();
    assert_eq!(undone["success"], true, "{undone}");
    let told: Value = serde_json::from_str(&std::fs::read_to_string(&heard).unwrap()).unwrap();
    assert_eq!(told["type"], "session_restore");
    assert_eq!(told["reason"], "undo");
    assert_eq!(told["checkpoint"], undone["data"]["checkpoint"]);
    assert!(told["restored"].as_array().unwrap().contains(&json!("a.txt")), "{told}");
    rpc.close_and_wait(within);
}

/// A store that cannot be written (files over 8 KB refused, as on a full
/// disk: `ulimit -f`): the checkpoint fails and says so once, the turn runs,
/// nothing of the project is lost.
#[test]
fn a_store_that_cannot_be_written_leaves_the_turn_running_and_says_so() {
    let server = MockServer::start(vec![
        Turn::tool("write", json!({"path": "out.txt", "content": "written\n"})),
        Turn::tool("edit", json!({"path": "f-7.txt", "edits": [{"oldText": "line 7", "newText": "line seven"}]})),
        Turn::text("done"),
    ]);
    let scratch = Scratch::new(&server);
    // Enough files that the store's index outgrows the limit.
    for i in 0..400 {
        std::fs::write(scratch.work.join(format!("f-{i}.txt")), format!("line {i}\n")).unwrap();
    }
    let before = state(&scratch.work);
    let limited = "trap '' XFSZ; ulimit -f 16; exec \"$0\" \"$@\"";
    let out = scratch
        .pi("sh")
        .args([
            "-c",
            limited,
            env!("CARGO_BIN_EXE_pi"),
            "-p",
            "--offline",
            "--no-session",
            "--model",
            "mock/mock-1",
            "go",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("done"));
    assert_eq!(stderr.matches("Checkpoint failed (").count(), 1, "told once: {stderr}");
    assert!(stderr.contains("this turn's changes cannot be undone"), "{stderr}");
    // The turn ran; nothing else changed.
    let mut after = state(&scratch.work);
    assert_eq!(after.remove("out.txt").as_deref(), Some("644 written\n"));
    assert_eq!(after.insert("f-7.txt".into(), before["f-7.txt"].clone()).as_deref(), Some("644 line seven\n"));
    assert_eq!(after, before);
}

#[test]
fn rpc_rewind_moves_the_conversation_and_brings_the_files_back() {
    let server = MockServer::start(changing_turn());
    let scratch = Scratch::new(&server);
    project(&scratch.work);
    let before = state(&scratch.work);
    let mut rpc = Rpc::start(&scratch, &[]);
    let within = std::time::Duration::from_secs(30);
    rpc.ask(json!({"type": "prompt", "message": "change things"}), within).unwrap();
    rpc.find(within, |e| e["type"] == "agent_end").expect("the run ends");
    let forks = rpc.ask(json!({"type": "get_fork_messages"}), within).unwrap();
    let entry = forks["data"]["messages"][0]["entryId"].as_str().unwrap_or_else(|| panic!("{forks}")).to_string();
    let missing = rpc.ask(json!({"type": "rewind"}), within).unwrap();
    assert_eq!(missing["success"], false, "{missing}");
    assert!(missing["error"].as_str().unwrap().contains("entryId"), "{missing}");
    let unknown = rpc.ask(json!({"type": "rewind", "entryId": "nope"}), within).unwrap();
    assert_eq!(unknown["success"], false, "{unknown}");
    let done = rpc.ask(json!({"type": "rewind", "entryId": entry}), within).unwrap();
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["data"]["cancelled"], false);
    assert_eq!(done["data"]["editorText"], "change things");
    let restored = done["data"]["restored"]["restored"].as_array().unwrap_or_else(|| panic!("{done}"));
    assert!(restored.contains(&json!("a.txt")), "{done}");
    let mut after = state(&scratch.work);
    after.remove("made/");
    after.remove("made/dir/");
    assert_eq!(after, before);
    // The conversation is back before the prompt (the system prompt's record); the note of the restore follows.
    let messages = rpc.ask(json!({"type": "get_messages"}), within).unwrap();
    let roles: Vec<&str> =
        messages["data"]["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "custom"], "{messages}");
    rpc.close_and_wait(within);
}
