//! RPC mode: JSONL commands on standard input, responses and events on
//! standard output (LF framing; a trailing CR is stripped; U+2028/2029 are not
//! separators). Commands run while a prompt streams; responses carry the
//! command's `id`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pi_agent::{Agent, AgentEvent, AgentMessage};
use pi_ai::{ContentBlock, Message};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::{json_mode, text};

/// What commands read while a run holds the agent.
#[derive(Default)]
struct Shared {
    messages: Mutex<Vec<AgentMessage>>,
    streaming: AtomicBool,
}

static SHARED: OnceLock<Arc<Shared>> = OnceLock::new();

fn shared() -> Arc<Shared> {
    SHARED.get_or_init(|| Arc::new(Shared::default())).clone()
}

use json_mode::print_line as out;

/// The event sink of RPC mode: print events, mirror the conversation.
pub fn sink() -> Arc<dyn Fn(&AgentEvent) + Send + Sync> {
    let s = shared();
    Arc::new(move |ev: &AgentEvent| {
        match ev {
            AgentEvent::MessageEnd { message } => {
                if let Ok(mut m) = s.messages.lock() {
                    m.push(message.clone().into());
                }
            }
            AgentEvent::AgentSettled { .. } => s.streaming.store(false, Ordering::SeqCst),
            _ => {}
        }
        out(&json_mode::event_value(ev));
    })
}

/// A response record: `id` first when the command had one (as the reference writes it).
pub(crate) fn response_head(id: &Option<Value>, command: &str) -> Value {
    let mut v = serde_json::Map::new();
    if let Some(id) = id {
        v.insert("id".into(), id.clone());
    }
    v.insert("type".into(), json!("response"));
    v.insert("command".into(), json!(command));
    Value::Object(v)
}

fn respond(id: &Option<Value>, command: &str, result: Result<Option<Value>, String>) {
    let mut v = response_head(id, command);
    match result {
        Ok(data) => {
            v["success"] = json!(true);
            if let Some(d) = data {
                v["data"] = d;
            }
        }
        Err(e) => {
            v["success"] = json!(false);
            v["error"] = json!(e);
        }
    }
    out(&v);
}

fn last_assistant_text(messages: &[AgentMessage]) -> Option<String> {
    messages.iter().rev().find_map(|m| match m.as_llm()? {
        Message::Assistant(a) => {
            let t = crate::print_mode::texts(a);
            (!t.is_empty()).then(|| t.join(""))
        }
        _ => None,
    })
}

fn stats(messages: &[AgentMessage], session_id: &Value) -> Value {
    let (mut users, mut assistants, mut calls, mut results) = (0, 0, 0, 0);
    let (mut input, mut output, mut cache_read, mut cache_write, mut cost) = (0u64, 0u64, 0u64, 0u64, 0f64);
    for m in messages.iter().filter_map(AgentMessage::as_llm) {
        match m {
            Message::User(_) => users += 1,
            Message::Assistant(a) => {
                assistants += 1;
                calls += a.content.iter().filter(|b| matches!(b, ContentBlock::ToolCall { .. })).count();
                input += a.usage.input;
                output += a.usage.output;
                cache_read += a.usage.cache_read;
                cache_write += a.usage.cache_write;
                cost += a.usage.cost.total;
            }
            Message::ToolResult(_) => results += 1,
        }
    }
    json!({
        "sessionId": session_id,
        "userMessages": users, "assistantMessages": assistants, "toolCalls": calls, "toolResults": results,
        "totalMessages": messages.len(),
        "tokens": {"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
                   "total": input + output + cache_read + cache_write},
        "cost": cost,
    })
}

/// The state of an RPC session between commands.
struct Server {
    shared: Arc<Shared>,
    agent: Arc<tokio::sync::Mutex<Agent>>,
    abort: pi_agent::AbortHandle,
    steering: pi_agent::Queue,
    follow_ups: pi_agent::Queue,
    tool_ctx: pi_tools::ToolContext,
    header: Value,
    models: Vec<pi_config::ModelEntry>,
    reload_state: crate::reload::ReloadState,
    bash: crate::rpc_bash::BashContext,
    commands: crate::rpc_bash::RunningCommands,
    running: Option<tokio::task::JoinHandle<()>>,
}

