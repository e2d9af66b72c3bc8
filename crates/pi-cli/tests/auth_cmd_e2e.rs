//! `pi auth` through the real binary: the reference's outputs and exit codes
//! for check/print/logout, `login --api-key` (key from standard input), and
//! each account login against the mock OAuth server: Anthropic's pasted
//! code, OpenAI Codex's browser callback, GitHub Copilot's device code.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use base64::Engine as _;
use pi_test_support::oauth::{MockOAuth, TokenAnswer};
use serde_json::{Value, json};

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

    fn auth(&self) -> Value {
        serde_json::from_str(&fs::read_to_string(self.auth_path()).unwrap()).unwrap()
    }

    fn pi(&self, oauth: Option<&MockOAuth>, args: &[&str]) -> Command {
        let mut c = pi_test_support::isolated_pi(env!("CARGO_BIN_EXE_pi"), &self.home, &self.work, &self.tmp);
        c.env_remove("ANTHROPIC_AUTH_TOKEN").env_remove("ANTHROPIC_OAUTH_TOKEN");
        c.env("PI_TEST_OAUTH_ORIGIN", oauth.map_or_else(|| "http://127.0.0.1:9".to_string(), MockOAuth::origin));
        c.arg("auth").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    }

    fn run(&self, oauth: Option<&MockOAuth>, args: &[&str], stdin: &str) -> Output {
        let mut child = self.pi(oauth, args).spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }
}

fn out(o: &Output) -> (i32, String) {
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), text)
}

#[test]
fn check_print_and_logout_answer_as_the_reference() {
    let e = env();
    fs::write(e.auth_path(), json!({"anthropic": {"type": "api_key", "key": "STORED"}}).to_string()).unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["check", "--provider", "anthropic"], 0, "ready\n"),
        (
            &["check", "--provider", "anthropic", "--json", "--credentials"],
            0,
            "{\"status\":\"ready\",\"provider\":\"anthropic\",\"authType\":\"api_key\",\"credentials\":\"STORED\"}\n",
        ),
        (
            &["check", "--provider", "openai", "--json"],
            1,
            "{\"status\":\"not_ready\",\"provider\":\"openai\",\"reason\":\"credentials_not_configured\"}\n",
        ),
        (&["check", "--provider", "nosuch"], 1, "not_ready\n"),
        (&["check"], 2, "Error: Auth checks require --provider <provider> or --model <model>\n"),
        (&["print-api-key", "--provider", "anthropic"], 0, "STORED\n"),
        (&["print-api-key"], 1, "Error: Credential printing requires --provider <provider> or --model <model>\n"),
        (
            &["print-bearer-token", "--provider", "anthropic"],
            1,
            "Error: Provider \"anthropic\" is not configured with an OAuth bearer token\n",
        ),
        (
            &["print-api-key", "--provider", "nosuch"],
            1,
            "Error: Unknown provider \"nosuch\". Use --list-models to see available providers.\n",
        ),
        (
            &["bogus"],
            1,
            "Error: Unknown auth command \"bogus\". Use \"pi auth login\", \"pi auth logout\", \"pi auth print-api-key\", \"pi auth print-bearer-token\", or \"pi auth check\".\n",
        ),
        (
            &["logout", "anthropic"],
            0,
            "Removed stored API key for Anthropic. Environment variables and models.json config are unchanged.\n",
        ),
        (
            &["logout", "anthropic"],
            0,
            "No stored credentials for Anthropic. Environment variables and models.json config are unchanged.\n",
        ),
        (
            &["login", "anthropic", "--api-key", "--no-browser"],
            1,
            "--no-browser only applies to account sign-in; omit it with --api-key.\n",
        ),
    ];
    for (args, code, expected) in cases {
        assert_eq!(out(&e.run(None, args, "")), (*code, expected.to_string()), "pi auth {args:?}");
    }
    assert!(
        out(&e.run(None, &["--help"], ""))
            .1
            .starts_with("Usage:\n  pi auth login <provider> [--api-key] [--no-browser]\n")
    );
}

