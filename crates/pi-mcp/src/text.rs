//! Every message and limit of MCP support the user or the model sees.

use std::time::Duration;

/// Model-facing text of an MCP result beyond this many bytes is cut in the middle.
pub const MCP_OUTPUT_MAX_BYTES: usize = 20 * 1024;
/// Longest tool name a provider accepts.
pub const MAX_TOOL_NAME_LENGTH: usize = 64;
/// Per-request timeout when a server sets none (seconds).
pub const DEFAULT_TIMEOUT_SECS: f64 = 60.0;
/// How long the first prompt waits for servers with `direct` tools.
pub const DIRECT_WAIT: Duration = Duration::from_secs(10);
/// How long connecting (spawn + `initialize` + `tools/list`) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// After closing stdin, how long a stdio server has before SIGTERM, then SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_millis(500);
/// `mcp.log` is rotated to `mcp.log.1` past this size.
pub const LOG_MAX_BYTES: u64 = 5 * 1024 * 1024;
/// Output of a `!command` substitution beyond this is refused.
pub const COMMAND_OUTPUT_MAX_BYTES: usize = 64 * 1024;

/// Warning when non-direct MCP tools exist but neither codemode nor tool_search is active.
pub const UNREACHABLE_WARNING: &str = "MCP tools with codemode or deferred exposure are configured, but neither codemode nor tool_search is active: the model cannot reach them.";

/// The description of a tool whose server gave none.
pub fn default_description(tool: &str, server: &str) -> String {
    format!("MCP tool {tool} from server {server}")
}

/// The text of an `isError` result without text.
pub fn tool_returned_error(server: &str, tool: &str) -> String {
    format!("MCP tool {server}/{tool} returned an error")
}

/// The one text block of a truncated result.
pub fn truncated(total_bytes: usize, total_lines: usize, middle: &str, saved: &str) -> String {
    let tokens = total_bytes.div_ceil(4);
    format!(
        "Warning: truncated output (original token count: {tokens})\nTotal output lines: {total_lines}\n\n{middle}{saved}"
    )
}

/// Where the full text of a truncated result is.
pub fn full_output(path: &str) -> String {
    format!("\n\n[Full output: {path} (read it with offset/limit)]")
}

/// The full text of a truncated result could not be saved.
pub fn full_output_unsaved(error: &str) -> String {
    format!("\n\n[Could not save the full output: {error}]")
}

/// The middle marker of a truncated text.
pub fn chars_truncated(n: usize) -> String {
    format!("…{n} chars truncated…")
}

/// A resource link as the model reads it (`details`: ` (mime, size)` or empty;
/// `description`: `: text` or empty; `read`: [`read_resource_hint`] or empty).
pub fn resource_link(uri: &str, title: &str, details: &str, description: &str, read: &str) -> String {
    format!("[Resource {uri} \"{title}\"{details}{description}{read}]")
}

/// How to read a linked resource.
pub fn read_resource_hint(server: &str) -> String {
    format!(". Read it with read_mcp_resource (server \"{server}\")")
}

/// A binary resource saved to a file (`kind`: `mime, size`).
pub fn binary_resource_saved(uri: &str, kind: &str, path: &str) -> String {
    format!("[Binary resource {uri} ({kind}) saved to {path}]")
}

/// A binary resource that could not be saved.
pub fn binary_resource_unsaved(uri: &str, kind: &str, why: &str) -> String {
    format!("[Binary resource {uri} ({kind}) could not be saved: {why}]")
}

/// A call to a server that is not connected and could not connect.
pub fn not_connected(server: &str, why: &str) -> String {
    format!("MCP server \"{server}\" is not connected: {why}")
}

/// A call that failed in the protocol (not an `isError` result).
pub fn call_failed(server: &str, tool: &str, why: &str) -> String {
    format!("MCP tool {server}/{tool} failed: {why}")
}

/// A request that ran out of time.
pub fn timed_out(secs: f64) -> String {
    format!("request timed out after {secs} seconds without progress")
}

/// A server that answers 401: it needs OAuth sign-in, which this build does not do.
pub fn needs_sign_in(server: &str) -> String {
    format!(
        "server \"{server}\" needs sign-in (HTTP 401); OAuth sign-in is not supported yet: set an Authorization header instead"
    )
}

