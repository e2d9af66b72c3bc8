//! Settings layers (reference §9; requirements S3, S9; beyond.md B2, B3).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::path::PathBuf;

use pi_config::settings::{ResourceKind, Scope};
use pi_config::{DefaultTrust, Diagnostic, RetryConfig, Settings, SettingsError};
use serde_json::{Value, json};

struct Env {
    _t: tempfile::TempDir,
    agent: PathBuf,
    cwd: PathBuf,
}

fn env() -> Env {
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    let agent = root.join("agent");
    let cwd = root.join("proj");
    fs::create_dir_all(&agent).unwrap();
    fs::create_dir_all(&cwd).unwrap();
    Env { _t: t, agent, cwd }
}

impl Env {
    fn user(&self, text: &str) -> PathBuf {
        let p = self.agent.join("settings.json");
        fs::write(&p, text).unwrap();
        p
    }
    fn project(&self, text: &str) -> PathBuf {
        fs::create_dir_all(self.cwd.join(".pi")).unwrap();
        let p = self.cwd.join(".pi/settings.json");
        fs::write(&p, text).unwrap();
        p
    }
    fn load(&self, trusted: bool) -> (Settings, Vec<String>) {
        let (s, d) = Settings::load(&self.agent, &self.cwd, trusted);
        (s, d.iter().map(Diagnostic::to_string).collect())
    }
}

#[test]
fn no_files_means_defaults_and_no_diagnostics() {
    let e = env();
    let (s, d) = e.load(true);
    assert!(d.is_empty());
    assert!(s.merged().is_empty());
    assert_eq!(s.default_tools(), None);
    assert_eq!(s.resolved_default_tools(), None);
    assert_eq!(s.default_project_trust(), DefaultTrust::Ask);
    assert_eq!(s.retry(), RetryConfig { enabled: true, max_retries: 3, base_delay_ms: 2000, max_delay_ms: 60000 });
    assert_eq!(s.session_dir(), None);
    assert!(s.extensions().is_empty());
    assert!(!e.cwd.join(".pi").exists());
}

#[test]
fn project_layer_is_not_read_when_untrusted() {
    let e = env();
    e.user(r#"{"defaultModel": "u", "shellCommandPrefix": "set -e"}"#);
    // Unparsable: if it were read there would be a diagnostic.
    e.project(r#"{"defaultModel": "#);
    let (s, d) = e.load(false);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s.default_model(), Some("u"));
    assert!(!s.project_trusted());
    assert!(s.layer(Scope::Project).is_empty());
    e.project(r#"{"defaultModel": "p", "sessionDir": "/evil"}"#);
    let (s, _) = e.load(false);
    assert_eq!(s.default_model(), Some("u"));
    assert_eq!(s.session_dir(), None, "an untrusted project's sessionDir is never used (B2)");
    let warn = s.ignored_project_session_dir().unwrap();
    assert_eq!(
        warn.to_string(),
        format!("Project is not trusted; ignoring \"sessionDir\" in {}", e.cwd.join(".pi/settings.json").display())
    );
    // Trusted: the project wins.
    let (s, d) = e.load(true);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s.default_model(), Some("p"));
    assert_eq!(s.shell_command_prefix(), Some("set -e"));
    assert_eq!(s.session_dir(), Some(PathBuf::from("/evil")));
    assert_eq!(s.ignored_project_session_dir(), None);
}

#[test]
fn trust_project_after_an_untrusted_load() {
    let e = env();
    e.user(r#"{"defaultProjectTrust": "always", "defaultModel": "u"}"#);
    e.project(r#"{"defaultModel": "p", "shellPath": 1}"#);
    let (mut s, d) = e.load(false);
    assert!(d.is_empty());
    assert_eq!(s.default_project_trust(), DefaultTrust::Always);
    let d = s.trust_project();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(s.default_model(), Some("p"));
}

#[test]
fn deep_merge_objects_recursive_arrays_and_primitives_replace() {
    let e = env();
    e.user(
        r#"{"retry": {"enabled": false, "maxRetries": 5, "provider": {"maxRetries": 1, "timeoutMs": 9}},
              "enabledModels": ["a", "b"], "theme": "dark", "unknown": {"x": 1, "y": [1]}}"#,
    );
    e.project(
        r#"{"retry": {"maxRetries": 7, "provider": {"maxRetries": 2}},
                 "enabledModels": ["c"], "unknown": {"y": [2], "z": null}}"#,
    );
    let (s, d) = e.load(true);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        Value::Object(s.merged().clone()),
        json!({
            "retry": {"enabled": false, "maxRetries": 7, "provider": {"maxRetries": 2, "timeoutMs": 9}},
            "enabledModels": ["c"], "theme": "dark", "unknown": {"x": 1, "y": [2], "z": null}
        })
    );
    assert_eq!(s.retry(), RetryConfig { enabled: false, max_retries: 7, base_delay_ms: 2000, max_delay_ms: 60000 });
    assert_eq!(s.get(&["retry", "provider", "timeoutMs"]), Some(&json!(9)));
    assert_eq!(s.get_bool(&["retry", "enabled"]), Some(false));
}

