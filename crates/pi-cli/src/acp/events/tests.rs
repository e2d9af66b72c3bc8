use super::*;

fn translate(t: &mut Translator, events: &[Value]) -> Vec<Value> {
    events.iter().flat_map(|e| t.updates(e)).collect()
}

#[test]
fn text_and_thinking_stream_as_chunks() {
    let mut t = Translator::new(Path::new("/p"));
    let out = translate(
        &mut t,
        &[
            json!({"type": "message_update", "assistantMessageEvent": {"type": "thinking_delta", "delta": "hm"}}),
            json!({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "hi"}}),
            json!({"type": "turn_start"}),
        ],
    );
    assert_eq!(out, vec![chunk("agent_thought_chunk", "hm"), chunk("agent_message_chunk", "hi")]);
}

#[test]
fn an_edit_goes_pending_in_progress_then_completed_with_its_diff() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
    let mut t = Translator::new(dir.path());
    let args = json!({"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]});
    let mut out = translate(
        &mut t,
        &[
            json!({"type": "message_update", "assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 0, "id": "c1", "toolName": "edit"}}),
            json!({"type": "message_update", "assistantMessageEvent": {"type": "toolcall_end", "contentIndex": 0,
                   "toolCall": {"type": "toolCall", "id": "c1", "name": "edit", "arguments": args}}}),
            json!({"type": "tool_execution_start", "toolCallId": "c1", "toolName": "edit", "args": args}),
        ],
    );
    std::fs::write(dir.path().join("a.txt"), "new\n").unwrap();
    out.extend(translate(
        &mut t,
        &[json!({"type": "tool_execution_end", "toolCallId": "c1", "toolName": "edit", "isError": false,
                 "result": {"content": [{"type": "text", "text": "Successfully replaced"}]}})],
    ));
    let kinds: Vec<(&str, &str)> =
        out.iter().map(|u| (u["sessionUpdate"].as_str().unwrap(), u["status"].as_str().unwrap())).collect();
    assert_eq!(
        kinds,
        [
            ("tool_call", "pending"),
            ("tool_call_update", "pending"),
            ("tool_call_update", "in_progress"),
            ("tool_call_update", "completed")
        ]
    );
    assert_eq!((out[0]["title"].as_str(), out[0]["kind"].as_str()), (Some("edit"), Some("edit")));
    let path = dir.path().join("a.txt").to_string_lossy().into_owned();
    assert_eq!(out[2]["locations"], json!([{"path": path}]));
    assert_eq!(out[3]["content"], json!([{"type": "diff", "path": "a.txt", "oldText": "old\n", "newText": "new\n"}]));
}

#[test]
fn a_new_file_has_no_old_text_and_a_failed_call_shows_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Translator::new(dir.path());
    let args = json!({"path": "n.txt", "content": "x"});
    translate(&mut t, &[json!({"type": "tool_execution_start", "toolCallId": "w", "toolName": "write", "args": args})]);
    std::fs::write(dir.path().join("n.txt"), "x").unwrap();
    let done = translate(
        &mut t,
        &[
            json!({"type": "tool_execution_end", "toolCallId": "w", "toolName": "write", "isError": false, "result": {"content": []}}),
        ],
    );
    assert_eq!(done[0]["content"][0]["oldText"], Value::Null);
    assert_eq!(done[0]["content"][0]["newText"], "x");
    translate(
        &mut t,
        &[json!({"type": "tool_execution_start", "toolCallId": "r", "toolName": "read", "args": {"path": "nope"}})],
    );
    let failed = translate(
        &mut t,
        &[json!({"type": "tool_execution_end", "toolCallId": "r", "toolName": "read", "isError": true,
                 "result": {"content": [{"type": "text", "text": "ENOENT"}]}})],
    );
    assert_eq!(failed[0]["status"], "failed");
    assert_eq!(failed[0]["content"][0]["content"]["text"], "ENOENT");
}

#[test]
fn bash_shows_as_a_terminal_with_its_command_as_title() {
    let mut t = Translator::new(Path::new("/p"));
    let start = translate(
        &mut t,
        &[
            json!({"type": "tool_execution_start", "toolCallId": "b", "toolName": "bash", "args": {"command": "ls -la"}}),
        ],
    );
    assert_eq!((start[0]["title"].as_str(), start[0]["kind"].as_str()), (Some("ls -la"), Some("execute")));
    assert_eq!(start[0]["content"], json!([{"type": "terminal", "terminalId": "b"}]));
    let end = translate(
        &mut t,
        &[json!({"type": "tool_execution_end", "toolCallId": "b", "toolName": "bash", "isError": true,
                 "result": {"content": [{"type": "text", "text": "boom"}], "details": {"exitCode": 2}}})],
    );
    assert_eq!(end[0]["_meta"]["terminal_exit"]["exit_code"], 2);
    assert_eq!(end[0]["_meta"]["terminal_output"]["data"], "boom");
}

#[test]
fn the_last_answer_s_stop_reason_and_error_are_kept() {
    let mut t = Translator::new(Path::new("/p"));
    translate(
        &mut t,
        &[
            json!({"type": "message_end", "message": {"role": "assistant", "stopReason": "error", "errorMessage": "429"}}),
        ],
    );
    assert_eq!((t.last_stop.as_deref(), t.last_error.as_deref()), (Some("error"), Some("429")));
}

#[test]
fn a_stored_conversation_replays_in_order() {
    let messages = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "hi"}]}),
        json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "ok"},
               {"type": "toolCall", "id": "c", "name": "ls", "arguments": {}}]}),
        json!({"role": "toolResult", "toolCallId": "c", "toolName": "ls", "isError": false, "content": [{"type": "text", "text": "a"}]}),
        json!({"role": "user", "content": "plain"}),
    ];
    let kinds: Vec<String> =
        replay(&messages, Path::new("/p")).iter().map(|u| u["sessionUpdate"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        kinds,
        [
            "user_message_chunk",
            "agent_thought_chunk",
            "agent_message_chunk",
            "tool_call",
            "tool_call_update",
            "user_message_chunk"
        ]
    );
}