/// A server that stopped while connecting or during a call.
pub const SERVER_CLOSED: &str = "the server closed the connection";
/// Connecting failed inside the MCP client (a bug), reported instead of hanging.
pub const CONNECT_PANICKED: &str = "internal error while connecting (see mcp.log)";
/// Connecting took longer than [`CONNECT_TIMEOUT`].
pub const CONNECT_TIMED_OUT: &str = "the server did not finish initialize in time";
/// The call was aborted.
pub const CALL_ABORTED: &str = "Operation aborted";
/// Characters of the whole `<mcp_servers>` section.
pub const MAX_SERVERS_SECTION_CHARS: usize = 4096;
/// Characters of one server's summary in the section.
pub const MAX_SERVER_DESCRIPTION_CHARS: usize = 250;
/// First words of the `<mcp_servers>` section.
pub const SERVERS_INTRO: &str = "MCP servers whose tools are not declared to you.";
/// Added when some listed server is reached through codemode.
pub const SERVERS_INTRO_CODEMODE: &str = " Call the tools of `codemode` servers from codemode scripts.";
/// Added when some listed server is reached through tool_search.
pub const SERVERS_INTRO_SEARCH: &str = " Load the tools of `tool_search` servers with `tool_search`.";

/// The closing line when servers had to be left out of the section.
pub fn servers_omitted(n: usize) -> String {
    format!("- … {n} more server{}; find their tools with searchTools()", if n == 1 { "" } else { "s" })
}

/// A `${VAR}` of `env`/`headers` that is not set.
pub fn unresolved_variable(server: &str, what: &str, var: &str) -> String {
    format!("Failed to resolve MCP server \"{server}\" {what} from environment variable: {var}")
}

/// A resource tool named a server that offers no resources.
pub fn no_resources(server: &str, with_resources: &[&str]) -> String {
    let list = if with_resources.is_empty() { "none".to_string() } else { with_resources.join(", ") };
    format!("MCP server \"{server}\" has no resources. Servers with resources: {list}")
}

/// A required resource-tool argument that is missing or empty.
pub fn must_be_provided(what: &str) -> String {
    format!("{what} must be provided")
}

/// Pages of one server's resource list read for a listing of every server.
pub const MAX_RESOURCE_PAGES: usize = 100;
/// Raw resource answers kept while their requests are in flight.
pub const MAX_STASHED_RESULTS: usize = 16;
/// A server's output line longer than this is not kept raw (the typed answer is used).
pub const MAX_STASHED_LINE_BYTES: usize = 16 * 1024 * 1024;
/// A spawned server without the pipes asked for (should not happen).
pub const NO_PIPES: &str = "the server's standard input or output is missing";
/// How often a stopping server's process group is checked for being gone.
pub const STOP_POLL: Duration = Duration::from_millis(10);
/// Further attempts at connecting to an HTTP server after a network error or a transient status.
pub const HTTP_RETRIES: u32 = 2;
/// Further attempts at a resource request over HTTP after such a failure.
pub const HTTP_RESOURCE_RETRIES: u32 = 1;
/// The wait before the first retry (the n-th waits n times this).
pub const HTTP_RETRY_DELAY: Duration = Duration::from_millis(250);

/// The `mcp.log` line of a retried connection.
pub fn retrying(why: &str, attempt: u32) -> String {
    format!("transient failure ({why}); retry {attempt}")
}
/// When a signal ends pi: how long servers have after SIGTERM before SIGKILL.
pub const EXIT_GRACE: Duration = Duration::from_millis(200);

/// `/mcp` in the command list.
pub const MCP_COMMAND_DESCRIPTION: &str =
    "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure";
/// `/mcp` with arguments it does not know.
pub const MCP_USAGE: &str = "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]";
/// `/mcp login` / `logout`: OAuth is not in this build.
pub const SIGN_IN_UNSUPPORTED: &str =
    "MCP sign-in (OAuth) is not supported yet: set an Authorization header in mcp.json instead.";
