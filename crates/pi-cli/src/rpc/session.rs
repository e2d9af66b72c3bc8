//! RPC session commands: `new_session`, `switch_session`, `fork`, `clone`,
//! `get_fork_messages`, `get_entries`, `get_tree`, `set_session_name`,
//! `export_html`. Changing the session waits for any run to end, then gives
//! the agent the new session's conversation.

use std::path::PathBuf;

use pi_agent::session::Session;
use pi_agent::{Agent, AgentEvent};
use pi_runtime::{Command, Op, Outcome, Runtime};
use serde_json::{Value, json};

use super::{Answer, Server, event, respond, respond_raw};
use crate::text;
use pi_runtime::session_events::{self, Replacement};

impl Server {
    /// `set_session_name`: recorded and announced; the extensions'
    /// `session_info_changed` handlers run before the answer (as the reference).
    pub(super) async fn set_session_name(&self, id: &Option<Value>, name: &str) {
        let kind = "set_session_name";
        let name = name.trim().to_string();
        if name.is_empty() {
            return respond(id, kind, Err(text::RPC_EMPTY_SESSION_NAME.into()));
        }
        if let Ok(mut s) = self.session.lock() {
            let _ = s.append("session_info", json!({"name": name}));
        }
        event(&AgentEvent::SessionInfoChanged { name: Some(name.clone()) });
        self.setup
            .ext
            .notify(&pi_runtime::session_event::SessionEvent::SessionInfoChanged { name: name.to_string() })
            .await;
        respond(id, kind, Ok(None));
    }

    /// Handle a session command (those not listed here are answered as unknown).
    pub(super) fn session_command(&self, id: Option<Value>, cmd: Command) {
        let cwd = self.bash.folder.lock().map(|f| f.clone()).unwrap_or_else(|_| self.tool_ctx.cwd.clone());
        let dir = self.setup.session_dir.clone();
        let kind = cmd.kind();
        let k = kind.to_string();
        match cmd {
            Command::GetForkMessages => {
                let list: Vec<Value> = self
                    .session
                    .lock()
                    .map(|s| s.user_messages())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(entry_id, text)| json!({"entryId": entry_id, "text": text}))
                    .collect();
                respond(&id, kind, Ok(Some(json!({"messages": list}))));
            }
            Command::GetEntries { since } => respond(&id, kind, self.entries(since.as_deref())),
            Command::GetTree => match self.session.lock() {
                // Written as text: the tree of a long conversation is as deep as it is long.
                Ok(s) => {
                    let data = format!("{{\"tree\":{},\"leafId\":{}}}", s.tree_json(), json!(s.leaf_id()));
                    respond_raw(&id, kind, &data);
                }
                Err(e) => respond(&id, kind, Err(e.to_string())),
            },
            Command::ExportHtml { output_path } => {
                let out = output_path.map(PathBuf::from);
                self.with_agent(id, k, move |agent, _| {
                    let s = agent.session().lock().map_err(|e| e.to_string())?;
                    let path = crate::export::export(&s, agent.system_prompt(), out.as_deref(), &cwd)
                        .map_err(|e| e.to_string())?;
                    Ok(Some(json!({"path": path.to_string_lossy()})))
                });
            }
            Command::NewSession { parent_session: parent } => {
                self.replace_session(id, k, Replacement::New, move |agent| {
                    let s =
                        Session::create(dir.as_deref(), &cwd, None, parent.as_deref()).map_err(|e| e.to_string())?;
                    agent.adopt_session(s, true);
                    Ok(Some(json!({"cancelled": false})))
                });
            }
            Command::SwitchSession { session_path } => {
                let path = PathBuf::from(session_path);
                let (runtime, setup, folder) = (self.runtime.clone(), self.setup.clone(), self.bash.folder.clone());
                tokio::spawn(async move {
                    let mut rt = runtime.lock().await;
                    let r = Replacement::Resume { target: path.to_string_lossy().into_owned() };
                    if session_events::cancelled(&setup.ext, &r).await {
                        return respond(&id, &k, Ok(Some(json!({"cancelled": true}))));
                    }
                    let previous = session_events::current_file(rt.agent());
                    let answer = switch_session(&mut rt, &folder, &path, &cwd).await;
                    if answer.is_ok() {
                        replaced(&mut rt, r, previous).await;
                    }
                    respond(&id, &k, answer);
                });
            }
            Command::Fork { .. } | Command::Clone => {
                let (entry, is_fork) = match cmd {
                    Command::Fork { entry_id } => (Some(entry_id), true),
                    _ => (None, false),
                };
                // A clone names the leaf it copies through (as the reference).
                let leaf = self.session.lock().ok().and_then(|s| s.leaf_id().map(str::to_string));
                let r = Replacement::Fork { entry: if is_fork { entry.clone() } else { leaf }, clone: !is_fork };
                self.replace_session(id, k, r, move |agent| copy_session(agent, dir, &cwd, entry, is_fork));
            }
            other => respond(&id, kind, Err(pi_runtime::text::unknown_command(other.kind()))),
        }
    }

    /// Replace the session with `op` once any run ended, the extensions
    /// asked first (one may cancel: `{cancelled: true}`) and loaded again after.
    fn replace_session<F>(&self, id: Option<Value>, kind: String, r: Replacement, op: F)
    where
        F: FnOnce(&mut Agent) -> Answer + Send + 'static,
    {
        let (runtime, setup) = (self.runtime.clone(), self.setup.clone());
        tokio::spawn(async move {
            let mut rt = runtime.lock().await;
            if session_events::cancelled(&setup.ext, &r).await {
                return respond(&id, &kind, Ok(Some(json!({"cancelled": true}))));
            }
            let previous = session_events::current_file(rt.agent());
            let answer = op(rt.agent_mut());
            if answer.is_ok() {
                replaced(&mut rt, r, previous).await;
            }
            respond(&id, &kind, answer);
        });
    }

    fn entries(&self, since: Option<&str>) -> Answer {
        let s = self.session.lock().map_err(|e| e.to_string())?;
        let all = s.entries();
        let from = match since {
            Some(id) => all
                .iter()
                .position(|e| e.id() == id)
                .map(|i| i + 1)
                .ok_or_else(|| pi_runtime::text::entry_not_found(id))?,
            None => 0,
        };
        Ok(Some(json!({"entries": &all[from..], "leafId": s.leaf_id()})))
    }
}

