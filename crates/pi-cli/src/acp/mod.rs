//! ACP mode (`pi --mode acp`, beyond B12): pi as an Agent Client Protocol
//! agent over standard input and output, for editors (Zed, JetBrains,
//! Neovim and Emacs plugins) with no adapter and no Node. Each ACP session
//! is a pi in RPC mode ([`child`]), started with the flags ACP mode was
//! given; its events become `session/update`s ([`events`]) and its dialogs
//! (the approval policy, `permission-gate`, an extension's confirm or
//! select) become `session/request_permission` questions ([`session`]).
//! Methods: `initialize`, `authenticate`, `session/new`, `session/load`,
//! `session/list`, `session/prompt`, `session/cancel`, `session/set_mode`,
//! `session/set_config_option`. When the editor goes (its end of standard
//! input closes), every session's pi is ended and pi exits.

mod child;
mod events;
mod prompt;
mod servers;
mod session;
mod wire;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use session::Session;
use wire::{INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RESOURCE_NOT_FOUND, Reply, RpcError, Wire, string};

use crate::text;

/// The ACP version spoken.
pub(crate) const PROTOCOL_VERSION: u64 = 1;

/// ACP mode's state.
struct Server {
    wire: Arc<Wire>,
    /// The flags each session's pi is started with.
    flags: Vec<String>,
    initialized: AtomicBool,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

/// Run ACP mode; `args` are pi's arguments (`--mode acp` among them).
pub(crate) fn main(args: &[String]) -> ExitCode {
    let flags = forwarded(args);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}", text::acp_cannot_start(&e.to_string()));
            return ExitCode::from(1);
        }
    };
    runtime.block_on(serve(flags))
}

/// Pi's arguments without `--mode acp` (what each session's pi gets).
fn forwarded(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--mode" if args.get(i + 1).is_some_and(|m| m == "acp") => i += 2,
            "--mode=acp" => i += 1,
            a => {
                out.push(a.to_string());
                i += 1;
            }
        }
    }
    out
}

