//! What waits to enter the conversation: custom messages in the agent's
//! [`Inbox`] (with when each enters, [`Delivery`]) and user messages in the
//! steering and follow-up [`Queue`]s, shared with the front ends and the
//! extensions' side.

use std::sync::Arc;

use pi_ai::ContentBlock;

use crate::messages::AgentMessage;

/// Messages waiting to enter the conversation, shared with the extensions' side.
pub type Inbox = Arc<std::sync::Mutex<std::collections::VecDeque<Waiting>>>;

/// A message in the [`Inbox`] and when it enters the conversation.
#[derive(Debug, Clone)]
pub struct Waiting {
    /// The message.
    pub message: AgentMessage,
    /// When it enters.
    pub delivery: Delivery,
}

/// When a waiting message enters the conversation (`pi.sendMessage`'s
/// `triggerTurn` and `deliverAs`, as the reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Before the next request, without asking for one (`triggerTurn: false`
    /// during a run, or any message while idle).
    NextRequest,
    /// Steered: before the next request, and it asks for one (a run that
    /// would stop takes another turn; one that ended starts again).
    Steer,
    /// A follow-up: once the run would stop, and then it asks for a turn.
    FollowUp,
    /// With the next prompt (or triggered run), after its opening message
    /// (`deliverAs: "nextTurn"`).
    NextTurn,
}

/// A queue of user messages shared with a controller (RPC).
pub type Queue = Arc<std::sync::Mutex<std::collections::VecDeque<Queued>>>;

/// A user message waiting in a [`Queue`]: its text and images (prepared
/// as a prompt's when it is delivered).
#[derive(Debug, Clone, Default)]
pub struct Queued {
    /// The text.
    pub text: String,
    /// Images sent with it.
    pub images: Vec<ContentBlock>,
}

impl Queued {
    /// A message of text only.
    pub fn text(text: impl Into<String>) -> Queued {
        Queued { text: text.into(), images: Vec::new() }
    }
}

/// The texts of a queue's messages, in order (what `queue_update` lists).
pub fn queue_texts(queue: &Queue) -> Vec<String> {
    queue.lock().map(|q| q.iter().map(|m| m.text.clone()).collect()).unwrap_or_default()
}
