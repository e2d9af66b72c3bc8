//! The sandbox's configuration and its refusals (beyond.md B5): failing
//! closed, the rule that guards `write` and `edit`, the settings (user file,
//! flags, a trusted project that may only tighten), the environment policy
//! and the mode in the system prompt.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test
#![cfg(target_os = "linux")]

use crate::sandbox_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pi_test_support::{MockServer, Turn};
use sandbox_support::{Mech, User, cannot_test, pi_binary};
use serde_json::{Value, json};

/// A home with an agent dir, a project and a folder beside it, under
/// /var/tmp (not a temp root of the sandbox).
struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    work: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new().prefix("pi-sandbox-config-").tempdir_in("/var/tmp").unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (home, work) = (root.join("home"), root.join("work"));
        for d in [home.join(".pi/agent"), work.join(".git"), root.join("outside"), root.join("tmp")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(work.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(root.join("outside/f.txt"), "outside\n").unwrap();
        Env { _dir: dir, root, home, work }
    }

    fn user_settings(&self, v: Value) {
        std::fs::write(self.home.join(".pi/agent/settings.json"), v.to_string()).unwrap();
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = pi_test_support::isolated_pi(
            &pi_binary().to_string_lossy(),
            &self.home,
            &self.work,
            &self.root.join("tmp"),
        );
        c.args(args).stdin(Stdio::null());
        c
    }

    /// `pi tool <tool> <args> --cwd <work> <extra…>`: the printed result.
    fn tool(&self, tool: &str, args: Value, extra: &[&str], env: &[(&str, &str)]) -> (Value, Output) {
        let a = args.to_string();
        let work = self.work.to_string_lossy().into_owned();
        let mut all = vec!["tool", tool, a.as_str(), "--cwd", work.as_str()];
        all.extend_from_slice(extra);
        let out = self.cmd(&all).envs(env.iter().copied()).output().unwrap();
        let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (v, out)
    }
}

