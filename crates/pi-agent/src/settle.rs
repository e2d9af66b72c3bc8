//! After a run ends (as the reference): messages queued while it ended
//! (steered or follow-up user messages, custom messages that ask for a turn,
//! often sent by `agent_end` handlers) start another run; then the
//! `agent_before_settle` boundary may ask for one more, and messages queued
//! meanwhile run too; then `agent_settled`.

use pi_ai::{AssistantMessage, ContentBlock};
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::events::AgentEvent;
use crate::hook_event::HookEvent;
use crate::queues::{Delivery, Queued};

/// How a run (or its next turn) opens.
#[derive(Default)]
pub(crate) struct Opening {
    /// Its user message; none: the conversation as it stands, with the
    /// custom messages due.
    pub first: Option<(String, Vec<ContentBlock>)>,
    /// The user messages that come with it (queue mode `all`).
    pub more: Vec<Queued>,
    /// Taken from the steering (`true`) or follow-up queue: each is
    /// expanded and announced (`queue_update`) as it starts, as the
    /// reference takes it off its list.
    pub queued: Option<bool>,
    /// A prompt or a triggered run: the messages held for the next turn
    /// (`deliverAs: "nextTurn"`) come with it.
    pub starts: bool,
}

impl Opening {
    /// A prompt's user message, sent as it is.
    pub fn user(text: String, images: Vec<ContentBlock>) -> Opening {
        Opening { first: Some((text, images)), starts: true, ..Opening::default() }
    }

    /// Messages taken from the steering (`steering`) or follow-up queue.
    pub fn queued(first: Queued, more: Vec<Queued>, steering: bool) -> Opening {
        Opening { first: Some((first.text, first.images)), more, queued: Some(steering), starts: false }
    }

    /// A run an extension triggered (its custom message waits in the inbox).
    pub fn triggered() -> Opening {
        Opening { starts: true, ..Opening::default() }
    }
}

impl Agent {
    /// What a run that would stop (or has ended) takes next: the steered
    /// messages first, else the follow-ups. `None`: nothing waits.
    pub(crate) fn next_waiting(&mut self) -> Option<Opening> {
        let (mut users, mut steering) = (self.take_queued(true), true);
        let mut customs = self.inbox_wants_turn(false);
        if users.is_empty() && !customs {
            (users, steering) = (self.take_queued(false), false);
            customs = self.inbox_wants_turn(true);
        }
        let mut users = users.into_iter();
        match users.next() {
            Some(first) => Some(Opening::queued(first, users.collect(), steering)),
            None if customs => Some(Opening::default()),
            None => None,
        }
    }

    /// Record a turn's opening user messages, each with its events; queued
    /// ones expanded, and announced as they leave the queue.
    pub(crate) fn push_opening(&mut self, opening: Opening) {
        if opening.starts && opening.first.is_none() {
            // A triggered run: its custom message first.
            self.drain_due();
        }
        self.push_users(opening.first, opening.more, opening.queued);
        if opening.starts {
            self.drain_next_turn();
        }
    }

    /// Record the steering messages waiting (per the steering mode), as
    /// they leave the queue.
    pub(crate) fn push_steering(&mut self) {
        let mut steered = self.take_queued(true).into_iter();
        if let Some(first) = steered.next() {
            self.push_opening(Opening::queued(first, steered.collect(), true));
        }
    }

    /// Record `first` and `more` (queued: expanded, their images prepared as
    /// a prompt's, and announced as each starts).
    fn push_users(&mut self, first: Option<(String, Vec<ContentBlock>)>, more: Vec<Queued>, queued: Option<bool>) {
        let mut rest = more.into_iter();
        let mut next = first;
        while let Some((text, images)) = next.take() {
            let (text, images) = match queued {
                Some(steering) => {
                    self.emit_queue_update_with(steering, rest.as_slice());
                    crate::prompt_images::prepare(self.expand(&text), images)
                }
                None => (text, images),
            };
            self.push_user_with(&text, images);
            next = rest.next().map(|m| (m.text, m.images));
        }
    }

    /// Whether anything waits that would start a run.
    fn has_waiting(&self) -> bool {
        let queued = |q: &crate::Queue| q.lock().is_ok_and(|q| !q.is_empty());
        let customs = self
            .inbox
            .lock()
            .is_ok_and(|q| q.iter().any(|w| matches!(w.delivery, Delivery::Steer | Delivery::FollowUp)));
        queued(&self.steering) || queued(&self.follow_ups) || customs
    }

    /// Run what waits, then the `agent_before_settle` boundary (again after
    /// each run it asks for or that was queued meanwhile), then tell
    /// `agent_settled`. Returns the last answer (`last` when no run follows).
    pub(crate) async fn settle_runs(
        &mut self,
        mut last: Option<AssistantMessage>,
        token: &CancellationToken,
    ) -> Option<AssistantMessage> {
        loop {
            while !token.is_cancelled() {
                let Some(opening) = self.next_waiting() else { break };
                let (again, _) = self.run(opening, token).await;
                last = again.or(last);
                if !token.is_cancelled() {
                    self.auto_compact().await;
                }
            }
            if token.is_cancelled() || !self.dispatcher.listening("agent_before_settle") {
                break;
            }
            let ended = last.as_ref().map(|m| crate::hooks::outcome(&m.stop_reason)).unwrap_or("completed");
            let kind = "agent_before_settle";
            let proposal = self.propose(kind, crate::hooks::event(kind, self.boundary(ended))).await;
            // An abort meanwhile keeps the entries and drops the continuation.
            let cont = proposal.cont && !token.is_cancelled() && ended == "completed";
            if self.settle_proposal(kind, crate::hooks::Proposal { cont, ..proposal }) {
                let (again, _) = self.run(Opening::default(), token).await;
                last = again.or(last);
                continue;
            }
            if token.is_cancelled() || !self.has_waiting() {
                break;
            }
        }
        let aborted = token.is_cancelled();
        if let Some(f) = &self.on_settled {
            f();
        }
        self.notify(HookEvent::AgentSettled { aborted }).await;
        self.emit(AgentEvent::AgentSettled { aborted });
        last
    }
}
