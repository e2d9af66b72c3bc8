//! The host side of the terminal UI: it owns the agent and carries out the
//! UI's requests one after another (a prompt, a user command, a model or
//! thinking change, a command); abort, steering and follow-ups reach the
//! agent directly through the shared controls.

use std::collections::VecDeque;
use std::sync::Arc;

use pi_config::ModelEntry;
use pi_tui::host::{ModelInfo, Request, Update};
use pi_tui::transcript::Level;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::look::UiSettings;
use super::text;
use pi_runtime::model_change::{ModelChoice, ModelSource};
use pi_runtime::{Op, Outcome, Runtime};

/// Most files listed for `@` completion.
const FILE_LIST_LIMIT: usize = 5000;

/// The host.
pub(crate) struct Host {
    /// The session the UI drives.
    pub rt: Runtime,
    pub models: Arc<[ModelEntry]>,
    pub ui: UiSettings,
    pub up: UnboundedSender<Update>,
    pub session_name: Option<String>,
    deferred: VecDeque<Request>,
}

/// A model as the UI shows it.
pub(crate) fn model_info(m: &ModelEntry) -> ModelInfo {
    ModelInfo {
        provider: m.provider.clone(),
        id: m.id.clone(),
        name: m.name.clone(),
        reasoning: m.reasoning,
        context_window: m.context_window,
    }
}

impl Host {
    pub(crate) fn new(rt: Runtime, models: Arc<[ModelEntry]>, ui: UiSettings, up: UnboundedSender<Update>) -> Host {
        let session_name = rt.agent().session().lock().ok().and_then(|s| s.name()).or_else(|| ui.session_name.clone());
        Host { rt, models, ui, up, session_name, deferred: VecDeque::new() }
    }

    fn send(&self, u: Update) {
        let _ = self.up.send(u);
    }

    pub(super) fn notice(&self, level: Level, text: impl Into<String>) {
        self.send(Update::Notice(level, text.into()));
    }

    /// Serve requests until the UI quits or goes away.
    pub(crate) async fn serve(mut self, mut rx: UnboundedReceiver<Request>) -> Runtime {
        loop {
            let req = match self.deferred.pop_front() {
                Some(r) => r,
                None => match rx.recv().await {
                    Some(r) => r,
                    None => break,
                },
            };
            match req {
                Request::Quit => break,
                Request::Prompt(text) => {
                    let images = super::attach::images(&self.rt.agent().tool_ctx().cwd, &text);
                    let incoming = pi_runtime::ext_input::Incoming::user(&text, images, "interactive");
                    if let Err(why) = self.rt.apply(Op::Submit(incoming)).await {
                        self.notice(Level::Error, why.to_string());
                    }
                }
                Request::Bash { command, exclude } => self.bash(&command, exclude, &mut rx).await,
                Request::AbortBash | Request::SaveSetting { .. } | Request::ListFiles => {
                    self.quick(req);
                    continue;
                }
                Request::SetModel { provider, id, save } => self.set_model(&provider, &id, save).await,
                Request::SetThinking(level) => self.set_thinking(&level).await,
                Request::Command { name, args } => self.command(&name, &args).await,
                Request::Shortcut(key) => {
                    let _done = self.rt.apply(Op::Shortcut(key)).await;
                }
            }
            self.send(Update::Done);
            if self.rt.ext().shutdown.requested() {
                // `ctx.shutdown()`: end once idle, as when the user quits.
                self.send(Update::Exit);
                break;
            }
        }
        self.rt
    }

    /// Requests that need no `Done`.
    fn quick(&mut self, req: Request) {
        match req {
            Request::SaveSetting { path, value } => {
                let (mut settings, _) =
                    pi_config::Settings::load(&self.ui.agent_dir, &self.ui.cwd, self.rt.reload_state().prompt.trusted);
                let keys: Vec<&str> = path.iter().map(String::as_str).collect();
                if let Err(e) = settings.write_user(&keys, Some(value)) {
                    self.notice(Level::Error, pi_tui::text::error_line(&e.to_string()));
                }
            }
            Request::ListFiles => self.list_files(),
            _ => {}
        }
    }

