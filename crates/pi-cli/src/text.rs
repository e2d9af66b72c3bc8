//! Every user-visible message of the binary, in one place.

#[path = "text_acp.rs"]
mod acp_text;
pub use acp_text::*;

/// The Pi release this build is a drop-in for.
pub const PI_COMPATIBLE: &str = "1.6.0";

/// `pi --version`: the Pi release this build is a drop-in for, with this
/// build's own version as semver build metadata (`1.6.0+pi-rs.0.1.0`), so
/// clients that compare versions read it as that release. One line.
pub fn version_line() -> String {
    format!("{PI_COMPATIBLE}+pi-rs.{}", env!("CARGO_PKG_VERSION"))
}

/// Valid `--thinking` levels (the session runtime's list).
pub use pi_runtime::text::THINKING_LEVELS;

/// Warning for an invalid `--thinking` value.
pub fn invalid_thinking_level(v: &str) -> String {
    format!("Invalid thinking level \"{v}\". Valid values: {}", THINKING_LEVELS.join(", "))
}

/// `--list-models SEARCH` found nothing.
pub fn no_models_matching(search: &str) -> String {
    format!("No models matching \"{search}\"")
}

/// No model has a key (`--list-models`, and a warning at start-up): the
/// reference's words, naming this build's documentation.
pub fn no_models_available() -> String {
    format!("No models available. {}", pi_runtime::text::login_help())
}

/// The thinking level asked for when neither `--thinking`, a `:<level>`
/// model suffix nor the `defaultThinkingLevel` setting gives one (clamped to
/// what the model supports: `off` for a model without reasoning).
pub const DEFAULT_THINKING_LEVEL: &str = "medium";

/// A session line that could not be read.
pub fn session_bad_line(path: &std::path::Path, line: usize, err: &str) -> String {
    format!("Skipped unreadable line {line} of session file {}: {err}", path.display())
}

/// `--continue`: a newer file in the session folder passed over.
pub fn session_skipped_no_header(path: &std::path::Path) -> String {
    format!("Skipped {}: not a session file (no valid session header)", path.display())
}

/// An `@file` argument that does not exist.
pub fn file_not_found(path: &std::path::Path) -> String {
    format!("File not found: {}", path.display())
}

/// An `@file` argument that could not be read.
pub fn attach_failed(path: &std::path::Path, err: &str) -> String {
    format!("Could not read file {}: {err}", path.display())
}

/// `@file` arguments with `--mode rpc`.
pub const RPC_NO_FILE_ARGS: &str = "@file arguments are not supported in RPC mode";

/// An option nobody knows (a short one, or `-` alone).
pub fn unknown_option(arg: &str) -> String {
    format!("Unknown option: {arg}")
}

/// Long flags no extension registered (names without `--`).
pub fn unknown_options(names: &[&str]) -> String {
    let listed: Vec<String> = names.iter().map(|n| format!("--{n}")).collect();
    let plural = if names.len() == 1 { "" } else { "s" };
    format!("Unknown option{plural}: {}", listed.join(", "))
}

/// A registered extension flag that takes a value, given without one.
pub fn extension_flag_requires_value(name: &str) -> String {
    format!("Extension flag \"--{name}\" requires a value")
}

/// A problem with the entries of a flag (`--tools: …`).
pub fn flag_error(flag: &str, error: &str) -> String {
    format!("{flag}: {error}")
}

/// `--mode` without a value.
pub const MODE_REQUIRES_VALUE: &str = "--mode requires text, json, or rpc";

/// `--mode` with a value it does not know.
pub fn invalid_mode(mode: &str) -> String {
    format!("Invalid mode \"{mode}\". Valid values: text, json, rpc")
}

/// `--tui-mode` without a value.
pub const TUI_MODE_REQUIRES_VALUE: &str = "--tui-mode requires regular or fullscreen";

/// `--tui-mode` with a value it does not know.
pub fn invalid_tui_mode(mode: &str) -> String {
    format!("Invalid TUI mode \"{mode}\". Valid values: regular, fullscreen")
}

/// `--use-theme` without a name.
pub const USE_THEME_REQUIRES_NAME: &str = "--use-theme requires a theme name";

/// `--name` at the end of the line.
pub const NAME_REQUIRES_VALUE: &str = "--name requires a value";

/// `--name` with a blank value.
pub const NAME_REQUIRES_NON_EMPTY: &str = "--name requires a non-empty value";

