//! `pi trust …` against the real binary: output, exit codes, the store's
//! format, corruption, and many processes deciding at once (P3, P8).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Env {
    _t: tempfile::TempDir,
    root: PathBuf,
    agent: PathBuf,
    home: PathBuf,
}

fn env() -> Env {
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    let agent = root.join("agent");
    let home = root.join("home");
    fs::create_dir_all(&home).unwrap();
    Env { _t: t, root, agent, home }
}

impl Env {
    fn dir(&self, rel: &str) -> PathBuf {
        let p = self.root.join(rel);
        fs::create_dir_all(&p).unwrap();
        p
    }

    fn pi(&self, cwd: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_pi"))
            .arg("trust")
            .args(args)
            .current_dir(cwd)
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .env("HOME", &self.home)
            .output()
            .unwrap()
    }

    fn store(&self) -> String {
        fs::read_to_string(self.agent.join("trust.json")).unwrap()
    }
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn status_of_a_fresh_folder() {
    let e = env();
    let plain = e.dir("plain");
    let o = e.pi(&plain, &["status"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        out(&o),
        format!(
            "path: {}\ndecision: no decision\nresources: no\nstart-up: trusted (no trust-requiring resources)\n",
            plain.display()
        )
    );
    // `pi trust` alone is `status`; nothing was created.
    assert_eq!(out(&e.pi(&plain, &[])), out(&o));
    assert!(!e.agent.exists());

    let proj = e.dir("proj");
    fs::create_dir_all(proj.join(".pi/extensions")).unwrap();
    let o = e.pi(&e.root, &["status", "proj"]);
    assert_eq!(
        out(&o),
        format!(
            "path: {}\ndecision: no decision\nresources: yes\nstart-up: ask (interactive mode asks; print, JSON and RPC modes: untrusted)\n",
            proj.display()
        )
    );
    // defaultProjectTrust from the user settings changes the start-up line.
    fs::create_dir_all(&e.agent).unwrap();
    fs::write(e.agent.join("settings.json"), r#"{"defaultProjectTrust": "always"}"#).unwrap();
    let o = e.pi(&proj, &["status"]);
    assert!(out(&o).ends_with("start-up: trusted (defaultProjectTrust is \"always\")\n"), "{}", out(&o));
}

#[test]
fn yes_no_parent_clear_and_list() {
    let e = env();
    let a = e.dir("a");
    let b = e.dir("a/b");

    let o = e.pi(&b, &["yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o), format!("saved: trusted for {0}\ndecision: trusted (saved for {0})\n", b.display()));
    assert_eq!(e.store(), format!("{{\n  \"{}\": true\n}}\n", b.display()));

    let o = e.pi(&e.root, &["no", "a"]);
    assert_eq!(out(&o), format!("saved: untrusted for {0}\ndecision: untrusted (saved for {0})\n", a.display()));

    let o = e.pi(&b, &["parent"]);
    assert_eq!(
        out(&o),
        format!(
            "saved: trusted for {0} (removed the decision for {1})\ndecision: trusted (inherited from {0})\n",
            a.display(),
            b.display()
        )
    );
    assert_eq!(e.store(), format!("{{\n  \"{}\": true\n}}\n", a.display()));

    e.pi(&b, &["no"]);
    let o = e.pi(&b, &["list"]);
    assert_eq!(out(&o), format!("trusted {}\nuntrusted {}\n", a.display(), b.display()));
    let o = e.pi(&b, &["list", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v, serde_json::json!({a.display().to_string(): true, b.display().to_string(): false}));

    let o = e.pi(&b, &["status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["decision"], false);
    assert_eq!(v["inherited"], false);
    assert_eq!(v["savedFor"], b.display().to_string());
    assert_eq!(v["hasResources"], false);
    assert_eq!(v["startup"], "untrusted");
    assert_eq!(v["store"], e.agent.join("trust.json").display().to_string());

    let o = e.pi(&b, &["clear"]);
    assert_eq!(
        out(&o),
        format!("removed: the decision for {}\ndecision: trusted (inherited from {})\n", b.display(), a.display())
    );
    let o = e.pi(&b, &["clear"]);
    assert_eq!(
        out(&o),
        format!("removed: nothing was saved for {}\ndecision: trusted (inherited from {})\n", b.display(), a.display())
    );
    let o = e.pi(&b, &["status"]);
    assert!(out(&o).contains(&format!("decision: trusted (inherited from {})\n", a.display())));
}

#[test]
fn keys_are_canonical_for_links_and_relative_paths() {
    let e = env();
    let real = e.dir("real");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&real, e.root.join("link")).unwrap();
        let o = e.pi(&e.root, &["yes", "link/../link"]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert_eq!(e.store(), format!("{{\n  \"{}\": true\n}}\n", real.display()));
    }
}

#[test]
fn usage_errors_exit_2() {
    let e = env();
    for args in [&["bogus"][..], &["yes", "a", "b"], &["status", "--nope"], &["list", "x"]] {
        let o = e.pi(&e.root, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(err(&o).contains("Usage: pi trust"), "{args:?}: {}", err(&o));
    }
    let o = e.pi(&e.root, &["yes", "missing"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(err(&o), format!("Not a directory: {}\n", e.root.join("missing").display()));
    let o = e.pi(&e.root, &["parent", "/"]);
    assert_eq!((o.status.code(), err(&o)), (Some(2), "/ has no parent folder\n".to_string()));
    let o = e.pi(&e.root, &["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).starts_with("Usage: pi trust status"));
}

#[test]
fn a_corrupt_store_is_an_error_and_is_left_alone() {
    let e = env();
    let d = e.dir("d");
    fs::create_dir_all(&e.agent).unwrap();
    let store = e.agent.join("trust.json");
    for (content, message) in [
        (
            "{\"x\": ",
            format!("Failed to read trust store {}: EOF while parsing a value at line 1 column 6", store.display()),
        ),
        ("[]", format!("Invalid trust store {}: expected an object", store.display())),
        (
            "{\"/x\": \"yes\"}",
            format!("Invalid trust store {}: value for \"/x\" must be true, false, or null", store.display()),
        ),
    ] {
        fs::write(&store, content).unwrap();
        for args in [&["status"][..], &["yes"], &["clear"], &["list"]] {
            let o = e.pi(&d, args);
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            assert_eq!(err(&o), format!("{message}\n"), "{args:?}");
            assert_eq!(out(&o), "", "{args:?}");
        }
        assert_eq!(fs::read_to_string(&store).unwrap(), content);
    }
}

/// 8 processes at once, each running `pi trust yes|no DIR` for 50 folders of
/// its own, while this thread reads the file over and over: no decision is
/// lost and no read sees a partial file.
#[test]
fn concurrent_processes_lose_no_decision() {
    let e = env();
    const PROCS: usize = 8;
    const EACH: usize = 50;
    for p in 0..PROCS {
        for i in 0..EACH {
            e.dir(&format!("d/p{p}-{i}"));
        }
    }
    fs::create_dir_all(&e.agent).unwrap();
    let script = format!(
        "for i in $(seq 0 {last}); do if [ $((i % 3)) = 0 ]; then d=no; else d=yes; fi; \"$PI\" trust $d \"$ROOT/d/p$P-$i\" >/dev/null || exit 1; done",
        last = EACH - 1
    );
    let children: Vec<_> = (0..PROCS)
        .map(|p| {
            Command::new("sh")
                .arg("-c")
                .arg(&script)
                .env("PI", env!("CARGO_BIN_EXE_pi"))
                .env("ROOT", &e.root)
                .env("P", p.to_string())
                .env("PI_CODING_AGENT_DIR", &e.agent)
                .env("HOME", &e.home)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let path = e.agent.join("trust.json");
    let mut reads = 0;
    let mut children: Vec<Option<std::process::Child>> = children.into_iter().map(Some).collect();
    let mut failures = Vec::new();
    while children.iter().any(Option::is_some) {
        if let Ok(text) = fs::read_to_string(&path) {
            let v: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|err| panic!("partial trust.json seen: {err}: {text:?}"));
            assert!(v.is_object());
            reads += 1;
        }
        for slot in children.iter_mut() {
            if let Some(c) = slot
                && c.try_wait().unwrap().is_some()
            {
                let o = slot.take().unwrap().wait_with_output().unwrap();
                if !o.status.success() {
                    failures.push(String::from_utf8_lossy(&o.stderr).into_owned());
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
    assert!(reads > 0);
    let v: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v.len(), PROCS * EACH);
    for p in 0..PROCS {
        for i in 0..EACH {
            let key = e.root.join(format!("d/p{p}-{i}")).display().to_string();
            assert_eq!(v.get(&key), Some(&serde_json::Value::Bool(i % 3 != 0)), "{key}");
        }
    }
    // Keys are written sorted.
    let keys: Vec<&String> = v.keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert!(!e.agent.join("trust.json.lock").exists());
}
