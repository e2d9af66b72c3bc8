//! The agent loop over the faux provider: a prompt runs tool calls and goes
//! on until the model stops, with the documented event order; a batch ends
//! the run only when every call in it asks to terminate (I2); an abort stops
//! the run, during a tool call or while the answer streams; malformed
//! arguments from the model are answered without running the tool; and a
//! user command's record (`Agent::record`) reaches the next request unless
//! it is excluded from the context.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use common::{
    Hook, Log, PATIENCE, agent, agent_with, calls, ctx, declared, dispatcher, logged, says, stub, tool_results,
};
use pi_agent::{AbortHandle, Agent, AgentEvent, AgentMessage, BashExecutionMessage, ToolCallDecision};
use pi_ai::{ContentBlock, Message, StopReason, faux};
use pi_tools::ToolResult;
use serde_json::json;
use tokio::sync::Notify;

fn roles(messages: &[AgentMessage]) -> Vec<String> {
    messages.iter().map(|m| serde_json::to_value(m).unwrap()["role"].as_str().unwrap().to_string()).collect()
}

fn user_texts(c: &pi_ai::Context) -> Vec<String> {
    c.messages
        .iter()
        .filter_map(|m| match m {
            Message::User(u) => Some(
                u.content
                    .blocks()
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text { text } => Some(text.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join(""),
            ),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_prompt_runs_the_calls_and_goes_on_until_the_model_stops() {
    let log = Log::default();
    let d = dispatcher(vec![logged("echo", &log).build()], vec![]);
    let (mut a, faux, _events) = agent("loop-basic", d);
    faux.set_responses(vec![
        calls(&[("c1", "echo", json!({"x": 1}))]),
        calls(&[("c2", "echo", json!({"x": 2})), ("c3", "nope", json!({}))]),
        says("done"),
    ]);
    let last = a.prompt("go").await.unwrap();
    assert_eq!(last.text(), "done");
    assert_eq!(last.stop_reason, StopReason::Stop);
    assert_eq!(log.lines(), ["echo ran {\"x\":1}", "echo ran {\"x\":2}"]);
    assert_eq!(
        roles(a.messages()),
        ["user", "assistant", "toolResult", "assistant", "toolResult", "toolResult", "assistant"]
    );

    let reqs = faux.contexts();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[0].system_prompt.as_deref(), Some("system"));
    assert_eq!(declared(&reqs[0]), ["echo"]);
    assert_eq!(user_texts(&reqs[0]), ["go"]);
    assert_eq!(tool_results(&reqs[1]), ["c1: echo {\"x\":1}"]);
    assert_eq!(
        tool_results(&reqs[2]),
        ["c1: echo {\"x\":1}", "c2: echo {\"x\":2}", "c3: Tool nope not found"],
        "results in call order"
    );
    assert_eq!(faux.pending_count(), 0);
}

#[tokio::test]
async fn events_come_in_the_documented_order() {
    let d = dispatcher(vec![stub("echo").build()], vec![]);
    let (mut a, faux, events) = agent("loop-events", d);
    faux.set_responses(vec![calls(&[("c1", "echo", json!({})), ("c2", "echo", json!({}))]), says("done")]);
    a.prompt("go").await;
    assert_eq!(
        events.kinds(),
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update",
            "message_end:assistant",
            "tool_execution_start:c1",
            "tool_execution_start:c2",
            "tool_execution_end:c1",
            "tool_execution_end:c2",
            "message_start:toolResult",
            "message_end:toolResult",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
            "message_start:assistant",
            "message_update",
            "message_end:assistant",
            "turn_end",
            "agent_end",
            "agent_settled",
        ]
    );
    let all = events.all();
    let turn_ends: Vec<Vec<String>> = all
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TurnEnd { tool_results, .. } => {
                Some(tool_results.iter().map(|r| r.tool_call_id.clone()).collect())
            }
            _ => None,
        })
        .collect();
    assert_eq!(turn_ends, [vec!["c1".to_string(), "c2".to_string()], vec![]]);
    match &all[all.len() - 2] {
        AgentEvent::AgentEnd { messages, will_retry } => {
            assert_eq!(roles(messages), ["user", "assistant", "toolResult", "toolResult", "assistant"]);
            assert!(!will_retry);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(all.last(), Some(AgentEvent::AgentSettled { aborted: false })));
}

/// Each run's `agent_end` holds that run's messages only, and the
/// conversation is whole and in order afterwards, whether the run is longer
/// than what came before it or shorter (the event borrows the messages).
#[tokio::test]
async fn agent_end_holds_the_run_and_leaves_the_conversation_whole() {
    let log = Log::default();
    let d = dispatcher(vec![logged("echo", &log).build()], vec![]);
    let (mut a, faux, events) = agent("loop-agent-end", d);
    faux.set_responses(vec![
        says("first"),
        calls(&[("c1", "echo", json!({"x": 1}))]),
        calls(&[("c2", "echo", json!({"x": 2}))]),
        says("second"),
        says("third"),
    ]);
    for prompt in ["one", "two", "three"] {
        a.prompt(prompt).await.unwrap();
    }
    let ends: Vec<Vec<String>> = events
        .all()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::AgentEnd { messages, .. } => Some(roles(messages)),
            _ => None,
        })
        .collect();
    let short = ["user", "assistant"].map(String::from).to_vec();
    let long = ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"].map(String::from).to_vec();
    assert_eq!(ends, [short.clone(), long.clone(), short.clone()]);
    assert_eq!(roles(a.messages()), [short.clone(), long, short].concat());
    let texts: Vec<String> = a
        .messages()
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .filter(|v| v["role"] == "user" || v["role"] == "assistant" && v["stopReason"] == "stop")
        .map(|v| v["content"].to_string())
        .collect();
    let expected = ["one", "first", "two", "second", "three", "third"];
    assert_eq!(texts.len(), expected.len(), "{texts:?}");
    for (text, word) in texts.iter().zip(expected) {
        assert!(text.contains(word), "{texts:?}");
    }
}

