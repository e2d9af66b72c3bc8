use super::*;
use serde_json::json;

fn write(p: &Path, s: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, s).unwrap();
}

#[test]
fn user_and_trusted_project_merge_with_overrides_and_problems_named() {
    let tmp = tempfile::tempdir().unwrap();
    let (agent, cwd, home) = (tmp.path().join("agent"), tmp.path().join("proj"), tmp.path().join("home"));
    write(
        &user_file(&agent),
        r#"{"mcpServers": {
            "a": {"command": "srv-a", "args": ["x"], "cwd": "~/data", "exposure": "direct"},
            "b": {"command": "srv-b", "env": {"K": "${HOME}"}, "timeout": 5},
            "bad.name": {"command": "x"},
            "s": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
            "c": {"command": 3},
            "my-srv": {"command": "m", "cwd": "rel"},
            "my_srv": {"command": "m2"},
            "h": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${T}"}}
        }}"#,
    );
    write(
        &project_file(&cwd),
        r#"{"mcpServers": {
            "a": {"enabled": false, "command_not": 1},
            "b": {"command": "project-b"},
            "p": {"url": "https://x.example/mcp", "auth": {"provider": "evil"}},
            "n": {"command": "new", "toolExposure": {"get-*": "direct", "x": "loud"}}
        }}"#,
    );
    let untrusted = load(&agent, &cwd, false, Some(&home));
    let names: Vec<&str> = untrusted.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "my-srv", "h"]);
    let a = &untrusted.servers[0];
    assert!(a.enabled && a.exposure == ServerExposure::Direct);
    assert_eq!(
        a.transport,
        Transport::Stdio { command: "srv-a".into(), args: vec!["x".into()], env: vec![], cwd: Some(home.join("data")) }
    );
    assert_eq!(untrusted.servers[1].timeout, Duration::from_secs(5));
    let Transport::Stdio { cwd: rel, .. } = &untrusted.servers[2].transport else { panic!() };
    assert_eq!(rel.as_deref(), Some(cwd.join("rel").as_path()), "cwd is relative to the session folder");
    let keys: Vec<&str> = untrusted.problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["bad.name", "s", "c", "my_srv"]);
    let shown = untrusted.problems[1].to_string();
    assert!(shown.contains("mcp.json: mcpServers.s: legacy SSE"), "{shown}");

    let trusted = load(&agent, &cwd, true, Some(&home));
    let a = trusted.servers.iter().find(|s| s.name == "a").unwrap();
    assert!(!a.enabled, "a project override changes enabled only");
    assert_eq!(a.file, user_file(&agent));
    let b = trusted.servers.iter().find(|s| s.name == "b").unwrap();
    assert!(matches!(&b.transport, Transport::Stdio { command, .. } if command == "project-b"), "replaced");
    assert!(trusted.problems.iter().any(|p| p.key == "p" && p.error == ConfigError::ProjectAuthProvider));
    let n = trusted.problems.iter().find(|p| p.key == "n").unwrap();
    assert!(n.error == ConfigError::BadExposure("toolExposure.x".into()) && n.file == project_file(&cwd), "{n}");
}

#[test]
fn broken_files_are_reported_not_fatal() {
    let tmp = tempfile::tempdir().unwrap();
    write(&user_file(tmp.path()), "{nope");
    let c = load(tmp.path(), tmp.path(), false, None);
    assert!(
        c.servers.is_empty() && c.problems.len() == 1 && c.problems[0].error.to_string().starts_with("invalid JSON: ")
    );
    write(&user_file(tmp.path()), r#"{"mcpServers": [], "autoEnableCodemode": false}"#);
    let c = load(tmp.path(), tmp.path(), false, None);
    assert!(!c.auto_enable_codemode && c.problems[0].error == ConfigError::ServersNotObject);
    let none = load(&tmp.path().join("missing"), tmp.path(), true, None);
    assert!(none.servers.is_empty() && none.problems.is_empty() && none.auto_enable_codemode);
}

#[test]
fn an_extra_file_adds_servers_as_the_users_own_and_replaces_same_named_ones() {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("mcp.json"),
        json!({"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}}).to_string(),
    )
    .unwrap();
    let extra = dir.path().join("editor.json");
    std::fs::write(
        &extra,
        json!({"mcpServers": {"b": {"command": "editor-b"}, "c": {"url": "http://127.0.0.1:9/mcp"}}}).to_string(),
    )
    .unwrap();
    let c = load_with(&agent, dir.path(), false, None, Some(&extra));
    let names: Vec<(&str, &std::path::Path)> = c.servers.iter().map(|s| (s.name.as_str(), s.file.as_path())).collect();
    assert_eq!(names, [("a", agent.join("mcp.json").as_path()), ("b", extra.as_path()), ("c", extra.as_path())]);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    // Without a user file the extra file stands alone; a missing extra file adds nothing.
    let alone = load_with(&dir.path().join("none"), dir.path(), false, None, Some(&extra));
    assert_eq!(alone.servers.len(), 2);
    assert_eq!(load_with(&agent, dir.path(), false, None, Some(&dir.path().join("gone.json"))).servers.len(), 2);
}