/// `/mcp` when no server is configured (`user_file`: the agent dir's `mcp.json`).
pub fn no_servers(user_file: &str) -> String {
    format!("No MCP servers configured. Add them to {user_file} or .pi/mcp.json.")
}
/// `/mcp reconnect` with no enabled server to pick (or a disabled one named).
pub const NO_ENABLED_SERVER: &str = "No enabled MCP server to reconnect.";

fn tools_count(n: usize) -> String {
    format!("{n} tool{}", if n == 1 { "" } else { "s" })
}

/// `/mcp`: a connected server.
pub fn status_connected(server: &str, tools: usize, exposure: &str) -> String {
    format!("{server}: connected, {} ({exposure})", tools_count(tools))
}

/// `/mcp`: a failed server, its error on the next line.
pub fn status_failed(server: &str, exposure: &str, why: &str) -> String {
    format!("{server}: failed ({exposure})\n    {why}")
}

/// `/mcp`: a disabled, connecting or disconnected server.
pub fn status_other(server: &str, state: &str, exposure: &str) -> String {
    format!("{server}: {state} ({exposure})")
}

/// `/mcp reconnect` of a name not configured.
pub fn no_server_named(server: &str) -> String {
    format!("No MCP server named \"{server}\".")
}

/// `/mcp reconnect` that worked.
pub fn reconnected(server: &str, tools: usize, resources: bool) -> String {
    let resources = if resources { " · resources" } else { "" };
    format!("Reconnected to MCP server \"{server}\" (connected · {}{resources}).", tools_count(tools))
}

/// `/mcp reconnect` that failed.
pub fn failed_to_connect(server: &str, why: &str) -> String {
    format!("MCP server \"{server}\" failed to connect: {why}")
}

/// Characters of an HTTP error body kept in [`http_failed`] (the reference's).
pub const HTTP_ERROR_BODY_CHARS: usize = 500;
/// Bytes of an HTTP error body read at most.
pub const HTTP_ERROR_BODY_BYTES: usize = 64 * 1024;
/// Bytes one server-sent event of an HTTP answer may take.
pub const HTTP_MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;
/// Redirects an HTTP request follows at most (same origin, 307 and 308 only).
pub const HTTP_MAX_REDIRECTS: usize = 10;
/// The start of [`http_failed`]'s text (how a failure is found in rmcp's error chain).
pub const HTTP_FAILED_PREFIX: &str = "MCP HTTP request failed with status ";
/// A server-sent event past [`HTTP_MAX_EVENT_BYTES`].
pub const HTTP_EVENT_TOO_LARGE: &str = "a server-sent event of the answer is too large";

/// An HTTP request answered with a failure status, as the reference words
/// it: the body trimmed, cut to [`HTTP_ERROR_BODY_CHARS`] characters with `...`.
pub fn http_failed(status: u16, body: &str) -> String {
    let body = body.trim();
    let snippet = if body.chars().count() > HTTP_ERROR_BODY_CHARS {
        let cut: String = body.chars().take(HTTP_ERROR_BODY_CHARS - 3).collect();
        format!("{cut}...")
    } else {
        body.to_string()
    };
    if snippet.is_empty() {
        format!("{HTTP_FAILED_PREFIX}{status}")
    } else {
        format!("{HTTP_FAILED_PREFIX}{status}: {snippet}")
    }
}

/// The longest message a stdio MCP server may write, in bytes (an answer
/// past it fails its request at once, naming the limit).
pub const MCP_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The deepest nesting of objects and arrays in a message from a stdio MCP
/// server (the JSON-RPC envelope included).
pub const MCP_MAX_MESSAGE_DEPTH: usize = 100;

/// An answer past [`MCP_MAX_MESSAGE_BYTES`].
pub fn mcp_answer_too_large(limit: usize) -> String {
    format!(
        "The MCP server's answer is larger than the limit of {limit} bytes (MCP_MAX_MESSAGE_BYTES); it was not read"
    )
}

/// An answer past [`MCP_MAX_MESSAGE_DEPTH`].
pub fn mcp_answer_too_deep(limit: usize) -> String {
    format!(
        "The MCP server's answer is nested deeper than the limit of {limit} levels (MCP_MAX_MESSAGE_DEPTH); it was not read"
    )
}

