//! Callbacks around one provider request, for the extensions' provider
//! events: the request's extra headers before it goes
//! (`before_provider_headers`), its JSON body (`before_provider_request`),
//! the answer's status and headers before its body is read
//! (`after_provider_response`), and each parsed stream event
//! (`provider_stream_event`). Nothing is built for a point the hooks do not
//! want; a request without hooks goes exactly as before.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

/// What an event is called, as the reference names it.
pub mod point {
    /// The request's extra headers, changed in place.
    pub const HEADERS: &str = "before_provider_headers";
    /// The request's JSON body, replaced by a handler's answer.
    pub const PAYLOAD: &str = "before_provider_request";
    /// A 2xx answer's status and headers.
    pub const RESPONSE: &str = "after_provider_response";
    /// One parsed event of the answer's stream.
    pub const STREAM_EVENT: &str = "provider_stream_event";
}

/// Hooks of one request. Every method has a do-nothing default.
pub trait RequestHooks: Send + Sync {
    /// Whether anything listens at `point` (one of [`point`]).
    fn wants(&self, point: &str) -> bool;
    /// The extra headers (the model's, then the request's), name → text;
    /// answers the changed set (a `null` value deletes that header, a
    /// missing name drops that extra header), or `None` for no change.
    fn headers(&self, _headers: Map<String, Value>) -> BoxFuture<'_, Option<Map<String, Value>>> {
        Box::pin(async { None })
    }
    /// The request body; answers its replacement, or `None` to keep it.
    fn payload(&self, _payload: Value) -> BoxFuture<'_, Option<Value>> {
        Box::pin(async { None })
    }
    /// The answer's status and headers (lower-case names).
    fn response(&self, _status: u16, _headers: Map<String, Value>) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    /// One parsed stream event, before it is read into the message.
    fn stream_event(&self, _data: Value) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// Shared hooks, as [`StreamOptions`](crate::StreamOptions) holds them.
#[derive(Clone)]
pub struct SharedHooks(pub Arc<dyn RequestHooks>);

impl std::fmt::Debug for SharedHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedHooks")
    }
}

impl SharedHooks {
    /// The hooks, when they want `point`.
    pub(crate) fn at(&self, point: &str) -> Option<&dyn RequestHooks> {
        self.0.wants(point).then_some(self.0.as_ref())
    }
}
