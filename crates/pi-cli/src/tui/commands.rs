//! The slash commands the host runs: `/reload`, `/new`, `/session`,
//! `/name`, `/compact`, `/export`, `/fork`, `/clone`, `/resume`, `/tree`, `/mcp`,
//! `/login`, `/logout` (in `login`), `/llama`;
//! the session-tree commands answer that they are not in this build yet.

use pi_runtime::session_events::Replacement;
use std::path::{Path, PathBuf};

use pi_agent::AgentMessage;
use pi_agent::session::Session;
use pi_ai::Message;
use pi_tui::host::{DialogAnswer, DialogRequest, UiHandle, Update};
use pi_tui::transcript::Level;
use serde_json::Value;

use super::text;
use super::worker::Host;
use pi_runtime::session_error::SessionCallError;
use pi_runtime::{Op, Outcome};

/// Commands of the reference that other parts of pi will provide.
const NOT_YET: &[&str] = &["import", "share", "bug", "scoped-models", "changelog"];

impl Host {
    pub(crate) async fn command(&mut self, name: &str, args: &str) {
        match name {
            "reload" => self.reload_command().await,
            "new" => self.new_session().await,
            "session" => self.session_info(),
            "name" => self.name(args).await,
            "compact" => self.compact(args).await,
            "undo" => self.undo(args).await,
            "tree" => self.tree().await,
            "export" => self.export(args),
            "fork" => self.fork().await,
            "clone" => self.clone_session().await,
            "mcp" => self.mcp(args).await,
            "llama" if self.rt.reload_state().llama_on => self.llama().await,
            "login" if self.rt.reload_state().llama_on && args.trim() == pi_runtime::llama::BUILTIN => {
                self.llama_login().await
            }
            "resume" => self.resume().await,
            "login" => self.login(args).await,
            "logout" => self.logout(args).await,
            n if NOT_YET.contains(&n) => {
                let _ = self.up.send(Update::Notice(Level::Warning, text::command_not_available(n)));
            }
            n => {
                let _ = self.up.send(Update::Notice(Level::Error, pi_tui::text::error_line(&text::unknown_command(n))));
            }
        }
    }

    /// `/mcp` and `/mcp reconnect [server]` (the reference's answers outside
    /// its panel); without MCP servers, that there are none.
    async fn mcp(&mut self, args: &str) {
        let state = self.rt.reload_state();
        let answers = pi_runtime::mcp::answer(&state.agent_dir, state.mcp.as_ref(), args).await;
        for (level, message) in answers {
            let level = match level {
                pi_mcp::slash::Level::Info => Level::Info,
                pi_mcp::slash::Level::Warning => Level::Warning,
                pi_mcp::slash::Level::Error => Level::Error,
            };
            let _ = self.up.send(Update::Notice(level, message));
        }
    }

    /// `/llama`: the router's models with their state; the chosen one is
    /// loaded (unloaded) or unloaded (loaded, sleeping).
    async fn llama(&mut self) {
        let notice = |level, message: String| Update::Notice(level, message);
        let Some(router) = pi_runtime::llama::configured() else {
            let _ = self.up.send(notice(Level::Warning, crate::text::LLAMA_NOT_CONFIGURED.to_string()));
            return;
        };
        let models = match pi_runtime::llama::refresh(&router, &self.ui.agent_dir).await {
            Ok(m) if m.is_empty() => {
                let _ = self.up.send(notice(Level::Warning, crate::text::LLAMA_NO_MODELS.to_string()));
                return;
            }
            Ok(m) => m,
            Err(e) => {
                let _ = self.up.send(notice(Level::Error, e.to_string()));
                return;
            }
        };
        let options: Vec<String> = models.iter().map(|m| crate::text::llama_row(&m.id, &m.status)).collect();
        let request =
            DialogRequest::Select { title: crate::text::LLAMA_PICK_TITLE.to_string(), options: options.clone() };
        let DialogAnswer::Value(chosen) = UiHandle::new(self.up.clone()).dialog(request).await else { return };
        let Some(model) = options.iter().position(|o| *o == chosen).and_then(|i| models.get(i)) else { return };
        let update = match pi_runtime::llama::toggle(&router, model).await {
            Ok(message) => notice(Level::Info, message),
            Err(e) => notice(Level::Error, e.to_string()),
        };
        let _ = self.up.send(update);
        // The router's new state, for the next start's model list.
        let _ = pi_runtime::llama::refresh(&router, &self.ui.agent_dir).await;
    }

