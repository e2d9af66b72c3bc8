use super::*;
use serde_json::json;

fn parse(v: Value) -> Result<Command, String> {
    Command::parse(&v).map_err(|e| e.to_string())
}

#[test]
fn every_command_type_parses_with_its_arguments_and_names_itself() {
    let args = json!({
        "message": "hi", "provider": "p", "modelId": "m", "level": "high", "mode": "all",
        "enabled": true, "command": "ls", "sessionPath": "/s.jsonl", "entryId": "e1", "name": "n",
    });
    for kind in Command::TYPES {
        let mut object = args.clone();
        object["type"] = json!(kind);
        let cmd = Command::parse(&object).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(cmd.kind(), *kind);
    }
}

#[test]
fn arguments_arrive_typed() {
    assert_eq!(
        parse(json!({"type": "prompt", "message": "hi", "streamingBehavior": "followUp",
            "images": [{"type": "image", "data": "AA", "mimeType": "image/png"}], "extra": 1}))
        .unwrap(),
        Command::Prompt {
            message: "hi".into(),
            images: vec![pi_ai::ContentBlock::image("AA", "image/png")],
            streaming_behavior: Some(StreamingBehavior::FollowUp),
        }
    );
    assert_eq!(
        parse(json!({"type": "bash", "command": "ls", "excludeFromContext": true})).unwrap(),
        Command::Bash { command: "ls".into(), exclude_from_context: true }
    );
    assert_eq!(
        parse(json!({"type": "bash", "command": "ls"})).unwrap(),
        Command::Bash { command: "ls".into(), exclude_from_context: false }
    );
    assert_eq!(
        parse(json!({"type": "set_follow_up_mode", "mode": "one-at-a-time"})).unwrap(),
        Command::SetFollowUpMode { mode: QueueMode::OneAtATime }
    );
    assert_eq!(parse(json!({"type": "get_entries"})).unwrap(), Command::GetEntries { since: None });
    assert_eq!(parse(json!({"type": "undo"})).unwrap(), Command::Undo { force: false, dry_run: false });
    assert_eq!(parse(json!({"type": "undo", "force": true})).unwrap(), Command::Undo { force: true, dry_run: false });
    assert_eq!(parse(json!({"type": "undo", "dryRun": true})).unwrap(), Command::Undo { force: false, dry_run: true });
    assert!(parse(json!({"type": "undo", "dryRun": "yes"})).is_err());
    assert!(parse(json!({"type": "undo", "force": "yes"})).is_err());
    assert_eq!(
        parse(json!({"type": "rewind", "entryId": "a1"})).unwrap(),
        Command::Rewind { entry_id: "a1".into(), files: true, force: false }
    );
    assert_eq!(
        parse(json!({"type": "rewind", "entryId": "a1", "files": false, "force": true})).unwrap(),
        Command::Rewind { entry_id: "a1".into(), files: false, force: true }
    );
    assert!(parse(json!({"type": "rewind"})).unwrap_err().to_string().contains("entryId"));
    assert!(parse(json!({"type": "rewind", "entryId": 3})).is_err());
    assert_eq!(
        parse(json!({"type": "compact", "customInstructions": null})).unwrap(),
        Command::Compact { custom_instructions: None }
    );
}

#[test]
fn missing_arguments_are_named_never_defaulted() {
    let cases = [
        ("prompt", "missing \"message\" (a string)"),
        ("steer", "missing \"message\" (a string)"),
        ("follow_up", "missing \"message\" (a string)"),
        ("set_thinking_level", "missing \"level\" (one of off, minimal, low, medium, high, xhigh, max)"),
        ("set_steering_mode", "missing \"mode\" (\"all\" or \"one-at-a-time\")"),
        ("set_follow_up_mode", "missing \"mode\" (\"all\" or \"one-at-a-time\")"),
        ("set_auto_compaction", "missing \"enabled\" (true or false)"),
        ("set_auto_retry", "missing \"enabled\" (true or false)"),
        ("bash", "missing \"command\" (a string)"),
        ("switch_session", "missing \"sessionPath\" (a string)"),
        ("set_session_name", "missing \"name\" (a string)"),
    ];
    for (kind, what) in cases {
        assert_eq!(parse(json!({"type": kind})).unwrap_err(), format!("Invalid {kind} command: {what}"), "{kind}");
    }
}