/// `--provider` without `--model`.
pub fn provider_requires_model(provider: &str) -> String {
    format!("--provider requires --model (for example: --provider {provider} --model <pattern>)")
}

/// `--api-key` without any model named.
pub const API_KEY_REQUIRES_MODEL: &str =
    "--api-key requires a model to be specified via --model, --provider/--model, or --models";

/// A failed request with no message of its own.
pub const REQUEST_FAILED: &str = "Request failed";

/// RPC: a line that is not a JSON command.
pub fn rpc_parse_failed(msg: &str) -> String {
    format!("Failed to parse command: {msg}")
}

/// RPC: how a command without a `type` is named in its unknown-command
/// answer (the reference prints JavaScript's `undefined`).
pub const RPC_NO_TYPE: &str = "undefined";

/// RPC: a prompt while streaming without `streamingBehavior`.
pub const RPC_ALREADY_STREAMING: &str =
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/// RPC `steer`/`follow_up` naming an extension command (as the reference).
pub fn rpc_command_not_queued(name: &str) -> String {
    format!("Extension command \"/{name}\" cannot be queued. Use prompt() or execute the command when not streaming.")
}

/// Characters of a panic's message printed (the rest is cut).
pub const PANIC_MESSAGE_MAX_CHARS: usize = 300;

/// A panic (a bug in pi), in one line on standard error.
pub fn internal_error(location: &str, message: &str) -> String {
    let mut cut: String = message.chars().take(PANIC_MESSAGE_MAX_CHARS).collect();
    if message.chars().count() > PANIC_MESSAGE_MAX_CHARS {
        cut.push('…');
    }
    let cut = cut.replace('\n', " ");
    format!("pi: internal error at {location}: {cut}")
}

/// RPC `export_html` of a session without a file (as the reference).
pub const RPC_EXPORT_IN_MEMORY: &str = "Cannot export in-memory session to HTML";

/// RPC `set_session_name` with a blank name (as the reference).
pub const RPC_EMPTY_SESSION_NAME: &str = "Session name cannot be empty";

/// The title of an exported session page.
pub fn export_title(name: &str) -> String {
    format!("pi session {name}")
}

/// `--resume` ended without a choice (the reference's words).
pub const NO_SESSION_SELECTED: &str = "No session selected";
/// A session without a user message (the picker's words).
pub const NO_MESSAGES: &str = "(no messages)";
/// Characters of a session's name or first message in `--resume`'s plain listing.
pub const RESUME_LIST_WIDTH: usize = 80;

/// Bytes gathered before each write while an event's JSON line is
/// serialised to stdout (JSON mode).
pub const EVENT_WRITE_BUFFER: usize = 64 * 1024;

/// One session in `--resume`'s listing without a terminal.
pub fn resume_list_row(shown: &str, messages: usize, age: &str, path: &str) -> String {
    format!("{shown}\t{messages} {age}\t{path}")
}

/// `--resume` without a terminal, in a folder without sessions.
pub fn no_sessions_in(dir: &std::path::Path) -> String {
    format!("No sessions in {}", dir.display())
}

/// A continued session's stored folder is gone, outside a terminal (the reference's words).
pub fn missing_session_cwd(stored: &str, file: &str, here: &str) -> String {
    format!(
        "Stored session working directory does not exist: {stored}\nSession file: {file}\nCurrent working directory: {here}"
    )
}

/// The question on a terminal.
pub fn missing_session_cwd_prompt(stored: &str) -> String {
    format!("Session cwd does not exist: {stored}")
}

/// Its first answer.
pub fn missing_cwd_continue(here: &str) -> String {
    format!("Continue in {here} (asks again next time)")
}

/// Its second answer.
pub fn missing_cwd_fork(here: &str) -> String {
    format!("Fork into {here} (new session ID, original kept)")
}

/// Its last answer.
pub const CANCEL: &str = "Cancel";

/// `--export` of a file that does not exist (the reference's words).
pub fn export_file_not_found(path: &std::path::Path) -> String {
    format!("File not found: {}", path.display())
}

/// `--export` done.
pub fn exported_to(path: &std::path::Path) -> String {
    format!("Exported to: {}", path.display())
}

/// Session flags given together that do not go together (the reference's words).
pub fn cannot_combine(flag: &str, with: &[&str]) -> String {
    format!("{flag} cannot be combined with {}", with.join(", "))
}

