use pi_agent::{AgentEvent, EventToolResult};
use pi_ai::{AssistantMessage, AssistantMessageEvent, ContentBlock, Message, StopReason, UserMessage};
use serde_json::json;

use super::*;

fn ctx(theme: &Theme, width: usize) -> Ctx<'_> {
    Ctx { theme, width, expanded: false, show_thinking: true, home: None, expand_key: "ctrl+o", now: Instant::now() }
}

fn assistant(blocks: Vec<ContentBlock>, stop: StopReason) -> AssistantMessage {
    AssistantMessage { content: blocks, stop_reason: stop, ..Default::default() }
}

fn texts(t: &mut Transcript, c: &Ctx<'_>) -> Vec<String> {
    let h = t.height(c);
    t.window(c, 0, h).iter().map(crate::lines::plain).map(|s| s.trim_end().to_string()).collect()
}

#[test]
fn a_turn_with_a_tool_call() {
    let theme = Theme::dark(true);
    let c = ctx(&theme, 40);
    let mut t = Transcript::new();
    t.apply(&AgentEvent::MessageStart { message: Message::User(UserMessage::text("list it")) });
    let call = ContentBlock::tool_call("c1", "bash", json!({"command": "ls"}));
    let partial = assistant(vec![ContentBlock::text("Let me look.")], StopReason::Pending);
    t.apply(&AgentEvent::MessageStart { message: Message::Assistant(partial.clone()) });
    let mut with_call = partial.clone();
    with_call.content.push(call);
    t.apply(&AgentEvent::MessageUpdate {
        usage: Default::default(),
        assistant_message_event: AssistantMessageEvent::ToolcallEnd {
            content_index: 1,
            tool_call: with_call.content[1].as_tool_call().unwrap(),
            partial: with_call.clone().into(),
        },
    });
    assert_eq!(t.len(), 3, "the call has its entry while the answer streams");
    assert_eq!(t.finished_prefix(), 1);
    let mut done = with_call.clone();
    done.stop_reason = StopReason::ToolUse;
    t.apply(&AgentEvent::MessageEnd { message: Message::Assistant(done) });
    t.apply(&AgentEvent::ToolExecutionStart {
        tool_call_id: "c1".into(),
        tool_name: "bash".into(),
        args: json!({"command": "ls"}),
        parent_tool_call_id: None,
    });
    assert_eq!(t.finished_prefix(), 2);
    t.apply(&AgentEvent::ToolExecutionEnd {
        tool_call_id: "c1".into(),
        tool_name: "bash".into(),
        result: EventToolResult {
            content: vec![pi_tools::Content::Text { text: "a\nb\n".into() }],
            details: None,
            structured_content: None,
        },
        is_error: false,
        duration_ms: Some(1234),
        parent_tool_call_id: None,
    });
    assert_eq!(t.finished_prefix(), 3);
    let lines = texts(&mut t, &c);
    assert_eq!(lines, ["", " list it", "", "", " Let me look.", "", "", " $ ls", "", " a", " b", "", " Took 1.2s", ""],);
}

#[test]
fn failures_and_aborts_are_shown() {
    let theme = Theme::dark(true);
    let c = ctx(&theme, 60);
    let mut t = Transcript::new();
    let mut m = assistant(vec![], StopReason::Aborted);
    m.error_message = Some("Request was aborted".into());
    t.apply(&AgentEvent::MessageEnd { message: Message::Assistant(m) });
    let mut e = assistant(vec![], StopReason::Error);
    e.error_message = Some("401 \x1b]52;c;eA==\x07bad key".into());
    t.apply(&AgentEvent::MessageEnd { message: Message::Assistant(e) });
    assert_eq!(texts(&mut t, &c), [" Operation aborted", "", " Error: 401 bad key"]);
}