// ------------------------------------------------------------------ terminate

/// A tool whose result asks the run to end.
fn finish() -> Arc<dyn pi_agent::AgentTool> {
    stub("finish")
        .exec(|inv| {
            Box::pin(async move {
                inv.terminate.unwrap().store(true, Ordering::Relaxed);
                ToolResult::success("finished")
            })
        })
        .build()
}

#[tokio::test]
async fn one_call_asking_to_terminate_does_not_end_the_run() {
    let d = dispatcher(vec![finish(), stub("echo").build()], vec![]);
    let (mut a, faux, _events) = agent("loop-terminate-one", d);
    faux.set_responses(vec![calls(&[("c1", "finish", json!({})), ("c2", "echo", json!({}))]), says("after")]);
    let last = a.prompt("go").await.unwrap();
    assert_eq!(last.text(), "after");
    assert_eq!(faux.contexts().len(), 2);
}

#[tokio::test]
async fn the_run_ends_when_every_call_of_the_batch_asks_to_terminate() {
    // One call's tool asks, the other is blocked by a handler that asks.
    let gate = Hook::new("gate")
        .on_call(|ev| {
            Ok((ev.tool_name == "echo").then(|| ToolCallDecision {
                block: true,
                reason: Some("stop here".into()),
                terminate: true,
            }))
        })
        .build();
    let d = dispatcher(vec![finish(), stub("echo").build()], vec![gate]);
    let (mut a, faux, events) = agent("loop-terminate-all", d);
    faux.set_responses(vec![calls(&[("c1", "finish", json!({})), ("c2", "echo", json!({}))]), says("never")]);
    a.prompt("go").await;
    assert_eq!(faux.contexts().len(), 1, "no further request");
    assert_eq!(faux.pending_count(), 1);
    let kinds = events.kinds();
    assert_eq!(kinds[kinds.len() - 3..], ["turn_end", "agent_end", "agent_settled"]);
    let results: Vec<Vec<String>> = events
        .all()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TurnEnd { tool_results, .. } => {
                Some(tool_results.iter().map(|r| r.tool_call_id.clone()).collect())
            }
            _ => None,
        })
        .collect();
    assert_eq!(results, [vec!["c1".to_string(), "c2".to_string()]], "turn_end still carries the results");
}

