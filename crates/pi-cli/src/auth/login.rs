//! `pi auth login <provider> [--api-key] [--no-browser]`: save an API key,
//! or sign in with an account (Anthropic and OpenAI Codex in the browser,
//! with a local callback or a pasted code; GitHub Copilot with a device
//! code), and store the result in `auth.json`.
//!
//! Unlike the reference, a key or a pasted code may come from a standard
//! input that is not a terminal (scripts, tests); on a terminal the key is
//! read without echo.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::process::ExitCode;
use std::time::Duration;

use pi_ai::oauth::pkce::Pkce;
use pi_ai::oauth::{Tokens, anthropic, callback::Callback, codex, copilot, endpoints};
use pi_config::Credential;
use pi_config::auth::ApiKeyCredential;
use tokio::sync::mpsc;

use pi_runtime::auth::error::LoginError;
use pi_runtime::auth::providers::{self, Method};
use pi_runtime::auth::{refresh, resolve, text};

/// A login not finished within this time fails.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// `pi auth login …`.
pub async fn main(args: &[String]) -> ExitCode {
    let (mut provider, mut api_key, mut no_browser) = (None, false, false);
    for a in args {
        match a.as_str() {
            "--api-key" => api_key = true,
            "--no-browser" => no_browser = true,
            s if s.starts_with('-') || provider.is_some() => return fail(text::LOGIN_USAGE),
            s => provider = Some(s.to_string()),
        }
    }
    let Some(provider) = provider else { return fail(text::LOGIN_USAGE) };
    if api_key && no_browser {
        return fail(text::NO_BROWSER_WITH_KEY);
    }
    if !providers::is_known(&provider) {
        return fail(&format!(
            "{}\nProviders: {}",
            text::unknown_login_provider(&provider),
            providers::known_ids().join(", ")
        ));
    }
    let name = providers::display_name(&provider);
    let mut lines = stdin_lines();
    let method = if api_key { Method::ApiKey } else { providers::method(&provider) };
    let outcome = match method {
        Method::ApiKey => read_key(&name, &mut lines)
            .await
            .map(|key| Credential::ApiKey(ApiKeyCredential { key, ..Default::default() }))
            .map_err(|e| e.to_string()),
        oauth => tokio::time::timeout(LOGIN_TIMEOUT, sign_in(oauth, &provider, no_browser, &mut lines))
            .await
            .unwrap_or(Err(LoginError::TimedOut))
            .map(|tokens| Credential::OAuth(refresh::credential_of(&provider, tokens, None)))
            .map_err(|e| text::login_failed(&name, &e.to_string())),
    };
    let credential = match outcome {
        Ok(c) => c,
        Err(message) => return fail(&message),
    };
    let store = resolve::store();
    if let Err(e) = store.update(|f| f.set(&provider, &credential)) {
        return fail(&e.to_string());
    }
    match credential {
        Credential::ApiKey(_) => println!("{}", text::saved_key(&name, store.path())),
        Credential::OAuth(_) => println!("{}", text::logged_in(&name, store.path())),
    }
    ExitCode::SUCCESS
}

fn fail(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(1)
}

/// Standard input's lines, read on a helper thread (so a pasted code can
/// race the browser's callback). The channel closes at end of input.
fn stdin_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    let _ = std::thread::Builder::new().name("pi-auth-stdin".into()).spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn prompt(s: &str) {
    print!("{s}");
    let _ = std::io::stdout().flush();
}

/// Turn the terminal's echo off while a secret is typed (restored on drop).
struct NoEcho(Option<rustix::termios::Termios>);

impl NoEcho {
    fn new() -> Self {
        let stdin = std::io::stdin();
        let Ok(saved) = rustix::termios::tcgetattr(&stdin) else { return Self(None) };
        let mut quiet = saved.clone();
        quiet.local_modes.remove(rustix::termios::LocalModes::ECHO);
        let _ = rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Now, &quiet);
        Self(Some(saved))
    }
}

impl Drop for NoEcho {
    fn drop(&mut self) {
        if let Some(saved) = &self.0 {
            let _ = rustix::termios::tcsetattr(std::io::stdin(), rustix::termios::OptionalActions::Now, saved);
            println!();
        }
    }
}

async fn read_key(name: &str, lines: &mut mpsc::UnboundedReceiver<String>) -> Result<String, LoginError> {
    prompt(&text::enter_key(name));
    let quiet = std::io::stdin().is_terminal().then(NoEcho::new);
    let line = lines.recv().await;
    drop(quiet);
    match line.map(|l| l.trim().to_string()) {
        Some(k) if !k.is_empty() => Ok(k),
        _ => Err(LoginError::EmptyKey),
    }
}

