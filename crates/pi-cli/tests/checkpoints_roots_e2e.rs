#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
//! Checkpoints cover the sandbox's writable roots outside the working folder
//! (B11): under `workspace-write` with a `writableRoots` folder elsewhere, a
//! turn that changes files there and in the folder is undone in both; what
//! would change names the root's files by their full path; a file of the
//! root changed since the turn stops the whole undo (nothing written
//! anywhere) until forced.

use crate::rpc_driver;

use pi_test_support::{MockServer, Scratch, ToolCallSpec, Turn};
use rpc_driver::Rpc;
use serde_json::json;

#[test]
fn a_turn_in_a_writable_root_outside_the_folder_is_undone_with_the_folder() {
    let root_dir = tempfile::tempdir().unwrap();
    let root = root_dir.path().join("shared");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("keep.txt"), "alpha\n").unwrap();
    let new = root.join("new.txt");
    let server = MockServer::start(vec![
        Turn::tools(vec![
            ToolCallSpec::new("write", json!({"path": new.to_string_lossy(), "content": "made\n"})),
            ToolCallSpec::new(
                "edit",
                json!({"path": root.join("keep.txt").to_string_lossy(), "edits": [{"oldText": "alpha", "newText": "ALPHA"}]}),
            ),
            ToolCallSpec::new("write", json!({"path": "a.txt", "content": "changed\n"})),
        ]),
        Turn::text("done"),
    ]);
    let scratch = Scratch::new(&server);
    std::fs::write(scratch.work.join("a.txt"), "original\n").unwrap();
    let settings = json!({"sandbox": {"writableRoots": [root.to_string_lossy()]}});
    let agent = scratch.home.join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
    let mut rpc = Rpc::start(&scratch, &["--sandbox", "workspace-write"]);
    let within = std::time::Duration::from_secs(30);
    rpc.ask(json!({"type": "prompt", "message": "change things"}), within).unwrap();
    rpc.find(within, |e| e["type"] == "agent_end").expect("the run ends");
    assert_eq!(std::fs::read_to_string(root.join("keep.txt")).unwrap(), "ALPHA\n", "the turn ran");
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "made\n");

    let preview = rpc.ask(json!({"type": "undo", "dryRun": true}), within).unwrap();
    let files: Vec<String> =
        preview["data"]["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
    let keep = root.join("keep.txt").display().to_string();
    assert!(files.contains(&"a.txt".to_string()), "{preview}");
    assert!(files.contains(&keep) && files.contains(&new.display().to_string()), "{preview}");

    // Changed since the turn in the root: nothing is written anywhere.
    std::fs::write(root.join("keep.txt"), "the user's\n").unwrap();
    let refused = rpc.ask(json!({"type": "undo"}), within).unwrap();
    assert_eq!(refused["success"], false, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains(&keep), "{refused}");
    assert_eq!(std::fs::read_to_string(scratch.work.join("a.txt")).unwrap(), "changed\n");
    assert!(new.exists());

    let undone = rpc.ask(json!({"type": "undo", "force": true}), within).unwrap();
    assert_eq!(undone["success"], true, "{undone}");
    assert_eq!(std::fs::read_to_string(scratch.work.join("a.txt")).unwrap(), "original\n");
    assert_eq!(std::fs::read_to_string(root.join("keep.txt")).unwrap(), "alpha\n");
    assert!(!new.exists(), "the file the turn made in the root is gone");
    let restored = undone["data"]["restored"].to_string();
    assert!(restored.contains(&keep), "{restored}");
    rpc.close_and_wait(within);
}