async fn serve(flags: Vec<String>) -> ExitCode {
    let (wire, writer) = Wire::stdout();
    let server = Arc::new(Server {
        wire: Arc::new(wire),
        flags,
        initialized: AtomicBool::new(false),
        sessions: Mutex::new(HashMap::new()),
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    // Ended by a signal, pi ends as when the editor goes: sessions closed, their files removed.
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    loop {
        let next = tokio::select! {
            line = lines.next_line() => line,
            _ = tokio::signal::ctrl_c() => break,
            Some(()) = async { match term.as_mut() { Some(t) => t.recv().await, None => std::future::pending().await } } => break,
        };
        let Ok(Some(line)) = next else { break };
        if line.trim().is_empty() {
            continue;
        }
        let msg: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                server.wire.reply(Value::Null, Err(RpcError::new(PARSE_ERROR, text::acp_parse_error(&e.to_string()))));
                continue;
            }
        };
        if server.wire.answered(&msg) {
            continue;
        }
        let Some(method) = msg.get("method").and_then(Value::as_str).map(str::to_string) else {
            let id = msg.get("id").cloned().unwrap_or(Value::Null);
            server.wire.reply(id, Err(RpcError::new(INVALID_REQUEST, text::ACP_NOT_A_REQUEST)));
            continue;
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match msg.get("id").cloned() {
            // Each request in a task of its own: a prompt runs while cancel and others come in.
            Some(id) => {
                // Marked here, not in its task: a request right behind it must find it.
                if method == "initialize" {
                    server.initialized.store(true, Ordering::SeqCst);
                }
                let server = server.clone();
                tokio::spawn(async move { server.request(id, &method, params).await });
            }
            None => server.notification(&method, &params).await,
        }
    }
    // The editor went: every session's pi ends with it.
    let sessions: Vec<Arc<Session>> =
        server.sessions.lock().map(|mut s| s.drain().map(|(_, v)| v).collect()).unwrap_or_default();
    for s in sessions {
        s.close();
    }
    server.wire.close();
    drop(server);
    let _ = writer.await;
    ExitCode::SUCCESS
}

impl Server {
    async fn request(self: Arc<Self>, id: Value, method: &str, params: Value) {
        if method != "initialize" && !self.initialized.load(Ordering::SeqCst) {
            return self.wire.reply(id, Err(RpcError::new(INVALID_REQUEST, text::ACP_NOT_INITIALIZED)));
        }
        let reply = match method {
            "initialize" => Ok(self.initialize(&params)),
            "authenticate" => Ok(json!({})),
            "session/new" => return self.new_session(id, &params).await,
            "session/load" => return self.load_session(id, &params).await,
            "session/prompt" => match self.session(&params) {
                Ok(s) => s.prompt(&params["prompt"]).await,
                Err(e) => Err(e),
            },
            "session/list" => self.list_sessions(&params),
            "session/set_mode" => self.set_mode(&params).await,
            "session/set_config_option" => self.set_option(&params).await,
            _ => Err(RpcError::new(METHOD_NOT_FOUND, text::acp_no_method(method))),
        };
        self.wire.reply(id, reply);
    }

    async fn notification(&self, method: &str, params: &Value) {
        if method == "session/cancel"
            && let Ok(s) = self.session(params)
        {
            tokio::spawn(async move { s.cancel().await });
        }
    }

    fn initialize(&self, _params: &Value) -> Value {
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": false},
                "sessionCapabilities": {"list": {}},
            },
            "authMethods": [],
            "agentInfo": {"name": "pi", "title": "pi", "version": text::version_line()},
        })
    }

    /// The session a request names.
    fn session(&self, params: &Value) -> Result<Arc<Session>, RpcError> {
        let id = string(params, "sessionId")?;
        self.sessions
            .lock()
            .ok()
            .and_then(|s| s.get(id).cloned())
            .ok_or_else(|| RpcError::new(RESOURCE_NOT_FOUND, text::acp_unknown_session(id)))
    }

    /// The folder a request names: absolute and there.
    fn folder(params: &Value) -> Result<PathBuf, RpcError> {
        let cwd = PathBuf::from(string(params, "cwd")?);
        if !cwd.is_absolute() || !cwd.is_dir() {
            return Err(RpcError::params(text::acp_bad_cwd(&cwd.to_string_lossy())));
        }
        Ok(cwd)
    }

    async fn new_session(&self, id: Value, params: &Value) {
        let started = match Self::folder(params) {
            Ok(cwd) => Session::start(self.wire.clone(), &cwd, &self.flags, None, &params["mcpServers"]).await,
            Err(e) => Err(e),
        };
        let session = match started {
            Ok(s) => s,
            Err(e) => return self.wire.reply(id, Err(e)),
        };
        let mut answer = match session.modes_and_options().await {
            Ok(a) => a,
            Err(e) => return self.wire.reply(id, Err(e)),
        };
        answer["sessionId"] = json!(session.id);
        if let Ok(mut s) = self.sessions.lock() {
            s.insert(session.id.clone(), session.clone());
        }
        self.wire.reply(id, Ok(answer));
        session.announce().await;
    }

    async fn load_session(&self, id: Value, params: &Value) {
        let found = match (Self::folder(params), string(params, "sessionId")) {
            (Ok(cwd), Ok(sid)) => match self.find_session(sid, &cwd) {
                Some(file) => {
                    Session::start(self.wire.clone(), &cwd, &self.flags, Some(&file), &params["mcpServers"]).await
                }
                None => Err(RpcError::new(RESOURCE_NOT_FOUND, text::acp_unknown_session(sid))),
            },
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        let session = match found {
            Ok(s) => s,
            Err(e) => return self.wire.reply(id, Err(e)),
        };
        if let Some(old) = self.sessions.lock().ok().and_then(|mut s| s.insert(session.id.clone(), session.clone())) {
            old.close();
        }
        let answer = match session::replay(&session).await {
            Ok(()) => session.modes_and_options().await,
            Err(e) => Err(e),
        };
        if answer.is_err() {
            // Not loaded: not kept either.
            self.sessions.lock().ok().map(|mut s| s.remove(&session.id));
            session.close();
            return self.wire.reply(id, answer);
        }
        self.wire.reply(id, answer);
        session.announce().await;
    }

    async fn set_mode(&self, params: &Value) -> Reply {
        let s = self.session(params)?;
        self.set_level(&s, string(params, "modeId")?).await?;
        Ok(json!({}))
    }

    /// The thinking level (ACP's mode), told back as the current mode.
    async fn set_level(&self, s: &Session, level: &str) -> Result<(), RpcError> {
        s.command(json!({"type": "set_thinking_level", "level": level})).await?;
        self.wire.update(&s.id, json!({"sessionUpdate": "current_mode_update", "currentModeId": level}));
        Ok(())
    }

    async fn set_option(&self, params: &Value) -> Reply {
        let s = self.session(params)?;
        let value = string(params, "value")?;
        match string(params, "configId")? {
            "model" => {
                let (provider, model) =
                    value.split_once('/').ok_or_else(|| RpcError::params(text::acp_bad_model(value)))?;
                s.command(json!({"type": "set_model", "provider": provider, "modelId": model})).await?;
            }
            "thought_level" => self.set_level(&s, value).await?,
            other => return Err(RpcError::params(text::acp_unknown_option(other))),
        }
        let options = s.modes_and_options().await?;
        Ok(json!({"configOptions": options["configOptions"]}))
    }
}