/// Serve commands until standard input closes, then wait for the current run.
pub async fn run(
    agent: Agent,
    header: Value,
    models: Vec<pi_config::ModelEntry>,
    reload_state: crate::reload::ReloadState,
) -> std::process::ExitCode {
    let mut server = Server::new(agent, header, models, reload_state);
    let mut lines = BufReader::new(tokio::io::stdin()).split(b'\n');
    while let Ok(Some(raw)) = lines.next_segment().await {
        let line = String::from_utf8_lossy(&raw);
        let line = line.strip_suffix('\r').unwrap_or(&line);
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(cmd @ Value::Object(_)) => server.handle(cmd).await,
            Ok(_) => respond(&None, "parse", Err(text::rpc_parse_failed("expected a JSON object"))),
            Err(e) => respond(&None, "parse", Err(text::rpc_parse_failed(&e.to_string()))),
        }
    }
    if let Some(h) = server.running.take() {
        let _ = h.await;
    }
    std::process::ExitCode::SUCCESS
}

impl Server {
    fn new(
        agent: Agent,
        header: Value,
        models: Vec<pi_config::ModelEntry>,
        reload_state: crate::reload::ReloadState,
    ) -> Server {
        let shared = shared();
        if let Ok(mut m) = shared.messages.lock() {
            *m = agent.messages.clone();
        }
        let (abort, steering, follow_ups) = (agent.abort_handle(), agent.steering.clone(), agent.follow_ups.clone());
        let tool_ctx = agent.tool_ctx.clone();
        let interceptors = agent.dispatcher.interceptors.clone();
        let agent = Arc::new(tokio::sync::Mutex::new(agent));
        let mirror_to = shared.clone();
        let bash = crate::rpc_bash::BashContext {
            interceptors,
            tool_ctx: tool_ctx.clone(),
            agent: agent.clone(),
            mirror: Arc::new(move |m: AgentMessage| {
                if let Ok(mut list) = mirror_to.messages.lock() {
                    list.push(m);
                }
            }),
        };
        Server {
            shared,
            agent,
            abort,
            steering,
            follow_ups,
            tool_ctx,
            header,
            models,
            reload_state,
            bash,
            commands: Default::default(),
            running: None,
        }
    }

    fn streaming(&self) -> bool {
        self.shared.streaming.load(Ordering::SeqCst)
    }

