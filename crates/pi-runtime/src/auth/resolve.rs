//! Which credential a request to a provider uses, as the reference chooses
//! it: `--api-key`, then the credential stored in `auth.json`, then
//! `models.json`'s `apiKey`, then the provider's environment variables.
//!
//! For Anthropic the environment gives `ANTHROPIC_AUTH_TOKEN` (sent as
//! `Authorization: Bearer`, no key), else `ANTHROPIC_OAUTH_TOKEN`, else
//! `ANTHROPIC_API_KEY`. A stored `!command` key runs once per process; its
//! answer (or its failure, which leaves the key unresolved) is kept.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::SystemTime;

use pi_config::auth::{ApiKeyCredential, AuthFile};
use pi_config::{AuthError, AuthStore, Credential, ModelEntry, resolve_value};

use super::error::ResolveError;

/// Anthropic's bearer-token variable (sent as `Authorization: Bearer`).
pub const ANTHROPIC_AUTH_TOKEN: &str = "ANTHROPIC_AUTH_TOKEN";
/// Anthropic's variable for a subscription token used as the key.
pub const ANTHROPIC_OAUTH_TOKEN: &str = "ANTHROPIC_OAUTH_TOKEN";

/// Where a credential came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `--api-key`.
    Cli,
    /// An `api_key` entry of `auth.json`.
    StoredKey,
    /// An `oauth` entry of `auth.json`.
    StoredOAuth,
    /// `models.json`'s `apiKey`.
    ModelsJson,
    /// An environment variable.
    Env,
}

/// A resolved credential.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The key or access token, when the credential is one.
    pub api_key: Option<String>,
    /// Headers that carry the credential instead (a bearer token).
    pub headers: BTreeMap<String, String>,
    /// Where it came from.
    pub source: Source,
    /// A stored OAuth login's expiry (ms since the epoch).
    pub expires: Option<i64>,
}

impl Resolved {
    fn key(key: String, source: Source) -> Self {
        Self { api_key: Some(key), headers: BTreeMap::new(), source, expires: None }
    }

    /// The key for `pi auth print-api-key` and `check --credentials`: the
    /// key, or the bearer token.
    pub fn secret(&self) -> Option<String> {
        self.api_key
            .clone()
            .or_else(|| self.headers.get("authorization").and_then(|v| v.strip_prefix("Bearer ")).map(String::from))
    }
}

/// The store in the agent dir.
pub fn store() -> AuthStore {
    AuthStore::in_dir(&pi_config::agent_dir())
}

/// Answers of `!command` keys, by command (`None`: it failed).
static COMMANDS: Mutex<Option<HashMap<String, Option<String>>>> = Mutex::new(None);

