//! What script extensions ask of the session ([`SessionApi`]): reads and
//! writes answered at once, and the commands that replace or move the
//! session (`newSession`, `switchSession`, `fork`, `navigateTree`), asked
//! of the extensions first ([`crate::session_events`],
//! [`crate::tree_events`]: one may cancel) and followed by the extensions'
//! reload, as the reference orders them.

use futures::future::BoxFuture;
use pi_agent::session::Session;
use pi_agent::{AgentEvent, Queue};
use pi_ext::{CommandOp, SessionApi, SessionCall};
use serde_json::{Value, json};

use crate::ext_session::ExtSession;
use crate::session_error::SessionCallError;

impl ExtSession {
    /// Replace the session's contents with `next` (the agent takes them
    /// once the command ends).
    fn replace(&self, next: Session) -> Result<Value, SessionCallError> {
        let mut s = self.session.lock()?;
        *s = next;
        drop(s);
        self.with_pending(|p| p.resync = true);
        Ok(json!({"cancelled": false}))
    }

    /// Move the session's leaf to `new_leaf`; the agent reads it again once
    /// the command ends.
    fn move_leaf(&self, new_leaf: Option<&str>) -> Result<Value, SessionCallError> {
        self.session.lock()?.set_leaf(new_leaf)?;
        self.with_pending(|p| p.resync = true);
        Ok(json!({"cancelled": false}))
    }

    fn command_op(&self, op: CommandOp) -> Result<Value, SessionCallError> {
        if self.busy.get() && !matches!(op, CommandOp::WaitForIdle | CommandOp::Reload | CommandOp::Complete { .. }) {
            return Err(SessionCallError::Busy);
        }
        let (dir, cwd) = (self.session_dir.as_deref(), self.cwd.as_path());
        let current = || {
            let s = self.session.lock()?;
            Ok::<_, SessionCallError>((s.path().map(|p| p.to_string_lossy().into_owned()), s.entries().is_empty()))
        };
        match op {
            // Model calls are answered by `command` before this.
            CommandOp::WaitForIdle | CommandOp::Complete { .. } => Ok(Value::Null),
            CommandOp::Reload => {
                self.with_pending(|p| p.reload = true);
                Ok(Value::Null)
            }
            CommandOp::NewSession { parent } => {
                let mut s = Session::create(dir, cwd, None, parent.as_deref())?;
                let (model, level) = self.current.lock().map(|c| c.clone())?;
                s.append("model_change", json!({"provider": model.provider, "modelId": model.id}))?;
                s.append("thinking_level_change", json!({"thinkingLevel": level}))?;
                self.replace(s)
            }
            CommandOp::SwitchSession(path) => {
                let s = Session::open_to_continue(std::path::Path::new(&path))?;
                self.replace(s)
            }
            CommandOp::Fork { entry_id, at } => {
                let (parent, empty) = current()?;
                if empty {
                    return Err(SessionCallError::NothingToCopy);
                }
                let mut copy = Session::create(dir, cwd, None, parent.as_deref())?;
                {
                    let s = self.session.lock()?;
                    if s.get(&entry_id).is_none() {
                        return Err(SessionCallError::EntryNotFound(entry_id));
                    }
                    let done = if at {
                        copy.copy_branch_through(&s, &entry_id)
                    } else {
                        copy.copy_branch_before(&s, &entry_id)
                    };
                    done?;
                }
                self.replace(copy)
            }
            CommandOp::NavigateTree(target) => {
                let prepared = crate::tree_events::prepare(self, &target, &Default::default())?;
                self.move_leaf(prepared.new_leaf.as_deref())
            }
        }
    }
}

