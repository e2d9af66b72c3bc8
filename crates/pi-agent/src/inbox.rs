//! What extensions hand the agent from outside a run's loop: custom
//! messages (`pi.sendMessage`, through the agent's [`crate::Inbox`]),
//! recorded before the next model request (or at once with
//! [`Agent::drain_inbox`]); a session an extension replaced
//! ([`Agent::resync_session`]); a turn started without a user message
//! ([`Agent::continue_run`]).

use pi_ai::AssistantMessage;

use crate::agent::Agent;
use crate::events::AgentEvent;
use crate::messages::AgentMessage;

impl Agent {
    /// Record the messages extensions sent since the last drain: each enters
    /// the conversation and the session, with its `message_start`/`message_end`.
    pub fn drain_inbox(&mut self) {
        let taken: Vec<AgentMessage> = match self.inbox.lock() {
            Ok(mut q) => q.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        for m in taken {
            let value = serde_json::to_value(&m).unwrap_or_default();
            self.emit(AgentEvent::AgentMessageStart { message: value.clone() });
            self.emit(AgentEvent::AgentMessageEnd { message: value });
            self.add(m);
        }
    }

    /// Take the conversation and the tools' session facts from the session
    /// again, after an extension replaced its contents (a new session, a
    /// fork, a switch, a move in the tree).
    pub fn resync_session(&mut self) {
        let Ok(mut s) = self.session.lock() else { return };
        // (A session an extension switched to holds the messages read with its file.)
        self.messages = s.take_context().messages;
        self.tool_ctx.session.session_id = Some(s.id().to_string());
        self.tool_ctx.session.session_file = s.path().map(|p| p.to_string_lossy().into_owned());
    }

    /// A run without a new user message (an extension's `triggerTurn`): the
    /// model answers the conversation as it stands.
    pub async fn continue_run(&mut self) -> Option<AssistantMessage> {
        let token = self.fresh_abort();
        let (last, _) = self.run(None, &token).await;
        let aborted = token.is_cancelled();
        if let Some(f) = &self.on_settled {
            f();
        }
        self.notify(crate::hook_event::HookEvent::AgentSettled { aborted }).await;
        self.emit(AgentEvent::AgentSettled { aborted });
        last
    }
}
