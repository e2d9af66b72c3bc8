//! [`Command`]: what a client asks of a session, one variant per operation,
//! with the reference's RPC names (`type`) and field names.

use serde_json::Value;

use crate::args::{Args, js_display};
use crate::text;

/// How queued messages are delivered (`steeringMode`, `followUpMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueMode {
    /// Every queued message at the next chance (`"all"`).
    All,
    /// One queued message per turn (`"one-at-a-time"`).
    OneAtATime,
}

impl QueueMode {
    /// The name as sent and stored.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueMode::All => "all",
            QueueMode::OneAtATime => "one-at-a-time",
        }
    }
}

/// Where a prompt sent while a run streams goes (`streamingBehavior`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamingBehavior {
    /// Delivered within the run, after the current tool calls (`"steer"`).
    Steer,
    /// Delivered once the run would end (`"followUp"`).
    FollowUp,
}

impl StreamingBehavior {
    /// The name as sent.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamingBehavior::Steer => "steer",
            StreamingBehavior::FollowUp => "followUp",
        }
    }
}

/// A client's answer to an extension's dialog (`extension_ui_response`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiAnswer {
    /// `{cancelled: true}`, or an answer of no known shape.
    Cancelled,
    /// `{confirmed}`.
    Confirmed(bool),
    /// `{value}`.
    Value(String),
}

/// One operation a client asks of a session.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Send a message: start a run, or queue it while one streams (`streamingBehavior`).
    Prompt {
        /// The text.
        message: String,
        /// Images sent with it.
        images: Vec<pi_ai::ContentBlock>,
        /// Where it goes while a run streams (`None`: refused then).
        streaming_behavior: Option<StreamingBehavior>,
    },
    /// A message for the run going on (a prompt when none).
    Steer {
        /// The text.
        message: String,
        /// Images sent with it.
        images: Vec<pi_ai::ContentBlock>,
    },
    /// A message for when the run would end (a prompt when none).
    FollowUp {
        /// The text.
        message: String,
        /// Images sent with it.
        images: Vec<pi_ai::ContentBlock>,
    },
    /// Stop the run going on.
    Abort,
    /// Empty both queues, answering what they held.
    ClearQueue,
    /// Start a new session.
    NewSession {
        /// The session file recorded as its parent.
        parent_session: Option<String>,
    },
    /// The session's state.
    GetState,
    /// Switch to a configured model.
    SetModel {
        /// Its provider.
        provider: String,
        /// Its id.
        model_id: String,
    },
    /// The next model of the scope.
    CycleModel,
    /// The models that can be used.
    GetAvailableModels,
    /// Set the thinking level (clamped to what the model supports).
    SetThinkingLevel {
        /// One of [`text::THINKING_LEVELS`].
        level: String,
    },
    /// The next thinking level the model supports.
    CycleThinkingLevel,
    /// The thinking levels the model supports.
    GetAvailableThinkingLevels,
    /// How steering messages are delivered.
    SetSteeringMode {
        /// The mode.
        mode: QueueMode,
    },
    /// How follow-up messages are delivered.
    SetFollowUpMode {
        /// The mode.
        mode: QueueMode,
    },
    /// Summarise the conversation now.
    Compact {
        /// What the summary should focus on.
        custom_instructions: Option<String>,
    },
    /// Turn automatic compaction on or off.
    SetAutoCompaction {
        /// On or off.
        enabled: bool,
    },
    /// Turn retries of failed requests on or off.
    SetAutoRetry {
        /// On or off.
        enabled: bool,
    },
    /// Stop waiting for a retry.
    AbortRetry,
    /// Run a shell command for the user (`!cmd`).
    Bash {
        /// The command line.
        command: String,
        /// Kept out of the model's context (`!!cmd`).
        exclude_from_context: bool,
    },
    /// Stop the user's shell commands.
    AbortBash,
    /// Token and message counts of the session.
    GetSessionStats,
    /// Write the session as an HTML page.
    ExportHtml {
        /// Where (default: beside the working folder).
        output_path: Option<String>,
    },
    /// Continue another session file.
    SwitchSession {
        /// Its path.
        session_path: String,
    },
    /// A new session with the branch before a user message.
    Fork {
        /// That message's entry.
        entry_id: String,
    },
    /// A new session with the whole branch.
    Clone,
    /// The user messages a fork can start from.
    GetForkMessages,
    /// The session's entries.
    GetEntries {
        /// Only those after this entry.
        since: Option<String>,
    },
    /// The session's tree.
    GetTree,
    /// The text of the last assistant message.
    GetLastAssistantText,
    /// Name the session.
    SetSessionName {
        /// The name (trimmed; empty is refused).
        name: String,
    },
    /// The conversation.
    GetMessages,
    /// The slash commands: extensions', templates, skills.
    GetCommands,
    /// Restore the files as they were before the agent's last changing
    /// turn (pi only, B11: checkpoints).
    Undo {
        /// Restore files changed since the turn too.
        force: bool,
        /// Write nothing: answer what would change.
        dry_run: bool,
    },
    /// Move the conversation back to an entry of the session tree, and
    /// (`files`) the files to how they were before the agent's turns after
    /// it (pi only, B11: checkpoints).
    Rewind {
        /// The entry to continue from (a user message: from before it).
        entry_id: String,
        /// Restore the files too (default true).
        files: bool,
        /// Restore files changed since the turns too.
        force: bool,
    },
    /// The answer to an extension's dialog (never answered itself).
    ExtensionUiResponse {
        /// The dialog's request id.
        id: Option<String>,
        /// What the user chose.
        answer: UiAnswer,
    },
}