/// `switch_session`: open the file (a missing one is created) and continue
/// it in the folder it was made in, as the reference does (a session whose
/// folder no longer exists is refused, with the reference's message).
/// The extensions hear that the session was replaced and load again; what
/// they report goes to standard error.
async fn replaced(rt: &mut Runtime, how: Replacement, previous: Option<String>) {
    if let Ok(Outcome::Warnings(warnings)) = rt.apply(Op::Replaced { how, previous }).await {
        for w in warnings {
            eprintln!("{w}");
        }
    }
}

async fn switch_session(
    rt: &mut Runtime,
    folder: &std::sync::Mutex<PathBuf>,
    path: &std::path::Path,
    cwd: &std::path::Path,
) -> Answer {
    let (s, fresh) = if path.exists() {
        let s = Session::open_to_continue(path).map_err(|e| e.to_string())?;
        // A session whose folder is gone is refused, as `--session` refuses it.
        let stored = s.header()["cwd"].as_str().unwrap_or_default();
        if !stored.is_empty() && !std::path::Path::new(stored).exists() {
            let (file, here) = (path.display().to_string(), rt.agent().tool_ctx().cwd.display().to_string());
            return Err(text::missing_session_cwd(stored, &file, &here));
        }
        (s, false)
    } else {
        (Session::create_at(path, cwd).map_err(|e| e.to_string())?, true)
    };
    let there = pi_runtime::reload::stored_folder(&s, &rt.agent().tool_ctx().cwd);
    rt.agent_mut().adopt_session(s, fresh);
    if let Some(there) = there {
        if let Ok(Outcome::Warnings(warnings)) = rt.apply(Op::MoveTo(there.clone())).await {
            for w in warnings {
                eprintln!("Warning: {w}");
            }
        }
        if let Ok(mut f) = folder.lock() {
            *f = there;
        }
    }
    Ok(Some(json!({"cancelled": false})))
}

/// `fork` (a new session with the branch before a user message, whose text
/// is returned) and `clone` (a new session with the whole branch).
fn copy_session(
    agent: &mut Agent,
    dir: Option<PathBuf>,
    cwd: &std::path::Path,
    entry: Option<String>,
    is_fork: bool,
) -> Answer {
    let (copy, text) = {
        let current = agent.session().lock().map_err(|e| e.to_string())?;
        if current.entries().is_empty() {
            return Err(pi_runtime::text::RPC_NOTHING_TO_COPY.into());
        }
        let parent = current.path().map(|p| p.to_string_lossy().into_owned());
        let mut copy = Session::create(dir.as_deref(), cwd, None, parent.as_deref()).map_err(|e| e.to_string())?;
        let mut text = None;
        match entry.filter(|_| is_fork) {
            Some(e) => {
                let Some((_, t)) = current.user_messages().into_iter().find(|(id, _)| *id == e) else {
                    return Err(pi_runtime::text::INVALID_FORK_ENTRY.into());
                };
                copy.copy_branch_before(&current, &e).map_err(|e| e.to_string())?;
                text = Some(t);
            }
            None => copy.copy_branch_of(&current).map_err(|e| e.to_string())?,
        }
        (copy, text)
    };
    agent.adopt_session(copy, false);
    Ok(Some(match text {
        Some(t) => json!({"text": t, "cancelled": false}),
        None => json!({"cancelled": false}),
    }))
}
