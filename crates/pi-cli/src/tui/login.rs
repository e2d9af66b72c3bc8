//! `/login [provider]` and `/logout [provider]` in the terminal UI: the
//! same credentials and flows as `pi auth login|logout`, asked for with
//! dialogs. A browser login listens for its callback while the dialog lets
//! the redirect URL or code be pasted instead.

use pi_ai::oauth::pkce::Pkce;
use pi_ai::oauth::{Tokens, anthropic, callback::Callback, codex, copilot, endpoints};
use pi_config::Credential;
use pi_config::auth::ApiKeyCredential;
use pi_tui::host::{DialogAnswer, DialogRequest, UiHandle};
use pi_tui::transcript::Level;

use super::worker::Host;
use pi_runtime::auth::LoginError;
use pi_runtime::auth::providers::{self, Method};
use pi_runtime::auth::{refresh, resolve, text};

/// The method choices, as the dialog lists them.
const BROWSER: &str = "Sign in with your account (browser)";
const PASTE: &str = "Copy code login (headless)";
const DEVICE: &str = "Device code login";
const API_KEY: &str = "Enter an API key";

impl Host {
    fn ui(&self) -> UiHandle {
        UiHandle::new(self.up.clone())
    }

    async fn choose(&self, title: &str, options: Vec<String>) -> Option<String> {
        match self.ui().dialog(DialogRequest::Select { title: title.into(), options }).await {
            DialogAnswer::Value(v) => Some(v),
            _ => None,
        }
    }

    async fn input(&self, title: &str) -> Option<String> {
        match self.ui().dialog(DialogRequest::Input { title: title.into(), placeholder: None }).await {
            DialogAnswer::Value(v) if !v.trim().is_empty() => Some(v.trim().to_string()),
            _ => None,
        }
    }

    /// `/login [provider]`.
    pub(crate) async fn login(&mut self, args: &str) {
        let provider = match args.split_whitespace().next() {
            Some(p) => p.to_string(),
            None => match self.choose("Select a provider to log in to", providers::known_ids()).await {
                Some(p) => p,
                None => return,
            },
        };
        if !providers::is_known(&provider) {
            self.say(Level::Error, text::unknown_login_provider(&provider));
            return;
        }
        let name = providers::display_name(&provider);
        let method = providers::method(&provider);
        let choice = match method {
            Method::ApiKey => API_KEY.to_string(),
            Method::Anthropic => self.pick(&name, &[BROWSER, PASTE, API_KEY]).await,
            Method::Codex => self.pick(&name, &[BROWSER, DEVICE, API_KEY]).await,
            Method::Copilot => self.pick(&name, &[DEVICE, API_KEY]).await,
        };
        let credential = match choice.as_str() {
            "" => return,
            API_KEY => match self.input(&text::enter_key(&name)).await {
                Some(key) => Ok(Credential::ApiKey(ApiKeyCredential { key, ..Default::default() })),
                None => return,
            },
            how => {
                self.sign_in(method, how).await.map(|t| Credential::OAuth(refresh::credential_of(&provider, t, None)))
            }
        };
        let store = resolve::store();
        let saved = credential.and_then(|c| {
            store.update(|f| f.set(&provider, &c))?;
            Ok(matches!(c, Credential::OAuth(_)))
        });
        match saved {
            Ok(true) => self.say(Level::Info, text::logged_in(&name, store.path())),
            Ok(false) => self.say(Level::Info, text::saved_key(&name, store.path())),
            Err(e) => self.say(Level::Error, pi_tui::text::error_line(&text::login_failed(&name, &e.to_string()))),
        }
    }

    async fn pick(&self, name: &str, methods: &[&str]) -> String {
        let options = methods.iter().map(|m| m.to_string()).collect();
        self.choose(&format!("Select {name} login method"), options).await.unwrap_or_default()
    }

    fn say(&self, level: Level, message: String) {
        let _ = self.up.send(pi_tui::host::Update::Notice(level, message));
    }

