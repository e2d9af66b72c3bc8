//! `auth.json` through the real binary: which credential a request carries
//! (stored key beside an environment key, `!command` keys, Anthropic
//! subscription tokens), OAuth refresh before a request (the mock OAuth
//! server sees it, the file is updated 0600), a refresh that fails or a
//! corrupt file (clear message, file untouched), two processes refreshing at
//! once, a token that expires mid-session, and `pi auth`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use pi_test_support::oauth::{MockOAuth, TokenAnswer};
use pi_test_support::{MockServer, Turn};
use serde_json::{Value, json};

const ORIGIN_ENV: &str = "PI_TEST_OAUTH_ORIGIN";
const MODEL: &str = "anthropic/claude-sonnet-4-5";

struct Env {
    _t: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
    agent: PathBuf,
}

fn env() -> Env {
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    let (home, work, tmp) = (root.join("home"), root.join("work"), root.join("tmp"));
    let agent = home.join(".pi/agent");
    for d in [&home, &work, &tmp, &agent] {
        fs::create_dir_all(d).unwrap();
    }
    Env { _t: t, home, work, tmp, agent }
}

impl Env {
    fn auth_path(&self) -> PathBuf {
        self.agent.join("auth.json")
    }

    fn write_auth(&self, v: &Value) {
        fs::write(self.auth_path(), v.to_string()).unwrap();
    }

    fn auth(&self) -> Value {
        serde_json::from_str(&fs::read_to_string(self.auth_path()).unwrap()).unwrap()
    }

    /// Built-in Anthropic models sent to `server`.
    fn route_anthropic(&self, server: &MockServer) {
        let doc = json!({"providers": {"anthropic": {"baseUrl": server.base_url()}}});
        fs::write(self.agent.join("models.json"), doc.to_string()).unwrap();
    }

