//! The trust store `<agent-dir>/trust.json` (requirement P3, reference §8.1).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pi_config::trust::{LOCK_WAIT_LIMIT, TrustEntry, TrustError, TrustStore, canonical_dir};

fn setup() -> (tempfile::TempDir, PathBuf, TrustStore) {
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    let agent = root.join("agent");
    let store = TrustStore::new(&agent);
    (t, root, store)
}

fn mkdir(p: &Path) -> PathBuf {
    fs::create_dir_all(p).unwrap();
    p.to_path_buf()
}

#[test]
fn missing_store_is_no_decision_and_reading_creates_nothing() {
    let (_t, root, store) = setup();
    assert_eq!(store.get(&root).unwrap(), None);
    assert!(!root.join("agent").exists(), "a read must not create the agent dir");
    fs::create_dir_all(root.join("agent")).unwrap();
    assert_eq!(store.get_entry(&root).unwrap(), None);
    assert!(!store.path().exists());
    assert!(!store.lock_path().exists(), "the lock file is gone after use");
}

#[test]
fn nearest_decided_ancestor_wins() {
    let (_t, root, store) = setup();
    let a = mkdir(&root.join("a"));
    let b = mkdir(&a.join("b"));
    let c = mkdir(&b.join("c"));
    store.set(&a, Some(true)).unwrap();
    assert_eq!(store.get_entry(&c).unwrap(), Some(TrustEntry { path: a.clone(), decision: true }));
    store.set(&b, Some(false)).unwrap();
    // A child's false beats a parent's true.
    assert_eq!(store.get_entry(&c).unwrap(), Some(TrustEntry { path: b.clone(), decision: false }));
    assert_eq!(store.get(&a).unwrap(), Some(true));
    assert_eq!(store.get(&root).unwrap(), None);
    // null deletes; the parent's decision shows through again.
    store.set(&b, None).unwrap();
    assert_eq!(store.get(&c).unwrap(), Some(true));
}

#[test]
fn written_sorted_pretty_with_trailing_newline_and_nulls_dropped() {
    let (_t, root, store) = setup();
    let z = mkdir(&root.join("z"));
    let a = mkdir(&root.join("a"));
    let m = mkdir(&root.join("m"));
    store.set_many(&[(z.clone(), Some(true)), (a.clone(), Some(false)), (m.clone(), Some(true))]).unwrap();
    store.set_many(&[(m.clone(), None)]).unwrap();
    let text = fs::read_to_string(store.path()).unwrap();
    assert_eq!(text, format!("{{\n  \"{}\": false,\n  \"{}\": true\n}}\n", a.display(), z.display()));
    // A null written by hand is accepted on read and dropped by the next write.
    fs::write(store.path(), format!("{{\"{}\": null, \"{}\": true}}", z.display(), a.display())).unwrap();
    assert_eq!(store.get(&z).unwrap(), None);
    store.set(&m, Some(false)).unwrap();
    let text = fs::read_to_string(store.path()).unwrap();
    assert_eq!(text, format!("{{\n  \"{}\": true,\n  \"{}\": false\n}}\n", a.display(), m.display()));
    // Deleting everything leaves an empty object.
    store.set_many(&[(a, None), (m, None)]).unwrap();
    assert_eq!(fs::read_to_string(store.path()).unwrap(), "{}\n");
}

#[test]
fn keys_are_canonical_directories() {
    let (_t, root, store) = setup();
    let real = mkdir(&root.join("real"));
    #[cfg(unix)]
    {
        let link = root.join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        store.set(&link, Some(true)).unwrap();
        let text = fs::read_to_string(store.path()).unwrap();
        assert!(text.contains(&format!("\"{}\"", real.display())), "{text}");
        assert!(!text.contains("link"), "{text}");
        // And a lookup through the link finds it.
        assert_eq!(store.get_entry(&link.join(".")).unwrap(), Some(TrustEntry { path: real.clone(), decision: true }));
    }
    // A folder that does not exist is kept as its normalised absolute path.
    let ghost = root.join("ghost/./x/..");
    store.set(&ghost, Some(false)).unwrap();
    let text = fs::read_to_string(store.path()).unwrap();
    assert!(text.contains(&format!("\"{}\": false", root.join("ghost").display())), "{text}");
    // `~` means $HOME.
    if let Some(home) = std::env::var_os("HOME") {
        assert_eq!(canonical_dir(Path::new("~")), canonical_dir(Path::new(&home)));
    }
}

#[test]
fn bom_is_stripped() {
    let (_t, root, store) = setup();
    fs::create_dir_all(root.join("agent")).unwrap();
    fs::write(store.path(), format!("\u{feff}{{\"{}\": true}}", root.display())).unwrap();
    assert_eq!(store.get(&root).unwrap(), Some(true));
}

