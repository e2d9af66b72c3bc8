//! The providers `pi auth` knows: their display names and how each signs in.

/// How a provider signs in with an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// An API key only.
    ApiKey,
    /// Anthropic (Claude Pro/Max): browser with a local callback, or a pasted code.
    Anthropic,
    /// OpenAI Codex (ChatGPT): browser with a local callback, or the pasted redirect.
    Codex,
    /// GitHub Copilot: a device code.
    Copilot,
}

/// (provider ID, display name, sign-in method), as the reference names them.
pub const PROVIDERS: &[(&str, &str, Method)] = &[
    ("amazon-bedrock", "Amazon Bedrock", Method::ApiKey),
    ("anthropic", "Anthropic", Method::Anthropic),
    ("azure", "Azure OpenAI", Method::ApiKey),
    ("cerebras", "Cerebras", Method::ApiKey),
    ("deepseek", "DeepSeek", Method::ApiKey),
    ("github-copilot", "GitHub Copilot", Method::Copilot),
    ("google", "Google Gemini", Method::ApiKey),
    ("groq", "Groq", Method::ApiKey),
    ("huggingface", "Hugging Face", Method::ApiKey),
    ("mistral", "Mistral", Method::ApiKey),
    ("openai", "OpenAI", Method::ApiKey),
    ("openai-codex", "OpenAI Codex", Method::Codex),
    ("openrouter", "OpenRouter", Method::ApiKey),
    ("vercel-ai-gateway", "Vercel AI Gateway", Method::ApiKey),
    ("xai", "xAI", Method::ApiKey),
];

fn find(provider: &str) -> Option<&'static (&'static str, &'static str, Method)> {
    PROVIDERS.iter().find(|(id, _, _)| *id == provider)
}

/// Whether `provider` is built in or configured in `models.json`.
pub fn is_known(provider: &str) -> bool {
    find(provider).is_some() || known_ids().iter().any(|p| p == provider)
}

/// Every known provider ID, sorted.
pub fn known_ids() -> Vec<String> {
    let models = pi_config::load_models(&pi_config::agent_dir()).unwrap_or_else(|_| pi_config::builtin_models());
    let mut ids: Vec<String> = PROVIDERS.iter().map(|(id, _, _)| id.to_string()).collect();
    // The router's models come with the built-in extension, which `pi auth` does not load (as the reference).
    ids.extend(models.into_iter().map(|m| m.provider).filter(|p| p != pi_config::llama::PROVIDER));
    ids.sort();
    ids.dedup();
    ids
}

/// The provider's display name (its ID when it has none).
pub fn display_name(provider: &str) -> String {
    find(provider).map_or_else(|| provider.to_string(), |(_, name, _)| name.to_string())
}

/// How the provider signs in with an account.
pub fn method(provider: &str) -> Method {
    find(provider).map_or(Method::ApiKey, |(_, _, m)| *m)
}
