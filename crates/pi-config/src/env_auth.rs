//! How a built-in provider's credentials are found in the environment: its key
//! variables (from the catalogue), and the ambient cloud credentials of Google
//! Vertex AI and Amazon Bedrock.

use std::path::{Path, PathBuf};

use crate::catalog::builtin_provider;

/// Variables any one of which gives Amazon Bedrock credentials (besides the
/// access-key pair [`AWS_KEY_PAIR`]).
pub const AWS_CREDENTIAL_VARS: [&str; 5] = [
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
];
/// The access-key pair that gives Amazon Bedrock credentials when both are set.
pub const AWS_KEY_PAIR: [&str; 2] = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"];
/// The file of Google's application default credentials (ADC).
pub const GOOGLE_ADC_VAR: &str = "GOOGLE_APPLICATION_CREDENTIALS";
/// Where `gcloud auth application-default login` writes ADC, under the home folder.
pub const GOOGLE_ADC_DEFAULT: &str = ".config/gcloud/application_default_credentials.json";
/// Variables naming the Google Cloud project (either one).
pub const GOOGLE_PROJECT_VARS: [&str; 2] = ["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"];
/// The variable naming the Google Cloud location.
pub const GOOGLE_LOCATION_VAR: &str = "GOOGLE_CLOUD_LOCATION";

/// What the checks read: environment variables and the home folder.
pub trait EnvSource {
    /// The variable's value, `None` when unset or empty.
    fn var(&self, name: &str) -> Option<String>;
    /// The user's home folder.
    fn home(&self) -> Option<PathBuf>;
}

/// The process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl EnvSource for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
    fn home(&self) -> Option<PathBuf> {
        std::env::var_os("HOME").map(PathBuf::from)
    }
}

/// Key variables that hold a bearer token rather than an API key: they make
/// the provider usable, but are sent as `Authorization: Bearer`.
pub const BEARER_TOKEN_VARS: [&str; 1] = ["ANTHROPIC_AUTH_TOKEN"];

/// The first of `provider`'s key variables that is set: its name and value.
pub fn env_credential(env: &dyn EnvSource, provider: &str) -> Option<(&'static str, String)> {
    let p = builtin_provider(provider)?;
    p.key_env.iter().find_map(|name| env.var(name).map(|v| (*name, v)))
}

/// The first of `provider`'s key variables that holds an API key (not a
/// [`BEARER_TOKEN_VARS`] one): its name and value.
pub fn env_api_key(env: &dyn EnvSource, provider: &str) -> Option<(&'static str, String)> {
    let p = builtin_provider(provider)?;
    let keys = p.key_env.iter().filter(|name| !BEARER_TOKEN_VARS.contains(name));
    keys.into_iter().find_map(|name| env.var(name).map(|v| (*name, v)))
}

/// Whether the environment gives `provider` credentials: one of its key
/// variables, or the ambient cloud credentials of `google-vertex` (ADC with a
/// project and a location) and `amazon-bedrock` (a profile, the access-key
/// pair, a bearer token, container or web-identity credentials).
pub fn env_has_auth(env: &dyn EnvSource, provider: &str) -> bool {
    if env_credential(env, provider).is_some() {
        return true;
    }
    match provider {
        "google-vertex" => vertex_adc(env),
        "amazon-bedrock" => {
            AWS_CREDENTIAL_VARS.iter().any(|v| env.var(v).is_some())
                || AWS_KEY_PAIR.iter().all(|v| env.var(v).is_some())
        }
        // A router needs no key: its URL configures it.
        crate::llama::PROVIDER => env.var(crate::llama::BASE_URL_VAR).is_some(),
        _ => false,
    }
}

fn vertex_adc(env: &dyn EnvSource) -> bool {
    let file = match env.var(GOOGLE_ADC_VAR) {
        Some(path) => PathBuf::from(path),
        None => match env.home() {
            Some(home) => home.join(GOOGLE_ADC_DEFAULT),
            None => return false,
        },
    };
    Path::new(&file).exists()
        && GOOGLE_PROJECT_VARS.iter().any(|v| env.var(v).is_some())
        && env.var(GOOGLE_LOCATION_VAR).is_some()
}

/// Whether every `{NAME}` placeholder of `base_url` (upper-case letters, digits
/// and `_`, as `{CLOUDFLARE_ACCOUNT_ID}`) names a set variable: a model whose
/// URL cannot be completed is not usable.
pub fn base_url_ready(env: &dyn EnvSource, base_url: &str) -> bool {
    placeholders(base_url).all(|name| env.var(name).is_some())
}

/// `base_url` with its `{NAME}` placeholders replaced by the variables' values.
pub fn fill_base_url(env: &dyn EnvSource, base_url: &str) -> String {
    let mut out = base_url.to_string();
    for name in placeholders(base_url) {
        if let Some(v) = env.var(name) {
            out = out.replace(&format!("{{{name}}}"), &v);
        }
    }
    out
}

fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    text.split('{').skip(1).filter_map(|rest| {
        let name = rest.split_once('}')?.0;
        let upper = !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        upper.then_some(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Fake(HashMap<&'static str, String>, Option<PathBuf>);

    impl EnvSource for Fake {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).cloned().filter(|v| !v.is_empty())
        }
        fn home(&self) -> Option<PathBuf> {
            self.1.clone()
        }
    }

    fn env(vars: &[(&'static str, &str)]) -> Fake {
        Fake(vars.iter().map(|(k, v)| (*k, v.to_string())).collect(), None)
    }

    #[test]
    fn key_variables_in_order() {
        assert!(env_has_auth(&env(&[("GEMINI_API_KEY", "k")]), "google"));
        assert!(!env_has_auth(&env(&[("GEMINI_API_KEY", "")]), "google"), "empty is unset");
        assert!(!env_has_auth(&env(&[("OPENAI_API_KEY", "k")]), "google"));
        let both = env(&[("ANTHROPIC_API_KEY", "a"), ("ANTHROPIC_OAUTH_TOKEN", "o")]);
        assert_eq!(env_api_key(&both, "anthropic"), Some(("ANTHROPIC_OAUTH_TOKEN", "o".into())));
        let bearer = env(&[("ANTHROPIC_AUTH_TOKEN", "b")]);
        assert!(env_has_auth(&bearer, "anthropic"));
        assert_eq!(env_api_key(&bearer, "anthropic"), None);
        assert_eq!(env_credential(&bearer, "anthropic"), Some(("ANTHROPIC_AUTH_TOKEN", "b".into())));
        assert!(env_has_auth(&env(&[("COPILOT_GITHUB_TOKEN", "t")]), "github-copilot"));
        assert!(env_has_auth(&env(&[("QWEN_TOKEN_PLAN_API_KEY", "t")]), "qwen-token-plan"));
        assert!(!env_has_auth(&env(&[("X", "t")]), "nosuch"));
        assert!(env_has_auth(&env(&[("LLAMA_BASE_URL", "http://h:1")]), "llama.cpp"));
        assert!(!env_has_auth(&env(&[("LLAMA_API_KEY", "k")]), "llama.cpp"), "the URL configures it");
    }

    #[test]
    fn bedrock_and_vertex_ambient_credentials() {
        assert!(env_has_auth(&env(&[("AWS_PROFILE", "p")]), "amazon-bedrock"));
        assert!(!env_has_auth(&env(&[("AWS_ACCESS_KEY_ID", "a")]), "amazon-bedrock"), "half a pair");
        assert!(env_has_auth(&env(&[("AWS_ACCESS_KEY_ID", "a"), ("AWS_SECRET_ACCESS_KEY", "s")]), "amazon-bedrock"));
        assert!(env_has_auth(&env(&[("AWS_WEB_IDENTITY_TOKEN_FILE", "/t")]), "amazon-bedrock"));
        let dir = tempfile::tempdir().unwrap();
        let adc = dir.path().join("adc.json");
        std::fs::write(&adc, "{}").unwrap();
        let adc = adc.to_string_lossy().to_string();
        let full = [(GOOGLE_ADC_VAR, adc.as_str()), ("GCLOUD_PROJECT", "p"), (GOOGLE_LOCATION_VAR, "l")];
        assert!(env_has_auth(&env(&full), "google-vertex"));
        assert!(!env_has_auth(&env(&full[..2]), "google-vertex"), "no location");
        let missing = [(GOOGLE_ADC_VAR, "/nonexistent/adc.json"), ("GCLOUD_PROJECT", "p"), (GOOGLE_LOCATION_VAR, "l")];
        assert!(!env_has_auth(&env(&missing), "google-vertex"));
        std::fs::create_dir_all(dir.path().join(".config/gcloud")).unwrap();
        std::fs::write(dir.path().join(GOOGLE_ADC_DEFAULT), "{}").unwrap();
        let mut home = env(&full[1..]);
        home.1 = Some(dir.path().to_path_buf());
        assert!(env_has_auth(&home, "google-vertex"), "the default ADC file");
        assert!(env_has_auth(&env(&[("GOOGLE_CLOUD_API_KEY", "k")]), "google-vertex"));
    }

    #[test]
    fn base_url_placeholders() {
        let url = "https://x/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat";
        assert!(!base_url_ready(&env(&[("CLOUDFLARE_ACCOUNT_ID", "a")]), url));
        let both = env(&[("CLOUDFLARE_ACCOUNT_ID", "a"), ("CLOUDFLARE_GATEWAY_ID", "g")]);
        assert!(base_url_ready(&both, url));
        assert_eq!(fill_base_url(&both, url), "https://x/v1/a/g/compat");
        assert!(
            base_url_ready(&env(&[]), "https://{location}-aiplatform.googleapis.com"),
            "lower case is not a variable"
        );
        assert!(base_url_ready(&env(&[]), "https://{}/x{"));
    }
}