/// Why a JSON command was not accepted; its `Display` is the answer's `error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// No command has this `type`.
    #[error("{}", text::unknown_command(.0))]
    Unknown(String),
    /// An argument is missing or of the wrong kind.
    #[error("{0}")]
    Invalid(String),
    /// The reference's own answer for what was sent (a model or entry that
    /// cannot exist).
    #[error("{0}")]
    Refused(String),
}

impl Command {
    /// Read a command from its JSON object (`id` is the transport's and
    /// ignored here; unknown fields are ignored, as the reference ignores them).
    pub fn parse(object: &Value) -> Result<Command, CommandError> {
        let kind = match object.get("type") {
            Some(Value::String(s)) => s.as_str(),
            other => return Err(CommandError::Unknown(js_display(other))),
        };
        let a = Args { kind, object };
        let queue_mode = |a: &Args| -> Result<QueueMode, CommandError> {
            let m = a.choice("mode", &["all", "one-at-a-time"], text::EXPECT_QUEUE_MODE)?;
            Ok(if m == "all" { QueueMode::All } else { QueueMode::OneAtATime })
        };
        Ok(match kind {
            "prompt" => Command::Prompt {
                message: a.string("message")?,
                images: a.images()?,
                streaming_behavior: match a.opt_string("streamingBehavior") {
                    Ok(None) => None,
                    Ok(Some(s)) if s == "steer" => Some(StreamingBehavior::Steer),
                    Ok(Some(s)) if s == "followUp" => Some(StreamingBehavior::FollowUp),
                    _ => return Err(a.wrong("streamingBehavior", text::EXPECT_STREAMING_BEHAVIOR)),
                },
            },
            "steer" => Command::Steer { message: a.string("message")?, images: a.images()? },
            "follow_up" => Command::FollowUp { message: a.string("message")?, images: a.images()? },
            "abort" => Command::Abort,
            "clear_queue" => Command::ClearQueue,
            "new_session" => Command::NewSession { parent_session: a.opt_string("parentSession")? },
            "get_state" => Command::GetState,
            "set_model" => match (a.opt_string("provider"), a.opt_string("modelId")) {
                (Ok(Some(provider)), Ok(Some(model_id))) => Command::SetModel { provider, model_id },
                // No model has such a name: the reference's answer, with the fields as it prints them.
                _ => {
                    return Err(CommandError::Refused(text::model_not_found(
                        &a.shown("provider"),
                        &a.shown("modelId"),
                    )));
                }
            },
            "cycle_model" => Command::CycleModel,
            "get_available_models" => Command::GetAvailableModels,
            "set_thinking_level" => Command::SetThinkingLevel {
                level: a.choice("level", &text::THINKING_LEVELS, &text::expect_thinking_level())?,
            },
            "cycle_thinking_level" => Command::CycleThinkingLevel,
            "get_available_thinking_levels" => Command::GetAvailableThinkingLevels,
            "set_steering_mode" => Command::SetSteeringMode { mode: queue_mode(&a)? },
            "set_follow_up_mode" => Command::SetFollowUpMode { mode: queue_mode(&a)? },
            "compact" => Command::Compact { custom_instructions: a.opt_string("customInstructions")? },
            "set_auto_compaction" => Command::SetAutoCompaction { enabled: a.bool("enabled")? },
            "set_auto_retry" => Command::SetAutoRetry { enabled: a.bool("enabled")? },
            "abort_retry" => Command::AbortRetry,
            "bash" => Command::Bash {
                command: a.string("command")?,
                exclude_from_context: a.opt_bool("excludeFromContext")?.unwrap_or(false),
            },
            "abort_bash" => Command::AbortBash,
            "get_session_stats" => Command::GetSessionStats,
            "export_html" => Command::ExportHtml { output_path: a.opt_string("outputPath")? },
            "switch_session" => Command::SwitchSession { session_path: a.string("sessionPath")? },
            "fork" => match a.opt_string("entryId") {
                Ok(Some(entry_id)) => Command::Fork { entry_id },
                // No user message has such an id: the reference's answer.
                _ => return Err(CommandError::Refused(text::INVALID_FORK_ENTRY.into())),
            },
            "clone" => Command::Clone,
            "get_fork_messages" => Command::GetForkMessages,
            "get_entries" => match a.opt_string("since") {
                Ok(since) => Command::GetEntries { since },
                Err(_) => return Err(CommandError::Refused(text::entry_not_found(&a.shown("since")))),
            },
            "get_tree" => Command::GetTree,
            "get_last_assistant_text" => Command::GetLastAssistantText,
            "set_session_name" => Command::SetSessionName { name: a.string("name")? },
            "get_messages" => Command::GetMessages,
            "get_commands" => Command::GetCommands,
            "undo" => Command::Undo {
                force: a.opt_bool("force")?.unwrap_or(false),
                dry_run: a.opt_bool("dryRun")?.unwrap_or(false),
            },
            "rewind" => Command::Rewind {
                entry_id: a.string("entryId")?,
                files: a.opt_bool("files")?.unwrap_or(true),
                force: a.opt_bool("force")?.unwrap_or(false),
            },
            "extension_ui_response" => Command::ExtensionUiResponse {
                id: object.get("id").and_then(Value::as_str).map(String::from),
                answer: ui_answer(object),
            },
            other => return Err(CommandError::Unknown(other.to_string())),
        })
    }
}