// ---- mcp.json problems (after `<file>: mcpServers.<key>: `) -------------------

/// A file that is not JSON (`detail`: the parser's message).
pub fn invalid_json(detail: &str) -> String {
    format!("invalid JSON: {detail}")
}
/// A file whose top level is not an object.
pub const FILE_NOT_OBJECT: &str = "the file must hold a JSON object";
/// `mcpServers` that is not an object.
pub const SERVERS_NOT_OBJECT: &str = "mcpServers must be an object";
/// `auth.provider` in a project file.
pub const PROJECT_AUTH_PROVIDER: &str = "auth.provider is not allowed in a project file";
/// Two server names that give the same tool names.
pub fn name_clash(name: &str, other: &str) -> String {
    format!("server name \"{name}\" clashes with \"{other}\" (\"-\" and \"_\" are the same in tool names)")
}
/// A server name with other characters than letters, digits, `_` and `-`.
pub fn invalid_server_name(name: &str) -> String {
    format!("invalid server name \"{name}\" (use letters, digits, \"_\" and \"-\")")
}
/// An entry that is not an object.
pub fn server_not_object(name: &str) -> String {
    format!("server \"{name}\" must be an object")
}
/// `enabled` that is not a boolean.
pub const ENABLED_NOT_BOOL: &str = "enabled must be a boolean";
/// `description` that is not a string.
pub const DESCRIPTION_NOT_STRING: &str = "description must be a string";
/// `timeout` that is not a positive number.
pub const BAD_TIMEOUT: &str = "timeout must be a positive number of seconds";
/// An exposure value that is not one of the five (`key`: `exposure` or `toolExposure.<tool>`).
pub fn bad_exposure(key: &str) -> String {
    format!("{key} must be one of \"codemode\", \"codemode-deferred\", \"deferred\", \"direct\", \"hidden\"")
}
/// `toolExposure` that is not an object.
pub const TOOL_EXPOSURE_NOT_MAP: &str = "toolExposure must map tool names to exposures";
/// `type: "sse"`.
pub const LEGACY_SSE: &str = "legacy SSE transport is not supported; use the streamable HTTP URL";
/// A `url` that is not http or https.
pub const BAD_URL: &str = "url must be an http or https URL";
/// `args` that is not an array of strings.
pub const ARGS_NOT_STRINGS: &str = "args must be an array of strings";
/// `cwd` that is not a string.
pub const CWD_NOT_STRING: &str = "cwd must be a string";
/// `env` or `headers` that is not a map of strings.
pub fn not_string_map(what: &str) -> String {
    format!("{what} must map names to strings")
}
/// An entry with neither a command nor a URL.
pub fn no_transport(name: &str) -> String {
    format!("server \"{name}\" needs either \"command\" (stdio) or \"url\" (streamable HTTP)")
}

// ---- `!command` values of env and headers ----------------------------------------

/// `sh` could not be started for a `!command` value.
pub fn command_not_run(cmd: &str, error: &str) -> String {
    format!("cannot run \"!{cmd}\": {error}")
}
/// A `!command` value whose command failed (`status`: as the exit status shows).
pub fn command_failed(cmd: &str, status: &str) -> String {
    format!("\"!{cmd}\" failed ({status})")
}
/// A `!command` value whose command printed too much.
pub fn command_output_too_long(cmd: &str) -> String {
    format!("\"!{cmd}\" printed more than {COMMAND_OUTPUT_MAX_BYTES} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_failures_read_as_the_references() {
        assert_eq!(http_failed(503, "  busy\n"), "MCP HTTP request failed with status 503: busy");
        assert_eq!(http_failed(500, " \n"), "MCP HTTP request failed with status 500");
        let long = "é".repeat(600);
        let shown = http_failed(502, &long);
        let snippet = shown.strip_prefix("MCP HTTP request failed with status 502: ").unwrap_or_default();
        assert_eq!(snippet.chars().count(), HTTP_ERROR_BODY_CHARS, "cut to 500 characters, `...` included");
        assert!(snippet.ends_with("é..."));
    }
}
