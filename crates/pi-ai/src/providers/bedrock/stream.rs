//! Reading a ConverseStream answer: its frames into the message's blocks,
//! stop reason and usage; exception frames into failures of the kind their
//! HTTP status stands for.

use std::collections::HashMap;

use serde_json::Value;

use super::frames::{Frame, FrameReader};
use crate::emitter::Emitter;
use crate::error::ProviderError;
use crate::failure::FailureKind;
use crate::text::bedrock as words;
use crate::types::{StopReason, Usage};

/// The HTTP status each exception of the stream stands for (AWS's own
/// codes for them), which decides whether the agent retries.
const EXCEPTION_STATUSES: [(&str, u16); 6] = [
    ("throttlingexception", 429),
    ("serviceunavailableexception", 503),
    ("internalserverexception", 500),
    ("modelstreamerrorexception", 424),
    ("validationexception", 400),
    ("modeltimeoutexception", 408),
];

/// Blocks of the answer by Bedrock's `contentBlockIndex`, and what ended it.
#[derive(Default)]
pub(crate) struct State {
    blocks: HashMap<u64, usize>,
    stop: Option<Ending>,
    usage: Usage,
}

/// What `messageStop` said.
enum Ending {
    /// A normal end.
    Normal(StopReason),
    /// Any other stop reason (`guardrail_intervened`, …), as sent.
    Other(String),
}

/// Read the frames of a 2xx answer into `em`.
pub(crate) async fn read_stream(frames: &mut FrameReader, em: &mut Emitter) -> Result<StopReason, ProviderError> {
    let mut st = State::default();
    while let Some(frame) = frames.next().await {
        let frame = frame?;
        match frame.message_type.as_str() {
            "exception" => return Err(exception(&frame)),
            "error" => {
                let msg = frame.error_message.clone().unwrap_or_default();
                return Err(ProviderError::of_kind(FailureKind::Reported(None), format!("{}: {msg}", frame.name)));
            }
            _ => {}
        }
        // Payloads that are not JSON objects are skipped.
        let Ok(data) = serde_json::from_slice::<Value>(&frame.payload) else { continue };
        if !data.is_object() {
            continue;
        }
        em.raw(&data).await;
        em.start().await?;
        handle_event(&frame.name, &data, &mut st, em).await?;
    }
    match st.stop {
        None => Err(ProviderError::of_kind(FailureKind::StreamCut, words::NO_STOP)),
        Some(Ending::Other(reason)) => Err(ProviderError::failed(words::provider_stopped(&reason))),
        Some(Ending::Normal(reason)) => {
            em.end_all().await?;
            Ok(super::super::final_reason(em, reason))
        }
    }
}

/// An exception frame: the reference's words, the kind of its status.
fn exception(frame: &Frame) -> ProviderError {
    let payload = String::from_utf8_lossy(&frame.payload);
    let lower = frame.name.to_ascii_lowercase();
    let status = EXCEPTION_STATUSES.iter().find(|(n, _)| *n == lower).map(|(_, s)| *s);
    let known = words::ERROR_PREFIXES.iter().any(|(n, _)| *n == lower);
    let message = match serde_json::from_str::<Value>(&payload) {
        Ok(v) if known => {
            let m = v.get("message").or_else(|| v.get("Message")).and_then(Value::as_str).unwrap_or("");
            words::aws_error(Some(&frame.name), &crate::http::clip(m))
        }
        // Other exceptions are shown as their payload, as the reference does.
        _ => crate::http::clip(&payload),
    };
    ProviderError::of_kind(FailureKind::Reported(status), message)
}

fn stop_reason(raw: &str) -> Ending {
    match raw {
        "end_turn" | "stop_sequence" => Ending::Normal(StopReason::Stop),
        "max_tokens" | "model_context_window_exceeded" => Ending::Normal(StopReason::Length),
        "tool_use" => Ending::Normal(StopReason::ToolUse),
        other => Ending::Other(other.to_string()),
    }
}