    /// `/login llama.cpp`: the router's URL and optional key, checked and stored.
    async fn llama_login(&mut self) {
        let ui = UiHandle::new(self.up.clone());
        let placeholder = std::env::var(pi_config::llama::BASE_URL_VAR)
            .unwrap_or_else(|_| pi_config::llama::DEFAULT_SERVER_URL.to_string());
        let ask =
            |title: &str, placeholder: Option<String>| DialogRequest::Input { title: title.to_string(), placeholder };
        let DialogAnswer::Value(url) = ui.dialog(ask(crate::text::LLAMA_URL_TITLE, Some(placeholder))).await else {
            return;
        };
        let DialogAnswer::Value(key) = ui.dialog(ask(crate::text::LLAMA_KEY_TITLE, None)).await else { return };
        let update = match pi_runtime::llama::login(&url, &key, &self.ui.agent_dir).await {
            Ok(message) => Update::Notice(Level::Info, message),
            Err(e) => Update::Notice(Level::Error, e.to_string()),
        };
        let _ = self.up.send(update);
    }

    async fn reload_command(&mut self) {
        let (status, warnings) = match self.rt.apply(Op::Reload).await {
            Ok(Outcome::Reloaded { status, warnings }) => (status, warnings),
            _ => return,
        };
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
        let mut commands = crate::tui::menu::extension_commands(&self.rt.ext().scripts());
        commands.extend(crate::tui::menu::resource_commands(&self.rt.reload_state().resources, self.ui.skill_commands));
        if self.rt.reload_state().llama_on {
            commands.push(crate::tui::menu::llama_command());
        }
        self.rt.ext().set_resource_commands(self.rt.reload_state().commands());
        let _ = self.up.send(Update::Commands(commands));
        let _ = self.up.send(Update::Shortcuts(pi_runtime::ext_commands::ui_shortcuts(&self.rt.ext().scripts())));
        let _ = self.up.send(Update::Renderers(crate::tui::menu::renderers(&self.rt.ext().scripts(), false)));
        let _ = self.up.send(Update::EntryRenderers(crate::tui::menu::renderers(&self.rt.ext().scripts(), true)));
        let _ = self.up.send(Update::ToolRenderers(crate::tui::menu::tool_renderers(&self.rt.ext().scripts())));
        let _ = self.up.send(Update::Notice(Level::Info, status));
    }

    /// Ask the extensions before replacing the session (true: one cancelled).
    async fn replacement_cancelled(&self, r: &Replacement) -> bool {
        pi_runtime::session_events::cancelled(self.rt.ext(), r).await
    }

    /// After a replacement: the extensions loaded again; failures shown.
    async fn after_replacement(&mut self, r: &Replacement, previous: Option<String>) {
        let warnings = match self.rt.apply(Op::Replaced { how: r.clone(), previous }).await {
            Ok(Outcome::Warnings(w)) => w,
            _ => Vec::new(),
        };
        for w in warnings {
            let _ = self.up.send(Update::Notice(Level::Warning, pi_tui::text::warning_line(&w)));
        }
    }

    async fn new_session(&mut self) {
        if self.replacement_cancelled(&Replacement::New).await {
            return;
        }
        let previous = pi_runtime::session_events::current_file(self.rt.agent());
        let dir = self.ui.session_dir.clone();
        match pi_agent::session::Session::create(dir.as_deref(), &self.ui.cwd, None, None) {
            Ok(session) => self.rt.agent_mut().adopt_session(session, true),
            Err(e) => {
                let _ = self.up.send(Update::Notice(Level::Error, pi_tui::text::error_line(&e.to_string())));
                return;
            }
        }
        self.after_replacement(&Replacement::New, previous).await;
        self.session_name = None;
        let _ = self.up.send(Update::Reset);
        let _ = self.up.send(Update::SessionName(None));
        let _ = self.up.send(Update::Notice(Level::Info, text::NEW_SESSION.to_string()));
    }

    /// `/compact [instructions]`: the outcome arrives as `compaction_end`.
    async fn compact(&mut self, args: &str) {
        let instructions = Some(args.trim()).filter(|i| !i.is_empty()).map(String::from);
        let _compacted = self.rt.apply(Op::Compact { instructions }).await;
    }

    /// `/clone`: a new session holding the active branch.
    async fn clone_session(&mut self) {
        let leaf = self.rt.agent().session().lock().ok().and_then(|s| s.leaf_id().map(str::to_string));
        let Some(leaf) = leaf else {
            let _ = self.up.send(Update::Notice(Level::Info, text::NOTHING_TO_CLONE.to_string()));
            return;
        };
        let r = Replacement::Fork { entry: Some(leaf), clone: true };
        if self.replacement_cancelled(&r).await {
            return;
        }
        let previous = pi_runtime::session_events::current_file(self.rt.agent());
        let copied = match self.rt.agent().session().lock() {
            Ok(current) => self.copy_session(&current, None),
            Err(e) => Err(e.into()),
        };
        let ok = copied.is_ok();
        self.switched(copied, Some(String::new()), text::CLONED);
        if ok {
            self.after_replacement(&r, previous).await;
        }
    }