#[test]
fn default_tools_merge_special_case() {
    let e = env();
    e.user(r#"{"defaultTools": ["read", "grep"]}"#);
    e.project(r#"{"defaultTools": ["+ls", "-read"]}"#);
    let (s, _) = e.load(true);
    assert_eq!(s.default_tools().unwrap(), vec!["read", "grep", "+ls", "-read"]);
    assert_eq!(s.resolved_default_tools().unwrap(), vec!["grep", "ls"]);

    e.project(r#"{"defaultTools": ["find", "+ls"]}"#);
    let (s, _) = e.load(true);
    assert_eq!(s.default_tools().unwrap(), vec!["find", "+ls"]);
    assert_eq!(s.resolved_default_tools().unwrap(), vec!["find", "ls"]);

    // Only modifiers, no user list: the four defaults are the base.
    fs::remove_file(e.agent.join("settings.json")).unwrap();
    e.project(r#"{"defaultTools": ["+grep", "-bash"]}"#);
    let (s, _) = e.load(true);
    assert_eq!(s.resolved_default_tools().unwrap(), vec!["read", "edit", "write", "grep"]);

    // An empty list disables the built-ins.
    e.project(r#"{"defaultTools": []}"#);
    assert_eq!(e.load(true).0.resolved_default_tools(), Some(vec![]));
}

#[test]
fn wrong_type_is_reported_and_never_replaces_a_selection() {
    let e = env();
    e.user(r#"{"defaultTools": ["read", "grep"]}"#);
    let p =
        e.project(r#"{"defaultTools": "read", "retry": {"maxRetries": "5"}, "quietStartup": "header", "mystery": 1}"#);
    let (s, d) = e.load(true);
    assert_eq!(
        d,
        vec![
            format!("{}: \"retry.maxRetries\" must be a non-negative number; ignored", p.display()),
            format!("{}: \"defaultTools\" must be an array of strings; ignored", p.display()),
        ]
    );
    assert_eq!(s.default_tools().unwrap(), vec!["read", "grep"]);
    assert_eq!(s.retry().max_retries, 3);
    assert_eq!(s.get(&["quietStartup"]), Some(&json!("header")));
    assert_eq!(s.get(&["mystery"]), Some(&json!(1)), "unknown keys are kept");

    let (_, diags) = Settings::load(&e.agent, &e.cwd, true);
    assert_eq!(diags[1].key.as_deref(), Some("defaultTools"));
    assert_eq!(diags[1].path, p);
}

#[test]
fn many_keys_are_validated() {
    let e = env();
    let u = e.user(
        r#"{"shellPath": ["/bin/sh"], "sessionDir": 3, "defaultProvider": false, "defaultModel": 1,
            "defaultThinkingLevel": "huge", "extensions": "x.ts", "packages": [1], "skills": [1],
            "prompts": {}, "themes": [true], "quietStartup": 1, "compaction": {"enabled": "no", "reserveTokens": -1},
            "retry": {"enabled": 1, "baseDelayMs": "x", "maxAgentDelayMs": null},
            "hideThinkingBlock": "no", "transport": "pigeon"}"#,
    );
    let (s, d) = e.load(true);
    let keys: Vec<&str> = d.iter().map(|m| m.split('"').nth(1).unwrap()).collect();
    assert_eq!(
        keys,
        vec![
            "defaultProvider",
            "defaultModel",
            "defaultThinkingLevel",
            "transport",
            "compaction.enabled",
            "compaction.reserveTokens",
            "retry.enabled",
            "retry.baseDelayMs",
            "retry.maxAgentDelayMs",
            "hideThinkingBlock",
            "shellPath",
            "quietStartup",
            "packages",
            "extensions",
            "skills",
            "prompts",
            "themes",
            "sessionDir",
        ]
    );
    assert!(d.iter().all(|m| m.starts_with(&format!("{}: ", u.display())) && m.ends_with("; ignored")));
    assert!(d.contains(&format!(
        "{}: \"transport\" must be one of \"auto\", \"sse\", \"websocket\", \"websocket-cached\"; ignored",
        u.display()
    )));
    assert_eq!(Value::Object(s.merged().clone()), json!({"compaction": {}, "retry": {}}));
}

#[test]
fn default_project_trust_is_global_only_and_invalid_means_ask() {
    let e = env();
    let u = e.user(r#"{"defaultProjectTrust": "sometimes", "httpProxy": "http://u"}"#);
    let p =
        e.project(r#"{"defaultProjectTrust": "always", "httpProxy": "http://p", "cacheWarming": "off", "theme": "x"}"#);
    let (s, d) = e.load(true);
    assert_eq!(s.default_project_trust(), DefaultTrust::Ask);
    assert_eq!(s.http_proxy(), Some("http://u"));
    assert_eq!(s.get(&["cacheWarming"]), None);
    assert_eq!(s.get_str(&["httpProxy"]), Some("http://u"));
    assert_eq!(s.get_str(&["theme"]), Some("x"));
    assert_eq!(
        d,
        vec![
            format!(
                "{}: \"defaultProjectTrust\" must be one of \"ask\", \"always\", \"never\"; using \"ask\"",
                u.display()
            ),
            format!("{}: \"defaultProjectTrust\" can only be set in {}; ignored", p.display(), u.display()),
            format!("{}: \"httpProxy\" can only be set in {}; ignored", p.display(), u.display()),
            format!("{}: \"cacheWarming\" can only be set in {}; ignored", p.display(), u.display()),
        ]
    );
    e.user(r#"{"defaultProjectTrust": "never"}"#);
    assert_eq!(e.load(true).0.default_project_trust(), DefaultTrust::Never);
}

#[test]
fn bom_is_tolerated_in_both_files() {
    let e = env();
    e.user("\u{feff}{\"defaultModel\": \"u\", \"defaultProvider\": \"x\"}");
    e.project("\u{feff}{\"defaultModel\": \"p\"}");
    let (s, d) = e.load(true);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!((s.default_model(), s.default_provider()), (Some("p"), Some("x")));
}

#[test]
fn unparsable_file_is_reported_and_counts_as_empty() {
    let e = env();
    let u = e.user("{\"defaultModel\": ");
    e.project(r#"{"defaultProvider": "p"}"#);
    let (s, d) = e.load(true);
    assert_eq!(
        d,
        vec![format!("Invalid settings file {}: EOF while parsing a value at line 1 column 17", u.display())]
    );
    assert_eq!(s.default_model(), None);
    assert_eq!(s.default_provider(), Some("p"));

    let p = e.project("[1]");
    e.user("{}");
    let (_, d) = e.load(true);
    assert_eq!(d, vec![format!("Invalid settings file {}: expected an object", p.display())]);

    // A folder where the file should be.
    fs::remove_file(&p).unwrap();
    fs::create_dir(&p).unwrap();
    let (_, d) = e.load(true);
    assert_eq!(d.len(), 1);
    assert!(d[0].starts_with(&format!("Could not read settings file {}: ", p.display())), "{d:?}");
}

#[test]
fn paths_expand_tilde_and_resolve_relative() {
    let e = env();
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else { return };
    e.user(r#"{"shellPath": "~/bin/zsh", "sessionDir": "~/sessions"}"#);
    let (s, _) = e.load(true);
    assert_eq!(s.shell_path(), Some(home.join("bin/zsh")));
    assert_eq!(s.session_dir(), Some(home.join("sessions")));
    e.project(r#"{"sessionDir": "rel/s"}"#);
    let (s, _) = e.load(true);
    assert_eq!(s.session_dir(), Some(e.cwd.join("rel/s")));
}

#[test]
fn migrations_apply_on_load() {
    let e = env();
    e.user(r#"{"queueMode": "all", "websockets": false, "skills": {"customDirectories": ["s"]}, "retry": {"maxDelayMs": 7}}"#);
    let (s, d) = e.load(true);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s.get_str(&["steeringMode"]), Some("all"));
    assert_eq!(s.get_str(&["transport"]), Some("sse"));
    assert_eq!(s.get(&["retry", "provider", "maxRetryDelayMs"]), Some(&json!(7)));
    assert_eq!(s.resources(ResourceKind::Skills)[0].entry, "s");
}

#[test]
fn resource_lists_are_combined_with_their_base_folders() {
    let e = env();
    e.user(r#"{"extensions": ["a.ts", "-builtin:mcp"]}"#);
    e.project(r#"{"extensions": ["b.ts", "+builtin:mcp"], "prompts": ["p"]}"#);
    let (s, _) = e.load(true);
    assert_eq!(s.extensions(), vec!["a.ts", "-builtin:mcp", "b.ts", "+builtin:mcp"]);
    let r = s.resources(ResourceKind::Extensions);
    assert_eq!((r[0].scope, r[0].base_dir.as_path()), (Scope::User, e.agent.as_path()));
    assert_eq!((r[2].scope, r[2].base_dir.clone()), (Scope::Project, e.cwd.join(".pi")));
    // The merged view follows the plain rule: the project's array replaces.
    assert_eq!(s.get(&["extensions"]), Some(&json!(["b.ts", "+builtin:mcp"])));
    // Untrusted: only the user's.
    assert_eq!(e.load(false).0.extensions(), vec!["a.ts", "-builtin:mcp"]);
}

#[test]
fn project_writes_refused_when_untrusted_and_create_pi_only_when_writing() {
    let e = env();
    let (mut s, _) = e.load(false);
    let err = s.write_project(&["defaultModel"], Some(json!("m"))).unwrap_err();
    assert_eq!(err, SettingsError::ProjectNotTrusted);
    assert_eq!(err.to_string(), "Project is not trusted; refusing to write project settings");
    assert!(!e.cwd.join(".pi").exists());

    let (mut s, _) = e.load(true);
    assert!(!e.cwd.join(".pi").exists(), "loading never creates .pi");
    s.write_project(&["defaultModel"], Some(json!("m"))).unwrap();
    s.write_project(&["retry", "maxRetries"], Some(json!(9))).unwrap();
    let path = e.cwd.join(".pi/settings.json");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\n  \"defaultModel\": \"m\",\n  \"retry\": {\n    \"maxRetries\": 9\n  }\n}"
    );
    assert_eq!(s.default_model(), Some("m"));
    assert_eq!(s.retry().max_retries, 9);
    assert!(!e.cwd.join(".pi/settings.json.lock").exists());
    // Global-only keys cannot be written to the project file.
    assert!(matches!(s.write_project(&["defaultProjectTrust"], Some(json!("always"))), Err(SettingsError::Invalid(_))));
    s.write_project(&["retry"], None).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\n  \"defaultModel\": \"m\"\n}");
}

#[test]
fn writes_reread_the_file_and_keep_other_keys() {
    let e = env();
    let u = e.user(r#"{"theme": "dark", "keep": {"me": 1}}"#);
    let (mut s, _) = e.load(false);
    // Someone else changes the file after the load.
    e.user(r#"{"theme": "dark", "keep": {"me": 1}, "added": true}"#);
    s.write_user(&["defaultProvider"], Some(json!("openai"))).unwrap();
    let written = fs::read_to_string(&u).unwrap();
    // As the reference writes it: two spaces, no newline at the end.
    assert!(written.starts_with("{\n  \"") && written.ends_with('}'), "{written:?}");
    let v: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(v, json!({"theme": "dark", "keep": {"me": 1}, "added": true, "defaultProvider": "openai"}));
    assert_eq!(s.default_provider(), Some("openai"));
    assert_eq!(s.get_bool(&["added"]), Some(true));
}

#[test]
fn writes_are_validated_and_never_clobber_a_broken_file() {
    let e = env();
    let (mut s, _) = e.load(false);
    let err = s.write_user(&["defaultTools"], Some(json!("read"))).unwrap_err();
    assert_eq!(err.to_string(), "\"defaultTools\" must be an array of strings");
    let err = s.write_user(&["defaultProjectTrust"], Some(json!("maybe"))).unwrap_err();
    assert_eq!(err.to_string(), "\"defaultProjectTrust\" must be one of \"ask\", \"always\", \"never\"");
    assert!(matches!(s.write_user(&[], None), Err(SettingsError::Invalid(_))));
    let u = e.user("{ broken");
    let err = s.write_user(&["theme"], Some(json!("x"))).unwrap_err();
    assert!(err.to_string().starts_with(&format!("Invalid settings file {}: ", u.display())), "{err}");
    assert_eq!(fs::read_to_string(&u).unwrap(), "{ broken");
}

#[test]
fn concurrent_writers_lose_nothing() {
    let e = env();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (agent, cwd) = (e.agent.clone(), e.cwd.clone());
            std::thread::spawn(move || {
                for i in 0..25 {
                    let (mut s, _) = Settings::load(&agent, &cwd, false);
                    s.write_user(&["k", &format!("t{t}-{i}")], Some(json!(i))).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let (s, d) = e.load(false);
    assert!(d.is_empty());
    assert_eq!(s.get(&["k"]).unwrap().as_object().unwrap().len(), 100);
}

#[test]
fn a_symlinked_settings_file_stays_a_link() {
    #[cfg(unix)]
    {
        let e = env();
        let real = e.agent.parent().unwrap().join("dotfiles-settings.json");
        fs::write(&real, "{}").unwrap();
        std::os::unix::fs::symlink(&real, e.agent.join("settings.json")).unwrap();
        let (mut s, _) = e.load(false);
        s.write_user(&["theme"], Some(json!("light"))).unwrap();
        assert!(fs::symlink_metadata(e.agent.join("settings.json")).unwrap().file_type().is_symlink());
        assert!(fs::read_to_string(&real).unwrap().contains("light"));
    }
}
