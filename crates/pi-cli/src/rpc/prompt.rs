//! RPC `prompt`, `steer` and `follow_up`: `/reload`, `/mcp` and `/llama`
//! (which needs the terminal UI) are the host's; an extension command runs its handler (`disposition: handled`);
//! the `input` handlers may handle or transform the message; what is left
//! starts a run, or is queued while one streams. Handlers run in a task of
//! their own, so dialogs they open are answered while they wait.

use std::sync::atomic::Ordering;

use futures::FutureExt;
use serde_json::{Value, json};

use super::{Server, Shared, respond};
use crate::text;
use pi_runtime::Op;
use pi_runtime::ext_input::{Incoming, Queueing, Step, StepSink};

impl Server {
    /// `prompt`. `behaviour` (its `streamingBehavior`): where the message
    /// goes while a run streams (`steer`, `followUp`; `None` refuses a
    /// message left for the model then).
    pub(super) async fn prompt(
        &mut self,
        id: &Option<Value>,
        kind: &str,
        msg: String,
        images: Vec<pi_ai::ContentBlock>,
        behaviour: Option<&'static str>,
    ) {
        let streaming = self.busy();
        if kind == "prompt"
            && self.setup.mcp_on
            && let Some(args) = pi_mcp::slash::parse(&msg)
        {
            for (level, message) in pi_runtime::mcp::answer(&self.setup.agent_dir, self.setup.mcp.as_ref(), args).await
            {
                pi_ext::UiBridge::notify(self.setup.link.ui.as_ref(), &message, pi_runtime::mcp::notify_level(level));
            }
            return respond(id, kind, Ok(Some(json!({"disposition": "handled"}))));
        }
        if kind == "prompt" && self.setup.llama_on && pi_runtime::llama::is_command(&msg) {
            pi_ext::UiBridge::notify(self.setup.link.ui.as_ref(), text::LLAMA_NEEDS_UI, pi_ext::NotifyLevel::Warning);
            return respond(id, kind, Ok(Some(json!({"disposition": "handled"}))));
        }
        if streaming {
            // As the reference: commands and `input` handlers first; only a
            // message left for the model needs a `streamingBehavior`.
            let queue = match behaviour {
                Some("steer") => Some(self.steering.clone()),
                Some("followUp") => Some(self.follow_ups.clone()),
                _ => None,
            };
            let incoming = Incoming::user(&msg, images, "rpc");
            return self.queue_in_order(id, kind, incoming, behaviour, queue);
        }
        let (runtime, shared) = (self.runtime.clone(), self.shared.clone());
        let (id, kind) = (id.clone(), kind.to_string());
        // Taken now: an abort from here on ends this run, started or not.
        let ticket = self.abort.ticket();
        let accepted = Accepted::new(shared.clone());
        let task = tokio::spawn(async move {
            // Counted until the run streams (or the message is answered otherwise).
            let mut accepted = Some(accepted);
            // The agent first: what a command asks for (a reload, a new
            // session, a triggered run) happens before a later prompt runs.
            let mut rt = runtime.lock().await;
            rt.agent_mut().set_pending_run(Some(ticket));
            let incoming = Incoming::user(&msg, images, "rpc");
            // The run stops counting as accepted before a command's answer
            // (a prompt right behind it must not find pi busy), after a run's.
            let steps = StepSink(Box::new(move |step| match step {
                Step::Handled => {
                    drop(accepted.take());
                    respond(&id, &kind, Ok(Some(json!({"disposition": "handled"}))));
                }
                // The answer once before_agent_start ran, as the reference sends it.
                Step::Started => {
                    respond(&id, &kind, Ok(Some(json!({"disposition": "started"}))));
                    shared.streaming.store(true, Ordering::SeqCst);
                    drop(accepted.take());
                }
                // Refused before it started: the answer says why, as the reference's.
                Step::Refused(why) => {
                    drop(accepted.take());
                    respond(&id, &kind, Err(why.to_string()));
                }
            }));
            let _done = rt.apply(Op::SubmitTelling { incoming, steps }).await;
            rt.agent_mut().set_pending_run(None);
        });
        self.running = Some(task.map(|_| ()).boxed().shared());
    }
}

impl Server {
    /// `steer` and `follow_up`, as the reference queues user input: an
    /// extension command is refused; the `input` handlers see the message
    /// (with `streamingBehavior` while a run streams); what is left joins its
    /// queue, a run streaming or not (an idle session delivers it with the
    /// next run: steering in its first request, follow-ups once it would stop).
    pub(super) fn queue_input(
        &mut self,
        id: &Option<Value>,
        kind: &str,
        msg: String,
        images: Vec<pi_ai::ContentBlock>,
        steer: bool,
    ) {
        if pi_runtime::ext_commands::find_command(&self.setup.ext.scripts(), &msg).is_some() {
            let name = msg[1..].split(' ').next().unwrap_or_default();
            return respond(id, kind, Err(text::rpc_command_not_queued(name)));
        }
        let behaviour = if steer { "steer" } else { "followUp" };
        let queue = if steer { self.steering.clone() } else { self.follow_ups.clone() };
        let incoming = Incoming::user(&msg, images, "rpc");
        self.queue_in_order(id, kind, incoming, self.busy().then_some(behaviour), Some(queue));
    }

    /// Route `incoming` to `queue` ([`pi_runtime::ext_session::ExtSession::queue_routed`])
    /// after the messages sent before it, then answer: `handled`, `queued`
    /// (announced first), or refused when there is no queue for it.
    fn queue_in_order(
        &mut self,
        id: &Option<Value>,
        kind: &str,
        incoming: Incoming,
        behaviour: Option<&'static str>,
        queue: Option<pi_agent::Queue>,
    ) {
        let (ext, steering, follow_ups) = (self.setup.ext.clone(), self.steering.clone(), self.follow_ups.clone());
        let (id, kind) = (id.clone(), kind.to_string());
        let before = self.queueing.take();
        let task = tokio::spawn(async move {
            if let Some(before) = before {
                before.await;
            }
            let answer = match ext.queue_routed(&incoming, behaviour, queue.as_ref()).await {
                Queueing::Handled => Ok(Some(json!({"disposition": "handled"}))),
                Queueing::Queued => {
                    super::announce_queues(&steering, &follow_ups);
                    Ok(Some(json!({"disposition": "queued"})))
                }
                Queueing::NoQueue => Err(text::RPC_ALREADY_STREAMING.into()),
            };
            respond(&id, &kind, answer);
        });
        self.queueing = Some(task.map(|_| ()).boxed().shared());
    }

    /// Record and announce what extensions sent while pi was idle, and run
    /// the turn or the messages they asked for, after whatever holds the
    /// agent now (which settles them itself).
    pub(super) fn settle_idle(&mut self) {
        let runtime = self.runtime.clone();
        let task = tokio::spawn(async move {
            let _settled = runtime.lock().await.apply(Op::Settle).await;
        });
        self.running = Some(task.map(|_| ()).boxed().shared());
    }
}

/// One accepted run, counted in [`Shared::runs`] until it streams or its
/// task ends (however it ends).
struct Accepted(std::sync::Arc<Shared>);

impl Accepted {
    fn new(shared: std::sync::Arc<Shared>) -> Accepted {
        shared.runs.fetch_add(1, Ordering::SeqCst);
        Accepted(shared)
    }
}

impl Drop for Accepted {
    fn drop(&mut self) {
        self.0.runs.fetch_sub(1, Ordering::SeqCst);
    }
}
