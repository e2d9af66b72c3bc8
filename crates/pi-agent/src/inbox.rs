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
use crate::queues::{Delivery, Waiting};

impl Agent {
    /// Record the messages extensions sent since the last drain (those for
    /// the next prompt wait for it): each enters the conversation and the
    /// session, with its `message_start`/`message_end`.
    pub fn drain_inbox(&mut self) {
        self.drain_inbox_where(|d| d != Delivery::NextTurn);
    }

    /// Before a request: record the waiting messages due now (follow-ups
    /// wait for the run to stop, `nextTurn` ones for the next prompt).
    pub(crate) fn drain_due(&mut self) {
        self.drain_inbox_where(|d| matches!(d, Delivery::NextRequest | Delivery::Steer));
    }

    /// A prompt (or triggered run) opens: the messages held for it enter
    /// after its opening message.
    pub(crate) fn drain_next_turn(&mut self) {
        self.drain_inbox_where(|d| d == Delivery::NextTurn);
    }

    fn drain_inbox_where(&mut self, due: impl Fn(Delivery) -> bool) {
        let taken: Vec<AgentMessage> = match self.inbox.lock() {
            Ok(mut q) => {
                let (now, later): (Vec<Waiting>, Vec<Waiting>) = q.drain(..).partition(|w| due(w.delivery));
                q.extend(later);
                now.into_iter().map(|w| w.message).collect()
            }
            Err(_) => Vec::new(),
        };
        for m in taken {
            let value = serde_json::to_value(&m).unwrap_or_default();
            self.emit(AgentEvent::AgentMessageStart { message: value.clone() });
            self.emit(AgentEvent::AgentMessageEnd { message: value });
            self.add(m);
        }
    }

    /// Whether a waiting message asks for a turn: a steered one, or (once
    /// the run would stop, `stopping`) a follow-up. Those follow-ups become
    /// due for the next request.
    pub(crate) fn inbox_wants_turn(&self, stopping: bool) -> bool {
        let Ok(mut q) = self.inbox.lock() else { return false };
        if q.iter().any(|w| w.delivery == Delivery::Steer) {
            return true;
        }
        if !stopping {
            return false;
        }
        let mut wants = false;
        for w in q.iter_mut().filter(|w| w.delivery == Delivery::FollowUp) {
            w.delivery = Delivery::Steer;
            wants = true;
        }
        wants
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
        let (last, _) = self.run(crate::settle::Opening::triggered(), &token).await;
        self.settle_runs(last, &token).await
    }
}
