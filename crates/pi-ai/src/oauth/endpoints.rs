//! The providers' OAuth endpoints and client IDs (facts observed from the
//! reference's requests), and the test-only redirection of all of them.

/// Test-only: when set to an origin such as `http://127.0.0.1:8080`, every
/// endpoint `https://HOST/PATH` becomes `ORIGIN/HOST/PATH`, so tests can
/// answer them with a local mock server. Not for real use.
pub const TEST_ORIGIN_ENV: &str = "PI_TEST_OAUTH_ORIGIN";

/// Anthropic (Claude Pro/Max): the client ID.
pub const ANTHROPIC_CLIENT_ID: &str = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
/// Anthropic: where the user signs in.
pub const ANTHROPIC_AUTHORIZE_URL: &str = "https://claude.ai/oauth/authorize";
/// Anthropic: code exchange and refresh (JSON body).
pub const ANTHROPIC_TOKEN_URL: &str = "https://platform.claude.com/v1/oauth/token";
/// Anthropic: the redirect of the code-paste login (the page shows `code#state`).
pub const ANTHROPIC_MANUAL_REDIRECT_URI: &str = "https://platform.claude.com/oauth/code/callback";
/// Anthropic: the local callback's port and path.
pub const ANTHROPIC_CALLBACK: (u16, &str) = (53692, "/callback");
/// Anthropic: the scopes asked for.
pub const ANTHROPIC_SCOPES: &str =
    "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload";

/// OpenAI Codex (ChatGPT): the client ID.
pub const CODEX_CLIENT_ID: &str = "app_EMoamEEZ73f0CkXaXp7hrann";
/// OpenAI Codex: where the user signs in.
pub const CODEX_AUTHORIZE_URL: &str = "https://auth.openai.com/oauth/authorize";
/// OpenAI Codex: code exchange and refresh (form body).
pub const CODEX_TOKEN_URL: &str = "https://auth.openai.com/oauth/token";
/// OpenAI Codex: the local callback's port and path.
pub const CODEX_CALLBACK: (u16, &str) = (1455, "/auth/callback");
/// OpenAI Codex: the scopes asked for.
pub const CODEX_SCOPES: &str = "openid profile email offline_access";
/// OpenAI Codex: where a device code is asked for (JSON `{client_id}`).
pub const CODEX_DEVICE_CODE_URL: &str = "https://auth.openai.com/api/accounts/deviceauth/usercode";
/// OpenAI Codex: polled until the device code was entered.
pub const CODEX_DEVICE_TOKEN_URL: &str = "https://auth.openai.com/api/accounts/deviceauth/token";
/// OpenAI Codex: where the user enters the device code.
pub const CODEX_DEVICE_PAGE: &str = "https://auth.openai.com/codex/device";
/// OpenAI Codex: the redirect of the device login's code exchange.
pub const CODEX_DEVICE_REDIRECT_URI: &str = "https://auth.openai.com/deviceauth/callback";
/// OpenAI Codex: the claim of the access token that holds the account.
pub const CODEX_AUTH_CLAIM: &str = "https://api.openai.com/auth";
/// OpenAI Codex: the `originator` sent with the login.
pub const CODEX_ORIGINATOR: &str = "pi";

/// GitHub Copilot: the client ID of the device login.
pub const COPILOT_CLIENT_ID: &str = "Iv1.b507a08c87ecfe98";
/// GitHub Copilot: where a device code is asked for.
pub const COPILOT_DEVICE_CODE_URL: &str = "https://github.com/login/device/code";
/// GitHub Copilot: where the device code is exchanged for a GitHub token.
pub const COPILOT_ACCESS_TOKEN_URL: &str = "https://github.com/login/oauth/access_token";
/// GitHub Copilot: the scope asked for.
pub const COPILOT_SCOPE: &str = "read:user";

/// `url`, redirected to the test origin when [`TEST_ORIGIN_ENV`] is set.
pub fn resolve(url: &str) -> String {
    match std::env::var(TEST_ORIGIN_ENV) {
        Ok(origin) if !origin.is_empty() => redirect(url, &origin),
        _ => url.to_string(),
    }
}

/// `https://HOST/PATH` as `ORIGIN/HOST/PATH`.
fn redirect(url: &str, origin: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    format!("{}/{rest}", origin.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_to_the_test_origin() {
        assert_eq!(
            redirect(ANTHROPIC_TOKEN_URL, "http://127.0.0.1:9/"),
            "http://127.0.0.1:9/platform.claude.com/v1/oauth/token"
        );
    }
}
