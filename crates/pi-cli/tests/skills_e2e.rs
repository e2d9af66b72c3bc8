//! Skills and prompt templates through the real `pi` against the mock model:
//! what reaches the system prompt (the reference's `<skills>` block, only
//! with a reader tool, never an untrusted project's), what `/skill:name` and
//! `/template args` become, the flags, RPC `get_commands`, a malformed
//! `SKILL.md` reported with its path; and `ctx.isProjectTrusted()` answering
//! the final trust decision (reference §0 items 14 and 15).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use pi_test_support::{MockServer, ToolCallSpec, Turn, isolated_pi};
use serde_json::{Value, json};

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (home, work, tmp) = (root.join("home"), root.join("repo/work"), root.join("tmp"));
        for d in [&home.join(".pi/agent"), &work, &tmp, &root.join("repo/.git")] {
            std::fs::create_dir_all(d).unwrap();
        }
        Env { _dir: dir, home, work, tmp }
    }

    fn agent(&self) -> PathBuf {
        self.home.join(".pi/agent")
    }

    fn pi(&self, args: &[&str]) -> std::process::Command {
        let mut c = isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &self.tmp);
        c.args(["--offline", "--no-session", "--model", "mock/mock-1"]).args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.pi(args).stdin(Stdio::null()).output().unwrap()
    }
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn skill(dir: &Path, name: &str, description: &str) {
    write(&dir.join("SKILL.md"), &format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\nSteps.\n"));
}

fn system(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap_or_default().to_string()
}

fn user_text(body: &Value) -> String {
    let m = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap();
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
        _ => String::new(),
    }
}

