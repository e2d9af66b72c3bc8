//! One ACP session: a pi in RPC mode ([`Child`]) whose events become the
//! session's updates, whose dialogs become the editor's permission
//! questions, and whose runs answer `session/prompt`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::child::Child;
use super::events::{self, Translator, chunk};
use super::prompt;
use super::wire::{INVALID_REQUEST, Reply, RpcError, Wire};
use crate::text;

/// A live ACP session.
#[derive(Debug)]
pub(crate) struct Session {
    /// The id the editor knows it by (pi's session id).
    pub id: String,
    /// Its folder.
    pub cwd: PathBuf,
    child: Arc<Child>,
    wire: Arc<Wire>,
    /// The prompt waiting for its run to settle.
    turn: Mutex<Option<oneshot::Sender<()>>>,
    cancelled: AtomicBool,
    /// Questions answered "always allow".
    always: Mutex<HashSet<String>>,
    /// pi's dialogs waiting for the editor's answer (by their id's text);
    /// a cancel answers them all at once.
    open_dialogs: Mutex<HashSet<String>>,
    translator: Mutex<Translator>,
    /// The MCP servers the editor passed (removed with the session).
    _servers: Option<super::servers::ServersFile>,
}

impl Session {
    /// Start pi for a session in `cwd` (`file`: continue that session).
    pub(crate) async fn start(
        wire: Arc<Wire>,
        cwd: &Path,
        flags: &[String],
        file: Option<&Path>,
        mcp_servers: &Value,
    ) -> Result<Arc<Session>, RpcError> {
        let servers = match super::servers::entries(mcp_servers)? {
            Some(entries) => Some(super::servers::write(entries)?),
            None => None,
        };
        let mcp_file = servers.as_ref().map(|s| s.path());
        let (child, events) = Child::spawn(cwd, flags, file, mcp_file)?;
        let state = child.command(json!({"type": "get_state"})).await?;
        let id = state["sessionId"].as_str().unwrap_or_default().to_string();
        let session = Arc::new(Session {
            id,
            cwd: cwd.to_path_buf(),
            child,
            wire,
            turn: Mutex::new(None),
            cancelled: AtomicBool::new(false),
            always: Mutex::new(HashSet::new()),
            open_dialogs: Mutex::new(HashSet::new()),
            translator: Mutex::new(Translator::new(cwd)),
            _servers: servers,
        });
        tokio::spawn(pump(Arc::downgrade(&session), events));
        Ok(session)
    }

    /// Run an RPC command of this session's pi.
    pub(crate) async fn command(&self, cmd: Value) -> Result<Value, RpcError> {
        Ok(self.child.command(cmd).await?)
    }