    async fn sign_in(&self, method: Method, how: &str) -> Result<Tokens, LoginError> {
        match (method, how) {
            (Method::Anthropic, PASTE) => {
                let pkce = Pkce::new();
                let redirect = endpoints::ANTHROPIC_MANUAL_REDIRECT_URI;
                self.say(Level::Info, format!("{}\n  {}", text::OPEN_URL, anthropic::authorize_url(&pkce, redirect)));
                let line = self.input(text::PASTE_PROMPT).await.ok_or(LoginError::NoCode)?;
                let (code, state) = anthropic::parse_pasted(&line).ok_or(LoginError::NoCode)?;
                let state = state.unwrap_or_else(|| pkce.verifier.clone());
                anthropic::exchange_code(&code, &state, &pkce, redirect).await.map_err(LoginError::from)
            }
            (Method::Anthropic, _) => {
                let pkce = Pkce::new();
                let (port, path) = endpoints::ANTHROPIC_CALLBACK;
                let cb = Callback::bind(port, path).await.map_err(|source| LoginError::Callback { port, source })?;
                let redirect = cb.redirect_uri();
                self.say(Level::Info, format!("{}\n  {}", text::OPEN_URL, anthropic::authorize_url(&pkce, &redirect)));
                let code = self.callback_or_paste(&cb, &pkce.verifier).await?;
                anthropic::exchange_code(&code, &pkce.verifier, &pkce, &redirect).await.map_err(LoginError::from)
            }
            (Method::Codex, DEVICE) => {
                let device = codex::device_start().await?;
                self.say(Level::Info, text::device_code(&device.page, &device.user_code));
                self.say(Level::Info, text::WAITING.to_string());
                codex::device_wait(&device).await.map_err(LoginError::from)
            }
            (Method::Codex, _) => {
                let (pkce, state) = (Pkce::new(), codex::new_state());
                let (port, path) = endpoints::CODEX_CALLBACK;
                let cb = Callback::bind(port, path).await.map_err(|source| LoginError::Callback { port, source })?;
                let redirect = cb.redirect_uri();
                self.say(
                    Level::Info,
                    format!("{}\n  {}", text::OPEN_URL, codex::authorize_url(&pkce, &state, &redirect)),
                );
                let code = self.callback_or_paste(&cb, &state).await?;
                codex::exchange_code(&code, &pkce, &redirect).await.map_err(LoginError::from)
            }
            (Method::Copilot, _) => {
                let device = copilot::start().await?;
                self.say(Level::Info, text::device_code(&device.verification_uri, &device.user_code));
                self.say(Level::Info, text::WAITING.to_string());
                let github = copilot::wait(&device).await?;
                copilot::copilot_token(&github).await.map_err(LoginError::from)
            }
            (Method::ApiKey, _) => Err(LoginError::EmptyKey),
        }
    }

    /// The code from the browser's callback, or from the redirect URL or
    /// `code#state` pasted in the dialog (whichever comes first).
    async fn callback_or_paste(&self, cb: &Callback, state: &str) -> Result<String, LoginError> {
        let login = tokio::time::timeout(crate::auth::login::LOGIN_TIMEOUT, async {
            tokio::select! {
                code = cb.code(state) => Ok(code?),
                pasted = self.input(text::BROWSER_PROMPT) => {
                    let (code, s) = pasted.as_deref().and_then(anthropic::parse_pasted).ok_or(LoginError::NoCode)?;
                    if s.as_deref().is_some_and(|s| s != state) {
                        return Err(LoginError::StateMismatch);
                    }
                    Ok(code)
                }
            }
        });
        login.await.unwrap_or(Err(LoginError::TimedOut))
    }

    /// `/logout [provider]`.
    pub(crate) async fn logout(&mut self, args: &str) {
        let store = resolve::store();
        let provider = match args.split_whitespace().next() {
            Some(p) => p.to_string(),
            None => {
                let stored = match store.read() {
                    Ok(f) => f.providers().iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                    Err(e) => return self.say(Level::Error, pi_tui::text::error_line(&e.to_string())),
                };
                if stored.is_empty() {
                    return self.say(Level::Info, text::NO_STORED_CREDENTIALS.into());
                }
                match self.choose("Select a provider to log out of", stored).await {
                    Some(p) => p,
                    None => return,
                }
            }
        };
        let name = providers::display_name(&provider);
        let removed = store.update(|f| {
            let kind = f.get(&provider).ok().flatten().map(|c| c.kind());
            f.remove(&provider).then_some(kind.unwrap_or("api_key"))
        });
        match removed {
            Ok(Some(kind)) => self.say(Level::Info, text::removed(kind, &name)),
            Ok(None) => self.say(Level::Info, text::nothing_stored(&name)),
            Err(e) => self.say(Level::Error, pi_tui::text::error_line(&e.to_string())),
        }
    }
}
