//! Every message this crate shows a client, in one place.

/// The thinking levels a client may ask for, lowest first.
pub const THINKING_LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// The level that asks for no thinking (the agent holds it as none).
pub const THINKING_OFF: &str = THINKING_LEVELS[0];

/// A command type nobody handles (the reference's words).
pub fn unknown_command(kind: &str) -> String {
    format!("Unknown command: {kind}")
}

/// `set_model` names no model (the reference's words; a missing field reads
/// `undefined`, as the reference prints it).
pub fn model_not_found(provider: &str, id: &str) -> String {
    format!("Model not found: {provider}/{id}")
}

/// `get_entries` with a `since` that names no entry (the reference's words).
pub fn entry_not_found(id: &str) -> String {
    format!("Entry not found: {id}")
}

/// `fork` without an entry that can be forked from (the reference's words).
pub const INVALID_FORK_ENTRY: &str = "Invalid entry ID for forking";

/// A required argument is absent.
pub fn missing_argument(command: &str, field: &str, expected: &str) -> String {
    format!("Invalid {command} command: missing \"{field}\" ({expected})")
}

/// An argument is present but not what the command takes.
pub fn wrong_argument(command: &str, field: &str, expected: &str) -> String {
    format!("Invalid {command} command: \"{field}\" must be {expected}")
}

/// What a string argument should be.
pub const EXPECT_STRING: &str = "a string";
/// What a boolean argument should be.
pub const EXPECT_BOOL: &str = "true or false";
/// What a queue mode should be.
pub const EXPECT_QUEUE_MODE: &str = "\"all\" or \"one-at-a-time\"";
/// What `streamingBehavior` should be.
pub const EXPECT_STREAMING_BEHAVIOR: &str = "\"steer\" or \"followUp\"";
/// What `images` should be.
pub const EXPECT_IMAGES: &str =
    "a list of images, each {\"type\": \"image\", \"data\": <base64 text>, \"mimeType\": <text>}";

/// What `level` should be.
pub fn expect_thinking_level() -> String {
    format!("one of {}", THINKING_LEVELS.join(", "))
}

/// A prompt refused because the model's provider has no credentials (the
/// [`pi_config::ModelEntry::unknown`] stand-in reads "the selected model").
pub fn no_api_key_found(provider: &str) -> String {
    let who = if provider == pi_config::UNKNOWN_MODEL { "the selected model" } else { provider };
    format!("No API key found for {who}.\n\n{}", login_help())
}

/// Why an ambiguous `--model` was not settled: several providers have a key.
pub const AMBIGUOUS_KEYED: &str = "More than one matching provider is authenticated.";

/// Why an ambiguous `--model` was not settled: none has a key.
pub const AMBIGUOUS_UNKEYED: &str = "No matching provider is authenticated.";

/// Why an ambiguous `--model` was not settled: `--api-key` serves any of them.
pub const AMBIGUOUS_WITH_API_KEY: &str = "--api-key does not choose a provider.";

/// `--model` names a model several providers offer, and `why` it was not settled.
pub fn ambiguous_model(pattern: &str, candidates: &[String], why: &str) -> String {
    format!(
        "Model \"{pattern}\" is ambiguous across providers: {}. {why} Use --provider or provider/model.",
        candidates.join(", ")
    )
}

/// `--model` named nothing.
pub fn model_pattern_not_found(pattern: &str) -> String {
    format!("Model \"{pattern}\" not found. Use --list-models to see available models.")
}

/// A context file that could not be read.
pub fn context_file_unreadable(path: &std::path::Path, err: &str) -> String {
    format!("Could not read context file {}: {err}", path.display())
}

/// `--provider` naming no configured provider.
pub fn unknown_provider(provider: &str) -> String {
    format!("Unknown provider \"{provider}\". Use --list-models to see available providers/models.")
}

/// `--model provider/id` where the provider is known and the id is not.
pub fn custom_model_id(id: &str, provider: &str) -> String {
    format!("Model \"{id}\" not found for provider \"{provider}\". Using custom model id.")
}