/// Most sessions `session/list` answers at once (the rest by `cursor`).
const LIST_PAGE: usize = 50;

impl Server {
    /// The folders `cwd`'s sessions are in, as each session's pi chooses
    /// them: the explicit one (`--session-dir`, the environment, the
    /// `sessionDir` setting), else `cwd`'s own under the agent dir (every
    /// folder's there without `cwd`).
    fn session_folders(&self, cwd: Option<&Path>) -> Vec<PathBuf> {
        let flag = self.flags.iter().position(|f| f == "--session-dir").and_then(|i| self.flags.get(i + 1));
        let here = cwd.map(Path::to_path_buf).unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        let agent_dir = pi_config::agent_dir();
        let trusted = pi_config::trust::TrustStore::new(&agent_dir).get(&here).ok().flatten() == Some(true);
        let (settings, _) = pi_config::Settings::load(&agent_dir, &here, trusted);
        if let Some(dir) = crate::setup::explicit_session_folder(flag.map(String::as_str), &settings) {
            return vec![dir];
        }
        let root = agent_dir.join("sessions");
        match cwd {
            Some(cwd) => vec![pi_agent::session::session_dir(&root, cwd)],
            None => std::fs::read_dir(&root)
                .map(|dirs| dirs.flatten().map(|d| d.path()).filter(|p| p.is_dir()).collect())
                .unwrap_or_default(),
        }
    }

    /// `session/list`: the stored sessions of `cwd` (every folder's without
    /// it), most recently active first, a page at a time.
    fn list_sessions(&self, params: &Value) -> Reply {
        let folders = self.session_folders(params["cwd"].as_str().map(Path::new));
        let mut sessions: Vec<_> = folders.iter().flat_map(|d| pi_agent::session::list_sessions(d)).collect();
        sessions.retain(|s| s.message_count > 0);
        if folders.len() > 1 {
            sessions.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
        }
        let start = match &params["cursor"] {
            Value::Null => 0,
            c => c
                .as_str()
                .and_then(|c| c.parse::<usize>().ok())
                .ok_or_else(|| RpcError::params(text::acp_missing("cursor", "a cursor from session/list")))?,
        };
        let page: Vec<Value> = sessions
            .iter()
            .skip(start)
            .take(LIST_PAGE)
            .map(|s| {
                let title = s.name.clone().or_else(|| s.first_message.as_deref().map(|m| m.chars().take(80).collect()));
                let updated = iso_time(s.modified_ms);
                json!({"sessionId": s.id, "cwd": s.cwd, "title": title, "updatedAt": updated})
            })
            .collect();
        let mut answer = json!({"sessions": page});
        let next = start.saturating_add(LIST_PAGE);
        if next < sessions.len() {
            answer["nextCursor"] = json!(next.to_string());
        }
        Ok(answer)
    }

    /// The stored session with this id: among `cwd`'s sessions first, then
    /// every folder's (file names only: no session is read).
    fn find_session(&self, id: &str, cwd: &Path) -> Option<PathBuf> {
        let by_id = |dir: &Path| pi_agent::session::find_by_id(dir, id).ok();
        self.session_folders(Some(cwd))
            .iter()
            .find_map(|d| by_id(d))
            .or_else(|| self.session_folders(None).iter().find_map(|d| by_id(d)))
    }
}

/// Milliseconds since the epoch as an ISO 8601 time (UTC).
fn iso_time(ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_millis(at).to_string()
}
