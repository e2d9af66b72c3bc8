//! The slash commands the host runs: `/reload`, `/new`, `/session`,
//! `/name`; the session-tree and MCP commands answer that they are not in
//! this build yet.

use pi_agent::AgentMessage;
use pi_ai::Message;
use pi_tui::host::Update;
use pi_tui::transcript::Level;

use super::text;
use super::worker::Host;

/// Commands of the reference that other parts of pi will provide.
const NOT_YET: &[&str] = &[
    "tree",
    "fork",
    "clone",
    "resume",
    "compact",
    "export",
    "import",
    "share",
    "bug",
    "login",
    "logout",
    "scoped-models",
    "changelog",
    "mcp",
    "llama",
];

impl Host {
    pub(crate) async fn command(&mut self, name: &str, args: &str) {
        match name {
            "reload" => self.reload_command().await,
            "new" => self.new_session(),
            "session" => self.session_info(),
            "name" => self.name(args),
            n if NOT_YET.contains(&n) => {
                let _ = self.up.send(Update::Notice(Level::Warning, text::command_not_available(n)));
            }
            n => {
                let _ = self.up.send(Update::Notice(Level::Error, pi_tui::text::error_line(&text::unknown_command(n))));
            }
        }
    }

    async fn reload_command(&mut self) {
        let (status, warnings) = crate::reload::reload_collect(&mut self.agent, &mut self.reload).await;
        for w in warnings {
            let _ = self.up.send(Update::Notice(Level::Warning, pi_tui::text::warning_line(&w)));
        }
        let (keys, key_warnings) = super::look::keys(&self.ui.agent_dir);
        for w in key_warnings {
            let _ = self.up.send(Update::Notice(Level::Warning, pi_tui::text::warning_line(&w)));
        }
        let catalog = self.ui.catalog();
        for w in &catalog.diagnostics {
            let _ = self.up.send(Update::Notice(Level::Warning, pi_tui::text::warning_line(w)));
        }
        let _ = self.up.send(Update::Look { keys: Box::new(keys), themes: Box::new(catalog) });
        let _ = self.up.send(Update::Notice(Level::Info, status));
    }

    fn new_session(&mut self) {
        self.agent.messages.clear();
        if let Some(dir) = self.ui.session_dir.clone() {
            match pi_agent::session::SessionWriter::create(&dir, &self.ui.cwd, None) {
                Ok(w) => {
                    self.agent.tool_ctx.session.session_id = Some(w.id.clone());
                    self.agent.tool_ctx.session.session_file = Some(w.path().to_string_lossy().into_owned());
                    if let Ok(mut g) = self.session.lock() {
                        *g = Some(w);
                    }
                }
                Err(e) => {
                    let _ = self.up.send(Update::Notice(Level::Error, pi_tui::text::error_line(&e.to_string())));
                }
            }
        }
        self.session_name = None;
        let _ = self.up.send(Update::Reset);
        let _ = self.up.send(Update::SessionName(None));
        let _ = self.up.send(Update::Notice(Level::Info, text::NEW_SESSION.to_string()));
    }

    fn session_info(&self) {
        let (mut user, mut assistant, mut calls, mut results) = (0, 0, 0, 0);
        let mut usage = pi_ai::Usage::default();
        for m in &self.agent.messages {
            match m {
                AgentMessage::Llm(Message::User(_)) => user += 1,
                AgentMessage::Llm(Message::Assistant(a)) => {
                    assistant += 1;
                    calls += a.tool_calls().len();
                    usage = usage.combine(&a.usage);
                }
                AgentMessage::Llm(Message::ToolResult(_)) => results += 1,
                _ => {}
            }
        }
        let s = &self.agent.tool_ctx.session;
        let info = text::SessionInfo {
            file: s.session_file.as_deref(),
            id: s.session_id.as_deref().unwrap_or(""),
            name: self.session_name.as_deref(),
            total: self.agent.messages.len(),
            user,
            assistant,
            calls,
            results,
            usage: &usage,
        };
        let _ = self.up.send(Update::Markdown(text::session_info(&info)));
    }

    fn name(&mut self, args: &str) {
        let name = args.trim();
        if name.is_empty() {
            let msg = match &self.session_name {
                Some(n) => text::session_name_is(n),
                None => text::NO_SESSION_NAME.to_string(),
            };
            let _ = self.up.send(Update::Notice(Level::Info, msg));
            return;
        }
        self.session_name = Some(name.to_string());
        let _ = self.up.send(Update::SessionName(self.session_name.clone()));
        let _ = self.up.send(Update::Notice(Level::Info, text::session_named(name)));
    }
}