    fn messages(&self) -> Vec<AgentMessage> {
        self.shared.messages.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// One command.
    async fn handle(&mut self, cmd: Value) {
        let id = cmd.get("id").cloned();
        let kind = cmd.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
        match kind.as_str() {
            "prompt" | "steer" | "follow_up" => self.prompt(&id, &kind, &cmd).await,
            "abort" => {
                self.abort.abort();
                self.commands.abort_all();
                if let Some(h) = self.running.take() {
                    let _ = h.await;
                }
                respond(&id, &kind, Ok(None));
            }
            "clear_queue" => {
                let drain =
                    |q: &pi_agent::Queue| q.lock().map(|mut g| g.drain(..).collect::<Vec<_>>()).unwrap_or_default();
                let data = json!({"steering": drain(&self.steering), "followUp": drain(&self.follow_ups)});
                respond(&id, &kind, Ok(Some(data)));
            }
            "get_state" => respond(&id, &kind, Ok(Some(self.state()))),
            "get_messages" => respond(&id, &kind, Ok(Some(json!({"messages": self.messages()})))),
            "get_last_assistant_text" => {
                respond(&id, &kind, Ok(Some(json!({"text": last_assistant_text(&self.messages())}))))
            }
            "get_session_stats" => respond(&id, &kind, Ok(Some(stats(&self.messages(), &self.header["id"])))),
            "get_available_models" => {
                let list: Vec<Value> = crate::model_select::available(&self.models)
                    .into_iter()
                    .map(|m| serde_json::to_value(crate::model_select::ai_model(m)).unwrap_or(Value::Null))
                    .collect();
                respond(&id, &kind, Ok(Some(json!({"models": list}))));
            }
            "set_model" => respond(&id, &kind, self.set_model(&cmd).await),
            "new_session" => {
                if self.streaming() {
                    respond(&id, &kind, Err(text::RPC_BUSY.into()));
                } else {
                    self.agent.lock().await.messages.clear();
                    if let Ok(mut m) = self.shared.messages.lock() {
                        m.clear();
                    }
                    respond(&id, &kind, Ok(Some(json!({"cancelled": false}))));
                }
            }
            "bash" => {
                let Some(command) = cmd.get("command").and_then(Value::as_str) else {
                    return respond(&id, &kind, Err(text::RPC_MISSING_COMMAND.into()));
                };
                let exclude = cmd.get("excludeFromContext").and_then(Value::as_bool) == Some(true);
                crate::rpc_bash::start(&self.bash, &self.commands, id, command.to_string(), exclude);
            }
            "abort_bash" => {
                self.commands.abort_all();
                respond(&id, &kind, Ok(None));
            }
            "extension_ui_response" => crate::rpc_ui::bridge().answer(&cmd),
            other => respond(&id, other, Err(text::rpc_unknown_command(other))),
        }
    }

    /// `prompt`, `steer`, `follow_up`: start a run, or queue the message
    /// while one streams; `/reload` is handled here.
    async fn prompt(&mut self, id: &Option<Value>, kind: &str, cmd: &Value) {
        let Some(msg) = cmd.get("message").and_then(Value::as_str).map(String::from) else {
            return respond(id, kind, Err(text::RPC_MISSING_MESSAGE.into()));
        };
        let streaming = self.streaming();
        let behaviour = match kind {
            "steer" => Some("steer"),
            "follow_up" => Some("followUp"),
            _ => cmd.get("streamingBehavior").and_then(Value::as_str),
        };
        if kind == "prompt" && msg.trim() == "/reload" {
            if streaming {
                return respond(id, kind, Err(text::RPC_BUSY.into()));
            }
            let mut g = self.agent.lock().await;
            let status = crate::reload::reload(&mut g, &mut self.reload_state).await;
            return respond(id, kind, Ok(Some(json!({"disposition": "handled", "message": status}))));
        }
        if streaming {
            let queue = match behaviour {
                Some("steer") => &self.steering,
                Some("followUp") => &self.follow_ups,
                _ => return respond(id, kind, Err(text::RPC_ALREADY_STREAMING.into())),
            };
            if let Ok(mut q) = queue.lock() {
                q.push_back(msg);
            }
            return respond(id, kind, Ok(Some(json!({"disposition": "queued"}))));
        }
        let disposition = if kind == "prompt" { "started" } else { "queued" };
        respond(id, kind, Ok(Some(json!({"disposition": disposition}))));
        self.shared.streaming.store(true, Ordering::SeqCst);
        let a = self.agent.clone();
        self.running = Some(tokio::spawn(async move {
            let mut g = a.lock().await;
            g.prompt(&msg).await;
        }));
    }

    /// `get_state` (the model only when no run holds the agent).
    fn state(&self) -> Value {
        let g = self.agent.try_lock();
        let model = g.as_ref().ok().map(|g| serde_json::to_value(&g.model).unwrap_or(Value::Null));
        let count = self.shared.messages.lock().map(|m| m.len()).unwrap_or(0);
        let pending =
            self.steering.lock().map(|q| q.len()).unwrap_or(0) + self.follow_ups.lock().map(|q| q.len()).unwrap_or(0);
        let mut data = json!({
            "thinkingLevel": self.tool_ctx.session.reasoning_level.clone().unwrap_or_else(|| "off".into()),
            "isStreaming": self.streaming(), "isCompacting": false,
            "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time",
            "sessionId": self.header["id"], "autoCompactionEnabled": false,
            "messageCount": count, "pendingMessageCount": pending,
        });
        if let Some(f) = &self.tool_ctx.session.session_file {
            data["sessionFile"] = json!(f);
        }
        if let Some(m) = model {
            data["model"] = m;
        }
        data
    }

    /// `set_model`: a configured model, its key; not while a run streams.
    async fn set_model(&self, cmd: &Value) -> Result<Option<Value>, String> {
        let provider = cmd.get("provider").and_then(Value::as_str).unwrap_or_default();
        let model_id = cmd.get("modelId").and_then(Value::as_str).unwrap_or_default();
        let Some(m) = self.models.iter().find(|m| m.provider == provider && m.id == model_id) else {
            return Err(text::rpc_model_not_found(provider, model_id));
        };
        if self.streaming() {
            return Err(text::RPC_BUSY.into());
        }
        let mut g = self.agent.lock().await;
        let key = crate::model_select::api_key_for(m, None)?;
        g.api_key = key.or(g.api_key.clone());
        g.model = crate::model_select::ai_model(m);
        Ok(Some(serde_json::to_value(&g.model).unwrap_or(Value::Null)))
    }
}