/// A stored key's value: literal, `$NAME`, or `!command` (run once per
/// process). Empty, failed or unresolved keys are `None`.
pub fn stored_key(k: &ApiKeyCredential) -> Option<String> {
    if !k.key.starts_with('!') {
        return resolve_value("key", &k.key).ok().filter(|v| !v.is_empty());
    }
    if let Ok(mut cache) = COMMANDS.lock() {
        let cache = cache.get_or_insert_with(HashMap::new);
        return cache
            .entry(k.key.clone())
            .or_insert_with(|| resolve_value("key", &k.key).ok().filter(|v| !v.is_empty()))
            .clone();
    }
    None
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The credential the environment gives for `entry`'s provider.
pub fn from_env(entry: &ModelEntry) -> Option<Resolved> {
    if entry.provider == "anthropic" {
        if let Some(token) = env(ANTHROPIC_AUTH_TOKEN) {
            let headers = BTreeMap::from([("authorization".to_string(), format!("Bearer {token}"))]);
            return Some(Resolved { api_key: None, headers, source: Source::Env, expires: None });
        }
        if let Some(token) = env(ANTHROPIC_OAUTH_TOKEN) {
            return Some(Resolved::key(token, Source::Env));
        }
    }
    if let Some((_, key)) = pi_config::env_auth::env_api_key(&pi_config::env_auth::ProcessEnv, &entry.provider) {
        return Some(Resolved::key(key, Source::Env));
    }
    let key = entry.env_key.as_deref().and_then(env);
    // A llama.cpp router without `--api-key` takes any key: send the reference's placeholder.
    let key = key
        .or_else(|| (entry.provider == pi_config::llama::PROVIDER).then(|| pi_config::llama::DEFAULT_KEY.to_string()));
    key.map(|k| Resolved::key(k, Source::Env))
}

/// The credential stored for `provider` in `file`, as it is (an OAuth token
/// may have expired: see [`super::refresh`]).
pub fn from_store(file: &AuthFile, provider: &str) -> Result<Option<Resolved>, AuthError> {
    Ok(match file.get(provider)? {
        Some(Credential::ApiKey(k)) => stored_key(&k).map(|key| Resolved::key(key, Source::StoredKey)),
        Some(Credential::OAuth(o)) => Some(Resolved {
            api_key: Some(o.access),
            headers: BTreeMap::new(),
            source: Source::StoredOAuth,
            expires: Some(o.expires),
        }),
        None => None,
    })
}

/// The credential for a request to `entry` (no network: a stored OAuth
/// token is taken as it is). `Ok(None)`: none is configured.
pub fn resolve(entry: &ModelEntry, cli_key: Option<&str>, file: &AuthFile) -> Result<Option<Resolved>, ResolveError> {
    if let Some(k) = cli_key {
        return Ok(Some(Resolved::key(k.to_string(), Source::Cli)));
    }
    if unusable_entry(file, &entry.provider) {
        // As the reference: such an entry leaves the provider without
        // credentials (its key variables are not consulted either).
        return Ok(None);
    }
    if let Some(r) = from_store(file, &entry.provider)? {
        return Ok(Some(r));
    }
    if let Some(raw) = &entry.api_key {
        return Ok(Some(Resolved::key(resolve_value("apiKey", raw)?, Source::ModelsJson)));
    }
    Ok(from_env(entry))
}

/// The file as last read, re-read when its size or time changes (the model
/// lists ask once per model).
static SNAPSHOT: Mutex<Option<Snapshot>> = Mutex::new(None);

/// The file's modification time and size, its path, and its contents.
type Snapshot = (Option<(SystemTime, u64)>, std::path::PathBuf, AuthFile);

/// `auth.json` as it is now (cached while unchanged).
pub fn snapshot(store: &AuthStore) -> Result<AuthFile, AuthError> {
    let stamp = std::fs::metadata(store.path()).ok().and_then(|m| Some((m.modified().ok()?, m.len())));
    if let Ok(guard) = SNAPSHOT.lock()
        && let Some((s, p, file)) = guard.as_ref()
        && stamp.is_some()
        && *s == stamp
        && p == store.path()
    {
        return Ok(file.clone());
    }
    let file = store.read()?;
    if let Ok(mut guard) = SNAPSHOT.lock() {
        *guard = Some((stamp, store.path().to_path_buf(), file.clone()));
    }
    Ok(file)
}

/// Whether `file` has an entry for `provider` that is not a credential
/// (not an object, no or an unknown `type`, a field of the wrong kind).
pub fn unusable_entry(file: &AuthFile, provider: &str) -> bool {
    file.providers().contains(&provider) && !matches!(file.get(provider), Ok(Some(_)))
}

/// What `auth.json` says of `provider`'s credentials (nothing is run or
/// refreshed): `Some(true)` a credential, `Some(false)` an entry that
/// blocks the provider ([`unusable_entry`]), `None` no entry.
pub fn stored(provider: &str) -> Option<bool> {
    let file = snapshot(&store()).ok()?;
    if unusable_entry(&file, provider) {
        return Some(false);
    }
    matches!(file.get(provider), Ok(Some(_))).then_some(true)
}

/// The key for a model, as [`resolve`] finds it with the current
/// `auth.json` (the key alone; see [`Resolved`] for bearer headers).
pub fn api_key_for(entry: &ModelEntry, cli_key: Option<&str>) -> Result<Option<String>, ResolveError> {
    let file = snapshot(&store())?;
    Ok(resolve(entry, cli_key, &file)?.and_then(|r| r.secret()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn entry(provider: &str, env_key: Option<&str>) -> ModelEntry {
        let mut m = pi_config::builtin_models().remove(0);
        m.provider = provider.into();
        m.env_key = env_key.map(String::from);
        m
    }

    fn file(text: &str) -> AuthFile {
        AuthFile::parse(Path::new("/a/auth.json"), text).unwrap()
    }

    #[test]
    fn precedence_cli_then_stored_then_models_json() {
        let f = file(r#"{"p":{"type":"api_key","key":"STORED"}}"#);
        let mut e = entry("p", None);
        e.api_key = Some("MODELS".into());
        let key = |f: &AuthFile, cli: Option<&str>| resolve(&e, cli, f).unwrap().and_then(|r| r.api_key);
        assert_eq!(key(&f, Some("CLI")).as_deref(), Some("CLI"));
        assert_eq!(key(&f, None).as_deref(), Some("STORED"));
        assert_eq!(key(&file("{}"), None).as_deref(), Some("MODELS"));
        // An unresolvable stored key falls through.
        assert_eq!(key(&file(r#"{"p":{"type":"api_key","key":"!exit 1"}}"#), None).as_deref(), Some("MODELS"));
        let r = resolve(&e, None, &file(r#"{"p":{"type":"oauth","access":"A","refresh":"R","expires":5}}"#));
        let r = r.unwrap().unwrap();
        assert_eq!((r.api_key.as_deref(), r.source, r.expires), (Some("A"), Source::StoredOAuth, Some(5)));
        let bad = file(r#"{"p":{"type":"oauth"}}"#);
        // An entry that is not a credential leaves the provider without one, as the reference.
        assert!(resolve(&e, None, &bad).unwrap().is_none());
        assert!(resolve(&e, None, &file(r#"{"p":{"type":"nosuch"}}"#)).unwrap().is_none());
        assert!(unusable_entry(&bad, "p") && !unusable_entry(&bad, "q"));
    }

    #[test]
    fn stored_commands_run_once() {
        let d = tempfile::tempdir().unwrap();
        let counter = d.path().join("n");
        let k = ApiKeyCredential { key: format!("!echo x >> {0}; echo KEY", counter.display()), ..Default::default() };
        assert_eq!(stored_key(&k).as_deref(), Some("KEY"));
        assert_eq!(stored_key(&k).as_deref(), Some("KEY"));
        assert_eq!(std::fs::read_to_string(&counter).unwrap(), "x\n");
        let empty = ApiKeyCredential { key: "!true".into(), ..Default::default() };
        assert_eq!(stored_key(&empty), None);
    }
}