impl ExtSession {
    /// What `call` answers.
    fn answer(&self, call: SessionCall) -> Result<Option<Value>, SessionCallError> {
        match call {
            SessionCall::AppendEntry { custom_type, data } => {
                let mut fields = json!({"customType": custom_type});
                if !data.is_null() {
                    fields["data"] = data;
                }
                self.append("custom", fields)
            }
            SessionCall::AppendMessage(message) => {
                let mut s = self.session.lock()?;
                s.append_message(&message)?;
                Ok(None)
            }
            SessionCall::SetLabel { id, label } => self.append("label", json!({"targetId": id, "label": label})),
            SessionCall::SetSessionName(name) => {
                let name = name.trim().to_string();
                self.append("session_info", json!({"name": name}))?;
                (self.sink)(&AgentEvent::SessionInfoChanged { name: Some(name.clone()) });
                self.announce(&crate::session_event::SessionEvent::SessionInfoChanged { name: name.clone() });
                Ok(None)
            }
            SessionCall::SendMessage { message, options } => self.send_message(&message, &options),
            SessionCall::SetModel { provider, id } => Ok(Some(json!(self.set_model(&provider, &id)))),
            SessionCall::SetThinkingLevel(level) => {
                self.set_thinking(&level);
                Ok(None)
            }
            SessionCall::ContextUsage => Ok(self.context_usage()),
            SessionCall::Compact(instructions) => {
                // As the reference: a run going on is aborted, then the session compacted.
                if self.busy.get() {
                    self.abort.abort();
                }
                self.with_pending(|p| p.compact = Some(instructions));
                Ok(None)
            }
            SessionCall::SystemPrompt => Ok(self.prompt_view.lock().ok().map(|p| json!(*p))),
            SessionCall::SendUserMessage { content, options, rejects } => {
                match self.send_user_message(&content, &options) {
                    // As the reference: `pi.sendUserMessage` returns at once; a refusal is the runtime's error.
                    Err(error) if !rejects => {
                        self.report(vec![pi_ext::ExtensionError {
                            path: crate::text::RUNTIME_EXTENSION_PATH.to_string(),
                            event: crate::text::SEND_USER_MESSAGE_EVENT.to_string(),
                            error: error.to_string(),
                        }]);
                        Ok(None)
                    }
                    done => done,
                }
            }
            SessionCall::Commands => Ok(Some(Value::Array(self.commands()))),
            SessionCall::IsIdle => Ok(Some(json!(!self.busy.get()))),
            SessionCall::Abort => {
                self.abort.abort();
                Ok(None)
            }
            SessionCall::ScopedModels => Ok(Some(self.scoped_models())),
            SessionCall::HasPendingMessages => {
                let waiting = |q: &Queue| q.lock().map(|g| !g.is_empty()).unwrap_or(false);
                Ok(Some(json!(waiting(&self.steering) || waiting(&self.follow_ups))))
            }
            SessionCall::Shutdown => {
                self.shutdown.request();
                Ok(None)
            }
            c @ (SessionCall::Models
            | SessionCall::AvailableModels
            | SessionCall::FindModel { .. }
            | SessionCall::CurrentModel
            | SessionCall::ThinkingLevel) => Ok(self.models(&c)),
            read => Ok(self.read(&read)),
        }
    }

    /// What `command` answers.
    fn run_command_op(&self, op: CommandOp) -> BoxFuture<'static, Result<Value, SessionCallError>> {
        // A replacement: the extensions are asked first (one may cancel).
        let replacement = match &op {
            CommandOp::NewSession { .. } => Some(crate::session_events::Replacement::New),
            CommandOp::SwitchSession(path) => Some(crate::session_events::Replacement::Resume { target: path.clone() }),
            CommandOp::Fork { entry_id, at } => {
                Some(crate::session_events::Replacement::Fork { entry: Some(entry_id.clone()), clone: *at })
            }
            _ => None,
        };
        if let (Some(r), Some(me)) = (replacement, self.me.upgrade()) {
            return Box::pin(async move {
                if crate::session_events::cancelled(&me, &r).await {
                    return Ok(json!({"cancelled": true}));
                }
                let previous = me.session.lock().ok().and_then(|s| s.path().map(|p| p.to_string_lossy().into_owned()));
                let out = me.command_op(op)?;
                // As the reference: the extensions are loaded again before the operation resolves.
                if let Some(plan) = me.plan.get().and_then(std::sync::Weak::upgrade) {
                    let target =
                        me.session.lock().ok().and_then(|s| s.path().map(|p| p.to_string_lossy().into_owned()));
                    let replaced = crate::session_events::renew(&plan, &r, previous, target).await;
                    me.with_pending(|p| p.replaced = Some(replaced));
                }
                Ok(out)
            });
        }
        if let (CommandOp::NavigateTree(target), Some(me)) = (&op, self.me.upgrade()) {
            let target = target.clone();
            return Box::pin(async move {
                let how = crate::tree_events::TreeMove::default();
                let prepared = crate::tree_events::prepare(&me, &target, &how)?;
                if crate::tree_events::ask_before(&me, &prepared.preparation, &how).await.is_none() {
                    return Ok(json!({"cancelled": true}));
                }
                if me.busy.get() {
                    return Err(SessionCallError::Busy);
                }
                let out = me.move_leaf(prepared.new_leaf.as_deref())?;
                let old_leaf = &prepared.preparation["oldLeafId"];
                crate::tree_events::moved(&me, old_leaf, prepared.new_leaf.as_deref(), &Value::Null).await;
                Ok(out)
            });
        }
        if let CommandOp::Complete { model, context, options } = op {
            let models = self.models.clone();
            return Box::pin(async move { Ok(crate::ext_models::complete(&models, &model, &context, &options).await) });
        }
        if op == CommandOp::WaitForIdle {
            let busy = self.busy.clone();
            return Box::pin(async move {
                busy.wait_idle().await;
                Ok(Value::Null)
            });
        }
        let answer = self.command_op(op);
        Box::pin(async move { answer })
    }
}

impl SessionApi for ExtSession {
    // String error: the message is what the extension's JavaScript receives
    // as the thrown error (pi-ext's `SessionApi` contract).
    fn call(&self, call: SessionCall) -> Result<Option<Value>, String> {
        self.answer(call).map_err(|e| e.to_string())
    }

    // String error: as `call`.
    fn command(&self, op: CommandOp) -> BoxFuture<'static, Result<Value, String>> {
        let answer = self.run_command_op(op);
        Box::pin(async move { answer.await.map_err(|e| e.to_string()) })
    }
}
