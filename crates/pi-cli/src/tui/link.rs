//! What the terminal UI shares with the parts of the run built before it
//! starts: the agent's event sink, the extensions' dialogs and components,
//! the shipped policies' questions. One [`Link`] is made per run (in setup,
//! cloned into each of them); [`super::run`] connects it while the UI runs
//! and disconnects it when the UI ends. Before and after, dialogs are drawn
//! in place with the early look ([`Link::early`]) and events go nowhere.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pi_tui::host::{ComponentHandle, UiHandle, Update};
use pi_tui::keys::Keybindings;
use pi_tui::theme::Theme;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

/// A shown component's state: open (its handle), or done before the UI
/// opened it (its result).
pub(super) enum Slot {
    Open(ComponentHandle),
    Done(Value),
}

/// The running UI's ends.
struct Running {
    events: UnboundedSender<Update>,
    handle: UiHandle,
}

#[derive(Default)]
struct Shared {
    running: Mutex<Option<Running>>,
    shown: Mutex<HashMap<u64, Slot>>,
    early: Mutex<Option<(Theme, Keybindings)>>,
}

/// The terminal UI as the rest of the run reaches it (cheap to clone).
#[derive(Clone, Default)]
pub(crate) struct Link(Arc<Shared>);

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("tui::Link")
    }
}

impl Link {
    /// The UI runs: events and dialogs go to it from now on.
    pub(super) fn connect(&self, events: UnboundedSender<Update>, handle: UiHandle) {
        if let Ok(mut r) = self.0.running.lock() {
            *r = Some(Running { events, handle });
        }
    }

    /// The UI ended.
    pub(super) fn disconnect(&self) {
        if let Ok(mut r) = self.0.running.lock() {
            *r = None;
        }
    }

    /// The running UI's handle.
    pub(super) fn handle(&self) -> Option<UiHandle> {
        self.0.running.lock().ok().and_then(|r| r.as_ref().map(|r| r.handle.clone()))
    }

    /// The agent's event sink in interactive mode: to the UI while it runs.
    pub(crate) fn event_sink(&self) -> pi_agent::EventSink {
        let link = self.clone();
        Arc::new(move |ev: &pi_agent::AgentEvent| {
            let events = link.0.running.lock().ok().and_then(|r| r.as_ref().map(|r| r.events.clone()));
            if let Some(tx) = events {
                let _ = tx.send(Update::Agent(Box::new(ev.clone())));
            }
        })
    }

    /// A warning in the transcript (nowhere while the UI does not run).
    pub(crate) fn warn(&self, message: String) {
        let events = self.0.running.lock().ok().and_then(|r| r.as_ref().map(|r| r.events.clone()));
        if let Some(tx) = events {
            let _ = tx.send(Update::Notice(pi_tui::transcript::Level::Warning, message));
        }
    }

    /// `f` over the components shown now, by id.
    pub(super) fn with_shown<R>(&self, f: impl FnOnce(&mut HashMap<u64, Slot>) -> R) -> Option<R> {
        self.0.shown.lock().ok().map(|mut g| f(&mut g))
    }

    /// Remember the look of dialogs shown before the UI runs (the trust
    /// question, extensions' dialogs while they load).
    pub(crate) fn set_early(&self, ui: &super::UiSettings) {
        let (theme, _, _) = ui.theme(&ui.catalog());
        let (keys, _) = super::look::keys(&ui.agent_dir);
        if let Ok(mut g) = self.0.early.lock() {
            *g = Some((theme, keys));
        }
    }

    /// The look of early dialogs (the system theme and default keys until
    /// [`Link::set_early`]).
    pub(crate) fn early(&self) -> (Theme, Keybindings) {
        self.0.early.lock().ok().and_then(|g| g.clone()).unwrap_or_else(super::look::default_look)
    }
}