async fn sign_in(
    method: Method,
    provider: &str,
    no_browser: bool,
    lines: &mut mpsc::UnboundedReceiver<String>,
) -> Result<Tokens, LoginError> {
    match (method, no_browser) {
        (Method::Anthropic, false) => anthropic_browser(provider, lines).await,
        (Method::Anthropic, true) => anthropic_paste(lines).await,
        (Method::Codex, false) => codex_browser(provider, lines).await,
        (Method::Codex, true) => codex_device().await,
        (Method::Copilot, _) => copilot_device(lines).await,
        (Method::ApiKey, _) => Err(LoginError::EmptyKey),
    }
}

fn show_url(url: &str, hint: &str) {
    println!("{}", text::OPEN_URL);
    println!("  {url}");
    println!("{hint}");
}

/// The code from the callback or from a pasted line (`code#state` or the
/// redirect URL), checked against `state`.
async fn code_from(
    callback: &Callback,
    state: &str,
    lines: &mut mpsc::UnboundedReceiver<String>,
) -> Result<(String, String), LoginError> {
    let mut stdin_open = true;
    loop {
        tokio::select! {
            code = callback.code(state) => return Ok((code?, state.to_string())),
            line = lines.recv(), if stdin_open => match line {
                None => stdin_open = false,
                Some(l) => match anthropic::parse_pasted(&l) {
                    Some((code, s)) if s.as_deref().is_none_or(|s| s == state) => return Ok((code, state.to_string())),
                    Some(_) => return Err(LoginError::StateMismatch),
                    None => {}
                },
            },
        }
    }
}

async fn anthropic_browser(provider: &str, lines: &mut mpsc::UnboundedReceiver<String>) -> Result<Tokens, LoginError> {
    let pkce = Pkce::new();
    let (port, path) = endpoints::ANTHROPIC_CALLBACK;
    let callback = Callback::bind(port, path).await.map_err(|source| LoginError::Callback { port, source })?;
    let redirect = callback.redirect_uri();
    show_url(&anthropic::authorize_url(&pkce, &redirect), text::BROWSER_HINT);
    println!("{}", text::other_method("Copy code login (headless)", provider));
    prompt(text::BROWSER_PROMPT);
    let (code, state) = code_from(&callback, &pkce.verifier, lines).await?;
    println!();
    println!("{}", text::EXCHANGING);
    anthropic::exchange_code(&code, &state, &pkce, &redirect).await.map_err(LoginError::from)
}

async fn anthropic_paste(lines: &mut mpsc::UnboundedReceiver<String>) -> Result<Tokens, LoginError> {
    println!("Select Anthropic login method: Copy code login (headless)");
    let pkce = Pkce::new();
    let redirect = endpoints::ANTHROPIC_MANUAL_REDIRECT_URI;
    show_url(&anthropic::authorize_url(&pkce, redirect), text::PASTE_HINT);
    prompt(text::PASTE_PROMPT);
    let line = lines.recv().await.ok_or(LoginError::NoCode)?;
    let (code, state) = anthropic::parse_pasted(&line).ok_or(LoginError::NoCode)?;
    if state.as_deref().is_some_and(|s| s != pkce.verifier) {
        return Err(LoginError::StateMismatch);
    }
    println!("{}", text::EXCHANGING);
    anthropic::exchange_code(&code, state.as_deref().unwrap_or(&pkce.verifier), &pkce, redirect)
        .await
        .map_err(LoginError::from)
}

async fn codex_browser(provider: &str, lines: &mut mpsc::UnboundedReceiver<String>) -> Result<Tokens, LoginError> {
    let pkce = Pkce::new();
    let state = codex::new_state();
    let (port, path) = endpoints::CODEX_CALLBACK;
    let callback = Callback::bind(port, path).await.map_err(|source| LoginError::Callback { port, source })?;
    let redirect = callback.redirect_uri();
    show_url(&codex::authorize_url(&pkce, &state, &redirect), text::CODEX_BROWSER_HINT);
    println!("{}", text::other_method("Device code login (headless)", provider));
    prompt(text::BROWSER_PROMPT);
    let (code, _) = code_from(&callback, &state, lines).await?;
    println!();
    codex::exchange_code(&code, &pkce, &redirect).await.map_err(LoginError::from)
}

async fn codex_device() -> Result<Tokens, LoginError> {
    println!("Select OpenAI Codex login method: Device code login (headless)");
    let device = codex::device_start().await?;
    println!("{}", text::device_code(&device.page, &device.user_code));
    println!("{}", text::WAITING);
    codex::device_wait(&device).await.map_err(LoginError::from)
}

async fn copilot_device(lines: &mut mpsc::UnboundedReceiver<String>) -> Result<Tokens, LoginError> {
    prompt(text::GITHUB_HOST_PROMPT);
    let host = lines.recv().await.unwrap_or_default();
    if !host.trim().is_empty() {
        return Err(LoginError::EnterpriseUnsupported);
    }
    let device = copilot::start().await?;
    println!("{}", text::device_code(&device.verification_uri, &device.user_code));
    println!("{}", text::WAITING);
    let github_token = copilot::wait(&device).await?;
    copilot::copilot_token(&github_token).await.map_err(LoginError::from)
}