#[test]
fn mistyped_arguments_are_named_never_defaulted() {
    let cases = [
        (json!({"type": "prompt", "message": 5}), "\"message\" must be a string"),
        (
            json!({"type": "prompt", "message": "a", "streamingBehavior": "later"}),
            "\"streamingBehavior\" must be \"steer\" or \"followUp\"",
        ),
        (json!({"type": "prompt", "message": "a", "images": {}}), "\"images\" must be a list of images"),
        (json!({"type": "steer", "message": ["a"]}), "\"message\" must be a string"),
        (json!({"type": "new_session", "parentSession": 5}), "\"parentSession\" must be a string"),
        (json!({"type": "set_thinking_level", "level": "huge"}), "\"level\" must be one of off, minimal"),
        (json!({"type": "set_steering_mode", "mode": "bogus"}), "\"mode\" must be \"all\" or \"one-at-a-time\""),
        (json!({"type": "set_follow_up_mode", "mode": 5}), "\"mode\" must be \"all\" or \"one-at-a-time\""),
        (json!({"type": "compact", "customInstructions": 5}), "\"customInstructions\" must be a string"),
        (json!({"type": "set_auto_compaction", "enabled": "yes"}), "\"enabled\" must be true or false"),
        (json!({"type": "set_auto_retry", "enabled": 1}), "\"enabled\" must be true or false"),
        (json!({"type": "bash", "command": 5}), "\"command\" must be a string"),
        (
            json!({"type": "bash", "command": "ls", "excludeFromContext": "no"}),
            "\"excludeFromContext\" must be true or false",
        ),
        (json!({"type": "export_html", "outputPath": 5}), "\"outputPath\" must be a string"),
        (json!({"type": "switch_session", "sessionPath": 5}), "\"sessionPath\" must be a string"),
        (json!({"type": "set_session_name", "name": 5}), "\"name\" must be a string"),
    ];
    for (cmd, what) in cases {
        let kind = cmd["type"].as_str().unwrap().to_string();
        let err = parse(cmd).unwrap_err();
        assert!(err.starts_with(&format!("Invalid {kind} command: {what}")), "{err}");
    }
}

#[test]
fn where_the_reference_answers_its_own_error_that_error_comes() {
    assert_eq!(parse(json!({"type": "set_model"})).unwrap_err(), "Model not found: undefined/undefined");
    assert_eq!(parse(json!({"type": "set_model", "provider": "mock"})).unwrap_err(), "Model not found: mock/undefined");
    assert_eq!(
        parse(json!({"type": "set_model", "provider": "mock", "modelId": 5})).unwrap_err(),
        "Model not found: mock/5"
    );
    assert_eq!(parse(json!({"type": "fork"})).unwrap_err(), "Invalid entry ID for forking");
    assert_eq!(parse(json!({"type": "fork", "entryId": 5})).unwrap_err(), "Invalid entry ID for forking");
    assert_eq!(parse(json!({"type": "get_entries", "since": 5})).unwrap_err(), "Entry not found: 5");
}

#[test]
fn unknown_types_are_named_as_the_reference_names_them() {
    assert_eq!(parse(json!({"type": "dance"})).unwrap_err(), "Unknown command: dance");
    assert_eq!(parse(json!({"type": 5})).unwrap_err(), "Unknown command: 5");
    assert_eq!(parse(json!({})).unwrap_err(), "Unknown command: undefined");
    assert_eq!(parse(json!([1])).unwrap_err(), "Unknown command: undefined");
}

#[test]
fn dialog_answers_of_any_shape_resolve() {
    let answer = |v: Value| match Command::parse(&v).unwrap() {
        Command::ExtensionUiResponse { answer, .. } => answer,
        other => panic!("{other:?}"),
    };
    assert_eq!(answer(json!({"type": "extension_ui_response", "id": "a", "value": "x"})), UiAnswer::Value("x".into()));
    assert_eq!(
        answer(json!({"type": "extension_ui_response", "id": "a", "confirmed": false})),
        UiAnswer::Confirmed(false)
    );
    assert_eq!(
        answer(json!({"type": "extension_ui_response", "id": "a", "cancelled": true, "value": "x"})),
        UiAnswer::Cancelled
    );
    assert_eq!(answer(json!({"type": "extension_ui_response", "id": "a", "value": 5})), UiAnswer::Cancelled);
}