/// The reference (pi-agent-core `runLoop`) adds a terminated batch's results
/// to the conversation and emits their `message_start`/`message_end`, then
/// stops. Here they are left out, so the conversation ends with an
/// assistant message whose tool calls have no results, and the next prompt
/// sends it that way (providers refuse tool calls without results).
#[tokio::test]
async fn a_terminated_batchs_results_stay_in_the_conversation() {
    let d = dispatcher(vec![finish()], vec![]);
    let (mut a, faux, events) = agent("loop-terminate-results", d);
    faux.set_responses(vec![calls(&[("c1", "finish", json!({}))]), says("next")]);
    a.prompt("go").await;
    assert_eq!(roles(a.messages()), ["user", "assistant", "toolResult"]);
    assert!(events.kinds().contains(&"message_end:toolResult".to_string()));
    a.prompt("again").await;
    assert_eq!(tool_results(&faux.contexts()[1]), ["c1: finished"], "every call of the history has its result");
}

// ------------------------------------------------------------------ abort

#[tokio::test]
async fn an_abort_during_a_tool_call_stops_the_run() {
    let started = Arc::new(Notify::new());
    let s = started.clone();
    let wait = stub("wait")
        .exec(move |inv| {
            let s = s.clone();
            Box::pin(async move {
                s.notify_one();
                match tokio::time::timeout(PATIENCE, inv.ctx.abort.cancelled()).await {
                    Ok(()) => ToolResult::error("saw the abort"),
                    Err(_) => ToolResult::error("no abort came"),
                }
            })
        })
        .build();
    let d = dispatcher(vec![wait], vec![]);
    let (mut a, faux, events) = agent("loop-abort-tool", d);
    faux.set_responses(vec![calls(&[("c1", "wait", json!({}))]), says("never")]);
    let handle: AbortHandle = a.abort_handle();
    let (last, ()) = tokio::join!(a.prompt("go"), async {
        started.notified().await;
        handle.abort();
    });
    assert_eq!(faux.contexts().len(), 1, "no request after the abort");
    // As the reference: the run ends with an aborted answer of its own (no request made).
    let last = last.unwrap();
    assert_eq!(
        (last.stop_reason, last.error_message.as_deref()),
        (StopReason::Aborted, Some("This operation was aborted"))
    );
    assert_eq!(roles(a.messages()), ["user", "assistant", "toolResult", "assistant"]);
    let conversation = pi_ai::Context { messages: pi_agent::to_llm(a.messages()), ..Default::default() };
    assert_eq!(tool_results(&conversation), ["c1: saw the abort"], "the tool saw the abort signal");
    assert!(matches!(events.all().last(), Some(AgentEvent::AgentSettled { aborted: true })));

    // The next prompt runs normally: an abort ends only the run it hit.
    faux.set_responses(vec![says("fine")]);
    assert_eq!(a.prompt("again").await.unwrap().text(), "fine");
}

#[tokio::test]
async fn an_abort_while_the_answer_streams_stops_the_run() {
    let faux = faux::register("loop-abort-stream");
    // About a minute to stream at this pace, unless the abort stops it.
    faux.set_tokens_per_second(Some(5.0));
    faux.set_responses(vec![says(&"word ".repeat(200)), says("never")]);
    // The sink aborts the run as soon as the answer starts streaming.
    let handle: Arc<OnceLock<AbortHandle>> = Arc::default();
    let seen: Arc<Mutex<Vec<AgentEvent>>> = Arc::default();
    let (h, e) = (handle.clone(), seen.clone());
    let sink: pi_agent::EventSink = Arc::new(move |ev: &AgentEvent| {
        if matches!(ev, AgentEvent::MessageUpdate { .. }) {
            h.get().unwrap().abort();
        }
        e.lock().unwrap().push(ev.clone());
    });
    let mut a = Agent::new(faux.model(), "system".into(), dispatcher(vec![], vec![]), ctx(), sink);
    handle.set(a.abort_handle()).ok().unwrap();
    let began = std::time::Instant::now();
    let last = a.prompt("go").await.unwrap();
    assert!(began.elapsed() < PATIENCE, "the stream did not stop: {:?}", began.elapsed());
    assert_eq!(last.stop_reason, StopReason::Aborted);
    assert_eq!(faux.contexts().len(), 1);
    assert!(matches!(seen.lock().unwrap().last(), Some(AgentEvent::AgentSettled { aborted: true })));
}