    fn pi(&self, oauth: Option<&MockOAuth>) -> Command {
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &self.tmp);
        for v in ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN"] {
            c.env_remove(v);
        }
        match oauth {
            Some(o) => c.env(ORIGIN_ENV, o.origin()),
            None => c.env(ORIGIN_ENV, "http://127.0.0.1:9"),
        };
        c
    }

    fn print(&self, oauth: Option<&MockOAuth>, envs: &[(&str, &str)]) -> Output {
        let mut c = self.pi(oauth);
        c.args(["-p", "--offline", "--no-session", "--model", MODEL, "hi"]);
        for (k, v) in envs {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    fn auth_cmd(&self, oauth: Option<&MockOAuth>, args: &[&str], stdin: &str) -> Output {
        let mut c = self.pi(oauth);
        c.arg("auth").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn oauth_entry(access: &str, expires: i64) -> Value {
    json!({"type": "oauth", "access": access, "refresh": "sk-ant-ort01-OLD", "expires": expires})
}

fn refreshed() -> TokenAnswer {
    TokenAnswer::Tokens { access: "sk-ant-oat01-NEW".into(), refresh: "sk-ant-ort01-NEW".into(), expires_in: 3600 }
}

fn mode(p: &std::path::Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_stored_key_wins_over_the_environment() {
    let e = env();
    let server = MockServer::start(vec![Turn::text("ok")]);
    e.route_anthropic(&server);
    e.write_auth(&json!({"anthropic": {"type": "api_key", "key": "STORED"}}));
    let out = e.print(None, &[("ANTHROPIC_API_KEY", "FROM-ENV")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r = &server.requests()[0];
    assert_eq!(r.header("x-api-key"), Some("STORED"));
    assert_eq!(r.header("authorization"), None);
}

#[test]
fn a_command_key_is_run_and_bearer_and_subscription_tokens_are_sent_as_the_reference_sends_them() {
    let e = env();
    let server = MockServer::start(vec![Turn::text("a"), Turn::text("b"), Turn::text("c")]);
    e.route_anthropic(&server);
    e.write_auth(&json!({"anthropic": {"type": "api_key", "key": "!printf 'CMD-%s' KEY"}}));
    assert!(e.print(None, &[]).status.success());
    fs::remove_file(e.auth_path()).unwrap();
    assert!(e.print(None, &[("ANTHROPIC_AUTH_TOKEN", "AT"), ("ANTHROPIC_API_KEY", "K")]).status.success());
    assert!(e.print(None, &[("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat01-E")]).status.success());
    let reqs = server.requests();
    assert_eq!(reqs[0].header("x-api-key"), Some("CMD-KEY"));
    assert_eq!((reqs[1].header("authorization"), reqs[1].header("x-api-key")), (Some("Bearer AT"), None));
    assert_eq!(reqs[2].header("authorization"), Some("Bearer sk-ant-oat01-E"));
    assert_eq!(reqs[2].header("x-app"), Some("cli"));
    assert!(reqs[2].header("anthropic-beta").unwrap().starts_with("claude-code-20250219,oauth-2025-04-20"));
    assert_eq!(reqs[2].body["system"][0]["text"], "You are Claude Code, Anthropic's official CLI for Claude.");
}

#[test]
fn an_expired_token_is_refreshed_before_the_request() {
    let e = env();
    let server = MockServer::start(vec![Turn::text("ok")]);
    let oauth = MockOAuth::start(refreshed());
    e.route_anthropic(&server);
    e.write_auth(&json!({"anthropic": oauth_entry("sk-ant-oat01-OLD", now_ms() - 1000), "openai": {"type": "api_key", "key": "O"}}));
    fs::set_permissions(e.auth_path(), fs::Permissions::from_mode(0o644)).unwrap();
    let out = e.print(Some(&oauth), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let seen = oauth.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/platform.claude.com/v1/oauth/token");
    let body: Value = serde_json::from_str(&seen[0].body).unwrap();
    assert_eq!(body["grant_type"], "refresh_token");
    assert_eq!(body["refresh_token"], "sk-ant-ort01-OLD");
    assert_eq!(body["client_id"], "9d1c250a-e61b-44d9-88ed-5944d1962f5e");
    assert_eq!(server.requests()[0].header("authorization"), Some("Bearer sk-ant-oat01-NEW"));
    let stored = e.auth();
    assert_eq!(stored["anthropic"]["access"], "sk-ant-oat01-NEW");
    assert_eq!(stored["anthropic"]["refresh"], "sk-ant-ort01-NEW");
    let expires = stored["anthropic"]["expires"].as_i64().unwrap();
    assert!(expires > now_ms() + 3_000_000 && expires < now_ms() + 3_600_000, "{expires}");
    assert_eq!(stored["openai"]["key"], "O", "other entries are kept");
    assert_eq!(mode(&e.auth_path()), 0o600);
}

#[test]
fn a_failed_refresh_names_login_and_leaves_the_file() {
    let e = env();
    let server = MockServer::start(vec![Turn::text("never")]);
    let oauth = MockOAuth::start(TokenAnswer::Fail(400, r#"{"error":"invalid_grant"}"#.into()));
    e.route_anthropic(&server);
    e.write_auth(&json!({"anthropic": oauth_entry("sk-ant-oat01-OLD", now_ms() - 1000)}));
    let before = fs::read(e.auth_path()).unwrap();
    let out = e.print(Some(&oauth), &[("ANTHROPIC_API_KEY", "K")]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr) + &text(&out.stdout);
    assert!(err.contains("OAuth refresh failed for anthropic"), "{err}");
    assert!(err.contains("/login anthropic"), "{err}");
    assert!(err.contains("invalid_grant"), "{err}");
    assert_eq!(fs::read(e.auth_path()).unwrap(), before);
    assert!(server.requests().is_empty());
}

#[test]
fn a_corrupt_file_is_reported_and_left_byte_for_byte() {
    let e = env();
    let server = MockServer::start(vec![Turn::text("never")]);
    e.route_anthropic(&server);
    fs::write(e.auth_path(), b"{\"anthropic\": {\"type\": \"oauth\",").unwrap();
    let before = fs::read(e.auth_path()).unwrap();
    let out = e.print(None, &[("ANTHROPIC_API_KEY", "K")]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("Invalid {}", e.auth_path().display())), "{err}");
    assert!(err.contains("not valid JSON"), "{err}");
    let out = e.auth_cmd(None, &["logout", "anthropic"], "");
    assert_eq!(out.status.code(), Some(1));
    let out = e.auth_cmd(None, &["login", "openai", "--api-key"], "sk-new\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read(e.auth_path()).unwrap(), before);
    assert!(server.requests().is_empty());
}

#[test]
fn two_processes_refreshing_at_once_refresh_once_and_lose_nothing() {
    let e = env();
    let server = MockServer::start(vec![Turn::text("one"), Turn::text("two")]);
    let oauth = MockOAuth::start(refreshed());
    oauth.set_delay(std::time::Duration::from_millis(400));
    e.route_anthropic(&server);
    e.write_auth(&json!({"anthropic": oauth_entry("sk-ant-oat01-OLD", now_ms() - 1000), "openai": {"type": "api_key", "key": "O"}}));
    let spawn = || {
        let mut c = e.pi(Some(&oauth));
        c.args(["-p", "--offline", "--no-session", "--model", MODEL, "hi"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c.spawn().unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let login = e.auth_cmd(None, &["login", "groq", "--api-key"], "gsk-1\n");
    assert!(login.status.success(), "{}", text(&login.stderr));
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    assert_eq!(oauth.requests().len(), 1, "the second process found the refreshed token under the lock");
    for r in server.requests() {
        assert_eq!(r.header("authorization"), Some("Bearer sk-ant-oat01-NEW"));
    }
    let stored = e.auth();
    assert_eq!(stored["anthropic"]["access"], "sk-ant-oat01-NEW");
    assert_eq!((stored["openai"]["key"].as_str(), stored["groq"]["key"].as_str()), (Some("O"), Some("gsk-1")));
}

#[test]
fn a_token_that_expires_mid_session_is_refreshed_before_the_next_request() {
    let e = env();
    // The first answer runs a command that makes the stored token expire.
    let expire = format!(
        "printf '%s' '{}' > {}",
        json!({"anthropic": oauth_entry("sk-ant-oat01-FIRST", 1)}),
        e.auth_path().display()
    );
    let server = MockServer::start(vec![Turn::tool("bash", json!({"command": expire})), Turn::text("done")]);
    let oauth = MockOAuth::start(refreshed());
    e.route_anthropic(&server);
    e.write_auth(&json!({"anthropic": oauth_entry("sk-ant-oat01-FIRST", now_ms() + 3_600_000)}));
    let out = e.print(Some(&oauth), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-ant-oat01-FIRST"));
    assert_eq!(reqs[1].header("authorization"), Some("Bearer sk-ant-oat01-NEW"));
    assert_eq!(oauth.requests().len(), 1);
}

#[test]
fn a_stored_credential_makes_its_providers_models_available() {
    let e = env();
    let list = |e: &Env| {
        let out = e.pi(None).arg("--list-models").output().unwrap();
        text(&out.stdout)
    };
    assert!(!list(&e).contains("anthropic"));
    e.write_auth(&json!({"anthropic": oauth_entry("sk-ant-oat01-A", 1)}));
    let rows = list(&e);
    assert!(rows.lines().any(|l| l.starts_with("anthropic  claude-sonnet-4-5")), "{rows}");
    assert!(!rows.contains("openai"), "{rows}");
}
