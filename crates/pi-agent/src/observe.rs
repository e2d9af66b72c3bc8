//! The lifecycle events extensions watch, and for `context` and
//! `message_end` change: `agent_start`, `turn_start`, `message_start`/
//! `message_update`/`message_end`, `context`, `tool_execution_start`/
//! `update`/`end`, `turn_end`, `agent_end`, `agent_before_settle`,
//! `agent_settled`. An event is built only when a source listens, handed to
//! the sources in load order and waited for where it happens (so what a
//! handler does is in place before the agent goes on), as the reference's
//! runner does. Handler failures are reported as extension errors.

use crate::hook_event::{HookEvent, HookMessage};
use serde_json::{Value, json};

use crate::agent::Agent;
use crate::dispatch::{Dispatcher, ToolEvent};
use crate::hooks::{Proposal, run_chain};
use crate::messages::AgentMessage;

impl Dispatcher {
    /// Whether any source listens to `event`.
    pub(crate) fn listening(&self, event: &str) -> bool {
        self.interceptors.iter().any(|h| h.listens(event))
    }

    /// Run every listening source's handlers of `event` in load order. For a
    /// transforming event the value under `key` chains from one source to
    /// the next; the last change is returned.
    pub(crate) async fn observe(&self, kind: &str, payload: Value, key: Option<&str>) -> Option<(Value, String)> {
        run_chain(&self.interceptors, &|source, kind, error| self.report(source, kind, error), kind, payload, key).await
    }

    /// A handler of `source` failed on `kind`.
    pub(crate) fn report(&self, source: &str, kind: &str, error: String) {
        self.emit(ToolEvent::HandlerError { source: source.to_string(), event: kind.to_string(), error });
    }

    /// [`Dispatcher::observe`] for a notification, made JSON only when heard.
    pub(crate) async fn notify(&self, event: HookEvent<'_>) {
        if self.listening(event.kind()) {
            self.observe(event.kind(), event.to_value(), None).await;
        }
    }
}

impl Agent {
    /// Apply the model and thinking level extensions chose since the last
    /// request, recorded in the session as the front ends record theirs
    /// (the chooser announced them to the extensions).
    pub(crate) fn apply_choices(&mut self) {
        let (model, thinking) = self.live.take_choices();
        let thinking = model.as_ref().and_then(|m| m.thinking.clone()).or(thinking);
        if let Some(t) = thinking {
            self.switch_thinking(&t.level);
        }
        if let Some(c) = model {
            if c.api_key.is_some() {
                self.api_key = c.api_key;
            }
            self.switch_model(c.model);
        }
    }

    /// Use `model` from the next request on, recorded in the session
    /// (`model_change`), as every chooser records it (front ends, extensions).
    pub fn switch_model(&mut self, model: pi_ai::Model) {
        self.model = model;
        self.tool_ctx.session.provider = Some(self.model.provider.clone());
        self.tool_ctx.session.model = Some(self.model.id.clone());
        let (provider, id) = (self.model.provider.clone(), self.model.id.clone());
        self.record_entry("model_change", json!({"provider": provider, "modelId": id}));
    }

    /// Use the thinking `level` from the next request on (`off`: none),
    /// recorded in the session (`thinking_level_change`) and told
    /// (`ThinkingLevelChanged`), as every chooser does it.
    pub fn switch_thinking(&mut self, level: &str) {
        self.thinking = Some(level.to_string()).filter(|l| l != crate::text::THINKING_OFF);
        self.tool_ctx.session.reasoning_level = Some(level.to_string());
        self.record_entry("thinking_level_change", json!({"thinkingLevel": level}));
        self.emit(crate::events::AgentEvent::ThinkingLevelChanged { level: level.to_string() });
    }

    /// Append a state entry to the session; a failure to write is reported
    /// as others are.
    fn record_entry(&self, kind: &str, fields: Value) {
        let written = self.session.lock().map(|mut s| s.append(kind, fields));
        if let (Ok(Err(e)), Some(report)) = (written, &self.on_session_error) {
            report(&e);
        }
    }

    /// Run the handlers of notification `event` (made JSON only when heard).
    pub(crate) async fn notify(&self, event: HookEvent<'_>) {
        self.dispatcher.notify(event).await;
    }

    /// `message_start` and `message_end` of every message from index `from` on.
    /// Each message's held events follow its handlers, as the reference
    /// sends them (its handlers run first).
    pub(crate) async fn notify_added(&self, from: usize) {
        let held = self.take_held_events();
        let listening = self.dispatcher.listening("message_start") || self.dispatcher.listening("message_end");
        let added: Vec<Value> = self.messages[from.min(self.messages.len())..]
            .iter()
            .filter_map(|m| serde_json::to_value(m).ok())
            .collect();
        let is_message = |ev: &crate::events::AgentEvent| !matches!(ev, crate::events::AgentEvent::QueueUpdate { .. });
        if !listening || held.iter().filter(|ev| is_message(ev)).count() != 2 * added.len() {
            for ev in held {
                self.emit(ev);
            }
            if listening {
                for message in &added {
                    self.notify(HookEvent::MessageStart { message: HookMessage::Json(message) }).await;
                    self.notify(HookEvent::MessageEnd { message: HookMessage::Json(message) }).await;
                }
            }
            return;
        }
        // Message events in pairs, each after its handlers; a queue update in its place.
        let mut messages = added.iter();
        let mut start = true;
        for ev in held {
            if is_message(&ev) {
                let message = if start { messages.as_slice().first() } else { messages.next() };
                if let Some(message) = message.map(HookMessage::Json) {
                    let hook =
                        if start { HookEvent::MessageStart { message } } else { HookEvent::MessageEnd { message } };
                    self.notify(hook).await;
                }
                start = !start;
            }
            self.emit(ev);
        }
    }

