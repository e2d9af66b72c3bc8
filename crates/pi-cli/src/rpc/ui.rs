//! Extension dialogs in RPC mode: each becomes an `extension_ui_request` on
//! standard output and waits for the client's `extension_ui_response`
//! (`{id, value}`, `{id, confirmed}` or `{id, cancelled: true}`); notifications
//! are fire-and-forget requests. Serves both the script extensions
//! (`pi_ext::UiBridge`) and the shipped policies (`pi_policies::Approver`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use pi_ext::{NotifyLevel, UiBridge, UiFire, UiRequest, UiResponse};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// The RPC dialog bridge of a run (held by [`super::Link`]).
#[derive(Default)]
pub struct RpcUi {
    pending: Mutex<HashMap<String, oneshot::Sender<UiResponse>>>,
    next: AtomicU64,
}

impl RpcUi {
    fn ask(&self, request: Value) -> oneshot::Receiver<UiResponse> {
        let id = format!("ui-{}", self.next.fetch_add(1, Ordering::SeqCst) + 1);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id.clone(), tx);
        }
        let mut v = request;
        v["type"] = json!("extension_ui_request");
        v["id"] = json!(id);
        crate::json_mode::print_line(&v);
        rx
    }

    /// Deliver a client's `extension_ui_response`; unknown ids are ignored.
    pub fn answer(&self, id: Option<&str>, answer: pi_runtime::UiAnswer) {
        let Some(id) = id else { return };
        let Some(tx) = self.pending.lock().ok().and_then(|mut p| p.remove(id)) else { return };
        let answer = match answer {
            pi_runtime::UiAnswer::Cancelled => UiResponse::Cancelled,
            pi_runtime::UiAnswer::Confirmed(c) => UiResponse::Confirmed(c),
            pi_runtime::UiAnswer::Value(v) => UiResponse::Value(v),
        };
        // The dialog may have ended meanwhile (aborted): nobody to tell.
        let _ = tx.send(answer);
    }
}

impl UiBridge for RpcUi {
    fn dialog(&self, request: UiRequest) -> BoxFuture<'static, UiResponse> {
        let rx = self.ask(serde_json::to_value(&request).unwrap_or(Value::Null));
        Box::pin(async move { rx.await.unwrap_or(UiResponse::Cancelled) })
    }

    fn notify(&self, message: &str, level: NotifyLevel) {
        self.tell(json!({"method": "notify", "message": message, "notifyType": level}));
    }

    fn fire(&self, call: UiFire) {
        // The reference's fields; a cleared value leaves its field out.
        let record = match call {
            UiFire::Status { key, text } => {
                let mut r = json!({"method": "setStatus", "statusKey": key});
                if let Some(t) = text {
                    r["statusText"] = json!(t);
                }
                r
            }
            UiFire::Widget { key, lines, placement } => {
                let mut r = json!({"method": "setWidget", "widgetKey": key});
                if let Some(l) = lines {
                    r["widgetLines"] = json!(l);
                }
                if let Some(p) = placement {
                    r["widgetPlacement"] = json!(p);
                }
                r
            }
            UiFire::Title(title) => json!({"method": "setTitle", "title": title}),
            UiFire::EditorText(text) => json!({"method": "set_editor_text", "text": text}),
            // Not part of the RPC sub-protocol (a no-op there, as in the reference).
            UiFire::WorkingMessage(_) | UiFire::ComponentDone { .. } | UiFire::Render => return,
        };
        self.tell(record);
    }
}

impl RpcUi {
    /// A fire-and-forget `extension_ui_request` (`record` holds its method and fields).
    fn tell(&self, record: Value) {
        let id = format!("ui-{}", self.next.fetch_add(1, Ordering::SeqCst) + 1);
        let mut v = json!({"type": "extension_ui_request", "id": id});
        if let (Some(out), Value::Object(fields)) = (v.as_object_mut(), record) {
            out.extend(fields);
        }
        crate::json_mode::print_line(&v);
    }
}

/// The shipped policies ask through the same bridge.
pub struct RpcApprover(pub Arc<RpcUi>);

impl pi_policies::Approver for RpcApprover {
    fn confirm<'a>(&'a self, title: &'a str, message: &'a str) -> BoxFuture<'a, bool> {
        let rx = self.0.ask(json!({"method": "confirm", "title": title, "message": message}));
        Box::pin(async move { matches!(rx.await, Ok(UiResponse::Confirmed(true))) })
    }

    fn select<'a>(&'a self, title: &'a str, options: &'a [&'a str]) -> BoxFuture<'a, Option<String>> {
        let rx = self.0.ask(json!({"method": "select", "title": title, "options": options}));
        Box::pin(async move {
            match rx.await {
                Ok(UiResponse::Value(v)) => Some(v),
                _ => None,
            }
        })
    }

    fn notify(&self, message: &str, kind: pi_policies::NotifyKind) {
        let level = match kind {
            pi_policies::NotifyKind::Warning => NotifyLevel::Warning,
            pi_policies::NotifyKind::Error => NotifyLevel::Error,
            pi_policies::NotifyKind::Info => NotifyLevel::Info,
        };
        UiBridge::notify(self.0.as_ref(), message, level);
    }
}
