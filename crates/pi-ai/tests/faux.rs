//! The scripted faux provider.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::time::Duration;

use pi_ai::{AssistantMessageEvent, Context, Message, StopReason, StreamOptions, UserMessage, complete, faux, stream};
use serde_json::json;

fn ctx() -> Context {
    Context { messages: vec![Message::User(UserMessage::text("hi"))], ..Default::default() }
}

#[tokio::test]
async fn serves_the_queue_in_order_then_reports_it_empty() {
    let f = faux::register("faux-queue");
    f.set_responses(vec![
        faux::assistant_message(vec![faux::thinking("hmm"), faux::text("hello there, a longer text")]),
        faux::assistant_message(vec![faux::tool_call("read", json!({"path": "a"}), Some("c1"))]),
    ]);
    assert_eq!(f.pending_count(), 2);
    let m = complete(&f.model(), &ctx(), StreamOptions::default()).await;
    assert_eq!(m.stop_reason, StopReason::Stop);
    assert_eq!(m.text(), "hello there, a longer text");
    assert_eq!((&*m.api, &*m.provider, &*m.model), ("faux", "faux-queue", "faux-1"));
    assert!(m.usage.input > 0 && m.usage.output > 0);
    let m = complete(&f.model(), &ctx(), StreamOptions::default()).await;
    assert_eq!(m.stop_reason, StopReason::ToolUse);
    assert_eq!(m.tool_calls()[0].arguments, json!({"path": "a"}));
    assert_eq!(m.tool_calls()[0].id, "c1");
    let m = complete(&f.model(), &ctx(), StreamOptions::default()).await;
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.error_message.as_deref(), Some("No more faux responses queued"));
    assert_eq!(f.contexts().len(), 3);
}

#[tokio::test]
async fn streams_text_in_chunks_with_partials() {
    let f = faux::register("faux-chunks");
    let text = "x".repeat(100);
    f.set_responses(vec![faux::assistant_message(vec![faux::text(&text)])]);
    let mut rx = stream(&f.model(), &ctx(), StreamOptions::default());
    let mut deltas = 0;
    let mut seen = String::new();
    while let Some(e) = rx.recv().await {
        if let AssistantMessageEvent::TextDelta { delta, partial, .. } = &e {
            deltas += 1;
            seen.push_str(delta);
            // The shared message is at least as far as this event (the
            // provider may have gone on meanwhile).
            assert!(partial.read(|m| m.text().starts_with(&seen)));
        }
    }
    assert!(deltas > 1);
    assert_eq!(seen, text);
}

#[tokio::test]
async fn factories_see_the_request_and_errors_are_scripted() {
    let f = faux::register("faux-factory");
    f.append_factory(|c, _, _| faux::assistant_message(vec![faux::text(&format!("{} messages", c.messages.len()))]));
    f.append_responses(vec![faux::error_message("scripted failure")]);
    let m = complete(&f.model(), &ctx(), StreamOptions::default()).await;
    assert_eq!(m.text(), "1 messages");
    let m = complete(&f.model(), &ctx(), StreamOptions::default()).await;
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.error_message.as_deref(), Some("scripted failure"));
}

#[tokio::test]
async fn abort_while_pacing() {
    let f = faux::register("faux-abort");
    f.set_tokens_per_second(Some(20.0));
    f.set_responses(vec![faux::assistant_message(vec![faux::text(&"word ".repeat(200))])]);
    let opts = StreamOptions::default();
    let signal = opts.signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        signal.cancel();
    });
    let m = complete(&f.model(), &ctx(), opts).await;
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert_eq!(m.error_message.as_deref(), Some("Request was aborted"));
    assert!(!m.text().is_empty() && m.text().len() < 1000);
}

#[tokio::test]
async fn a_faux_model_without_its_provider_and_unknown_api_are_errors_not_panics() {
    let mut m = faux::register("faux-x").model();
    m.faux = None;
    let r = complete(&m, &ctx(), StreamOptions::default()).await;
    assert_eq!(r.error_message.as_deref(), Some("No more faux responses queued"));
    m.api = "bogus".into();
    let r = complete(&m, &ctx(), StreamOptions::default()).await;
    assert_eq!(r.stop_reason, StopReason::Error);
    assert!(r.error_message.unwrap().starts_with("Unsupported API \"bogus\""));
}

#[tokio::test]
async fn each_provider_has_its_own_queue_whatever_its_name() {
    let (a, b) = (faux::register("faux-same"), faux::register("faux-same"));
    a.set_responses(vec![faux::assistant_message(vec![faux::text("from a")])]);
    b.set_responses(vec![faux::assistant_message(vec![faux::text("from b")])]);
    assert_eq!(complete(&b.model(), &ctx(), StreamOptions::default()).await.text(), "from b");
    assert_eq!(complete(&a.model(), &ctx(), StreamOptions::default()).await.text(), "from a");
    assert_ne!(a.model(), b.model());
    assert_eq!(a.model(), a.clone().model());
}

#[test]
fn stream_without_a_runtime_reports_an_error() {
    let f = faux::register("faux-nort");
    let mut rx = stream(&f.model(), &ctx(), StreamOptions::default());
    let e = rx.try_recv().expect("an event");
    assert!(matches!(e, AssistantMessageEvent::Error { reason: StopReason::Error, .. }));
}

/// A 190 KB `write` call streamed in 16-character deltas: re-parsing the
/// partial arguments on every delta took 243 s here; throttled, about 0.5 s
/// (debug build). The bound only catches a return to quadratic work.
#[tokio::test]
async fn large_tool_arguments_stream_in_linear_time() {
    let f = faux::register("faux-large-args");
    let content = "line of text for a file\n".repeat(8000);
    f.set_responses(vec![faux::assistant_message(vec![faux::tool_call(
        "write",
        json!({"path": "a.txt", "content": content}),
        None,
    )])]);
    let t = std::time::Instant::now();
    let mut rx = stream(&f.model(), &ctx(), StreamOptions::default());
    let mut deltas = 0;
    let mut last = None;
    while let Some(e) = rx.recv().await {
        if matches!(e, AssistantMessageEvent::ToolcallDelta { .. }) {
            deltas += 1;
        }
        last = Some(e);
    }
    assert!(deltas > 10_000);
    let m = last.unwrap().final_message().cloned().unwrap();
    assert_eq!(m.tool_calls()[0].arguments["content"], json!(content));
    assert!(t.elapsed() < Duration::from_secs(30), "took {:?}", t.elapsed());
}
