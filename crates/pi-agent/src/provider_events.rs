//! The provider-level events of one model request, for the sources that
//! listen: `before_provider_headers` (the extra headers, changed in place),
//! `before_provider_request` (the body, replaced by an answer),
//! `after_provider_response` (status and headers) and
//! `provider_stream_event` (each parsed stream event). The request's
//! provider task calls them through [`pi_ai::RequestHooks`]; handlers run
//! in load order and are awaited, as the reference's are.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use crate::dispatch::{Dispatcher, ToolEvent, ToolEventSink};
use crate::hooks::Interceptor;
use crate::hooks::{event, run_chain};

/// The listening sources and where their failures go, for one request.
pub(crate) struct ProviderEvents {
    sources: Vec<Arc<dyn Interceptor>>,
    sink: Option<ToolEventSink>,
    /// `provider`, `api` and `model` of the request (for stream events).
    model: (String, String, String),
}

/// The provider-level events, by name.
const EVENTS: [&str; 4] = [
    pi_ai::hooks::point::HEADERS,
    pi_ai::hooks::point::PAYLOAD,
    pi_ai::hooks::point::RESPONSE,
    pi_ai::hooks::point::STREAM_EVENT,
];

impl ProviderEvents {
    /// The hooks of a request to `model`, `None` when no source listens to
    /// any provider-level event.
    pub(crate) fn for_request(dispatcher: &Dispatcher, model: &pi_ai::Model) -> Option<pi_ai::SharedHooks> {
        let sources: Vec<_> =
            dispatcher.interceptors.iter().filter(|h| EVENTS.iter().any(|e| h.listens(e))).cloned().collect();
        if sources.is_empty() {
            return None;
        }
        let model = (model.provider.clone(), model.api.clone(), model.id.clone());
        Some(pi_ai::SharedHooks(Arc::new(ProviderEvents { sources, sink: dispatcher.sink.clone(), model })))
    }

    /// Run every listening source's handlers of `kind` (see [`run_chain`]).
    async fn run(&self, kind: &str, payload: Value, key: Option<&str>) -> Option<Value> {
        let report = |source: &str, kind: &str, error: String| {
            if let Some(sink) = &self.sink {
                sink(ToolEvent::HandlerError { source: source.to_string(), event: kind.to_string(), error });
            }
        };
        run_chain(&self.sources, &report, kind, payload, key).await.map(|(v, _)| v)
    }
}

impl pi_ai::RequestHooks for ProviderEvents {
    fn wants(&self, point: &str) -> bool {
        self.sources.iter().any(|h| h.listens(point))
    }

    fn headers(&self, headers: Map<String, Value>) -> BoxFuture<'_, Option<Map<String, Value>>> {
        Box::pin(async move {
            let kind = pi_ai::hooks::point::HEADERS;
            match self.run(kind, event(kind, json!({"headers": headers})), Some("headers")).await {
                Some(Value::Object(changed)) => Some(changed),
                _ => None,
            }
        })
    }

    fn payload(&self, payload: Value) -> BoxFuture<'_, Option<Value>> {
        Box::pin(async move {
            let kind = pi_ai::hooks::point::PAYLOAD;
            self.run(kind, event(kind, json!({"payload": payload})), Some("payload")).await
        })
    }

    fn response(&self, status: u16, headers: Map<String, Value>) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let kind = pi_ai::hooks::point::RESPONSE;
            self.run(kind, event(kind, json!({"status": status, "headers": headers})), None).await;
        })
    }

    fn stream_event(&self, data: Value) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let kind = pi_ai::hooks::point::STREAM_EVENT;
            let (provider, api, model) = &self.model;
            // The reference's key order: `data` first, then `type`.
            let mut ev = Map::new();
            ev.insert("data".into(), data);
            ev.insert("type".into(), kind.into());
            ev.insert("provider".into(), provider.as_str().into());
            ev.insert("api".into(), api.as_str().into());
            ev.insert("model".into(), model.as_str().into());
            self.run(kind, Value::Object(ev), None).await;
        })
    }
}