#[test]
fn an_oauth_login_prints_its_token_and_refreshes_it_when_asked_for_more_time() {
    let e = env();
    let oauth = MockOAuth::start(TokenAnswer::Tokens {
        access: "sk-ant-oat01-NEW".into(),
        refresh: "R2".into(),
        expires_in: 7200,
    });
    let expires =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64 + 3_600_000;
    let entry = json!({"anthropic": {"type": "oauth", "access": "sk-ant-oat01-A", "refresh": "R", "expires": expires}});
    fs::write(e.auth_path(), entry.to_string()).unwrap();
    assert_eq!(
        out(&e.run(Some(&oauth), &["print-bearer-token", "--provider", "anthropic"], "")),
        (0, "sk-ant-oat01-A\n".into())
    );
    assert_eq!(
        out(&e.run(Some(&oauth), &["print-api-key", "--provider", "anthropic"], "")),
        (1, "Error: Provider \"anthropic\" is configured with OAuth, not an API key\n".into())
    );
    assert!(oauth.requests().is_empty());
    // An hour left, 90 minutes asked for: refreshed (the new token has 2 hours less the margin).
    let o = e.run(Some(&oauth), &["print-bearer-token", "--provider", "anthropic", "--min-expiry", "90m"], "");
    assert_eq!(out(&o), (0, "sk-ant-oat01-NEW\n".into()));
    assert_eq!(oauth.requests().len(), 1);
    assert_eq!(
        out(&e.run(Some(&oauth), &["print-bearer-token", "--provider", "anthropic", "--min-expiry", "3h"], "")),
        (1, "Error: Failed to resolve credential\n".into())
    );
    assert_eq!(out(&e.run(None, &["logout", "anthropic"], "")), (0, "Logged out of Anthropic.\n".into()));
}

#[test]
fn login_with_an_api_key_reads_it_from_standard_input() {
    let e = env();
    let o = e.run(None, &["login", "openai", "--api-key"], "sk-test-1\n");
    let (code, text) = out(&o);
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        text,
        format!("Enter OpenAI API key: Saved API key for OpenAI. Credentials saved to {}\n", e.auth_path().display())
    );
    assert_eq!(e.auth()["openai"], json!({"type": "api_key", "key": "sk-test-1"}));
    assert_eq!(fs::metadata(e.auth_path()).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(out(&e.run(None, &["login", "openai", "--api-key"], "\n")).0, 1);
    assert_eq!(e.auth()["openai"]["key"], "sk-test-1");
}

#[test]
fn anthropic_code_paste_login() {
    let e = env();
    let oauth = MockOAuth::start(TokenAnswer::Tokens {
        access: "sk-ant-oat01-L".into(),
        refresh: "sk-ant-ort01-L".into(),
        expires_in: 3600,
    });
    let o = e.run(Some(&oauth), &["login", "anthropic", "--no-browser"], "THECODE\n");
    let (code, text) = out(&o);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("/claude.ai/oauth/authorize?code=true&client_id=9d1c250a-e61b-44d9-88ed-5944d1962f5e&response_type=code&redirect_uri=https%3A%2F%2Fplatform.claude.com%2Foauth%2Fcode%2Fcallback"), "{text}");
    assert!(
        text.ends_with(&format!("Logged in to Anthropic. Credentials saved to {}\n", e.auth_path().display())),
        "{text}"
    );
    let req = &oauth.requests()[0];
    assert_eq!(req.path, "/platform.claude.com/v1/oauth/token");
    let body: Value = serde_json::from_str(&req.body).unwrap();
    assert_eq!((body["grant_type"].as_str(), body["code"].as_str()), (Some("authorization_code"), Some("THECODE")));
    assert_eq!(body["state"], body["code_verifier"]);
    assert_eq!(body["redirect_uri"], "https://platform.claude.com/oauth/code/callback");
    let stored = &e.auth()["anthropic"];
    assert_eq!((stored["type"].as_str(), stored["access"].as_str()), (Some("oauth"), Some("sk-ant-oat01-L")));
}

#[test]
fn codex_browser_login_takes_the_callback() {
    let e = env();
    let claims = json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acc-9"}});
    let jwt = format!("e30.{}.s", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims.to_string()));
    let oauth = MockOAuth::start(TokenAnswer::Tokens { access: jwt.clone(), refresh: "RT".into(), expires_in: 3600 });
    let mut child = e.pi(Some(&oauth), &["login", "openai-codex"]).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut url = String::new();
    while !url.contains("/oauth/authorize?") {
        url.clear();
        assert!(stdout.read_line(&mut url).unwrap() > 0, "no sign-in URL");
    }
    let u = url.trim().to_string();
    let q: std::collections::HashMap<String, String> = u
        .split_once('?')
        .unwrap()
        .1
        .split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(q["redirect_uri"], "http%3A%2F%2Flocalhost%3A1455%2Fauth%2Fcallback");
    let mut sock = std::net::TcpStream::connect(("127.0.0.1", 1455)).unwrap();
    write!(sock, "GET /auth/callback?code=CB-CODE&state={} HTTP/1.1\r\nhost: localhost\r\n\r\n", q["state"]).unwrap();
    let mut page = String::new();
    sock.read_to_string(&mut page).unwrap();
    assert!(page.starts_with("HTTP/1.1 200") && page.contains("Authentication successful"), "{page}");
    let status = child.wait().unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(status.success(), "{rest}");
    assert!(rest.contains("Logged in to OpenAI Codex."), "{rest}");
    let form = &oauth.requests()[0].body;
    assert!(
        form.starts_with(
            "grant_type=authorization_code&client_id=app_EMoamEEZ73f0CkXaXp7hrann&code=CB-CODE&code_verifier="
        ),
        "{form}"
    );
    let stored = &e.auth()["openai-codex"];
    assert_eq!((stored["access"].as_str(), stored["accountId"].as_str()), (Some(jwt.as_str()), Some("acc-9")));
}