    /// `/fork`: choose one of the branch's prompts; a new session holds what
    /// came before it and the editor gets its text.
    async fn fork(&mut self) {
        let messages = self.rt.agent().session().lock().map(|s| s.user_messages()).unwrap_or_default();
        if messages.is_empty() {
            let _ = self.up.send(Update::Notice(Level::Info, text::NO_MESSAGES_TO_FORK.to_string()));
            return;
        }
        let options: Vec<String> = messages.iter().map(|(_, t)| one_line(t)).collect();
        let request = DialogRequest::Select { title: text::FORK_TITLE.to_string(), options: options.clone() };
        let DialogAnswer::Value(chosen) = UiHandle::new(self.up.clone()).dialog(request).await else { return };
        let Some(i) = options.iter().position(|o| *o == chosen) else { return };
        let (entry, prompt) = messages[i].clone();
        let r = Replacement::Fork { entry: Some(entry.clone()), clone: false };
        if self.replacement_cancelled(&r).await {
            return;
        }
        let previous = pi_runtime::session_events::current_file(self.rt.agent());
        let copied = match self.rt.agent().session().lock() {
            Ok(current) => self.copy_session(&current, Some(&entry)),
            Err(e) => Err(e.into()),
        };
        let ok = copied.is_ok();
        self.switched(copied, Some(prompt), text::FORKED);
        if ok {
            self.after_replacement(&r, previous).await;
        }
    }

    /// `/resume`: the session picker over this folder's sessions; the
    /// chosen one is continued (the transcript shows it).
    async fn resume(&mut self) {
        let dir = self
            .ui
            .session_dir
            .clone()
            .unwrap_or_else(|| pi_agent::session::session_dir(&self.ui.agent_dir.join("sessions"), &self.ui.cwd));
        let mut sessions = pi_agent::session::list_sessions(&dir);
        // Sessions with no message yet (this one, just started) are not worth resuming.
        sessions.retain(|s| s.message_count > 0);
        let now_ms = pi_ai::now_ms();
        let request = DialogRequest::Sessions { sessions, now_ms };
        let DialogAnswer::Value(file) = UiHandle::new(self.up.clone()).dialog(request).await else { return };
        let r = Replacement::Resume { target: file.clone() };
        if self.replacement_cancelled(&r).await {
            return;
        }
        let previous = pi_runtime::session_events::current_file(self.rt.agent());
        let opened = Session::open_to_continue(Path::new(&file)).map_err(SessionCallError::from);
        let ok = opened.is_ok();
        let there =
            opened.as_ref().ok().and_then(|s| pi_runtime::reload::stored_folder(s, &self.rt.agent().tool_ctx().cwd));
        self.switched(opened, None, text::RESUMED);
        if let Some(there) = there {
            // The session runs in the folder it was made in, as the reference.
            let warnings = match self.rt.apply(Op::MoveTo(there.clone())).await {
                Ok(Outcome::Warnings(w)) => w,
                _ => Vec::new(),
            };
            for w in warnings {
                let _ = self.up.send(Update::Notice(Level::Warning, pi_tui::text::warning_line(&w)));
            }
            self.ui.cwd = there.clone();
            let _ = self.up.send(Update::Folder(there));
        }
        if ok {
            self.after_replacement(&r, previous).await;
        }
    }

    /// A new session (in this folder's session folder) with `current`'s
    /// branch, or its part before `before`.
    fn copy_session(&self, current: &Session, before: Option<&str>) -> Result<Session, SessionCallError> {
        let parent = current.path().map(|p| p.to_string_lossy().into_owned());
        let dir = self.ui.session_dir.clone();
        let mut copy = Session::create(dir.as_deref(), &self.ui.cwd, None, parent.as_deref())?;
        match before {
            Some(entry) => copy.copy_branch_before(current, entry),
            None => copy.copy_branch_of(current),
        }?;
        Ok(copy)
    }

    /// Take the copied session: the transcript shows it, `done` is said.
    fn switched(&mut self, copied: Result<Session, SessionCallError>, editor: Option<String>, done: &str) {
        match copied {
            Ok(session) => {
                self.rt.agent_mut().adopt_session(session, false);
                self.session_name = self.rt.agent().session().lock().ok().and_then(|s| s.name());
                let history = self.rt.agent().messages().to_vec();
                let _ = self.up.send(Update::Session { history, editor });
                let _ = self.up.send(Update::SessionName(self.session_name.clone()));
                let _ = self.up.send(Update::Notice(Level::Info, done.to_string()));
            }
            Err(e) => {
                let _ = self.up.send(Update::Notice(Level::Error, pi_tui::text::error_line(&e.to_string())));
            }
        }
    }