fn skill_names(system: &str) -> Vec<String> {
    system.split("<name>").skip(1).map(|s| s.split("</name>").next().unwrap().to_string()).collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// User skills (agent dir and `~/.agents/skills`), project skills (`.pi/skills`,
/// `.agents/skills` of the folder and of the repository root).
fn all_places(env: &Env) {
    skill(&env.agent().join("skills/u"), "user-pi", "User <pi> & co");
    skill(&env.home.join(".agents/skills/a"), "user-agents", "User agents");
    skill(&env.work.join(".pi/skills/p"), "project-pi", "Project pi");
    skill(&env.work.join(".agents/skills/c"), "cwd-agents", "Cwd agents");
    skill(&env.work.parent().unwrap().join(".agents/skills/r"), "repo-agents", "Repo agents");
}

#[test]
fn untrusted_project_skills_never_reach_the_prompt_trusted_ones_do_in_the_reference_order() {
    let env = Env::new();
    all_places(&env);
    let server = MockServer::start(vec![Turn::text("ok"), Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let out = env.run(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let untrusted = system(&server.requests()[0].body);
    assert_eq!(skill_names(&untrusted), ["user-pi", "user-agents"]);
    let out = env.run(&["-p", "--approve", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let trusted = system(&server.requests()[1].body);
    assert_eq!(skill_names(&trusted), ["project-pi", "cwd-agents", "repo-agents", "user-pi", "user-agents"]);
    let user = env.agent().join("skills/u/SKILL.md");
    let block = format!(
        "<skills>\nThe following skills provide specialized instructions for specific tasks.\n\
         Use the read tool to load a skill's file when the task matches its description.\n\
         Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n\
         <available_skills>\n  <skill>\n    <name>user-pi</name>\n    <description>User &lt;pi&gt; &amp; co</description>\n    \
         <location>{}</location>\n  </skill>\n",
        user.display()
    );
    assert!(untrusted.contains(&block), "{untrusted}");
}

#[test]
fn the_block_follows_the_reader_tools_and_hides_model_disabled_skills() {
    let env = Env::new();
    skill(&env.agent().join("skills/u"), "visible", "Shown");
    write(
        &env.agent().join("skills/h/SKILL.md"),
        "---\nname: hidden\ndescription: Only by command\ndisable-model-invocation: true\n---\nbody",
    );
    let server = MockServer::start(vec![Turn::text("ok"), Turn::text("ok"), Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    for args in [&["-p", "--tools", "bash,ls", "go"][..], &["-p", "--tools", "ls", "go"], &["-p", "--no-skills", "go"]]
    {
        assert!(env.run(args).status.success());
    }
    let reqs = server.requests();
    let bash_only = system(&reqs[0].body);
    assert!(bash_only.contains("Use bash to load a skill's file"), "{bash_only}");
    assert_eq!(skill_names(&bash_only), ["visible"]);
    assert!(!system(&reqs[1].body).contains("<skills>"), "no reader, no skills");
    assert!(!system(&reqs[2].body).contains("<skills>"), "--no-skills");
}

#[test]
fn a_malformed_skill_is_reported_with_its_path_and_the_session_goes_on() {
    let env = Env::new();
    skill(&env.agent().join("skills/good"), "good", "Fine");
    let bad = env.agent().join("skills/bad/SKILL.md");
    write(&bad, "---\nname: [unclosed\ndescription: x\n---\nbody");
    write(&env.agent().join("skills/nodesc/SKILL.md"), "---\nname: nodesc\n---\nbody");
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let out = env.run(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");
    let err = stderr(&out);
    assert!(err.lines().any(|l| l.starts_with(&format!("Warning: {}: ", bad.display()))), "{err}");
    let nodesc = env.agent().join("skills/nodesc/SKILL.md");
    assert!(err.contains(&format!("Warning: {}: description is required", nodesc.display())), "{err}");
    assert_eq!(skill_names(&system(&server.requests()[0].body)), ["good"]);
}

#[test]
fn skill_commands_and_templates_expand_in_print_mode() {
    let env = Env::new();
    let dir = env.agent().join("skills/deploy");
    skill(&dir, "deploy", "Ship");
    write(&env.agent().join("prompts/rev.md"), "---\ndescription: Review\n---\nReview $1 then ${@:2} [${3:-none}]");
    write(&env.work.join(".pi/prompts/proj.md"), "PROJECT TEMPLATE $1");
    let extra = env.work.join("extra.md");
    write(&extra, "EXTRA $@");
    let server = MockServer::start((0..5).map(|_| Turn::text("ok")).collect());
    server.write_models_json(&env.agent(), "openai-completions");
    let x = extra.to_string_lossy().into_owned();
    let runs: [&[&str]; 5] = [
        &["-p", "/skill:deploy  to prod "],
        &["-p", "/rev \"a b\" c"],
        &["-p", "/proj x"],
        &["-p", "--prompt-template", &x, "/extra 1 2"],
        &["-p", "--no-prompt-templates", "/rev x"],
    ];
    for args in runs {
        let out = env.run(args);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let reqs = server.requests();
    let block = format!(
        "<skill name=\"deploy\" location=\"{}\">\nReferences are relative to {}.\n\n# deploy\nSteps.\n</skill>\n\nto prod",
        dir.join("SKILL.md").display(),
        dir.display()
    );
    assert_eq!(user_text(&reqs[0].body), block);
    assert_eq!(user_text(&reqs[1].body), "Review a b then c [none]");
    assert_eq!(user_text(&reqs[2].body), "/proj x", "an untrusted project's template is not loaded");
    assert_eq!(user_text(&reqs[3].body), "EXTRA 1 2");
    assert_eq!(user_text(&reqs[4].body), "/rev x");
}

fn rpc(env: &Env, args: &[&str], commands: &[Value]) -> Vec<Value> {
    let mut child =
        env.pi(&[&["--mode", "rpc"], args].concat()).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = Vec::new();
    let mut reader = BufReader::new(child.stdout.take().unwrap()).lines();
    for c in commands {
        writeln!(stdin, "{c}").unwrap();
        for line in reader.by_ref() {
            let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
            let done = (v["type"] == "response" && v["command"] == "get_commands") || v["type"] == "agent_settled";
            out.push(v);
            if done {
                break;
            }
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    out
}

#[test]
fn rpc_lists_templates_and_skills_and_expands_a_prompt() {
    let env = Env::new();
    skill(&env.agent().join("skills/deploy"), "deploy", "Ship it");
    write(&env.agent().join("prompts/rev.md"), "---\ndescription: Review\n---\nReview $1");
    skill(&env.work.join(".pi/skills/p"), "project-pi", "Project");
    let server = MockServer::start(vec![Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let lines =
        rpc(&env, &[], &[json!({"id": "1", "type": "get_commands"}), json!({"type": "prompt", "message": "/rev x"})]);
    let listed = &lines.iter().find(|v| v["command"] == "get_commands").unwrap()["data"]["commands"];
    let agent = env.agent().to_string_lossy().into_owned();
    assert_eq!(
        listed,
        &json!([
            // The built-in extensions' commands come first, llama.cpp's before mcp's, as the reference lists them.
            {"name": "llama", "description": "Manage llama.cpp router models", "source": "extension",
             "sourceInfo": {"path": "builtin:llama.cpp", "source": "builtin", "scope": "temporary", "origin": "top-level"}},
            {"name": "mcp", "description": "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure",
             "source": "extension", "sourceInfo": {"path": "builtin:mcp", "source": "builtin", "scope": "temporary",
             "origin": "top-level"}},
            {"name": "rev", "description": "Review", "source": "prompt", "sourceInfo": {
                "path": format!("{agent}/prompts/rev.md"), "source": "auto", "scope": "user",
                "origin": "top-level", "baseDir": agent}},
            {"name": "skill:deploy", "description": "Ship it", "source": "skill", "sourceInfo": {
                "path": format!("{agent}/skills/deploy/SKILL.md"), "source": "auto", "scope": "user",
                "origin": "top-level", "baseDir": agent}}
        ])
    );
    assert_eq!(user_text(&server.requests()[0].body), "Review x");
}

const PROBE: &str = r#"export default function (pi) {
  pi.registerTool({
    name: "probe",
    label: "Probe",
    description: "Trust probe",
    parameters: { type: "object", properties: {} },
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      return { content: [{ type: "text", text: String(ctx.isProjectTrusted()) }] };
    },
  });
}
"#;

const DECIDER: &str = r#"export default function (pi) {
  pi.on("project_trust", async () => ({ trusted: "yes" }));
}
"#;

/// What the probe answered, with the project holding a trust-requiring
/// resource or not, and the agent dir's settings and trust store as given.
fn probe(resources: bool, settings: &str, saved: Option<bool>, extra: &[&str], decider: bool) -> (String, String) {
    let env = Env::new();
    write(&env.agent().join("extensions/probe.js"), PROBE);
    if decider {
        write(&env.agent().join("extensions/trust.js"), DECIDER);
    }
    if resources {
        std::fs::create_dir_all(env.work.join(".pi/prompts")).unwrap();
    }
    write(&env.agent().join("settings.json"), settings);
    if let Some(v) = saved {
        write(&env.agent().join("trust.json"), &json!({env.work.to_string_lossy(): v}).to_string());
    }
    let server = MockServer::start(vec![Turn::tools(vec![ToolCallSpec::new("probe", json!({}))]), Turn::text("ok")]);
    server.write_models_json(&env.agent(), "openai-completions");
    let out = env.run(&[extra, &["-p", "go"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = server.requests();
    let answer = reqs[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().map(String::from).unwrap_or_else(|| m["content"][0]["text"].to_string()))
        .unwrap();
    (answer, system(&reqs[0].body))
}

#[test]
fn is_project_trusted_answers_the_final_decision_on_every_route() {
    assert_eq!(probe(true, "{}", None, &["--approve"], false).0, "true", "--approve");
    assert_eq!(probe(true, "{}", Some(true), &[], false).0, "true", "saved true");
    assert_eq!(probe(true, r#"{"defaultProjectTrust": "always"}"#, None, &[], false).0, "true", "always");
    assert_eq!(probe(true, "{}", None, &[], true).0, "true", "a project_trust handler's yes");
    assert_eq!(probe(false, "{}", None, &[], false).0, "true", "no trust-requiring resources");
    assert_eq!(probe(true, "{}", None, &[], false).0, "false", "undecided in print mode");
    assert_eq!(probe(false, "{}", None, &["--no-approve"], false).0, "false", "--no-approve");
}

#[test]
fn an_extension_tool_without_prompt_snippet_is_declared_but_not_listed() {
    let (_, system) = probe(false, "{}", None, &[], false);
    assert!(system.contains("- read: "), "{system}");
    assert!(!system.contains("- probe"), "{system}");
}