    /// The session's modes (pi's thinking levels) and its config options
    /// (the model and the thinking level), as `session/new` answers them.
    pub(crate) async fn modes_and_options(&self) -> Result<Value, RpcError> {
        let state = self.command(json!({"type": "get_state"})).await?;
        let levels = self.command(json!({"type": "get_available_thinking_levels"})).await?;
        let models = self.command(json!({"type": "get_available_models"})).await?;
        let level = state["thinkingLevel"].as_str().unwrap_or("off").to_string();
        let levels: Vec<&str> = levels["levels"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let modes: Vec<Value> =
            levels.iter().map(|l| json!({"id": l, "name": format!("Thinking: {l}"), "description": null})).collect();
        let model_id = |m: &Value| {
            format!("{}/{}", m["provider"].as_str().unwrap_or_default(), m["id"].as_str().unwrap_or_default())
        };
        let mut options = Vec::new();
        let available: Vec<Value> = models["models"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| json!({"value": model_id(m), "name": format!("{}/{}", m["provider"].as_str().unwrap_or_default(), m["name"].as_str().or(m["id"].as_str()).unwrap_or_default())}))
            .collect();
        if !available.is_empty() {
            options.push(json!({"id": "model", "name": "Model", "description": "Select the model for this session",
                "category": "model", "type": "select", "currentValue": model_id(&state["model"]), "options": available}));
        }
        options.push(json!({"id": "thought_level", "name": "Thinking", "description": "Set the reasoning effort for this session",
            "category": "thought_level", "type": "select", "currentValue": level,
            "options": levels.iter().map(|l| json!({"value": l, "name": l})).collect::<Vec<_>>()}));
        Ok(json!({"modes": {"currentModeId": level, "availableModes": modes}, "configOptions": options}))
    }

    /// Tell the editor the slash commands (pi's, its extensions', skills and
    /// templates, and the ones ACP mode answers) and how full the context is.
    pub(crate) async fn announce(&self) {
        let mut commands = prompt::builtin_commands();
        if let Ok(list) = self.command(json!({"type": "get_commands"})).await {
            for c in list["commands"].as_array().into_iter().flatten() {
                let Some(name) = c["name"].as_str() else { continue };
                if commands.iter().any(|k| k["name"] == name) {
                    continue;
                }
                let description = c["description"].as_str().filter(|d| !d.is_empty()).unwrap_or("(command)");
                commands.push(json!({"name": name, "description": description}));
            }
        }
        self.wire
            .update(&self.id, json!({"sessionUpdate": "available_commands_update", "availableCommands": commands}));
        self.usage().await;
    }

    /// `usage_update`: the context's tokens and window.
    async fn usage(&self) {
        let Ok(stats) = self.command(json!({"type": "get_session_stats"})).await else { return };
        let usage = &stats["contextUsage"];
        if let (Some(used), Some(size)) = (usage["tokens"].as_u64(), usage["contextWindow"].as_u64()) {
            self.wire.update(&self.id, json!({"sessionUpdate": "usage_update", "used": used, "size": size}));
        }
    }

    /// `session/prompt`: run it, streaming updates; the stop reason once
    /// the run settled.
    pub(crate) async fn prompt(&self, blocks: &Value) -> Reply {
        let (message, images) = prompt::input(blocks)?;
        if images.is_empty()
            && let Some((name, cmd)) = prompt::builtin(message.trim())
        {
            let data = self.command(cmd).await?;
            self.wire.update(&self.id, chunk("agent_message_chunk", &prompt::builtin_answer(name, &data)));
            return Ok(json!({"stopReason": "end_turn"}));
        }
        let (tx, rx) = oneshot::channel();
        {
            let mut turn = self.turn.lock().map_err(|_| RpcError::internal(text::ACP_PI_ENDED))?;
            if turn.is_some() {
                return Err(RpcError::new(INVALID_REQUEST, text::ACP_PROMPT_RUNNING));
            }
            *turn = Some(tx);
        }
        self.cancelled.store(false, Ordering::SeqCst);
        let mut cmd = json!({"type": "prompt", "message": message});
        if !images.is_empty() {
            cmd["images"] = json!(images);
        }
        if let Err(e) = self.command(cmd).await {
            self.turn.lock().ok().and_then(|mut t| t.take());
            return Err(e);
        }
        if rx.await.is_err() {
            return Err(RpcError::internal(text::ACP_PI_ENDED));
        }
        let (stop, error) = match self.translator.lock() {
            Ok(t) => (t.last_stop.clone(), t.last_error.clone()),
            Err(_) => (None, None),
        };
        self.usage().await;
        let reason = match stop.as_deref() {
            _ if self.cancelled.load(Ordering::SeqCst) => "cancelled",
            Some("aborted") => "cancelled",
            Some("length") => "max_tokens",
            Some("error") => {
                let said = error.unwrap_or_else(|| text::ACP_COMMAND_FAILED.to_string());
                self.wire.update(&self.id, chunk("agent_message_chunk", &text::acp_error(&said)));
                "end_turn"
            }
            _ => "end_turn",
        };
        Ok(json!({"stopReason": reason}))
    }

    /// `session/cancel`: stop the run (a permission question pending is
    /// answered cancelled by the editor, and refused).
    pub(crate) async fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        // The abort goes out first, so a refused question does not let the
        // run go on to its next call (a question asked after is refused as
        // it comes: see `dialog`); its answer comes once the run has ended,
        // which the refusals below let it do.
        let abort = self.child.start_command(json!({"type": "abort"})).await;
        // Questions still open are refused now, whether or not the editor answers them.
        let open: Vec<String> = self.open_dialogs.lock().map(|mut d| d.drain().collect()).unwrap_or_default();
        for id in open {
            let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
            let _ = self.child.send(&json!({"type": "extension_ui_response", "id": id, "cancelled": true})).await;
        }
        if let Ok(answer) = abort {
            let _ = Child::finish_command(answer).await;
        }
    }

