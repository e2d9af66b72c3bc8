//! Pi packages through the real `pi`: `pi install`, `pi list`, `pi remove`,
//! `pi update` with local-path, git (a local bare repository reached through
//! a `url.<base>.insteadOf` rule in the scratch `~/.gitconfig`: no network)
//! and npm (`npm pack` tarball with a `file:` spec, offline; skipped when
//! `npm` is missing) sources; the settings they write; the packages'
//! skills, prompt templates and extensions loading at the next start (the
//! project's only when trusted); object entries narrowing what loads; and
//! bad input (a missing path, a failing clone, an unknown package, `-l` in an
//! untrusted project) failing with the source named and settings untouched.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pi_test_support::{MockServer, Turn, isolated_pi};
use serde_json::{Value, json};

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (home, work, tmp) = (root.join("home"), root.join("work"), root.join("tmp"));
        for d in [&home.join(".pi/agent"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        // `git:example.com/<path>` clones from `<root>/srv/<path>`.
        let rule = format!("[url \"file://{}/srv/\"]\n\tinsteadOf = https://example.com/\n", root.display());
        std::fs::write(home.join(".gitconfig"), rule).unwrap();
        Env { _dir: dir, root, home, work, tmp }
    }

    fn agent(&self) -> PathBuf {
        self.home.join(".pi/agent")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &self.tmp);
        c.args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("npm_config_offline", "true")
            .env("npm_config_update_notifier", "false")
            .env("npm_config_cache", self.tmp.join("npm-cache"))
            .env_remove("PI_OFFLINE")
            .stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// One print-mode turn against `server`; the request's body.
    fn ask(&self, server: &MockServer, extra: &[&str], prompt: &str) -> Value {
        let before = server.requests().len();
        let mut args = vec!["--offline", "--no-session", "--model", "mock/mock-1", "-p"];
        args.extend_from_slice(extra);
        args.push(prompt);
        let out = self.run(&args);
        assert!(out.status.success(), "{}", err(&out));
        server.requests()[before].body.clone()
    }

    /// RPC `get_commands`' list.
    fn commands(&self) -> Vec<Value> {
        let mut c = self.cmd(&["--mode", "rpc", "--offline", "--no-session"]);
        let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, b"{\"id\":\"c\",\"type\":\"get_commands\"}\n").unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let first = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_string();
        let v: Value = serde_json::from_str(&first).unwrap_or_else(|_| panic!("not JSON: {first}"));
        v["data"]["commands"].as_array().cloned().unwrap_or_default()
    }

    fn user_settings(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.agent().join("settings.json")).unwrap()).unwrap()
    }
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A package with a skill, a prompt template and an extension tool, in
/// the conventional folders.
fn package(dir: &Path, tag: &str) {
    write(&dir.join("package.json"), &format!(r#"{{"name": "pkg-{tag}", "version": "1.0.0"}}"#));
    write(
        &dir.join(format!("skills/greet-{tag}/SKILL.md")),
        &format!("---\nname: greet-{tag}\ndescription: Greets {tag}\n---\nSay hello.\n"),
    );
    write(&dir.join(format!("prompts/rev-{tag}.md")), "---\ndescription: review\n---\nReview $1 carefully\n");
    write(
        &dir.join("extensions/tool.ts"),
        &format!(
            "export default function (pi: any) {{ pi.registerTool({{ name: \"tool_{tag}\", label: \"t\", description: \"from the package\", parameters: {{ type: \"object\", properties: {{}} }}, async execute() {{ return {{ content: [{{ type: \"text\", text: \"hi\" }}] }}; }} }}); }}\n"
        ),
    );
}

fn system(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap_or_default().to_string()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["function"]["name"].as_str().map(String::from)).collect())
        .unwrap_or_default()
}

fn last_user_text(body: &Value) -> String {
    let m = body["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "user").unwrap();
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
        _ => String::new(),
    }
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.email=t@t", "-c", "user.name=t", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(ok.status.success(), "git {args:?}: {}", err(&ok));
}