/// Each variant with its `type`, once: [`Command::TYPES`] and
/// [`Command::kind`] are made from this list.
macro_rules! command_names {
    ($($variant:ident => $name:literal,)*) => {
        impl Command {
            /// Every command type, as sent in `type`.
            pub const TYPES: &'static [&'static str] = &[$($name),*];

            /// The command's `type`, as its response's `command` names it.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Command::$variant { .. } => $name,)*
                }
            }
        }
    };
}

command_names! {
    Prompt => "prompt",
    Steer => "steer",
    FollowUp => "follow_up",
    Abort => "abort",
    ClearQueue => "clear_queue",
    NewSession => "new_session",
    GetState => "get_state",
    SetModel => "set_model",
    CycleModel => "cycle_model",
    GetAvailableModels => "get_available_models",
    SetThinkingLevel => "set_thinking_level",
    CycleThinkingLevel => "cycle_thinking_level",
    GetAvailableThinkingLevels => "get_available_thinking_levels",
    SetSteeringMode => "set_steering_mode",
    SetFollowUpMode => "set_follow_up_mode",
    Compact => "compact",
    SetAutoCompaction => "set_auto_compaction",
    SetAutoRetry => "set_auto_retry",
    AbortRetry => "abort_retry",
    Bash => "bash",
    AbortBash => "abort_bash",
    GetSessionStats => "get_session_stats",
    ExportHtml => "export_html",
    SwitchSession => "switch_session",
    Fork => "fork",
    Clone => "clone",
    GetForkMessages => "get_fork_messages",
    GetEntries => "get_entries",
    GetTree => "get_tree",
    GetLastAssistantText => "get_last_assistant_text",
    SetSessionName => "set_session_name",
    GetMessages => "get_messages",
    GetCommands => "get_commands",
    Undo => "undo",
    Rewind => "rewind",
    ExtensionUiResponse => "extension_ui_response",
}

/// A dialog answer: `cancelled` first, then `confirmed`, then `value`; any
/// other shape cancels (the dialog must not wait for an answer that came).
fn ui_answer(object: &Value) -> UiAnswer {
    if object.get("cancelled").and_then(Value::as_bool) == Some(true) {
        UiAnswer::Cancelled
    } else if let Some(c) = object.get("confirmed").and_then(Value::as_bool) {
        UiAnswer::Confirmed(c)
    } else if let Some(v) = object.get("value").and_then(Value::as_str) {
        UiAnswer::Value(v.to_string())
    } else {
        UiAnswer::Cancelled
    }
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