/// `/reload` succeeded.
pub const RELOADED: &str = "Reloaded keybindings, extensions, skills, prompts, themes, and context files";

/// An extension could not be loaded (start-up stops, exit 1).
pub fn extension_load_failed(spec: &str, error: &str) -> String {
    format!("Failed to load extension \"{spec}\": {error}")
}

/// `builtin:<name>` names nothing.
pub fn unknown_builtin(name: &str) -> String {
    format!("unknown built-in extension \"{name}\" (available: {})", pi_policies::BUILTIN_NAMES.join(", "))
}

/// RPC `fork`/`clone` before anything was recorded (as the reference).
pub const RPC_NOTHING_TO_COPY: &str =
    "This session has not been saved yet. Send a message before cloning or forking it.";

/// `pi.sendUserMessage` while a run goes on, without `deliverAs` (as the reference).
pub const EXT_USER_MESSAGE_WHILE_STREAMING: &str =
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/// A command handler replacing the session while a run goes on.
pub const EXT_SESSION_BUSY: &str = "The agent is busy; wait for it first (ctx.waitForIdle())";

/// An extension's call found the session unusable: a task failed while holding it.
pub const EXT_SESSION_UNAVAILABLE: &str = "The session is unavailable: a task failed while holding it";

/// A command handler naming an entry the session does not have (as the reference).
pub fn ext_entry_not_found(id: &str) -> String {
    format!("Entry {id} not found")
}

/// A load failure of an extension, with the reference's hint on the next line.
pub fn with_extensions_hint(error: &str) -> String {
    format!("{error}\nHint: Start without extensions using \"pi -ne\".")
}

/// An extension's model call names a provider pi does not have.
pub fn ext_unknown_provider(provider: &str) -> String {
    format!("Unknown provider: {provider}")
}

/// An extension's model call for a model pi does not have, without an API pi speaks.
pub fn ext_no_api_provider(api: Option<&str>) -> String {
    format!("No API provider registered for api: {}", api.unwrap_or("undefined"))
}

/// An extension's model call with messages pi cannot read.
pub fn ext_model_bad_messages(error: &str) -> String {
    format!("Invalid messages for the model call: {error}")
}

/// `/llama`: the command's name.
pub const LLAMA_COMMAND: &str = "llama";

/// `/llama`: the command's description (as `get_commands` lists it).
pub const LLAMA_DESCRIPTION: &str = "Manage llama.cpp router models";

/// `/llama`: a model was loaded.
pub fn llama_loaded(id: &str) -> String {
    format!("Loaded {id}")
}

/// `/llama`: a model was unloaded.
pub fn llama_unloaded(id: &str) -> String {
    format!("Unloaded {id}")
}

/// `/llama`: a model that is neither loaded nor unloaded (loading, downloading, …).
pub fn llama_busy(id: &str, state: &str) -> String {
    format!("{id} is {state}")
}

/// `/login llama.cpp`: the router was reached and saved.
pub fn llama_saved(server: &str, path: &std::path::Path) -> String {
    format!(
        "llama.cpp server {server} saved to {}. Run /llama to load a model, then /model to select it.",
        path.display()
    )
}

/// The extension path the reference names when a message an extension sent
/// could not be prompted.
pub const RUNTIME_EXTENSION_PATH: &str = "<runtime>";

/// The event it names then.
pub const SEND_USER_MESSAGE_EVENT: &str = "send_user_message";

/// A branch summary could not be had; the conversation stays where it was.
pub fn branch_summary_failed(why: &str) -> String {
    format!("Branch summarization failed: {why}")
}

/// Where the reference sends a user without a usable model: `/login` and
/// this build's provider and model documentation.
pub fn login_help() -> String {
    format!(
        "Use /login to log into a provider via OAuth or API key. See:\n  {}\n  {}",
        crate::docs::file("providers.md").display(),
        crate::docs::file("models.md").display()
    )
}