// `pi mcp` (crate::mcp_cmd).

/// `pi mcp` without a sub-command, or a wrong one.
pub const MCP_USAGE: &str = "Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list

Options for add and remove:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send \"Authorization: Bearer ${NAME}\"
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt";
/// `pi mcp add` with both or neither of a command and `--url`.
pub const MCP_ADD_NEEDS_ONE: &str = "pi mcp add needs either -- <command> [args...] or --url <url>, not both";
/// `pi mcp login|logout`: OAuth sign-in is not part of this build.
pub const MCP_OAUTH_UNSUPPORTED: &str = "OAuth sign-in for MCP servers is not supported yet; set an Authorization header (--header or --bearer-token-env-var) instead";

/// A flag of `pi mcp` without its value.
pub fn mcp_missing_value(flag: &str) -> String {
    format!("{flag} needs a value")
}
/// `--env`/`--header` without `KEY=VALUE`.
pub fn mcp_bad_pair(flag: &str, v: &str) -> String {
    format!("{flag} expects KEY=VALUE, got \"{v}\"")
}
/// An unknown option of `pi mcp add`.
pub fn mcp_unknown_option(o: &str) -> String {
    format!("Unknown option: {o}")
}
/// A second positional argument of `pi mcp add`.
pub fn mcp_unexpected(a: &str) -> String {
    format!("Unexpected argument: {a} (put the server's command after --)")
}
/// `pi mcp add` succeeded.
pub fn mcp_added(scope: &str, name: &str, path: &std::path::Path) -> String {
    format!("Added {scope} MCP server \"{name}\" in {}.\nCheck it with: pi mcp list", path.display())
}
/// `pi mcp remove` succeeded.
pub fn mcp_removed(scope: &str, name: &str, path: &std::path::Path) -> String {
    format!("Removed {scope} MCP server \"{name}\" from {}.", path.display())
}
/// `pi mcp remove` of an unknown server.
pub fn mcp_no_server(scope: &str, name: &str, path: &std::path::Path) -> String {
    format!("No {scope} MCP server named \"{name}\" in {}.", path.display())
}

/// RPC mode, standard input closed: how long the aborted run may take to
/// record its end before pi exits.
pub const RPC_EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// How long pi waits, when it ends, for work of its runtime still going
/// (a read of standard input that will never finish).
pub const RUNTIME_SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// `/llama` without a terminal UI (RPC).
pub const LLAMA_NEEDS_UI: &str = "/llama is available in interactive mode";
/// `/llama` before the router is configured.
pub const LLAMA_NOT_CONFIGURED: &str = "Configure llama.cpp with /login llama.cpp";
/// `/llama`: the router lists no model.
pub const LLAMA_NO_MODELS: &str =
    "The llama.cpp router lists no models. Check its --models-dir and restart it (see `llama serve --help`).";
/// `/llama`: the picker's title.
pub const LLAMA_PICK_TITLE: &str = "llama.cpp models (select one to load or unload)";

/// `/llama`: one row of the picker.
pub fn llama_row(id: &str, state: &str) -> String {
    format!("{id}  [{state}]")
}

/// `/login llama.cpp`: the URL question.
pub const LLAMA_URL_TITLE: &str = "llama.cpp server URL";
/// `/login llama.cpp`: the key question.
pub const LLAMA_KEY_TITLE: &str = "API key (optional)";

/// A replaceable built-in extension left out because a script registers
/// `name` (`tool:<n>` or `command:<n>`), as the reference says it.
pub fn builtin_replaced(builtin: &str, extension: &str, name: &str) -> String {
    let (kind, raw) = name.split_once(':').unwrap_or(("tool", name));
    let shown = if kind == "command" { format!("/{raw}") } else { raw.to_string() };
    format!(
        "Extension package \"builtin:{builtin}\": Extension {extension} registers {kind} `{shown}`, so built-in extension `{builtin}` was not loaded. To use `{builtin}`, run `pi config` and make sure it is enabled under Built-in extensions, then disable or remove the existing extension. We recommend only having one or the other loaded at a time."
    )
}

/// A package whose `dependencies` name packages pi provides to extensions.
pub fn host_provided_dependencies(manifest: &str, names: &str) -> String {
    format!(
        "Extension package \"{manifest}\": Host-provided extension packages must be declared in peerDependencies with a \"*\" range, not dependencies: {names}. Installed copies can bypass the extension loader and create duplicate runtime modules."
    )
}
