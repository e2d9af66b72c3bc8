//! Request hooks (the extensions' provider events) over the three HTTP
//! clients: headers changed in place, the body replaced, the answer's status
//! and headers, every parsed stream event; nothing asked when not wanted.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use pi_ai::{Context, Message, Model, RequestHooks, SharedHooks, StopReason, StreamOptions, UserMessage, complete};
use pi_test_support::{MockServer, Turn};
use serde_json::{Map, Value, json};

const APIS: [&str; 3] = ["openai-completions", "openai-responses", "anthropic-messages"];

fn model(server: &MockServer, api: &str) -> Model {
    let base_url = if api == "anthropic-messages" { server.base_url() } else { format!("{}/v1", server.base_url()) };
    let mut headers = std::collections::BTreeMap::new();
    headers.insert("X-Model".to_string(), "m".to_string());
    Model { id: "mock-1".into(), api: api.into(), provider: "mock".into(), base_url, headers, ..Default::default() }
}

#[derive(Default)]
struct Recorder {
    wanted: Vec<&'static str>,
    seen: Mutex<Vec<String>>,
    stream_events: Mutex<Vec<Value>>,
}

impl RequestHooks for Recorder {
    fn wants(&self, point: &str) -> bool {
        self.wanted.contains(&point)
    }
    fn headers(&self, mut headers: Map<String, Value>) -> BoxFuture<'_, Option<Map<String, Value>>> {
        self.seen.lock().unwrap().push(format!("headers {}", Value::Object(headers.clone())));
        headers.insert("x-added".into(), json!("1"));
        headers.insert("authorization".into(), Value::Null);
        headers.insert("x-api-key".into(), Value::Null);
        headers.remove("X-Model");
        Box::pin(async move { Some(headers) })
    }
    fn payload(&self, mut payload: Value) -> BoxFuture<'_, Option<Value>> {
        self.seen.lock().unwrap().push(format!("payload model={}", payload["model"]));
        payload["temperature"] = json!(0.5);
        Box::pin(async move { Some(payload) })
    }
    fn response(&self, status: u16, headers: Map<String, Value>) -> BoxFuture<'_, ()> {
        let names: Vec<&String> = headers.keys().collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "header names in order");
        self.seen.lock().unwrap().push(format!("response {status} {}", headers["content-type"]));
        Box::pin(async {})
    }
    fn stream_event(&self, data: Value) -> BoxFuture<'_, ()> {
        self.stream_events.lock().unwrap().push(data);
        Box::pin(async {})
    }
}

fn context() -> Context {
    Context { system_prompt: Some("sys".into()), messages: vec![Message::User(UserMessage::text("go"))], tools: vec![] }
}

#[tokio::test]
async fn hooks_change_the_request_and_hear_the_answer_on_every_api() {
    for api in APIS {
        let server = MockServer::start(vec![Turn::text("hello")]);
        let rec = Arc::new(Recorder {
            wanted: vec![
                pi_ai::hooks::point::HEADERS,
                pi_ai::hooks::point::PAYLOAD,
                pi_ai::hooks::point::RESPONSE,
                pi_ai::hooks::point::STREAM_EVENT,
            ],
            ..Default::default()
        });
        let mut options = StreamOptions { api_key: Some("k".into()), ..Default::default() };
        options.headers.insert("X-Call".into(), "c".into());
        options.hooks = Some(SharedHooks(rec.clone()));
        let reply = complete(&model(&server, api), &context(), options).await;
        assert_eq!(reply.stop_reason, StopReason::Stop, "{api}: {:?}", reply.error_message);
        assert_eq!(reply.text(), "hello");
        let seen = rec.seen.lock().unwrap().clone();
        assert_eq!(seen[0], r#"headers {"X-Model":"m","X-Call":"c"}"#, "{api}");
        assert_eq!(seen[1], r#"payload model="mock-1""#, "{api}");
        assert_eq!(seen[2], r#"response 200 "text/event-stream""#, "{api}");
        let request = &server.requests()[0];
        let header = |n: &str| request.headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        assert_eq!(header("x-added").as_deref(), Some("1"), "{api}");
        assert_eq!(header("x-call").as_deref(), Some("c"), "{api}");
        assert_eq!(header("x-model"), None, "{api}: a dropped extra header is not sent");
        assert_eq!(header("authorization"), None, "{api}: null deletes");
        assert_eq!(header("x-api-key"), None, "{api}: null deletes");
        assert_eq!(request.body["temperature"], json!(0.5), "{api}: the replaced body is sent");
        let events = rec.stream_events.lock().unwrap();
        assert!(events.len() >= 2, "{api}: {events:?}");
        assert!(events.iter().all(Value::is_object), "{api}");
    }
}

#[tokio::test]
async fn hooks_that_want_nothing_are_not_asked_and_an_error_status_is_not_heard() {
    let server = MockServer::start(vec![Turn::text("hello")]);
    let rec = Arc::new(Recorder::default());
    let options = StreamOptions { hooks: Some(SharedHooks(rec.clone())), ..Default::default() };
    let reply = complete(&model(&server, "openai-completions"), &context(), options).await;
    assert_eq!(reply.text(), "hello");
    assert!(rec.seen.lock().unwrap().is_empty());
    assert!(rec.stream_events.lock().unwrap().is_empty());

    let server = MockServer::start(vec![Turn::status(400, r#"{"error":{"message":"bad"}}"#)]);
    let rec = Arc::new(Recorder { wanted: vec![pi_ai::hooks::point::RESPONSE], ..Default::default() });
    let options = StreamOptions { hooks: Some(SharedHooks(rec.clone())), ..Default::default() };
    let reply = complete(&model(&server, "openai-completions"), &context(), options).await;
    assert_eq!(reply.stop_reason, StopReason::Error);
    assert!(rec.seen.lock().unwrap().is_empty(), "the reference hears 2xx answers only");
}

#[tokio::test]
async fn a_replaced_body_that_is_not_an_object_still_goes_and_the_server_answers() {
    struct Nulling;
    impl RequestHooks for Nulling {
        fn wants(&self, point: &str) -> bool {
            point == pi_ai::hooks::point::PAYLOAD
        }
        fn payload(&self, _payload: Value) -> BoxFuture<'_, Option<Value>> {
            Box::pin(async { Some(json!("not a request")) })
        }
    }
    let server = MockServer::start(vec![Turn::text("hello")]);
    let options = StreamOptions { hooks: Some(SharedHooks(Arc::new(Nulling))), ..Default::default() };
    let _ = complete(&model(&server, "openai-completions"), &context(), options).await;
    assert_eq!(server.requests()[0].raw_body, r#""not a request""#);
}