#[test]
fn copilot_device_login() {
    let e = env();
    let oauth = MockOAuth::start(TokenAnswer::Fail(500, "unused".into()));
    let o = e.run(Some(&oauth), &["login", "github-copilot"], "\n");
    let (code, text) = out(&o);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(
            "Open https://github.com/login/device and enter code: ABCD-1234\nWaiting for authentication...\n"
        ),
        "{text}"
    );
    let paths: Vec<String> = oauth.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths,
        [
            "/github.com/login/device/code",
            "/github.com/login/oauth/access_token",
            "/api.github.com/copilot_internal/v2/token"
        ]
    );
    assert_eq!(
        oauth.requests()[2].headers.iter().find(|(k, _)| k == "authorization").map(|(_, v)| v.as_str()),
        Some("Bearer ghu_GITHUB")
    );
    let stored = &e.auth()["github-copilot"];
    assert_eq!(
        (stored["refresh"].as_str(), stored["access"].as_str()),
        (Some("ghu_GITHUB"), Some("tid=copilot;exp=1"))
    );
    assert_eq!(stored["expires"], 4_000_000_000_000i64 - 300_000);
}

#[test]
fn codex_device_login() {
    let e = env();
    let claims = json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acc-D"}});
    let jwt = format!("e30.{}.s", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims.to_string()));
    let oauth = MockOAuth::start(TokenAnswer::Tokens { access: jwt, refresh: "RT".into(), expires_in: 3600 });
    let (code, text) = out(&e.run(Some(&oauth), &["login", "openai-codex", "--no-browser"], ""));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(
            "Open https://auth.openai.com/codex/device and enter code: CODE-42\nWaiting for authentication...\n"
        ),
        "{text}"
    );
    let reqs = oauth.requests();
    let paths: Vec<&str> = reqs.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/auth.openai.com/api/accounts/deviceauth/usercode",
            "/auth.openai.com/api/accounts/deviceauth/token",
            "/auth.openai.com/api/accounts/deviceauth/token",
            "/auth.openai.com/oauth/token"
        ]
    );
    assert_eq!(reqs[1].body, r#"{"device_auth_id":"DA-1","user_code":"CODE-42"}"#);
    assert_eq!(
        reqs[3].body,
        "grant_type=authorization_code&client_id=app_EMoamEEZ73f0CkXaXp7hrann&code=DEV-AUTH-CODE&code_verifier=DEV-VERIFIER&redirect_uri=https%3A%2F%2Fauth.openai.com%2Fdeviceauth%2Fcallback"
    );
    assert_eq!(e.auth()["openai-codex"]["accountId"], "acc-D");
}

#[test]
fn anthropic_browser_login_takes_the_callback() {
    let e = env();
    let oauth = MockOAuth::start(TokenAnswer::Tokens {
        access: "sk-ant-oat01-B".into(),
        refresh: "sk-ant-ort01-B".into(),
        expires_in: 3600,
    });
    let mut child = e.pi(Some(&oauth), &["login", "anthropic"]).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut url = String::new();
    while !url.contains("/oauth/authorize?") {
        url.clear();
        assert!(stdout.read_line(&mut url).unwrap() > 0, "no sign-in URL");
    }
    let state = url.trim().rsplit_once("&state=").unwrap().1.to_string();
    assert!(url.contains("redirect_uri=http%3A%2F%2Flocalhost%3A53692%2Fcallback"), "{url}");
    let mut sock = std::net::TcpStream::connect(("127.0.0.1", 53692)).unwrap();
    write!(sock, "GET /callback?code=CB&state={state} HTTP/1.1\r\nhost: localhost\r\n\r\n").unwrap();
    let mut page = String::new();
    sock.read_to_string(&mut page).unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    let status = child.wait().unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(status.success() && rest.contains("Exchanging authorization code for tokens..."), "{rest}");
    let body: Value = serde_json::from_str(&oauth.requests()[0].body).unwrap();
    assert_eq!((body["code"].as_str(), body["state"].as_str()), (Some("CB"), Some(state.as_str())));
    assert_eq!(body["code_verifier"].as_str(), Some(state.as_str()));
    assert_eq!(body["redirect_uri"], "http://localhost:53692/callback");
    assert_eq!(e.auth()["anthropic"]["access"], "sk-ant-oat01-B");
}