    /// `/export [path]`: the session as HTML, or its branch as JSONL when
    /// the path ends in `.jsonl`.
    fn export(&self, args: &str) {
        let out = path_argument(args);
        let cwd = self.rt.agent().tool_ctx().cwd.clone();
        let result = match self.rt.agent().session().lock() {
            Ok(s) if out.as_deref().is_some_and(|o| o.ends_with(".jsonl")) => {
                export_jsonl(&s, &cwd, out.as_deref().unwrap_or_default()).map_err(|e| e.to_string())
            }
            Ok(s) => crate::export::export(&s, self.rt.agent().system_prompt(), out.as_deref().map(Path::new), &cwd)
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let notice = match result {
            Ok(path) => (Level::Info, text::session_exported(&path.to_string_lossy())),
            Err(e) => (Level::Error, pi_tui::text::error_line(&text::export_failed(&e))),
        };
        let _ = self.up.send(Update::Notice(notice.0, notice.1));
    }

    fn session_info(&self) {
        let (mut user, mut assistant, mut calls, mut results) = (0, 0, 0, 0);
        let mut usage = pi_ai::Usage::default();
        for m in self.rt.agent().messages() {
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
        let s = &self.rt.agent().tool_ctx().session;
        let info = text::SessionInfo {
            file: s.session_file.as_deref(),
            id: s.session_id.as_deref().unwrap_or(""),
            name: self.session_name.as_deref(),
            total: self.rt.agent().messages().len(),
            user,
            assistant,
            calls,
            results,
            usage: &usage,
        };
        let _ = self.up.send(Update::Markdown(text::session_info(&info)));
    }

    async fn name(&mut self, args: &str) {
        let name = args.trim();
        if name.is_empty() {
            let notice = match &self.session_name {
                Some(n) => (Level::Info, text::session_name_is(n)),
                None => (Level::Warning, text::NAME_USAGE.to_string()),
            };
            let _ = self.up.send(Update::Notice(notice.0, notice.1));
            return;
        }
        if let Ok(mut s) = self.rt.agent().session().lock() {
            let _ = s.append("session_info", serde_json::json!({"name": name}));
        }
        self.session_name = Some(name.to_string());
        let _ = self.up.send(Update::SessionName(self.session_name.clone()));
        let _ = self.up.send(Update::Notice(Level::Info, text::session_named(name)));
        // The extensions hear of it (`session_info_changed`), as after RPC `set_session_name`.
        self.rt
            .ext()
            .notify(&pi_runtime::session_event::SessionEvent::SessionInfoChanged { name: name.to_string() })
            .await;
    }
}

/// A prompt as one line of the fork list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The path argument of `/export`: a quoted path, or the first word.
fn path_argument(args: &str) -> Option<String> {
    let rest = args.trim_start();
    let first = rest.chars().next()?;
    if first == '"' || first == '\'' {
        let body = &rest[1..];
        return body.find(first).map(|end| body[..end].to_string());
    }
    Some(rest.split(char::is_whitespace).next().unwrap_or(rest).to_string())
}

/// Write the active branch as JSONL (a fresh header, then the branch's
/// entries chained by parent) to `out`, relative to `cwd`.
fn export_jsonl(session: &Session, cwd: &Path, out: &str) -> std::io::Result<PathBuf> {
    let path = cwd.join(out);
    let mut header = session.header().clone();
    header["timestamp"] = Value::String(pi_agent::session::iso_now());
    let mut lines = vec![header.to_string()];
    let mut parent = Value::Null;
    for entry in session.branch() {
        let mut e = entry.value();
        e["parentId"] = parent;
        parent = e["id"].clone();
        lines.push(e.to_string());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&path, format!("{}\n", lines.join("\n")))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_paths_are_quoted_or_the_first_word() {
        assert_eq!(path_argument(""), None);
        assert_eq!(path_argument("  out.html more"), Some("out.html".into()));
        assert_eq!(path_argument("\"a b.jsonl\" x"), Some("a b.jsonl".into()));
        assert_eq!(path_argument("'unclosed"), None);
    }

    #[test]
    fn a_branch_exports_as_chained_jsonl() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Session::create(Some(dir.path()), dir.path(), None, None).unwrap();
        s.append("session_info", serde_json::json!({"name": "x"})).unwrap();
        s.append("session_info", serde_json::json!({"name": "y"})).unwrap();
        let path = export_jsonl(&s, dir.path(), "sub/out.jsonl").unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0]["type"], "session");
        assert_eq!(rows[1]["parentId"], Value::Null);
        assert_eq!(rows[2]["parentId"], rows[1]["id"]);
    }
}