/// Handle one event.
async fn handle_event(name: &str, data: &Value, st: &mut State, em: &mut Emitter) -> Result<(), ProviderError> {
    let index = data.get("contentBlockIndex").and_then(Value::as_u64).unwrap_or(0);
    match name {
        "contentBlockStart" => {
            if let Some(tool) = data.pointer("/start/toolUse") {
                let s = |k: &str| tool.get(k).and_then(Value::as_str).unwrap_or("");
                let i = em.toolcall_start(s("toolUseId"), s("name")).await?;
                st.blocks.insert(index, i);
            }
        }
        "contentBlockDelta" => delta(index, &data["delta"], st, em).await?,
        "contentBlockStop" => {
            if let Some(i) = st.blocks.remove(&index) {
                em.end(i).await?;
            }
        }
        "messageStop" => {
            let raw = data.get("stopReason").and_then(Value::as_str).unwrap_or("");
            em.set_raw_stop_reason(raw);
            st.stop = Some(stop_reason(raw));
        }
        "metadata" => {
            let u = &data["usage"];
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            st.usage.input = n("inputTokens");
            st.usage.output = n("outputTokens");
            st.usage.cache_read = n("cacheReadInputTokens");
            st.usage.cache_write = n("cacheWriteInputTokens");
            em.set_usage(st.usage.clone());
        }
        // messageStart and events this client does not know.
        _ => {}
    }
    Ok(())
}

