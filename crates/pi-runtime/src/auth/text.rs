//! Every message of the credential code and `pi auth`, in one place.
//! Texts marked "reference" are the reference's own words.

/// A stored OAuth token could not be refreshed.
pub fn refresh_failed(provider: &str, cause: &str) -> String {
    format!(
        "OAuth refresh failed for {provider}: {cause}. Use /login {provider} (or `pi auth login {provider}`) to sign in again."
    )
}

/// A stored OAuth login of a provider pi cannot refresh.
pub fn cannot_refresh(provider: &str) -> String {
    format!("pi cannot refresh the OAuth login stored for {provider}")
}

/// reference: `pi auth` without a known command.
pub fn unknown_command(cmd: &str) -> String {
    format!(
        "Error: Unknown auth command \"{cmd}\". Use \"pi auth login\", \"pi auth logout\", \"pi auth print-api-key\", \"pi auth print-bearer-token\", or \"pi auth check\"."
    )
}

/// reference: `pi auth print-*` without a provider or model.
pub const PRINT_NEEDS_TARGET: &str = "Error: Credential printing requires --provider <provider> or --model <model>";
/// reference: `pi auth check` without a provider or model.
pub const CHECK_NEEDS_TARGET: &str = "Error: Auth checks require --provider <provider> or --model <model>";
/// reference: no key for `print-api-key`.
pub const NO_API_KEY: &str = "Error: No usable API key is configured";
/// reference: a refresh or a `--min-expiry` that cannot be met.
pub const RESOLVE_FAILED: &str = "Error: Failed to resolve credential";
/// reference: a bad `--min-expiry`.
pub const BAD_MIN_EXPIRY: &str = "Error: --min-expiry must use a duration such as 30m or 1h";
/// reference: `login` usage.
pub const LOGIN_USAGE: &str = "Usage: pi auth login <provider> [--api-key] [--no-browser]";
/// reference: `logout` usage.
pub const LOGOUT_USAGE: &str = "Usage: pi auth logout <provider>";
/// reference: `--no-browser` with `--api-key`.
pub const NO_BROWSER_WITH_KEY: &str = "--no-browser only applies to account sign-in; omit it with --api-key.";
/// An empty key was entered.
pub const EMPTY_KEY: &str = "No API key entered; nothing was saved.";

/// reference: an unknown provider for the print commands.
pub fn unknown_provider(p: &str) -> String {
    format!("Error: Unknown provider \"{p}\". Use --list-models to see available providers.")
}

/// reference: `print-bearer-token` for a provider without an OAuth login.
pub fn not_oauth(p: &str) -> String {
    format!("Error: Provider \"{p}\" is not configured with an OAuth bearer token")
}

/// reference: `print-api-key` for a provider with an OAuth login.
pub fn oauth_not_key(p: &str) -> String {
    format!("Error: Provider \"{p}\" is configured with OAuth, not an API key")
}

/// reference: `login`/`logout` of an unknown provider (first line).
pub fn unknown_login_provider(p: &str) -> String {
    format!("Unknown provider \"{p}\".")
}

/// reference: the prompt for a key.
pub fn enter_key(name: &str) -> String {
    format!("Enter {name} API key: ")
}

/// reference: after saving a key.
pub fn saved_key(name: &str, path: &std::path::Path) -> String {
    format!("Saved API key for {name}. Credentials saved to {}", path.display())
}

/// reference: after an account login.
pub fn logged_in(name: &str, path: &std::path::Path) -> String {
    format!("Logged in to {name}. Credentials saved to {}", path.display())
}

/// reference: a failed account login.
pub fn login_failed(name: &str, cause: &str) -> String {
    format!("Failed to log in to {name}: {cause}")
}

/// reference: after `logout` removed a login or a key.
pub fn removed(kind: &str, name: &str) -> String {
    if kind == "oauth" {
        format!("Logged out of {name}.")
    } else {
        format!("Removed stored API key for {name}. Environment variables and models.json config are unchanged.")
    }
}

/// reference: `logout` with nothing stored.
pub fn nothing_stored(name: &str) -> String {
    format!("No stored credentials for {name}. Environment variables and models.json config are unchanged.")
}

/// reference: the sign-in page is shown.
pub const OPEN_URL: &str = "Open this URL to sign in:";
/// reference: the browser login's hint.
pub const BROWSER_HINT: &str =
    "Complete login in your browser. If the browser is on another machine, paste the final redirect URL here.";
/// reference: the browser login's prompt.
pub const BROWSER_PROMPT: &str =
    "Complete login in your browser, or paste the authorization code / redirect URL here: ";
/// reference: the code-paste login's hint.
pub const PASTE_HINT: &str = "Complete login in your browser, then copy the code Anthropic shows and paste it here.";
/// reference: the code-paste login's prompt.
pub const PASTE_PROMPT: &str = "Paste the code Anthropic shows after you sign in: ";
/// reference: while the code is exchanged.
pub const EXCHANGING: &str = "Exchanging authorization code for tokens...";
/// reference: the device login's instruction.
pub fn device_code(uri: &str, code: &str) -> String {
    format!("Open {uri} and enter code: {code}")
}
/// reference: while the device login waits.
pub const WAITING: &str = "Waiting for authentication...";
/// reference: the GitHub host prompt.
pub const GITHUB_HOST_PROMPT: &str = "GitHub Enterprise URL/domain (blank for github.com): ";
/// reference: the other login method's hint.
pub fn other_method(label: &str, provider: &str) -> String {
    format!("To use \"{label}\" instead, run \"pi auth login {provider} --no-browser\"")
}
/// No code was given.
pub const NO_CODE: &str = "No authorization code was entered.";

/// reference: `--min-expiry` on another command.
pub const MIN_EXPIRY_ONLY: &str = "Error: --min-expiry is only supported by print-bearer-token";
/// reference: a stray argument.
pub const ONLY_PROVIDER_AND_MODEL: &str = "Error: Auth commands only accept --provider and --model";

/// reference: an unknown option.
pub fn unknown_option(option: &str, cmd: &str) -> String {
    format!(
        "Unknown option {option} for \"auth {cmd}\".\nUse \"pi --help\" or \"pi auth {cmd} --provider <provider> [--model <model>]\"."
    )
}

/// A login that took too long.
pub const LOGIN_TIMED_OUT: &str = "the login timed out";
/// A pasted answer for another login.
pub const STATE_MISMATCH: &str = "The pasted code belongs to another login (its state does not match); try again.";
/// reference: the Codex browser login's hint.
pub const CODEX_BROWSER_HINT: &str = "A browser window should open. Complete login to finish.";
/// GitHub Enterprise hosts are not supported.
pub const ENTERPRISE_UNSUPPORTED: &str =
    "GitHub Enterprise hosts are not supported in this version; leave it blank for github.com";

/// The local callback could not listen.
pub fn callback_failed(port: u16, cause: &str) -> String {
    format!("could not listen for the sign-in callback on 127.0.0.1:{port} ({cause})")
}

/// `/logout` with nothing stored.
pub const NO_STORED_CREDENTIALS: &str = "No stored credentials to log out of.";