    /// Answer one of pi's dialogs: a confirmation or a choice becomes the
    /// editor's permission question; nothing runs without its answer.
    async fn dialog(self: Arc<Self>, ev: Value) {
        let id = ev["id"].clone();
        let key = id.to_string();
        if let Ok(mut d) = self.open_dialogs.lock() {
            d.insert(key.clone());
        }
        // A question asked after a cancel (before the turn has ended) is
        // refused without asking: nothing runs once the editor cancelled.
        // (Open first, then looked at: a cancel in between has refused it.)
        if self.cancelled.load(Ordering::SeqCst) && self.turn.lock().is_ok_and(|t| t.is_some()) {
            if self.open_dialogs.lock().is_ok_and(|mut d| d.remove(&key)) {
                let _ = self.child.send(&json!({"type": "extension_ui_response", "id": id, "cancelled": true})).await;
            }
            return;
        }
        let method = ev["method"].as_str().unwrap_or_default();
        let title = ev["title"].as_str().unwrap_or(text::ACP_QUESTION_TITLE).to_string();
        let message = ev["message"].as_str().unwrap_or_default().to_string();
        let answer = match method {
            "confirm" => {
                let question = format!("{title}\n{message}");
                if self.always.lock().is_ok_and(|a| a.contains(&question)) {
                    json!({"confirmed": true})
                } else {
                    let options = json!([
                        {"optionId": "yes", "name": "Yes", "kind": "allow_once"},
                        {"optionId": "always", "name": "Always", "kind": "allow_always"},
                        {"optionId": "no", "name": "No", "kind": "reject_once"},
                    ]);
                    match self.ask(&id, &title, &ev, options).await.as_deref() {
                        Some("always") => {
                            if let Ok(mut a) = self.always.lock() {
                                a.insert(question);
                            }
                            json!({"confirmed": true})
                        }
                        Some("yes") => json!({"confirmed": true}),
                        Some(_) => json!({"confirmed": false}),
                        None => json!({"cancelled": true}),
                    }
                }
            }
            "select" => {
                let choices: Vec<String> = ev["options"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|o| o.as_str().map(str::to_string))
                    .collect();
                let options: Vec<Value> = choices
                    .iter()
                    .enumerate()
                    .map(|(i, c)| json!({"optionId": format!("choice-{i}"), "name": c, "kind": "allow_once"}))
                    .collect();
                let picked = if choices.is_empty() { None } else { self.ask(&id, &title, &ev, json!(options)).await };
                let index = picked.and_then(|p| p.strip_prefix("choice-").and_then(|i| i.parse::<usize>().ok()));
                match index.and_then(|i| choices.get(i)) {
                    Some(c) => json!({"value": c}),
                    None => json!({"cancelled": true}),
                }
            }
            "input" | "editor" => {
                self.wire.update(&self.id, chunk("agent_message_chunk", &text::acp_dialog_unsupported(method)));
                json!({"cancelled": true})
            }
            "notify" => {
                self.open_dialogs.lock().ok().map(|mut d| d.remove(&key));
                self.wire.update(&self.id, chunk("agent_message_chunk", &message));
                return;
            }
            // Statuses, widgets, titles and editor text have no place in an editor's chat.
            _ => {
                self.open_dialogs.lock().ok().map(|mut d| d.remove(&key));
                return;
            }
        };
        // Answered already (refused by a cancel): nothing more to say.
        if !self.open_dialogs.lock().is_ok_and(|mut d| d.remove(&key)) {
            return;
        }
        let mut response = json!({"type": "extension_ui_response", "id": id});
        if let (Some(r), Some(a)) = (response.as_object_mut(), answer.as_object()) {
            r.extend(a.clone());
        }
        let _ = self.child.send(&response).await;
    }

    /// Ask the editor (`session/request_permission`); the option chosen, or
    /// `None` when it cancelled, failed or went away (fail closed).
    async fn ask(&self, id: &Value, title: &str, ev: &Value, options: Value) -> Option<String> {
        let mut raw = json!({"method": ev["method"], "title": title});
        for key in ["message", "options"] {
            if !ev[key].is_null() {
                raw[key] = ev[key].clone();
            }
        }
        let call = json!({
            "toolCallId": format!("pi-ui-{}", id.as_str().map_or_else(|| id.to_string(), str::to_string)),
            "title": title,
            "kind": "other",
            "status": "pending",
            "rawInput": raw,
        });
        let asked = json!({"sessionId": self.id, "toolCall": call, "options": options});
        let answer = self.wire.request("session/request_permission", asked).await.ok()?;
        let outcome = &answer["outcome"];
        (outcome["outcome"] == "selected").then(|| outcome["optionId"].as_str().map(str::to_string)).flatten()
    }

    /// End this session's pi.
    pub(crate) fn close(&self) {
        self.child.kill();
    }
}

/// Carry pi's events to the editor until pi ends.
async fn pump(session: std::sync::Weak<Session>, mut events: mpsc::UnboundedReceiver<Value>) {
    while let Some(ev) = events.recv().await {
        let Some(s) = session.upgrade() else { break };
        match ev["type"].as_str().unwrap_or_default() {
            "extension_ui_request" => {
                tokio::spawn(s.dialog(ev));
            }
            "agent_settled" => {
                if let Some(tx) = s.turn.lock().ok().and_then(|mut t| t.take()) {
                    let _ = tx.send(());
                }
            }
            _ => {
                let updates = s.translator.lock().map(|mut t| t.updates(&ev)).unwrap_or_default();
                for u in updates {
                    s.wire.update(&s.id, u);
                }
            }
        }
    }
    // pi ended: a prompt still waiting fails.
    if let Some(s) = session.upgrade() {
        s.turn.lock().ok().and_then(|mut t| t.take());
    }
}

/// The updates replaying a stored session's conversation.
pub(crate) async fn replay(session: &Session) -> Result<(), RpcError> {
    let data = session.command(json!({"type": "get_messages"})).await?;
    let messages = data["messages"].as_array().cloned().unwrap_or_default();
    for u in events::replay(&messages, &session.cwd) {
        session.wire.update(&session.id, u);
    }
    Ok(())
}