/// A `contentBlockDelta`: text, tool input JSON, or reasoning text and
/// signature (a block opens with its first delta).
async fn delta(index: u64, d: &Value, st: &mut State, em: &mut Emitter) -> Result<(), ProviderError> {
    let open = st.blocks.get(&index).copied();
    if let Some(text) = d.get("text").and_then(Value::as_str) {
        let i = match open {
            Some(i) => i,
            None => em.text_start().await?,
        };
        st.blocks.insert(index, i);
        em.text_delta(i, text).await?;
    } else if let Some(input) = d.pointer("/toolUse/input").and_then(Value::as_str) {
        if let Some(i) = open {
            em.toolcall_delta(i, input).await?;
        }
    } else if let Some(r) = d.get("reasoningContent") {
        let i = match open {
            Some(i) => i,
            None => em.thinking_start(None).await?,
        };
        st.blocks.insert(index, i);
        if let Some(t) = r.get("text").and_then(Value::as_str) {
            em.thinking_delta(i, t).await?;
        }
        if let Some(sig) = r.get("signature").and_then(Value::as_str) {
            em.thinking_signature(i, sig, true);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::frames::testing::{event, frame};
    use super::*;
    use crate::model::Model;
    use crate::types::ContentBlock;
    use serde_json::json;
    use tokio::sync::mpsc;

    async fn run(body: Vec<u8>, size: usize) -> (Result<StopReason, ProviderError>, crate::types::AssistantMessage) {
        let model = Model { api: "bedrock-converse-stream".into(), ..Default::default() };
        let (tx, mut rx) = mpsc::channel(100_000);
        let mut em = Emitter::new(tx, &model);
        let mut frames = FrameReader::from_chunks(body.chunks(size.max(1)).map(<[u8]>::to_vec).collect());
        let r = read_stream(&mut frames, &mut em).await;
        rx.close();
        (r, em.message())
    }

    fn ev(name: &str, v: Value) -> Vec<u8> {
        event(name, &v.to_string())
    }

    #[tokio::test]
    async fn text_tool_call_thinking_and_usage() {
        let mut body = ev("messageStart", json!({"role": "assistant", "p": "pad"}));
        body.extend(ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Hmm."}}}),
        ));
        body.extend(ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "SIG"}}}),
        ));
        body.extend(ev("contentBlockStop", json!({"contentBlockIndex": 0})));
        body.extend(ev("contentBlockDelta", json!({"contentBlockIndex": 1, "delta": {"text": "Let me look."}})));
        body.extend(ev("contentBlockStop", json!({"contentBlockIndex": 1})));
        body.extend(ev(
            "contentBlockStart",
            json!({"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "t1", "name": "bash"}}}),
        ));
        body.extend(ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": "{\"command\":"}}}),
        ));
        body.extend(ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": "\"ls\"}"}}}),
        ));
        body.extend(ev("contentBlockStop", json!({"contentBlockIndex": 2})));
        body.extend(ev("messageStop", json!({"stopReason": "tool_use"})));
        body.extend(ev("metadata", json!({"usage": {"inputTokens": 10, "outputTokens": 5, "cacheReadInputTokens": 3, "cacheWriteInputTokens": 4}})));
        for size in [1, 3, 64, usize::MAX] {
            let (r, m) = run(body.clone(), size).await;
            assert_eq!(r, Ok(StopReason::ToolUse));
            assert_eq!(m.content[0], ContentBlock::Thinking { thinking: "Hmm.".into(), signature: Some("SIG".into()) });
            assert_eq!(m.content[1], ContentBlock::text("Let me look."));
            assert!(matches!(&m.content[2], ContentBlock::ToolCall(call)
                if call.id == "t1" && call.name == "bash" && call.arguments == json!({"command": "ls"})));
            assert_eq!(
                (m.usage.input, m.usage.output, m.usage.cache_read, m.usage.cache_write, m.usage.total_tokens),
                (10, 5, 3, 4, 22)
            );
            assert_eq!(m.raw_stop_reason.as_deref(), Some("tool_use"));
        }
    }

    #[tokio::test]
    async fn stop_reasons_and_endings() {
        let start = ev("messageStart", json!({"role": "assistant"}));
        let text = ev("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "x"}}));
        let stop = |r: &str| ev("messageStop", json!({"stopReason": r}));
        for (raw, want) in [
            ("end_turn", Ok(StopReason::Stop)),
            ("stop_sequence", Ok(StopReason::Stop)),
            ("max_tokens", Ok(StopReason::Length)),
        ] {
            let (r, _) = run([start.clone(), text.clone(), stop(raw)].concat(), usize::MAX).await;
            assert_eq!(r, want, "{raw}");
        }
        for raw in ["guardrail_intervened", "content_filtered", "weird"] {
            let (r, m) = run([start.clone(), text.clone(), stop(raw)].concat(), usize::MAX).await;
            let e = r.unwrap_err();
            assert_eq!((e.to_string(), e.kind()), (words::provider_stopped(raw), Some(FailureKind::Other)));
            assert_eq!(m.content, vec![ContentBlock::text("x")], "what came is kept");
        }
        let (r, _) = run([start.clone(), text.clone()].concat(), usize::MAX).await;
        let e = r.unwrap_err();
        assert_eq!((e.to_string(), e.kind()), (words::NO_STOP.to_string(), Some(FailureKind::StreamCut)));
    }

    #[tokio::test]
    async fn exceptions_carry_the_status_they_stand_for() {
        let exc = |name: &str| {
            frame(
                &[(":message-type", "exception"), (":exception-type", name), (":content-type", "application/json")],
                br#"{"message":"Slow down."}"#,
            )
        };
        let cases = [
            ("throttlingException", "Throttling error: Slow down.", Some(429)),
            ("serviceUnavailableException", "Service unavailable: Slow down.", Some(503)),
            ("internalServerException", "Internal server error: Slow down.", Some(500)),
            ("modelStreamErrorException", "Model stream error: Slow down.", Some(424)),
            ("validationException", "Validation error: Slow down.", Some(400)),
            ("modelTimeoutException", r#"{"message":"Slow down."}"#, Some(408)),
            ("fooException", r#"{"message":"Slow down."}"#, None),
        ];
        for (name, msg, status) in cases {
            let body = [ev("messageStart", json!({})), exc(name)].concat();
            let e = run(body, 7).await.0.unwrap_err();
            assert_eq!((e.to_string(), e.kind()), (msg.to_string(), Some(FailureKind::Reported(status))), "{name}");
        }
        let err =
            frame(&[(":message-type", "error"), (":error-code", "InternalFailure"), (":error-message", "oops")], b"");
        let e = run(err, usize::MAX).await.0.unwrap_err();
        assert_eq!(e.to_string(), "InternalFailure: oops");
        // A long payload is shown clipped, as HTTP error bodies are.
        let long = frame(&[(":message-type", "exception"), (":exception-type", "x")], "y".repeat(10_000).as_bytes());
        let e = run([ev("messageStart", json!({})), long].concat(), usize::MAX).await.0.unwrap_err();
        assert_eq!(e.to_string().len(), crate::limits::MAX_ERROR_BODY_CHARS);
    }

    /// Events with wrong types, unknown names, odd indexes and orders never
    /// panic and never hang.
    #[tokio::test]
    async fn hostile_events() {
        let bodies = [
            ev("contentBlockDelta", json!({"contentBlockIndex": -1, "delta": {"toolUse": {"input": 5}}})),
            ev("contentBlockStart", json!({"contentBlockIndex": 0, "start": {"toolUse": []}})),
            [
                ev("contentBlockStart", json!({"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": 1}}})),
                ev("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": "x"}})),
                ev(
                    "contentBlockDelta",
                    json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": 3}}}),
                ),
            ]
            .concat(),
            ev("metadata", json!({"usage": "x"})),
            ev("messageStop", json!({"stopReason": null})),
            event("contentBlockDelta", "not json"),
            event("contentBlockDelta", "[1,2]"),
            [
                ev("contentBlockStop", json!({"contentBlockIndex": 18446744073709551615u64})),
                ev("messageStop", json!({"stopReason": "end_turn"})),
            ]
            .concat(),
        ];
        for body in bodies {
            for size in [1, 5, usize::MAX] {
                let _ = run(body.clone(), size).await;
            }
        }
    }
}