fn text(v: &Value) -> String {
    v["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

fn any_mechanism() -> bool {
    cannot_test(User::Root, Mech::Bwrap).is_none() || cannot_test(User::Root, Mech::Landlock).is_none()
}

#[test]
fn with_no_mechanism_a_sandboxed_call_fails_closed_and_nothing_runs() {
    let env = Env::new();
    let canary = env.root.join("outside/ran");
    let cmd = json!({"command": format!("touch {}", canary.display())});
    let switches = [("PI_SANDBOX_BWRAP", ""), ("PI_SANDBOX_LANDLOCK", "off")];
    for mode in ["read-only", "workspace-write"] {
        let (v, out) = env.tool("bash", cmd.clone(), &["--sandbox", mode], &switches);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(v["isError"], true);
        assert_eq!(
            text(&v),
            format!(
                "sandbox: {mode}: the command was not run: no sandbox can start here (bubblewrap (bwrap) was not found; Landlock is switched off (PI_SANDBOX_LANDLOCK=off))"
            )
        );
        assert!(!canary.exists(), "{mode}: the command ran");
    }
    // A bubblewrap that cannot make a sandbox is no better than none.
    let (v, _) =
        env.tool("bash", cmd.clone(), &["--sandbox", "read-only"], &[("PI_SANDBOX_BWRAP", "/bin/false"), switches[1]]);
    assert!(text(&v).contains("bubblewrap could not create a sandbox"), "{v}");
    assert!(!canary.exists());
    // Off needs no mechanism.
    let (v, _) = env.tool("bash", cmd, &["--sandbox", "off"], &switches);
    assert_eq!(v["isError"], false, "{v}");
    assert!(canary.exists());
}

#[test]
fn write_and_edit_obey_the_same_rule() {
    let env = Env::new();
    let work = &env.work;
    let refused =
        |path: &Path, rule: &str| format!("sandbox: workspace-write: write to {} refused ({rule})", path.display());
    let write =
        |path: &str, mode: &str| env.tool("write", json!({"path": path, "content": "x"}), &["--sandbox", mode], &[]).0;
    let v = write("a.txt", "read-only");
    assert_eq!(text(&v), format!("sandbox: read-only: write to {} refused", work.join("a.txt").display()));
    assert!(!work.join("a.txt").exists());
    assert_eq!(write("src/a.txt", "workspace-write")["isError"], false);
    assert_eq!(
        text(&write("../outside/f.txt", "workspace-write")),
        refused(&env.root.join("outside/f.txt"), "outside the writable roots")
    );
    assert_eq!(text(&write(".git/config", "workspace-write")), refused(&work.join(".git/config"), ".git is read-only"));
    assert_eq!(
        text(&write(".pi/settings.json", "workspace-write")),
        refused(&work.join(".pi/settings.json"), ".pi is read-only")
    );
    assert_eq!(
        text(&write(".agents/skills/x/SKILL.md", "workspace-write")),
        refused(&work.join(".agents/skills/x/SKILL.md"), ".agents is read-only")
    );
    std::os::unix::fs::symlink(env.root.join("outside"), work.join("out")).unwrap();
    assert_eq!(
        text(&write("out/f.txt", "workspace-write")),
        refused(&env.root.join("outside/f.txt"), "outside the writable roots")
    );
    let temp = env.root.join("tmp/scratch.txt");
    assert_eq!(write(&temp.to_string_lossy(), "workspace-write")["isError"], false, "TMPDIR is writable");
    assert_eq!(std::fs::read_to_string(env.root.join("outside/f.txt")).unwrap(), "outside\n");
    assert_eq!(std::fs::read_to_string(work.join(".git/config")).unwrap(), "[core]\n");
    // edit: the same refusals, and an allowed edit goes through.
    let edit = |path: &str, mode: &str| {
        let args = json!({"path": path, "edits": [{"oldText": "x", "newText": "y"}]});
        env.tool("edit", args, &["--sandbox", mode], &[]).0
    };
    assert_eq!(edit("src/a.txt", "workspace-write")["isError"], false);
    assert!(text(&edit("src/a.txt", "read-only")).starts_with("sandbox: read-only: write to "));
    assert_eq!(
        text(&edit("../outside/f.txt", "workspace-write")),
        refused(&env.root.join("outside/f.txt"), "outside the writable roots")
    );
    assert_eq!(text(&edit(".git/config", "workspace-write")), refused(&work.join(".git/config"), ".git is read-only"));
    // Settings loosen it by name and by root.
    env.user_settings(json!({"sandbox": {"allowWrite": [".git"], "writableRoots": ["../outside"]}}));
    assert_eq!(write(".git/description", "workspace-write")["isError"], false);
    assert_eq!(write("../outside/g.txt", "workspace-write")["isError"], false);
    // In mode off nothing is refused.
    assert_eq!(write("../outside/h.txt", "off")["isError"], false);
}

#[test]
fn settings_flags_and_the_environment_policy() {
    if !any_mechanism() {
        println!("skipped: no sandbox mechanism on this machine");
        return;
    }
    let env = Env::new();
    let show =
        json!({"command": "echo mode=$PI_SANDBOX; echo gh=$GITHUB_TOKEN; echo oa=$OPENAI_API_KEY; echo lang=$LANG"});
    let secrets = [("GITHUB_TOKEN", "gh-secret"), ("OPENAI_API_KEY", "oa-secret"), ("LANG", "C.UTF-8")];
    let run = |extra: &[&str]| text(&env.tool("bash", show.clone(), extra, &secrets).0);
    assert_eq!(
        run(&[]),
        "mode=\ngh=gh-secret\noa=oa-secret\nlang=C.UTF-8\n",
        "mode off keeps the reference's environment"
    );
    env.user_settings(json!({"sandbox": {"mode": "read-only"}}));
    assert_eq!(run(&[]), "mode=read-only\ngh=\noa=\nlang=C.UTF-8\n");
    assert_eq!(
        run(&["--sandbox", "off"]),
        "mode=\ngh=gh-secret\noa=oa-secret\nlang=C.UTF-8\n",
        "the flag is the user's say"
    );
    env.user_settings(
        json!({"sandbox": {"mode": "workspace-write", "environment": {"keep": ["GITHUB_TOKEN"], "remove": ["LANG"]}}}),
    );
    assert_eq!(run(&[]), "mode=workspace-write\ngh=gh-secret\noa=\nlang=\n");
    // A bad mode is an invalid call; a bad settings value is a warning.
    let (_, out) = env.tool("bash", show.clone(), &["--sandbox", "strict"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "Invalid sandbox mode \"strict\". Valid values: off, read-only, workspace-write"
    );
    env.user_settings(json!({"sandbox": {"mode": "strict"}}));
    let (v, out) = env.tool("bash", show, &[], &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"sandbox.mode\" must be one of"), "{out:?}");
    assert!(text(&v).starts_with("mode=\n"), "an invalid mode is ignored: {v}");
}

fn system_prompt(server: &MockServer) -> String {
    server.requests()[0].body["messages"][0]["content"].as_str().unwrap().to_string()
}

#[test]
fn the_mode_is_in_the_system_prompt_and_a_project_may_only_tighten_it() {
    if !any_mechanism() {
        println!("skipped: no sandbox mechanism on this machine");
        return;
    }
    // User: workspace-write. Trusted project: off and network (looser): reported, ignored.
    let env = Env::new();
    let server = MockServer::start(vec![
        Turn::tool("bash", json!({"command": "echo mode=$PI_SANDBOX; touch ../outside/escaped"})),
        Turn::tool("write", json!({"path": "../outside/w.txt", "content": "x"})),
        Turn::text("done"),
    ]);
    server.write_models_json(&env.home.join(".pi/agent"), "openai-completions");
    env.user_settings(json!({"sandbox": {"mode": "workspace-write"}}));
    std::fs::create_dir_all(env.work.join(".pi")).unwrap();
    std::fs::write(
        env.work.join(".pi/settings.json"),
        json!({"sandbox": {"mode": "off", "network": true}}).to_string(),
    )
    .unwrap();
    let out =
        env.cmd(&["-p", "--offline", "--no-session", "--approve", "--model", "mock/mock-1", "go"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let project_file = env.work.join(".pi/settings.json");
    assert!(
        stderr.contains(&format!("Warning: {}: \"sandbox.mode\" \"off\" would loosen", project_file.display())),
        "{stderr}"
    );
    assert!(stderr.contains("\"sandbox.network\" true would loosen"), "{stderr}");
    let prompt = system_prompt(&server);
    assert!(prompt.contains("<sandbox mode=\"workspace-write\">"), "{prompt}");
    assert!(prompt.contains(&format!("may write only under {}", env.work.display())), "{prompt}");
    assert!(prompt.contains("The network is off"), "{prompt}");
    let reqs = server.requests();
    let result = |i: usize| reqs[i].body["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(result(1).contains("mode=workspace-write"), "{}", result(1));
    assert!(
        result(2).contains("sandbox: workspace-write: write to") && result(2).contains("(outside the writable roots)")
    );
    assert!(!env.root.join("outside/escaped").exists() && !env.root.join("outside/w.txt").exists());

    // A stricter project value is taken: read-only.
    let env = Env::new();
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.home.join(".pi/agent"), "openai-completions");
    env.user_settings(json!({"sandbox": {"mode": "workspace-write"}}));
    std::fs::create_dir_all(env.work.join(".pi")).unwrap();
    std::fs::write(env.work.join(".pi/settings.json"), json!({"sandbox": {"mode": "read-only"}}).to_string()).unwrap();
    let out =
        env.cmd(&["-p", "--offline", "--no-session", "--approve", "--model", "mock/mock-1", "go"]).output().unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("would loosen"));
    assert!(system_prompt(&server).contains("<sandbox mode=\"read-only\">"));
    // Untrusted, the project's settings are not read at all.
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.home.join(".pi/agent"), "openai-completions");
    let out =
        env.cmd(&["-p", "--offline", "--no-session", "--no-approve", "--model", "mock/mock-1", "go"]).output().unwrap();
    assert!(out.status.success());
    assert!(system_prompt(&server).contains("<sandbox mode=\"workspace-write\">"));
    // Mode off: no sandbox section.
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.home.join(".pi/agent"), "openai-completions");
    let out = env
        .cmd(&["-p", "--offline", "--no-session", "--no-approve", "--sandbox", "off", "--model", "mock/mock-1", "go"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!system_prompt(&server).contains("<sandbox"));
}