#[test]
fn corruption_fails_closed_with_exact_messages() {
    let (_t, root, store) = setup();
    fs::create_dir_all(root.join("agent")).unwrap();
    let p = store.path().display().to_string();

    fs::write(store.path(), "{").unwrap();
    let e = store.get(&root).unwrap_err();
    assert!(matches!(e, TrustError::Read { .. }));
    assert_eq!(
        e.to_string(),
        format!("Failed to read trust store {p}: EOF while parsing an object at line 1 column 1")
    );

    fs::write(store.path(), "").unwrap();
    assert!(store.get(&root).unwrap_err().to_string().starts_with(&format!("Failed to read trust store {p}: ")));

    fs::write(store.path(), "[]").unwrap();
    assert_eq!(store.get(&root).unwrap_err().to_string(), format!("Invalid trust store {p}: expected an object"));
    fs::write(store.path(), "null").unwrap();
    assert_eq!(store.get(&root).unwrap_err().to_string(), format!("Invalid trust store {p}: expected an object"));

    fs::write(store.path(), "{\"/a\": true, \"/q\\\"x\": \"yes\"}").unwrap();
    assert_eq!(
        store.get(&root).unwrap_err().to_string(),
        format!("Invalid trust store {p}: value for \"/q\\\"x\" must be true, false, or null")
    );
    // Any folder, decided or not, fails: the whole store is unusable.
    assert!(store.get(Path::new("/a")).is_err());
    // A write refuses too and leaves the file as it was.
    assert!(store.set(&root, Some(true)).is_err());
    assert_eq!(fs::read_to_string(store.path()).unwrap(), "{\"/a\": true, \"/q\\\"x\": \"yes\"}");

    fs::write(store.path(), "{\"/a\": 1}").unwrap();
    assert_eq!(
        store.get(&root).unwrap_err().to_string(),
        format!("Invalid trust store {p}: value for \"/a\" must be true, false, or null")
    );
}

#[test]
fn an_unreadable_store_fails_closed() {
    let (_t, root, store) = setup();
    // A folder where the file should be: reading it fails on every system,
    // also as root (permission tricks would not).
    fs::create_dir_all(store.path()).unwrap();
    let e = store.get(&root).unwrap_err().to_string();
    assert!(e.starts_with(&format!("Failed to read trust store {}: ", store.path().display())), "{e}");
}

#[test]
fn a_busy_lock_is_retried_then_reported() {
    let (_t, root, store) = setup();
    fs::create_dir_all(root.join("agent")).unwrap();
    store.set(&root, Some(true)).unwrap();
    // The reference's proper-lockfile lock is a directory at the same path; a
    // fresh one counts as held.
    fs::create_dir(store.lock_path()).unwrap();
    let started = Instant::now();
    let e = store.get(&root).unwrap_err();
    let waited = started.elapsed();
    assert_eq!(e.to_string(), format!("Failed to acquire trust store lock {}", store.lock_path().display()));
    assert!(waited >= LOCK_WAIT_LIMIT, "{waited:?}");
    assert!(waited < LOCK_WAIT_LIMIT + Duration::from_secs(3), "{waited:?}");
    fs::remove_dir(store.lock_path()).unwrap();
    assert_eq!(store.get(&root).unwrap(), Some(true));
}

#[test]
fn concurrent_handles_lose_no_decision_and_readers_see_whole_files() {
    let (_t, root, _) = setup();
    let agent = root.join("agent");
    let dirs = root.join("dirs");
    const THREADS: usize = 8;
    const EACH: usize = 50;
    for t in 0..THREADS {
        for i in 0..EACH {
            fs::create_dir_all(dirs.join(format!("t{t}-{i}"))).unwrap();
        }
    }
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let path = agent.join("trust.json");
        let done = done.clone();
        std::thread::spawn(move || {
            let mut reads = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(text) = fs::read_to_string(&path) {
                    let v: serde_json::Value =
                        serde_json::from_str(&text).unwrap_or_else(|e| panic!("partial file: {e}: {text:?}"));
                    assert!(v.is_object());
                    reads += 1;
                }
            }
            reads
        })
    };
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let agent = agent.clone();
            let dirs = dirs.clone();
            std::thread::spawn(move || {
                for i in 0..EACH {
                    // A fresh handle each time, as separate processes would have.
                    let store = TrustStore::new(&agent);
                    store.set(&dirs.join(format!("t{t}-{i}")), Some(i.is_multiple_of(2))).unwrap();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads = reader.join().unwrap();
    assert!(reads > 0);
    let entries = TrustStore::new(&agent).entries().unwrap();
    assert_eq!(entries.len(), THREADS * EACH);
    for (p, d) in entries {
        let i: usize = p.file_name().unwrap().to_string_lossy().rsplit('-').next().unwrap().parse().unwrap();
        assert_eq!(d, i.is_multiple_of(2), "{}", p.display());
    }
}

/// A read-only agent dir (e.g. mounted read-only into a container): reads work
/// without the lock file, writes fail with a clear message. Root ignores the
/// permission bits, so the test skips itself when it can write anyway.
#[cfg(unix)]
#[test]
fn a_read_only_agent_dir_can_still_be_read() {
    use std::os::unix::fs::PermissionsExt;
    let (_t, root, store) = setup();
    let agent = root.join("agent");
    fs::create_dir_all(&agent).unwrap();
    store.set(&root, Some(true)).unwrap();
    fs::set_permissions(&agent, fs::Permissions::from_mode(0o555)).unwrap();
    let probe = agent.join("probe");
    if fs::write(&probe, "").is_ok() {
        let _ = fs::remove_file(&probe);
        fs::set_permissions(&agent, fs::Permissions::from_mode(0o755)).unwrap();
        eprintln!("skipped: running with privileges that ignore permission bits");
        return;
    }
    let got = store.get(&root);
    let put = store.set(&root, Some(false));
    fs::set_permissions(&agent, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(got.unwrap(), Some(true));
    let e = put.unwrap_err().to_string();
    assert!(e.starts_with(&format!("Failed to write trust store {}: ", store.path().display())), "{e}");
}