// ------------------------------------------------------------------ malformed arguments

#[tokio::test]
async fn arguments_that_do_not_parse_are_answered_without_running_the_tool() {
    let log = Log::default();
    let d = dispatcher(vec![logged("echo", &log).build()], vec![]);
    let (mut a, faux, _events) = agent("loop-bad-args", d);
    let broken = ContentBlock::ToolCall(Box::new(pi_ai::ToolCallBlock {
        id: "c1".into(),
        name: "echo".into(),
        arguments: json!({}),
        arguments_error: Some("Unexpected end of JSON input\n\nReceived arguments:\n{\"x\": ".into()),
        thought_signature: None,
    }));
    faux.set_responses(vec![faux::assistant_message(vec![broken]), says("ok")]);
    a.prompt("go").await;
    assert!(log.lines().is_empty(), "{:?}", log.lines());
    let results = tool_results(&faux.contexts()[1]);
    assert_eq!(results.len(), 1);
    assert!(results[0].starts_with("c1: Invalid arguments for tool \"echo\": "), "{results:?}");
    assert!(results[0].ends_with("Received arguments:\n{\"x\": "), "{results:?}");
}

// ------------------------------------------------------------------ user commands

fn ran(command: &str, output: &str, excluded: bool) -> AgentMessage {
    BashExecutionMessage {
        command: command.into(),
        output: output.into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        exclude_from_context: excluded,
        timestamp: 1,
    }
    .into()
}

#[tokio::test]
async fn a_recorded_user_command_reaches_the_next_request_unless_excluded() {
    let told = Log::default();
    let t = told.clone();
    let (mut a, faux, _events) = agent_with("loop-record", dispatcher(vec![], vec![]), |b| {
        b.on_record(Arc::new(move |m: &AgentMessage| t.push(serde_json::to_value(m).unwrap()["command"].to_string())))
    });
    a.record(ran("make", "built\n", false));
    a.record(ran("cat secrets", "hunter2", true));
    faux.set_responses(vec![says("seen")]);
    a.prompt("go").await;
    assert_eq!(told.lines(), ["\"make\"", "\"cat secrets\""]);
    assert_eq!(roles(a.messages()), ["bashExecution", "bashExecution", "user", "assistant"], "both are kept");
    let req = &faux.contexts()[0];
    assert_eq!(user_texts(req), ["Ran `make`\n```\nbuilt\n\n```", "go"]);
    let sent = serde_json::to_string(&req.messages).unwrap();
    assert!(!sent.contains("hunter2") && !sent.contains("cat secrets"), "excluded from the context: {sent}");
}

// ------------------------------------------------------------------ cut answers

#[tokio::test]
async fn calls_of_an_answer_cut_by_the_token_limit_are_not_run() {
    let log = Log::default();
    let d = dispatcher(vec![logged("echo", &log).build()], vec![]);
    let (mut a, faux, events) = agent("loop-length", d);
    let mut cut = calls(&[("c1", "echo", json!({})), ("c2", "echo", json!({}))]);
    cut.stop_reason = StopReason::Length;
    faux.set_responses(vec![cut, says("done")]);
    a.prompt("go").await;
    assert!(log.lines().is_empty(), "no call ran");
    let second = &faux.contexts()[1];
    let expected = "Tool call \"echo\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.";
    assert_eq!(tool_results(second), [format!("c1: {expected}"), format!("c2: {expected}")]);
    let kinds = events.kinds();
    let calls: Vec<&String> =
        kinds.iter().filter(|k| k.starts_with("tool_execution") || k.contains("toolResult")).collect();
    assert_eq!(
        calls,
        [
            "tool_execution_start:c1",
            "tool_execution_end:c1",
            "message_start:toolResult",
            "message_end:toolResult",
            "tool_execution_start:c2",
            "tool_execution_end:c2",
            "message_start:toolResult",
            "message_end:toolResult"
        ],
        "each call is refused and answered in turn"
    );
}
