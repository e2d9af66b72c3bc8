//! The shadow store through its API: a turn's changes are undone byte for
//! byte (contents, executable bits, symlinks, new, deleted and moved files,
//! folders the turn made), the project's own `.git` is never touched, a
//! file changed after the turn is not overwritten unless forced, sessions
//! keep their own checkpoints, and files that cannot be kept are named.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use pi_checkpoints::{CheckpointError, Kind, Record, Store, undo};
use pi_test_support::folders::{dot_git as git_folder, git, tree_state as state};

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A project with a git repository of its own (a commit, a stash, a hook).
fn project() -> (tempfile::TempDir, tempfile::TempDir) {
    let agent = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    write(w, "a.txt", "alpha\n");
    write(w, "b.txt", "bravo\n");
    write(w, "run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(w.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    write(w, "private.txt", "mine\n");
    std::fs::set_permissions(w.join("private.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    symlink("a.txt", w.join("link")).unwrap();
    write(w, "src/lib.rs", "fn main() {}\n");
    write(w, "gone.txt", "to be removed\n");
    write(w, "same-1.txt", "twins\n");
    write(w, "same-2.txt", "twins\n");
    write(w, ".gitignore", "target/\n");
    write(w, "target/out.bin", "built\n");
    git(w, &["init", "-q"]);
    git(w, &["add", "."]);
    git(w, &["commit", "-qm", "first"]);
    write(w, "a.txt", "alpha, stashed edit\n");
    git(w, &["stash", "-q"]);
    write(w, ".git/hooks/pre-commit", "#!/bin/sh\nexit 1\n");
    (agent, work)
}

/// The agent's turn: edits, a new file in new folders, a removal, a move,
/// a mode change, a retargeted symlink, and a build output (ignored).
fn turn(w: &Path) {
    write(w, "a.txt", "alpha, changed by the agent\n");
    write(w, "new/deep/file.txt", "new\n");
    std::fs::remove_file(w.join("gone.txt")).unwrap();
    std::fs::rename(w.join("b.txt"), w.join("src/b.txt")).unwrap();
    std::fs::set_permissions(w.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(w.join("link")).unwrap();
    symlink("src/lib.rs", w.join("link")).unwrap();
    write(w, "private.txt", "mine, changed\n");
    write(w, "same-1.txt", "no longer twins\n");
    write(w, "same-2.txt", "\n");
    write(w, "target/out.bin", "rebuilt\n");
}

#[test]
fn a_turn_is_undone_byte_for_byte_and_the_projects_git_is_untouched() {
    let (agent, work) = project();
    let w = work.path();
    let store = Store::open(agent.path(), w, 10).unwrap();
    let mut original = state(w);
    let dot_git = git_folder(w);
    let before = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    turn(w);
    store.snapshot(Record { of: Some(before.id.clone()), ..Record::new(Kind::After, "s1") }).unwrap();
    let (undone, restored) = undo(&store, "s1", false).unwrap();
    assert_eq!(undone.before.id, before.id);
    // The ignored build output is not the checkpoint's: it stays as the turn left it.
    original.insert("target/out.bin".into(), "644 rebuilt\n".into());
    assert_eq!(state(w), original);
    assert_eq!(git_folder(w), dot_git, "the project's .git is as it was");
    assert!(restored.removed.contains(&"new/deep/file.txt".to_string()), "{restored:?}");
    assert!(restored.written.contains(&"gone.txt".to_string()), "{restored:?}");
    assert!(!store.dir().starts_with(w), "the store is outside the project");
    // Undone once: nothing left to undo; the restore itself is a checkpoint.
    assert!(matches!(undo(&store, "s1", false), Err(CheckpointError::NothingToUndo)));
    let kinds: Vec<Kind> = store.history("s1").unwrap().iter().map(|s| s.record.kind).collect();
    assert_eq!(kinds, [Kind::Before, Kind::After, Kind::Restore, Kind::Restored]);
}

#[test]
fn a_file_changed_after_the_turn_is_not_overwritten_unless_forced() {
    let (agent, work) = project();
    let w = work.path();
    let store = Store::open(agent.path(), w, 10).unwrap();
    let before = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    turn(w);
    store.snapshot(Record { of: Some(before.id.clone()), ..Record::new(Kind::After, "s1") }).unwrap();
    write(w, "a.txt", "the user's own edit\n");
    let now = state(w);
    match undo(&store, "s1", false) {
        Err(CheckpointError::ChangedSince(paths)) => assert_eq!(paths, ["a.txt"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(state(w), now, "nothing written");
    let message = CheckpointError::ChangedSince(vec!["a.txt".into()]).to_string();
    assert!(message.contains("a.txt") && message.contains("--force"), "{message}");
    undo(&store, "s1", true).unwrap();
    assert_eq!(std::fs::read_to_string(w.join("a.txt")).unwrap(), "alpha\n");
    // What was there before the forced restore is a checkpoint: the user's edit is kept there.
    let kept = store.history("s1").unwrap().into_iter().rev().find(|s| s.record.kind == Kind::Restore).unwrap();
    assert!(store.changes(&before.id, &kept.id).unwrap().contains(&"a.txt".to_string()));
}

#[test]
fn sessions_keep_their_own_checkpoints_and_later_turns_undo_first() {
    let (agent, work) = project();
    let w = work.path();
    let store = Store::open(agent.path(), w, 10).unwrap();
    let other = Store::open(agent.path(), w, 10).unwrap();
    for (n, text) in ["one", "two"].iter().enumerate() {
        let b = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
        write(w, "a.txt", text);
        store.snapshot(Record { of: Some(b.id), ..Record::new(Kind::After, "s1") }).unwrap();
        let b2 = other.snapshot(Record::new(Kind::Before, "s2")).unwrap();
        write(w, &format!("s2-{n}.txt"), "from the other session");
        other.snapshot(Record { of: Some(b2.id), ..Record::new(Kind::After, "s2") }).unwrap();
    }
    assert_eq!(store.turns("s1").unwrap().len(), 2);
    assert_eq!(store.turns("s2").unwrap().len(), 2);
    undo(&store, "s1", false).unwrap();
    assert_eq!(std::fs::read_to_string(w.join("a.txt")).unwrap(), "one");
    assert!(w.join("s2-1.txt").exists(), "the other session's files are its own");
    undo(&store, "s1", false).unwrap();
    assert_eq!(std::fs::read_to_string(w.join("a.txt")).unwrap(), "alpha\n");
    undo(&other, "s2", false).unwrap();
    assert!(!w.join("s2-1.txt").exists() && w.join("s2-0.txt").exists());
}

#[test]
fn files_too_large_or_unreadable_are_left_out_and_named() {
    let (agent, work) = project();
    let w = work.path();
    let store = Store::open(agent.path(), w, 1).unwrap();
    std::fs::write(w.join("big.bin"), vec![7u8; 2 * 1024 * 1024]).unwrap();
    write(w, "secret.txt", "no");
    std::fs::set_permissions(w.join("secret.txt"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = std::fs::File::open(w.join("secret.txt")).is_ok(); // root reads everything
    let before = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    let skipped: Vec<&str> = before.record.skipped.iter().map(|s| s.path.as_str()).collect();
    assert!(skipped.contains(&"big.bin"), "{skipped:?}");
    assert!(before.record.skipped.iter().any(|s| s.reason.contains("larger than 1 MB")));
    assert_eq!(skipped.contains(&"secret.txt"), !readable_anyway, "{skipped:?}");
    std::fs::remove_file(w.join("big.bin")).unwrap();
    write(w, "a.txt", "changed");
    store.snapshot(Record { of: Some(before.id.clone()), ..Record::new(Kind::After, "s1") }).unwrap();
    let (_, restored) = undo(&store, "s1", false).unwrap();
    assert_eq!(restored.not_restorable, ["big.bin"]);
    assert_eq!(std::fs::read_to_string(w.join("a.txt")).unwrap(), "alpha\n");
    std::fs::set_permissions(w.join("secret.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn unknown_ids_and_sessions_are_answered_plainly() {
    let (agent, work) = project();
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    assert!(store.history("nobody").unwrap().is_empty());
    assert!(matches!(undo(&store, "nobody", false), Err(CheckpointError::NothingToUndo)));
    let e = store.find("0123456789abcdef").unwrap_err();
    assert!(e.to_string().contains("No checkpoint 0123456789abcdef"), "{e}");
    let e = store.find("--help").unwrap_err();
    assert!(matches!(e, CheckpointError::NotFound(_)), "{e}");
}

#[test]
fn a_store_inside_the_folder_is_not_kept_and_home_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    write(w, "a.txt", "alpha\n");
    let agent = w.join(".pi/agent");
    let store = Store::open(&agent, w, 10).unwrap();
    let first = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    let second = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    assert!(store.changes(&first.id, &second.id).unwrap().is_empty(), "the store's own files are not in it");
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap();
    if home.canonicalize().is_ok() {
        assert!(matches!(Store::open(&agent, &home, 10), Err(CheckpointError::TooBroad(_))));
    }
    assert!(matches!(Store::open(&agent, Path::new("/"), 10), Err(CheckpointError::TooBroad(_))));
}

#[test]
fn pruning_drops_only_sessions_older_than_the_limit() {
    let (agent, work) = project();
    let store = Store::open(agent.path(), work.path(), 10).unwrap();
    store.snapshot(Record::new(Kind::Before, "old")).unwrap();
    store.snapshot(Record::new(Kind::Before, "recent")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2200));
    store.snapshot(Record::new(Kind::Before, "recent")).unwrap();
    assert!(store.prune(1).unwrap().is_empty(), "nothing is a day old");
    // "old" is two seconds old and more; "recent" less than one (whole seconds count).
    assert_eq!(store.prune_older_than(std::time::Duration::from_secs(1)).unwrap(), ["old"]);
    assert!(store.history("old").unwrap().is_empty());
    assert_eq!(store.history("recent").unwrap().len(), 2);
    assert_eq!(store.sessions().unwrap(), ["recent"]);
}

#[test]
fn permission_bits_and_empty_folders_come_back_as_they_were() {
    let agent = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    write(w, "secret.key", "k\n");
    std::fs::set_permissions(w.join("secret.key"), std::fs::Permissions::from_mode(0o600)).unwrap();
    write(w, "tool.sh", "#!/bin/sh\n");
    std::fs::set_permissions(w.join("tool.sh"), std::fs::Permissions::from_mode(0o700)).unwrap();
    write(w, "shared.txt", "s\n");
    std::fs::set_permissions(w.join("shared.txt"), std::fs::Permissions::from_mode(0o664)).unwrap();
    write(w, "plain.txt", "p\n");
    std::fs::set_permissions(w.join("plain.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::create_dir_all(w.join("keep/inner")).unwrap();
    std::fs::create_dir_all(w.join("cache")).unwrap();
    let original = state(w);
    let store = Store::open(agent.path(), w, 10).unwrap();
    let before = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    // The turn: a private file removed, modes changed without touching the
    // contents, empty folders removed and made.
    std::fs::remove_file(w.join("secret.key")).unwrap();
    std::fs::set_permissions(w.join("tool.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(w.join("shared.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    // git's modes (644, 755) do not tell 644 from 600: the stat data does
    // (its change time, in whole seconds).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::set_permissions(w.join("plain.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::remove_dir_all(w.join("keep")).unwrap();
    std::fs::remove_dir(w.join("cache")).unwrap();
    std::fs::create_dir_all(w.join("made/empty/deeper")).unwrap();
    store.snapshot(Record { of: Some(before.id.clone()), ..Record::new(Kind::After, "s1") }).unwrap();
    assert_ne!(state(w), original);
    let (_, restored) = undo(&store, "s1", false).unwrap();
    // The empty folders the turn made stay: an undo never removes what it
    // cannot tell was the turn's.
    let mut now = state(w);
    for made in ["made/", "made/empty/", "made/empty/deeper/"] {
        assert_eq!(now.remove(made), Some(String::new()), "{made}");
    }
    assert_eq!(now, original, "{restored:?}");
    assert!(restored.written.contains(&"keep/inner/".to_string()), "{restored:?}");
    // The reserved file of the snapshot's metadata never reaches the folder or the lists.
    assert!(!w.join(".pi-checkpoint-meta").exists());
    assert!(
        !store
            .changes(&before.id, &restored.previous.clone().unwrap())
            .unwrap()
            .iter()
            .any(|p| p.contains("pi-checkpoint"))
    );
}

#[test]
fn a_two_gigabyte_file_is_left_out_and_named_without_being_read() {
    let (agent, work) = project();
    let w = work.path();
    // Sparse: 2 GB to the folder, nothing on the disk.
    let big = std::fs::File::create(w.join("huge.bin")).unwrap();
    big.set_len(2 * 1024 * 1024 * 1024).unwrap();
    drop(big);
    let store = Store::open(agent.path(), w, 10).unwrap();
    let started = std::time::Instant::now();
    let before = store.snapshot(Record::new(Kind::Before, "s1")).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "not read: {:?}", started.elapsed());
    let skipped = &before.record.skipped;
    assert!(skipped.iter().any(|s| s.path == "huge.bin" && s.reason.contains("larger than 10 MB")), "{skipped:?}");
    // The turn removes it and changes a file: the file comes back, the big one is named.
    std::fs::remove_file(w.join("huge.bin")).unwrap();
    write(w, "a.txt", "changed");
    store.snapshot(Record { of: Some(before.id.clone()), ..Record::new(Kind::After, "s1") }).unwrap();
    let (_, restored) = undo(&store, "s1", false).unwrap();
    assert_eq!(restored.not_restorable, ["huge.bin"]);
    assert_eq!(std::fs::read_to_string(w.join("a.txt")).unwrap(), "alpha\n");
}