/// A bare repository `<root>/srv/user/repo` holding a package; the working
/// copy it was pushed from.
fn git_package(env: &Env) -> PathBuf {
    let src = env.root.join("src-repo");
    package(&src, "git");
    std::fs::remove_file(src.join("package.json")).unwrap(); // no `npm install` after the clone
    git(&src, &["init", "-q"]);
    git(&src, &["add", "-A"]);
    git(&src, &["commit", "-qm", "one"]);
    std::fs::create_dir_all(env.root.join("srv/user")).unwrap();
    git(&env.root, &["clone", "-q", "--bare", "src-repo", "srv/user/repo"]);
    git(&src, &["remote", "add", "origin", &env.root.join("srv/user/repo").display().to_string()]);
    src
}

#[test]
fn a_local_package_installs_loads_lists_and_removes() {
    let env = Env::new();
    package(&env.root.join("pkg"), "a");
    write(&env.agent().join("settings.json"), "{\n  \"theme\": \"dark\"\n}");
    let o = env.run(&["install", "../pkg"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "Installing ../pkg...\nInstalled ../pkg\n");
    assert_eq!(
        env.user_settings(),
        json!({"theme": "dark", "packages": ["../../../pkg"]}),
        "relative to the agent dir"
    );
    let again = env.run(&["install", &env.root.join("pkg").display().to_string()]);
    assert!(again.status.success());
    assert_eq!(env.user_settings()["packages"], json!(["../../../pkg"]), "the same package is not added twice");
    let list = env.run(&["list"]);
    assert_eq!(out(&list), format!("User packages:\n  ../../../pkg\n    {}\n", env.root.join("pkg").display()));

    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let body = env.ask(&server, &[], "/rev-a src/main.rs");
    assert_eq!(last_user_text(&body), "Review src/main.rs carefully");
    assert!(system(&body).contains("<name>greet-a</name>"), "{}", system(&body));
    assert!(tool_names(&body).contains(&"tool_a".to_string()), "{:?}", tool_names(&body));
    // As the reference: the package's skill and template say where they came from.
    assert!(env.commands().iter().all(|c| c["sourceInfo"].get("changelogPath").is_none()));
    write(&env.root.join("pkg/CHANGELOG.md"), "# Changes\n");
    let commands = env.commands();
    let skill = commands.iter().find(|c| c["name"] == "skill:greet-a").unwrap();
    let pkg = env.root.join("pkg");
    assert_eq!(
        skill["sourceInfo"],
        json!({"path": pkg.join("skills/greet-a/SKILL.md"), "source": "../../../pkg", "scope": "user",
            "origin": "package", "baseDir": pkg, "changelogPath": pkg.join("CHANGELOG.md")})
    );
    let template = commands.iter().find(|c| c["name"] == "rev-a").unwrap();
    assert_eq!(template["sourceInfo"]["origin"], "package");

    let o = env.run(&["remove", "../pkg"]);
    assert_eq!((out(&o), o.status.success()), ("Removing ../pkg...\nRemoved ../pkg\n".to_string(), true));
    assert_eq!(env.user_settings(), json!({"theme": "dark", "packages": []}));
    assert_eq!(out(&env.run(&["list"])), "No packages installed.\n");
}

#[test]
fn a_git_package_clones_loads_updates_and_removes() {
    let env = Env::new();
    let src = git_package(&env);
    let o = env.run(&["install", "git:example.com/user/repo"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "Installing git:example.com/user/repo...\nInstalled git:example.com/user/repo\n");
    let dir = env.agent().join("git/example.com/user/repo");
    assert!(dir.join("skills/greet-git/SKILL.md").is_file());
    assert_eq!(std::fs::read_to_string(env.agent().join("git/.gitignore")).unwrap(), "*\n!.gitignore\n");
    assert_eq!(env.user_settings(), json!({"packages": ["git:example.com/user/repo"]}));
    let list = out(&env.run(&["list"]));
    assert_eq!(list, format!("User packages:\n  git:example.com/user/repo\n    {}\n", dir.display()));

    let server = MockServer::start(vec![Turn::text("ok"), Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let body = env.ask(&server, &[], "hi");
    assert!(system(&body).contains("<name>greet-git</name>"));

    let o = env.run(&["update", "--extensions"]);
    assert_eq!(out(&o), "Updating git:example.com/user/repo...\nPackages are already up to date\n", "{}", err(&o));
    write(&src.join("prompts/new.md"), "Fresh $1\n");
    git(&src, &["add", "-A"]);
    git(&src, &["commit", "-qm", "two"]);
    git(&src, &["push", "-q", "origin", "HEAD:main"]);
    let o = env.run(&["update", "git:example.com/user/repo"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    // git's own line (`HEAD is now at …`) comes between, as in the reference.
    assert!(text.starts_with("Updating git:example.com/user/repo...\n"), "{text}");
    assert!(text.contains("\nUpdated 1 package:\n  git:example.com/user/repo "), "{text}");
    assert!(dir.join("prompts/new.md").is_file());
    let body = env.ask(&server, &[], "/new x");
    assert_eq!(last_user_text(&body), "Fresh x\n");

    let o = env.run(&["uninstall", "git:example.com/user/repo"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(!env.agent().join("git/example.com").exists(), "the clone and its empty parents are gone");
    assert_eq!(env.user_settings(), json!({"packages": []}));
}

#[test]
fn bad_sources_fail_naming_the_source_and_write_nothing() {
    let env = Env::new();
    let o = env.run(&["install", "../nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(err(&o), format!("Error: Path does not exist: {}\n", env.root.join("nope").display()));
    assert!(!env.agent().join("settings.json").exists(), "nothing written");

    let o = env.run(&["install", "git:example.com/user/missing"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("Error: git clone https://example.com/user/missing"), "{}", err(&o));
    assert!(!env.agent().join("git/example.com").exists(), "a failed clone leaves no folder");
    assert!(!env.agent().join("settings.json").exists());

    let o = env.run(&["remove", "npm:unknown-pkg"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(err(&o), "No matching package found for npm:unknown-pkg\n");
    let o = env.run(&["update", "../x"]);
    assert_eq!((o.status.code(), err(&o)), (Some(1), "Error: No matching package found for ../x\n".to_string()));

    let o = env.run(&["install"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(err(&o), "Missing install source.\nUsage: pi install <source> [-l] [--approve|--no-approve]\n");
    let o = env.run(&["list", "--local"]);
    assert_eq!(err(&o).lines().next(), Some("Unknown option --local for \"list\"."));

    // A package whose package.json is broken still loads its folders.
    let pkg = env.root.join("broken");
    package(&pkg, "b");
    write(&pkg.join("package.json"), "{ not json");
    assert!(env.run(&["install", "../broken"]).status.success());
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    assert!(system(&env.ask(&server, &[], "hi")).contains("<name>greet-b</name>"));

    // A settings file that cannot be parsed is not overwritten.
    write(&env.agent().join("settings.json"), "{ broken");
    let o = env.run(&["install", "../broken"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert_eq!(std::fs::read_to_string(env.agent().join("settings.json")).unwrap(), "{ broken");
}

#[test]
fn project_packages_need_trust_to_be_written_and_to_load() {
    let env = Env::new();
    package(&env.root.join("pkg"), "p");
    write(&env.work.join(".pi/settings.json"), "{}");
    let o = env.run(&["install", "../pkg", "-l"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(err(&o), "Project is not trusted. Use --approve to modify local package config.\n");
    assert_eq!(std::fs::read_to_string(env.work.join(".pi/settings.json")).unwrap(), "{}");
    let o = env.run(&["install", "../pkg", "-l", "--approve"]);
    assert!(o.status.success(), "{}", err(&o));
    let project: Value =
        serde_json::from_str(&std::fs::read_to_string(env.work.join(".pi/settings.json")).unwrap()).unwrap();
    assert_eq!(project, json!({"packages": ["../../pkg"]}), "relative to .pi");
    assert_eq!(out(&env.run(&["list"])), "No packages installed.\n", "an untrusted project's packages are not read");
    let listed = out(&env.run(&["list", "-a"]));
    assert_eq!(listed, format!("Project packages:\n  ../../pkg\n    {}\n", env.root.join("pkg").display()));

    let server = MockServer::start(vec![Turn::text("ok"), Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let untrusted = env.ask(&server, &[], "hi");
    assert!(!system(&untrusted).contains("greet-p"));
    assert!(!tool_names(&untrusted).contains(&"tool_p".to_string()));
    let trusted = env.ask(&server, &["--approve"], "hi");
    assert!(system(&trusted).contains("<name>greet-p</name>"));
    assert!(tool_names(&trusted).contains(&"tool_p".to_string()), "{:?}", tool_names(&trusted));
}

#[test]
fn an_object_entry_narrows_what_loads() {
    let env = Env::new();
    package(&env.root.join("pkg"), "f");
    write(&env.root.join("pkg/prompts/other.md"), "Other\n");
    let entry = json!({"packages": [{"source": "../../../pkg", "skills": [], "prompts": ["prompts/other.md"], "extensions": []}]});
    write(&env.agent().join("settings.json"), &entry.to_string());
    let list = out(&env.run(&["list"]));
    assert!(list.starts_with("User packages:\n  ../../../pkg (filtered)\n"), "{list}");
    let server = MockServer::start(vec![Turn::text("ok"), Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let body = env.ask(&server, &[], "/rev-f x");
    assert!(!system(&body).contains("greet-f"), "skills: [] loads none");
    assert!(!tool_names(&body).contains(&"tool_f".to_string()), "extensions: [] loads none");
    assert_eq!(last_user_text(&body), "/rev-f x", "a template the filter leaves out does not expand");
    assert_eq!(last_user_text(&env.ask(&server, &[], "/other")), "Other\n");
    // Installing the same package again keeps the object entry and its lists.
    assert!(env.run(&["install", "../pkg"]).status.success());
    assert_eq!(env.user_settings(), entry);
}

fn npm_available() -> bool {
    Command::new("npm").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// The package `pkg-<tag>` packed by npm into a tarball; its `npm:` source.
fn packed(env: &Env, tag: &str) -> String {
    let pkg = env.root.join("npm-src");
    package(&pkg, tag);
    let o = Command::new("npm")
        .args(["pack", "--pack-destination", &env.root.display().to_string()])
        .current_dir(&pkg)
        .env("npm_config_cache", env.tmp.join("npm-cache"))
        .env("npm_config_update_notifier", "false")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    format!("npm:pkg-{tag}@file:{}", env.root.join(format!("pkg-{tag}-1.0.0.tgz")).display())
}

#[test]
fn an_npm_package_from_a_tarball_installs_offline_and_loads() {
    if !npm_available() {
        eprintln!("skipped: npm is not installed");
        return;
    }
    let env = Env::new();
    let source = packed(&env, "n");
    let o = env.run(&["install", &source]);
    assert!(o.status.success(), "{}", err(&o));
    let installed = env.agent().join("npm/node_modules/pkg-n");
    assert!(installed.join("skills/greet-n/SKILL.md").is_file());
    assert_eq!(env.user_settings(), json!({"packages": [source]}));
    let list = out(&env.run(&["list"]));
    assert_eq!(list, format!("User packages:\n  {source}\n    {}\n", installed.display()));
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    assert!(system(&env.ask(&server, &[], "hi")).contains("<name>greet-n</name>"));
    let o = env.run(&["remove", "npm:pkg-n"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(!installed.exists());
    assert_eq!(env.user_settings(), json!({"packages": []}));
}

#[test]
fn configured_git_packages_install_at_start_up_and_a_failing_one_is_a_warning() {
    let env = Env::new();
    git_package(&env);
    let settings = json!({"packages": ["git:example.com/user/repo", "git:example.com/user/missing"]});
    write(&env.agent().join("settings.json"), &settings.to_string());
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    // As the reference: `--offline` installs nothing at start-up.
    let server_off = MockServer::start(vec![Turn::text("offline")]);
    server_off.write_models_json(&env.agent(), "openai-completions");
    let o = env.run(&["--offline", "--no-session", "--model", "mock/mock-1", "-p", "hi"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(!env.agent().join("git/example.com/user/repo").exists(), "offline: not installed");
    server.write_models_json(&env.agent(), "openai-completions");
    let o = env.run(&["--no-session", "--model", "mock/mock-1", "-p", "hi"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "ok\n", "git's output stays off standard output");
    assert!(env.agent().join("git/example.com/user/repo/skills").is_dir());
    assert!(system(&server.requests()[0].body).contains("<name>greet-git</name>"));
    let warning = "Warning: Extension package \"git:example.com/user/missing\": failed to install (git clone https://example.com/user/missing";
    assert!(err(&o).contains(warning), "{}", err(&o));
    assert!(err(&o).contains("Run \"pi remove git:example.com/user/missing\" to remove it from settings.json."));
    assert!(!env.agent().join("git/example.com/user/missing").exists());
}

#[test]
fn a_package_that_replaces_a_builtin_or_bundles_host_packages_is_told_as_the_reference_tells_it() {
    let env = Env::new();
    let pkg = env.root.join("mcp-pkg");
    write(
        &pkg.join("package.json"),
        r#"{"name": "mcp-pkg", "version": "1.0.0", "dependencies": {"typebox": "1", "zod": "3", "@earendil-works/pi-tui": "1"}, "pi": {"extensions": ["./index.ts"]}}"#,
    );
    write(
        &pkg.join("index.ts"),
        r#"export default function (pi: any) {
  pi.registerCommand("mcp", { description: "Its own MCP", handler: async () => {} });
  pi.on("resources_discover", () => ({ skillPaths: [import.meta.dirname + "/extra/skill"] }));
}
"#,
    );
    write(&pkg.join("extra/skill/SKILL.md"), "---\nname: extra\ndescription: Added by the extension\n---\nBody.\n");
    assert!(env.run(&["install", "../mcp-pkg"]).status.success());
    let o = env.run(&["--mode", "rpc", "--offline", "--no-session"]);
    let stderr = err(&o);
    let manifest = pkg.join("package.json");
    assert!(
        stderr.contains(&format!("Warning: Extension package \"{}\": Host-provided extension packages must be declared in peerDependencies with a \"*\" range, not dependencies: @earendil-works/pi-tui, typebox. Installed copies can bypass the extension loader and create duplicate runtime modules.", manifest.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("Warning: Extension package \"builtin:mcp\": Extension {} registers command `/mcp`, so built-in extension `mcp` was not loaded.", pkg.join("index.ts").display())),
        "{stderr}"
    );
    let commands = env.commands();
    let mcp: Vec<&Value> = commands.iter().filter(|c| c["name"] == "mcp").collect();
    assert_eq!(mcp.len(), 1, "the package's /mcp alone: {commands:?}");
    assert_eq!(mcp[0]["description"], "Its own MCP");
    let skill = commands.iter().find(|c| c["name"] == "skill:extra").unwrap();
    assert_eq!(
        skill["sourceInfo"],
        json!({"path": pkg.join("extra/skill/SKILL.md"), "source": "extension:index", "scope": "temporary",
            "origin": "top-level", "baseDir": pkg})
    );
}

#[test]
fn a_package_given_with_e_loads_for_the_run_from_the_references_cache_folder() {
    if !npm_available() {
        eprintln!("skipped: npm is not installed");
        return;
    }
    let env = Env::new();
    let source = packed(&env, "t");
    let server = MockServer::start(vec![Turn::text("ok"), Turn::text("again")]);
    server.write_models_json(&env.agent(), "openai-completions");
    // Not --offline: the package is installed for this run.
    let mut args = vec!["--no-session", "--model", "mock/mock-1", "-e", source.as_str(), "-p", "hi"];
    let o = env.run(&args);
    assert!(o.status.success(), "{}", err(&o));
    let body = server.requests()[0].body.clone();
    assert!(tool_names(&body).contains(&"tool_t".to_string()), "{:?}", tool_names(&body));
    let cache = env.agent().join("tmp/extensions/npm/f35b2129/node_modules/pkg-t");
    assert!(cache.join("extensions/tool.ts").is_file(), "installed where the reference caches -e packages");
    assert!(!env.agent().join("settings.json").exists(), "nothing is written to settings");
    // Offline, the cached copy loads.
    args.insert(0, "--offline");
    let o = env.run(&args);
    assert!(o.status.success(), "{}", err(&o));
    assert!(tool_names(&server.requests()[1].body).contains(&"tool_t".to_string()));
    // A package that cannot be installed is a warning; the run goes on.
    let missing =
        env.run(&["--offline", "--no-session", "--model", "mock/mock-1", "-e", "npm:not-there-xyz", "-p", "hi"]);
    assert!(
        err(&missing).contains("Extension package \"npm:not-there-xyz\": failed to install ("),
        "{}",
        err(&missing)
    );
}
