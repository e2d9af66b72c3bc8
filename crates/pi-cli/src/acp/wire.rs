//! The JSON-RPC 2.0 side of ACP mode: one JSON message per line on standard
//! output (written by one task, so lines never interleave), requests to the
//! client with answers matched by id, and the error codes the protocol uses.
//! Messages are built as `serde_json` values with the protocol's field names
//! (a handful of shapes; the schema crate's types would add ~30 crates to
//! the build for them).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};

/// JSON-RPC: the line is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: not a request (or sent before `initialize`).
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the parameters are missing or of the wrong kind.
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the agent failed.
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// ACP: no such session.
pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;

/// An error answer: code and message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    /// An error of `code` saying `message`.
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into() }
    }

    /// Bad parameters, saying which.
    pub(crate) fn params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }

    /// The agent failed.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        RpcError::new(INTERNAL_ERROR, message)
    }
}

impl From<super::child::ChildError> for RpcError {
    fn from(e: super::child::ChildError) -> Self {
        RpcError::internal(e.to_string())
    }
}

/// What a method answers.
pub(crate) type Reply = Result<Value, RpcError>;

/// The line writer and the client's pending answers.
#[derive(Debug)]
pub(crate) struct Wire {
    /// `None` once the connection is closed: what is queued is still written.
    out: Mutex<Option<mpsc::UnboundedSender<Value>>>,
    next_id: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
}

impl Wire {
    /// A wire writing to standard output (until the returned task's channel closes).
    pub(crate) fn stdout() -> (Wire, tokio::task::JoinHandle<()>) {
        let (out, mut rx) = mpsc::unbounded_channel::<Value>();
        let writer = tokio::spawn(async move {
            let mut stdout = tokio::io::stdout();
            while let Some(v) = rx.recv().await {
                let mut line = serde_json::to_vec(&v).unwrap_or_default();
                line.push(b'\n');
                if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                    break;
                }
            }
        });
        (Wire { out: Mutex::new(Some(out)), next_id: AtomicU64::new(1), waiting: Mutex::new(HashMap::new()) }, writer)
    }

    fn send(&self, v: Value) {
        if let Some(out) = self.out.lock().ok().as_ref().and_then(|o| o.as_ref()) {
            let _ = out.send(v);
        }
    }

    /// Answer request `id`.
    pub(crate) fn reply(&self, id: Value, reply: Reply) {
        match reply {
            Ok(result) => self.send(json!({"jsonrpc": "2.0", "id": id, "result": result})),
            Err(e) => self.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})),
        }
    }

    /// Send a notification.
    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// A `session/update` for `session`.
    pub(crate) fn update(&self, session: &str, update: Value) {
        self.notify("session/update", json!({"sessionId": session, "update": update}));
    }

    /// Ask the client; its answer (an error when it answers one, or when
    /// the connection ends first).
    pub(crate) async fn request(&self, method: &str, params: Value) -> Reply {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut w) = self.waiting.lock() {
            w.insert(id, tx);
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx.await.unwrap_or_else(|_| Err(RpcError::internal(crate::text::ACP_CLIENT_GONE)))
    }

    /// A message from the client that answers one of our requests; false
    /// when it answers none.
    pub(crate) fn answered(&self, msg: &Value) -> bool {
        let Some(id) = msg.get("id").and_then(Value::as_u64) else { return false };
        let Some(tx) = self.waiting.lock().ok().and_then(|mut w| w.remove(&id)) else { return false };
        let reply = match msg.get("error") {
            Some(e) => Err(RpcError::new(
                e["code"].as_i64().unwrap_or(INTERNAL_ERROR),
                e["message"].as_str().unwrap_or_default(),
            )),
            None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(reply);
        true
    }

    /// The connection ended: every request still waiting fails, nothing
    /// more is sent, and the writer ends once what is queued is written
    /// (whatever task still holds the wire).
    pub(crate) fn close(&self) {
        if let Ok(mut w) = self.waiting.lock() {
            w.clear();
        }
        if let Ok(mut out) = self.out.lock() {
            out.take();
        }
    }
}

/// A string parameter, or an error naming it.
pub(crate) fn string<'a>(params: &'a Value, key: &str) -> Result<&'a str, RpcError> {
    params.get(key).and_then(Value::as_str).ok_or_else(|| RpcError::params(crate::text::acp_missing(key, "a string")))
}
