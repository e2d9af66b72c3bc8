//! Every user-visible message of the binary, in one place.

/// Valid `--thinking` levels.
pub const THINKING_LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// Warning for an invalid `--thinking` value.
pub fn invalid_thinking_level(v: &str) -> String {
    format!("Invalid thinking level \"{v}\". Valid values: {}", THINKING_LEVELS.join(", "))
}

/// `--list-models SEARCH` found nothing.
pub fn no_models_matching(search: &str) -> String {
    format!("No models matching \"{search}\"")
}

/// `--model` named nothing.
pub fn model_not_found(pattern: &str) -> String {
    format!("Model \"{pattern}\" not found. Use --list-models to see available models.")
}

/// No model could be chosen at all.
pub const NO_MODEL: &str = "No model available. Set OPENAI_API_KEY or ANTHROPIC_API_KEY, pass --api-key with --model, or add a provider to ~/.pi/agent/models.json (see docs/providers.md).";

/// The chosen model has no key.
pub const NO_API_KEY: &str = "No API key found for the selected model. Set the provider's environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY), pass --api-key, or set \"apiKey\" in ~/.pi/agent/models.json.";

/// `PI_REASONING_LEVEL` when no thinking level is set.
pub const DEFAULT_REASONING_LEVEL: &str = "off";

/// A session line that could not be read.
pub fn session_bad_line(path: &std::path::Path, line: usize, err: &str) -> String {
    format!("Skipped unreadable line {line} of session file {}: {err}", path.display())
}

/// A context file that could not be read.
pub fn context_file_unreadable(path: &std::path::Path, err: &str) -> String {
    format!("Could not read context file {}: {err}", path.display())
}

/// An `@file` argument that could not be read.
pub fn attach_failed(path: &std::path::Path, err: &str) -> String {
    format!("Could not read {}: {err}", path.display())
}

/// A failed request with no message of its own.
pub const REQUEST_FAILED: &str = "Request failed";

/// Print mode without any message.
pub const NO_MESSAGE: &str =
    "No message given. Pass a prompt, e.g. pi -p \"List the files\", or pipe it on standard input.";

/// RPC: a line that is not a JSON command.
pub fn rpc_parse_failed(msg: &str) -> String {
    format!("Failed to parse command: {msg}")
}

/// RPC: a command type nobody handles.
pub fn rpc_unknown_command(kind: &str) -> String {
    format!("Unknown command: {kind}")
}

/// RPC: `set_model` names no model.
pub fn rpc_model_not_found(provider: &str, id: &str) -> String {
    format!("Model not found: {provider}/{id}")
}

/// RPC: a prompt while streaming without `streamingBehavior`.
pub const RPC_ALREADY_STREAMING: &str =
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/// RPC: a prompt without `message`.
pub const RPC_MISSING_MESSAGE: &str = "Missing \"message\"";

/// RPC: `bash` without `command`.
pub const RPC_MISSING_COMMAND: &str = "Missing \"command\"";

/// RPC: the command needs the agent idle.
pub const RPC_BUSY: &str = "The agent is busy; abort or wait for agent_settled first";

/// `/reload` succeeded.
pub const RELOADED: &str = "Reloaded keybindings, extensions, skills, prompts, themes, and context files";

/// The interactive prompt's question for a numbered choice.
pub const CHOOSE_NUMBER: &str = "Choose a number (Enter to dismiss): ";

/// An extension could not be loaded (start-up stops, exit 1).
pub fn extension_load_failed(spec: &str, error: &str) -> String {
    format!("Failed to load extension \"{spec}\": {error}")
}

/// `builtin:<name>` names nothing.
pub fn unknown_builtin(name: &str) -> String {
    format!("unknown built-in extension \"{name}\" (available: {})", pi_policies::BUILTIN_NAMES.join(", "))
}
