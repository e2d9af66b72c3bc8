//! A component an extension shows (`ctx.ui.custom()`, `setFooter`,
//! `setHeader`) as the UI drives it: each call asks the extension's engine
//! thread and waits a short while for the answer (a busy extension is drawn
//! as it last was, and its key presses are dropped).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::protocol::{ExtSender, Hook, Msg};
use super::state;
use crate::api::ExtComponent;

/// The longest a UI waits for an extension to draw or take a key.
pub(crate) const COMPONENT_WAIT: Duration = Duration::from_millis(500);

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A new component id, unique in the process.
pub(crate) fn new_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Component `id` of the extension behind `tx`.
pub(crate) struct JsComponent {
    tx: ExtSender,
    /// The engine thread (never asked from itself).
    thread: usize,
    id: u64,
    /// What it drew last.
    last: Vec<String>,
}

impl JsComponent {
    /// Component `id` of the extension `tx` talks to, run on `thread`.
    pub(crate) fn new(tx: ExtSender, thread: usize, id: u64) -> Self {
        JsComponent { tx, thread, id, last: Vec::new() }
    }

    /// Ask the component to do `op` and wait for its answer.
    fn ask(&self, op: &str, extra: Value) -> Option<Value> {
        if state::ON_REALM.with(|r| r.get()) == self.thread {
            return None;
        }
        let mut payload = json!({"id": self.id, "op": op});
        if let (Some(p), Value::Object(e)) = (payload.as_object_mut(), extra) {
            p.extend(e);
        }
        let (tx, rx) = mpsc::channel();
        let reply = Box::new(move |r| {
            let _ = tx.send(r);
        });
        self.tx.send(Msg::Hook { hook: Hook::Component, name: String::new(), payload, reply }).ok()?;
        rx.recv_timeout(COMPONENT_WAIT).ok()?.ok()
    }
}

impl ExtComponent for JsComponent {
    fn render(&mut self, width: u16) -> Vec<String> {
        if let Some(Value::Array(lines)) = self.ask("render", json!({"width": width})) {
            self.last = lines.iter().map(|l| l.as_str().unwrap_or_default().to_string()).collect();
        }
        self.last.clone()
    }

    fn handle_input(&mut self, data: &str) {
        self.ask("input", json!({"data": data}));
    }

    fn invalidate(&mut self) {
        self.ask("invalidate", json!({}));
    }
}

impl Drop for JsComponent {
    fn drop(&mut self) {
        // The extension lets go of it (not waited for).
        let payload = json!({"id": self.id, "op": "dispose"});
        let _ =
            self.tx.send(Msg::Hook { hook: Hook::Component, name: String::new(), payload, reply: Box::new(|_| {}) });
    }
}