#[test]
fn compaction_ends_are_shown_by_outcome() {
    let theme = Theme::dark(true);
    let mut t = Transcript::new();
    let end = |reason: &str, result, aborted, error: Option<&str>| AgentEvent::CompactionEnd {
        reason: reason.into(),
        result,
        aborted,
        will_retry: false,
        error_message: error.map(String::from),
    };
    t.apply(&end("manual", Some(json!({"summary": "## Goal\nship it", "tokensBefore": 12345})), false, None));
    t.apply(&end("manual", None, true, None));
    t.apply(&end("threshold", None, true, None));
    t.apply(&end("manual", None, false, Some("Compaction failed: Nothing to compact (session too small)")));
    let collapsed = texts(&mut t, &ctx(&theme, 70)).join("\n");
    assert!(collapsed.contains("[compaction]"), "{collapsed}");
    assert!(collapsed.contains("Compacted from 12,345 tokens (ctrl+o to expand)"), "{collapsed}");
    assert!(!collapsed.contains("ship it"), "collapsed hides the summary: {collapsed}");
    for line in ["Compaction cancelled", "Auto-compaction cancelled", "Compaction failed: Nothing to compact"] {
        assert!(collapsed.contains(line), "{line}: {collapsed}");
    }
    let mut c = ctx(&theme, 70);
    c.expanded = true;
    let expanded = texts(&mut t, &c).join("\n");
    assert!(expanded.contains("Compacted from 12,345 tokens") && expanded.contains("ship it"), "{expanded}");
}

#[test]
fn the_window_and_prompt_lines() {
    let theme = Theme::dark(true);
    let c = ctx(&theme, 30);
    let mut t = Transcript::new();
    for i in 0..3 {
        t.apply(&AgentEvent::MessageStart { message: Message::User(UserMessage::text(format!("prompt {i}"))) });
        t.push(Kind::Notice(Level::Info, format!("note {i}")));
    }
    let all = texts(&mut t, &c);
    let prompts = t.prompt_positions();
    assert_eq!(prompts.len(), 3);
    for p in &prompts {
        let line = crate::lines::plain(&t.from(&c, *p, 2)[1]);
        assert!(line.contains("prompt"), "{line}");
    }
    let w = t.window(&c, 2, 3);
    assert_eq!(w.len(), 3);
    assert_eq!(t.search(&c, "NOTE 1").len(), 1);
    // Moving by lines, both ways, matches counting from the start.
    let total = all.len();
    let (start, tail) = t.tail(&c, 5);
    assert_eq!(tail.len(), 5);
    assert_eq!(start, t.pos_of(&c, total - 5));
    let up = t.step(&c, start, -7);
    assert_eq!(up, t.pos_of(&c, total - 12));
    assert_eq!(t.step(&c, up, 7), start);
    assert_eq!(t.step(&c, up, -1000), Pos::default());
    assert_eq!(t.lines_from(&c, start, 100), 5);
}

#[test]
fn a_continued_session_is_shown() {
    use pi_agent::{AgentMessage, AgentOnly, BashExecutionMessage};
    let theme = Theme::dark(true);
    let c = ctx(&theme, 40);
    let call = ContentBlock::tool_call("c1", "read", json!({"path": "a.txt"}));
    let answer = assistant(vec![ContentBlock::text("Reading."), call], StopReason::ToolUse);
    let result = pi_ai::ToolResultMessage {
        tool_call_id: "c1".into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text("file text")],
        details: None,
        is_error: true,
        duration_ms: Some(5),
        nested_calls: None,
        usage: None,
        timestamp: 0,
    };
    let bash = BashExecutionMessage {
        command: "ls".into(),
        output: "x\n".into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        exclude_from_context: false,
        timestamp: 0,
    };
    let mut t = Transcript::new();
    t.load_history(&[
        AgentMessage::Llm(Message::User(UserMessage::text("look"))),
        AgentMessage::Llm(Message::Assistant(answer)),
        AgentMessage::Llm(Message::ToolResult(result)),
        AgentMessage::Agent(AgentOnly::BashExecution(bash)),
    ]);
    assert_eq!(t.finished_prefix(), t.len());
    let lines = texts(&mut t, &c).join("\n");
    for s in [" look", " Reading.", " read a.txt", " file text", " $ ls", " x"] {
        assert!(lines.contains(s), "{s} missing:\n{lines}");
    }
}

#[test]
fn thinking_is_shown_or_folded() {
    let theme = Theme::dark(true);
    let mut c = ctx(&theme, 40);
    let mut t = Transcript::new();
    let m = AssistantMessage {
        content: vec![
            ContentBlock::Thinking { thinking: "let me think".into(), signature: None },
            ContentBlock::text("answer"),
        ],
        stop_reason: StopReason::Stop,
        ..Default::default()
    };
    t.apply(&AgentEvent::MessageEnd { message: Message::Assistant(m) });
    assert_eq!(texts(&mut t, &c), [" let me think", "", " answer"]);
    c.show_thinking = false;
    assert_eq!(texts(&mut t, &c), [" Thinking...", "", " answer"]);
}