    /// The finished assistant message after the `message_end` handlers: a
    /// replacement with the same role takes its place.
    pub(crate) async fn message_end(&self, message: pi_ai::AssistantMessage) -> pi_ai::AssistantMessage {
        if !self.dispatcher.listening("message_end") {
            return message;
        }
        let value = serde_json::to_value(pi_ai::Message::Assistant(message.clone())).unwrap_or(Value::Null);
        let ended = HookEvent::MessageEnd { message: HookMessage::Json(&value) };
        let changed = self.dispatcher.observe(ended.kind(), ended.to_value(), Some("message"));
        match changed.await.map(|(v, _)| serde_json::from_value::<pi_ai::Message>(v)) {
            Some(Ok(pi_ai::Message::Assistant(replaced))) => replaced,
            _ => message,
        }
    }

    /// The turn after a batch the run was aborted in: as the reference, it
    /// starts (with the steering messages taken for it) and its answer is an
    /// aborted one, without a request.
    pub(crate) async fn aborted_turn(
        &mut self,
        index: u64,
        opening: Option<crate::settle::Opening>,
    ) -> pi_ai::AssistantMessage {
        self.notify(HookEvent::TurnStart { turn_index: index, timestamp: pi_ai::now_ms() }).await;
        self.emit(crate::events::AgentEvent::TurnStart);
        if let Some(o) = opening {
            self.push_opening(o);
        }
        let answer = pi_ai::AssistantMessage {
            api: pi_ai::intern::intern(&self.model.api),
            provider: pi_ai::intern::intern(&self.model.provider),
            model: pi_ai::intern::intern(&self.model.id),
            stop_reason: pi_ai::StopReason::Aborted,
            error_message: Some(crate::text::RUN_ABORTED.into()),
            timestamp: pi_ai::now_ms(),
            ..Default::default()
        };
        // Handlers first, then each event, as the reference sends them.
        let message = pi_ai::Message::Assistant(answer.clone());
        self.notify(HookEvent::MessageStart { message: HookMessage::Llm(&message) }).await;
        self.emit(crate::events::AgentEvent::MessageStart { message: message.clone() });
        self.notify(HookEvent::MessageEnd { message: HookMessage::Llm(&message) }).await;
        self.emit(crate::events::AgentEvent::MessageEnd { message: message.clone() });
        let entry = self.add(message.clone().into());
        let proposal = self.notify_turn_end(index, &answer, &[], entry, Vec::new(), "aborted").await;
        // An aborted run takes the proposed entries, never a continuation.
        self.settle_proposal("turn_end", Proposal { cont: false, ..proposal });
        self.emit(crate::events::AgentEvent::TurnEnd { message, tool_results: vec![] });
        answer
    }

    /// `turn_end`: the turn's answer and results, their session entries and
    /// how the turn ended; what the handlers proposed (see [`crate::boundary`]).
    pub(crate) async fn notify_turn_end(
        &self,
        index: u64,
        message: &pi_ai::AssistantMessage,
        results: &[pi_ai::ToolResultMessage],
        entry: Option<String>,
        result_entries: Vec<String>,
        outcome: &str,
    ) -> Proposal {
        if !self.dispatcher.listening("turn_end") {
            return Default::default();
        }
        let results: Vec<Value> =
            results.iter().filter_map(|r| serde_json::to_value(pi_ai::Message::ToolResult(r.clone())).ok()).collect();
        let message = pi_ai::Message::Assistant(message.clone());
        let ended = HookEvent::TurnEnd {
            turn_index: index,
            message: HookMessage::Llm(&message),
            tool_results: results,
            message_entry_id: entry,
            tool_result_entry_ids: result_entries,
            boundary: self.boundary(outcome),
        };
        self.propose(ended.kind(), ended.to_value()).await
    }

    /// What `turn_end` and `agent_before_settle` carry besides their own
    /// fields: nothing proposed yet (`entries`, `continue`) and the context
    /// as the session projects it.
    pub(crate) fn boundary(&self, outcome: &str) -> Value {
        let entries: Vec<Value> = match self.session.lock() {
            Ok(s) => s
                .branch()
                .into_iter()
                .map(|e| {
                    let source = e.value();
                    let messages = match source.get("message") {
                        Some(m) if source["type"] == "message" => vec![m.clone()],
                        _ => Vec::new(),
                    };
                    json!({"sourceEntry": source, "messages": messages})
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        let messages: Vec<Value> = self.messages.iter().filter_map(|m| serde_json::to_value(m).ok()).collect();
        // As the model reads them: system messages as they are, the rest converted.
        let llm: Vec<Value> = self
            .messages
            .iter()
            .flat_map(|m| match m {
                AgentMessage::Agent(crate::messages::AgentOnly::System(_)) => {
                    serde_json::to_value(m).ok().into_iter().collect()
                }
                other => crate::messages::to_llm(std::slice::from_ref(other))
                    .into_iter()
                    .filter_map(|l| serde_json::to_value(l).ok())
                    .collect::<Vec<_>>(),
            })
            .collect();
        json!({
            "outcome": outcome,
            "entries": [],
            "continue": false,
            "context": {
                "contextEntries": entries,
                "contextMessages": messages,
                "llmMessages": llm,
                "pendingMessages": [],
                "canContinue": outcome == "completed",
            },
        })
    }
}
