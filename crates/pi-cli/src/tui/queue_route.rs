//! Messages typed while a run streams (Enter steers, the follow-up key
//! queues), as the reference's interactive mode sends them (`prompt` with a
//! `streamingBehavior`): an extension command runs at once, the `input`
//! handlers see the message (`source: "interactive"`), and what is left joins
//! its queue with the images it names. Each waits for the one typed before,
//! so they are queued in the order typed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use pi_agent::Queue;
use pi_runtime::ext_input::Incoming;
use pi_runtime::ext_session::ExtSession;

/// The last message routed, done when it is.
type Last = Arc<Mutex<Option<Shared<BoxFuture<'static, ()>>>>>;

/// The route of the terminal UI's queued messages (see the module).
pub(super) fn route(
    ext: Arc<ExtSession>,
    cwd: PathBuf,
    steering: Queue,
    follow_ups: Queue,
) -> pi_tui::host::QueueRoute {
    let handle = tokio::runtime::Handle::current();
    let last: Last = Arc::default();
    Arc::new(move |follow_up: bool, text: String| {
        let queue = if follow_up { follow_ups.clone() } else { steering.clone() };
        let (ext, cwd) = (ext.clone(), cwd.clone());
        let before = last.lock().ok().and_then(|mut l| l.take());
        let task = handle.spawn(async move {
            if let Some(before) = before {
                before.await;
            }
            let images = super::attach::images(&cwd, &text);
            let incoming = Incoming::user(&text, images, "interactive");
            let behaviour = if follow_up { "followUp" } else { "steer" };
            let _queued = ext.queue_routed(&incoming, Some(behaviour), Some(&queue)).await;
        });
        if let Ok(mut l) = last.lock() {
            *l = Some(task.map(|_| ()).boxed().shared());
        }
    })
}