    /// `!cmd`: the `user_bash` handlers first, then the shell; output streams
    /// to the UI; the record goes to the conversation (kept out of the
    /// model's context with `!!`). Requests arriving meanwhile wait, except
    /// the one that stops it.
    async fn bash(&mut self, command: &str, exclude: bool, rx: &mut UnboundedReceiver<Request>) {
        let event = pi_agent::UserBashEvent {
            command: command.to_string(),
            exclude_from_context: exclude,
            cwd: self.rt.agent().tool_ctx().cwd.clone(),
        };
        let mut ctx = self.rt.agent().tool_ctx().clone();
        let token = tokio_util::sync::CancellationToken::new();
        ctx.abort = token.clone();
        let up = self.up.clone();
        let on_output: pi_tools::OutputFn = Arc::new(move |piece: &str| {
            let _ = up.send(Update::BashOutput(piece.to_string()));
        });
        let up = self.up.clone();
        let on_error = move |source: &str, error: &str| {
            let _ = up.send(Update::Notice(Level::Error, pi_ext::text::extension_error(source, error)));
        };
        let interceptors = self.rt.agent().dispatcher().interceptors.clone();
        let run = pi_agent::run_user_bash(&interceptors, &event, &ctx, Some(on_output), &on_error);
        tokio::pin!(run);
        let outcome = loop {
            tokio::select! {
                r = &mut run => break r,
                req = rx.recv() => match req {
                    Some(Request::AbortBash) | None => token.cancel(),
                    Some(other) => self.deferred.push_back(other),
                },
            }
        };
        match outcome {
            Ok(result) => {
                self.send(Update::BashDone {
                    exit_code: result.exit_code.map(|c| i32::try_from(c).unwrap_or(i32::MAX)),
                    cancelled: result.cancelled,
                    full_output_path: result.full_output_path.clone(),
                });
                self.rt.agent_mut().record(pi_agent::BashExecutionMessage::new(&event, &result).into());
            }
            Err(e) => {
                self.send(Update::BashDone { exit_code: None, cancelled: false, full_output_path: None });
                self.notice(Level::Error, pi_tui::text::error_line(&e.to_string()));
            }
        }
    }

    async fn set_model(&mut self, provider: &str, id: &str, save: bool) {
        let Some(entry) = self.models.iter().find(|m| m.provider == provider && m.id == id).cloned() else {
            self.notice(Level::Error, pi_tui::text::error_line(&text::model_not_found(&format!("{provider}/{id}"))));
            return;
        };
        let key = match pi_runtime::model_select::api_key_for(&entry, self.ui.api_key.as_deref()) {
            Ok(k) => k,
            Err(e) => {
                self.notice(Level::Error, pi_tui::text::error_line(&e.to_string()));
                return;
            }
        };
        let choice = ModelChoice { entry: entry.clone(), key, source: ModelSource::Set };
        if let Ok(Outcome::Chosen { tell, .. }) =
            self.rt.apply(Op::Choose { model: Some(Box::new(choice)), thinking: None }).await
        {
            self.rt.tell(&tell).await;
        }
        self.send(Update::Model(model_info(&entry)));
        self.send(Update::Thinking(self.rt.agent().thinking().map(String::from)));
        if save {
            self.save(&["defaultProvider"], serde_json::json!(entry.provider));
            self.save(&["defaultModel"], serde_json::json!(entry.id));
        }
    }

    fn save(&self, path: &[&str], value: serde_json::Value) {
        let (mut settings, _) =
            pi_config::Settings::load(&self.ui.agent_dir, &self.ui.cwd, self.rt.reload_state().prompt.trusted);
        if let Err(e) = settings.write_user(path, Some(value)) {
            self.notice(Level::Error, pi_tui::text::error_line(&e.to_string()));
        }
    }

    async fn set_thinking(&mut self, level: &str) {
        let chosen = self.rt.apply(Op::Choose { model: None, thinking: Some(level.to_string()) }).await;
        if let Ok(Outcome::Chosen { tell, .. }) = chosen {
            self.rt.tell(&tell).await;
        }
        self.send(Update::Thinking(self.rt.agent().thinking().map(String::from)));
    }

    /// The project's files for `@` completion, from our own `find`.
    fn list_files(&self) {
        let up = self.up.clone();
        let ctx = pi_tools::ToolContext::new(self.rt.agent().tool_ctx().cwd.clone());
        tokio::spawn(async move {
            let args = serde_json::json!({"pattern": "**/*", "limit": FILE_LIST_LIMIT});
            if let Ok(r) = pi_tools::execute_validated(pi_tools::ToolName::Find, args, &ctx).await {
                let files: Vec<String> = r
                    .text_content()
                    .lines()
                    .filter(|l| !l.is_empty() && !l.starts_with('['))
                    .map(String::from)
                    .collect();
                let _ = up.send(Update::Files(files));
            }
        });
    }
}
