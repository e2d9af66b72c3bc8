//! Settings: the user layer `<agent-dir>/settings.json` and the project layer
//! `<cwd>/.pi/settings.json` (reference §9; requirements S3, S9; beyond.md
//! B2, B3).
//!
//! - The project layer is read only for a trusted project (B2: resolve trust
//!   first, see [`crate::trust::resolve_trust`]). [`Settings::load`] with
//!   `project_trusted: false` never opens the project file.
//! - Project values override user values: objects merge at every depth;
//!   arrays and other values replace, except `defaultTools`, where a project
//!   list of only `+name`/`-name` entries edits the user's list
//!   ([`crate::tool_selection::merge_default_tools`]).
//! - Global-only keys ([`GLOBAL_ONLY_KEYS`]) come from the user file only; in
//!   the project file they are reported and ignored.
//! - A BOM is tolerated. An unreadable or unparsable file is reported and that
//!   layer counts as `{}`.
//! - Every known key is validated (B3): a wrong-typed value is reported
//!   (file, key, expected type) and removed from its layer, so it never
//!   replaces the other layer's value. Unknown keys are kept silently.
//! - Writes ([`Settings::write_user`], [`Settings::write_project`]) lock the
//!   file (`<file>.lock`), re-read it, change one key, and replace it
//!   atomically. The project `.pi/` folder is created only by a write.

mod merge;
mod validate;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::text;
use crate::tool_selection::{merge_default_tools, resolve_default_tools};
use crate::trust::DefaultTrust;
use crate::trust::fsio::{self, LockError};

/// Keys read from the user file only.
pub const GLOBAL_ONLY_KEYS: [&str; 4] = ["defaultProjectTrust", "httpProxy", "cacheWarming", "selfUpdateCommand"];

/// The settings file's name.
pub const SETTINGS_FILE_NAME: &str = "settings.json";

/// One problem found while loading settings. `Display` is the whole line
/// (callers print it after `Warning: `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The settings file.
    pub path: PathBuf,
    /// The key (dotted for nested keys), when one key is at fault.
    pub key: Option<String>,
    /// The message, naming the file.
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Which settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `<agent-dir>/settings.json`.
    User,
    /// `<cwd>/.pi/settings.json`.
    Project,
}

/// A settings write failed. `Display` is the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsError {
    /// Project settings of an untrusted project.
    ProjectNotTrusted,
    /// The value or key is not acceptable.
    Invalid(String),
    /// The file's lock stayed busy.
    Locked(PathBuf),
    /// Reading or writing the file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingsError::ProjectNotTrusted => f.write_str(text::PROJECT_NOT_TRUSTED_WRITE),
            SettingsError::Invalid(m) => f.write_str(m),
            SettingsError::Locked(p) => f.write_str(&text::settings_lock_failed(p)),
            SettingsError::Io { path, message } => f.write_str(&text::settings_write_failed(path, message)),
        }
    }
}

impl std::error::Error for SettingsError {}

/// Agent-level retry (`retry.*`), with the reference's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryConfig {
    /// `retry.enabled` (default `true`).
    pub enabled: bool,
    /// `retry.maxRetries` (default 3).
    pub max_retries: u32,
    /// `retry.baseDelayMs` (default 2000).
    pub base_delay_ms: u64,
    /// `retry.maxAgentDelayMs` (default 60000).
    pub max_delay_ms: u64,
}

impl Default for RetryConfig {
    fn default() -> Self {
        RetryConfig { enabled: true, max_retries: 3, base_delay_ms: 2000, max_delay_ms: 60_000 }
    }
}

/// The default of `retry.provider.maxRetryDelayMs`, in milliseconds.
pub const DEFAULT_PROVIDER_MAX_RETRY_DELAY_MS: u64 = 60_000;

/// A resource list setting (combined across layers for loading).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// `extensions`.
    Extensions,
    /// `skills`.
    Skills,
    /// `prompts`.
    Prompts,
    /// `themes`.
    Themes,
}

impl ResourceKind {
    /// The setting's key.
    pub fn key(self) -> &'static str {
        match self {
            ResourceKind::Extensions => "extensions",
            ResourceKind::Skills => "skills",
            ResourceKind::Prompts => "prompts",
            ResourceKind::Themes => "themes",
        }
    }
}

/// One entry of a resource list, with the folder its relative paths resolve
/// from (the agent dir for user entries, `<cwd>/.pi` for project entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceEntry {
    /// The entry as written (path, `!glob`, `+path`, `-path`, `builtin:x`).
    pub entry: String,
    /// The file it came from.
    pub scope: Scope,
    /// Where relative paths resolve from.
    pub base_dir: PathBuf,
}

/// Free context tokens below which automatic compaction starts (default).
pub const COMPACTION_RESERVE_TOKENS: u64 = 16_384;
/// Recent context tokens a compaction keeps (default).
pub const COMPACTION_KEEP_RECENT_TOKENS: u64 = 20_000;

/// Loaded, validated, merged settings.
#[derive(Debug, Clone)]
pub struct Settings {
    agent_dir: PathBuf,
    cwd: PathBuf,
    project_trusted: bool,
    user: Map<String, Value>,
    project: Map<String, Value>,
    merged: Map<String, Value>,
}

fn diag(path: &Path, key: Option<&str>, message: String) -> Diagnostic {
    Diagnostic { path: path.to_path_buf(), key: key.map(str::to_string), message }
}

/// Read one file into an object; problems become diagnostics and `{}`.
fn read_layer(path: &Path, diags: &mut Vec<Diagnostic>) -> Map<String, Value> {
    match fsio::read_text(path) {
        Ok(None) => Map::new(),
        Err(e) => {
            diags.push(diag(path, None, text::settings_read_failed(path, &e.to_string())));
            Map::new()
        }
        Ok(Some(t)) => match serde_json::from_str::<Value>(&t) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                diags.push(diag(path, None, text::settings_invalid_file(path, text::SETTINGS_EXPECTED_OBJECT)));
                Map::new()
            }
            Err(e) => {
                diags.push(diag(path, None, text::settings_invalid_file(path, &e.to_string())));
                Map::new()
            }
        },
    }
}

/// Migrate and validate a freshly read layer.
fn check_layer(
    mut layer: Map<String, Value>,
    scope: Scope,
    path: &Path,
    user_path: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Map<String, Value> {
    merge::migrate(&mut layer);
    match scope {
        Scope::User => {
            if layer.get("defaultProjectTrust").is_some_and(|v| v.as_str().and_then(DefaultTrust::parse).is_none()) {
                layer.shift_remove("defaultProjectTrust");
                diags.push(diag(path, Some("defaultProjectTrust"), text::settings_bad_default_trust(path)));
            }
        }
        Scope::Project => {
            for key in GLOBAL_ONLY_KEYS {
                if layer.shift_remove(key).is_some() {
                    diags.push(diag(path, Some(key), text::settings_global_only(path, key, user_path)));
                }
            }
        }
    }
    validate::validate_layer(&mut layer, path, diags);
    layer
}

fn string_array(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array()?.iter().map(|e| e.as_str().map(str::to_string)).collect()
}

fn expand(p: &str, base: &Path) -> PathBuf {
    let e = crate::expand_tilde(p);
    if e.is_absolute() { e } else { base.join(e) }
}

fn set_path(doc: &mut Map<String, Value>, path: &[&str], value: Option<Value>) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut cur = doc;
    for p in parents {
        if value.is_none() && !cur.get(*p).is_some_and(Value::is_object) {
            return;
        }
        let slot = cur.entry(p.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        cur = next;
    }
    match value {
        Some(v) => {
            cur.insert(last.to_string(), v);
        }
        None => {
            cur.shift_remove(*last);
        }
    }
}

impl Settings {
    /// Load the settings for `cwd`. The project file is read only when
    /// `project_trusted`. Never fails: problems come back as diagnostics
    /// (user file's first, then the project file's).
    pub fn load(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> (Settings, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let mut s = Settings {
            agent_dir: agent_dir.to_path_buf(),
            cwd: cwd.to_path_buf(),
            project_trusted: false,
            user: Map::new(),
            project: Map::new(),
            merged: Map::new(),
        };
        let user_path = s.user_path();
        s.user = check_layer(read_layer(&user_path, &mut diags), Scope::User, &user_path, &user_path, &mut diags);
        if project_trusted {
            diags.extend(s.trust_project());
        } else {
            s.remerge();
        }
        (s, diags)
    }

    /// Mark the project trusted after loading untrusted: read the project
    /// layer, re-merge, and return its diagnostics. (Lets start-up read
    /// `defaultProjectTrust` before trust is resolved without reading the
    /// user file twice.)
    pub fn trust_project(&mut self) -> Vec<Diagnostic> {
        let mut diags = Vec::new();
        self.project_trusted = true;
        let (user_path, project_path) = (self.user_path(), self.project_path());
        let raw = read_layer(&project_path, &mut diags);
        self.project = check_layer(raw, Scope::Project, &project_path, &user_path, &mut diags);
        self.remerge();
        diags
    }

    fn remerge(&mut self) {
        let mut merged = self.user.clone();
        let mut project = self.project.clone();
        let project_tools = project.shift_remove("defaultTools");
        merge::deep_merge(&mut merged, &project);
        let tools =
            merge_default_tools(string_array(self.user.get("defaultTools")), string_array(project_tools.as_ref()));
        if let Some(t) = tools {
            merged.insert("defaultTools".into(), Value::from(t));
        }
        self.merged = merged;
    }

    /// The agent dir the user layer was read from.
    pub fn agent_dir(&self) -> &Path {
        &self.agent_dir
    }

    /// The working folder the project layer belongs to.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// `<agent-dir>/settings.json`.
    pub fn user_path(&self) -> PathBuf {
        self.agent_dir.join(SETTINGS_FILE_NAME)
    }

    /// `<cwd>/.pi/settings.json`.
    pub fn project_path(&self) -> PathBuf {
        self.cwd.join(".pi").join(SETTINGS_FILE_NAME)
    }

    /// Whether the project layer is in use.
    pub fn project_trusted(&self) -> bool {
        self.project_trusted
    }

    /// The merged settings (validated, project over user).
    pub fn merged(&self) -> &Map<String, Value> {
        &self.merged
    }

    /// One validated layer (the project layer is empty when untrusted).
    pub fn layer(&self, scope: Scope) -> &Map<String, Value> {
        match scope {
            Scope::User => &self.user,
            Scope::Project => &self.project,
        }
    }

    /// A merged value by key path (`&["retry", "enabled"]`).
    pub fn get(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        rest.iter().try_fold(self.merged.get(*first)?, |v, k| v.get(*k))
    }

    /// A merged string value.
    pub fn get_str(&self, path: &[&str]) -> Option<&str> {
        self.get(path)?.as_str()
    }

    /// A merged boolean value.
    pub fn get_bool(&self, path: &[&str]) -> Option<bool> {
        self.get(path)?.as_bool()
    }

    /// The merged `defaultTools` list as written (modifiers unresolved);
    /// `None` when neither file sets it.
    pub fn default_tools(&self) -> Option<Vec<String>> {
        string_array(self.merged.get("defaultTools"))
    }

    /// `defaultTools` resolved to tool names (plain names as base, or the
    /// four defaults when there are only modifiers; then `+`/`-` in order).
    pub fn resolved_default_tools(&self) -> Option<Vec<String>> {
        self.default_tools().map(|l| resolve_default_tools(&l))
    }

    /// `defaultProjectTrust` from the user file (`ask` when unset or invalid).
    pub fn default_project_trust(&self) -> DefaultTrust {
        self.user.get("defaultProjectTrust").and_then(Value::as_str).and_then(DefaultTrust::parse).unwrap_or_default()
    }

    /// `shellPath`, with a leading `~` expanded.
    pub fn shell_path(&self) -> Option<PathBuf> {
        self.get_str(&["shellPath"]).map(crate::expand_tilde)
    }

    /// `shellCommandPrefix`.
    pub fn shell_command_prefix(&self) -> Option<&str> {
        self.get_str(&["shellCommandPrefix"])
    }

    /// `sessionDir`: `~` expanded, relative paths resolved from the working
    /// folder. From an untrusted project it is never used (B2).
    pub fn session_dir(&self) -> Option<PathBuf> {
        self.get_str(&["sessionDir"]).filter(|s| !s.is_empty()).map(|s| expand(s, &self.cwd))
    }

    /// When the project is untrusted and its settings file sets `sessionDir`:
    /// the one warning line B2 asks for. (Peeks at the key only; nothing from
    /// the file is used.)
    pub fn ignored_project_session_dir(&self) -> Option<Diagnostic> {
        if self.project_trusted {
            return None;
        }
        let path = self.project_path();
        let text = fsio::read_text(&path).ok()??;
        let doc: Value = serde_json::from_str(&text).ok()?;
        doc.get("sessionDir")?;
        Some(diag(&path, Some("sessionDir"), text::settings_untrusted_session_dir(&path)))
    }

    /// The `sandbox` object of one layer (the project layer is empty when
    /// untrusted). Never read from the merged settings: a project may only
    /// make the sandbox stricter, which `pi-sandbox` decides from both.
    pub fn sandbox_layer(&self, scope: Scope) -> Option<&Value> {
        self.layer(scope).get("sandbox")
    }

    /// `codemode.mode`: `true` for `only`, `false` for `on` (the default).
    pub fn codemode_only(&self) -> bool {
        self.get_str(&["codemode", "mode"]) == Some("only")
    }

    /// `codemode.inlineBudget` in estimated tokens, when set to a finite
    /// non-negative number.
    pub fn codemode_inline_budget(&self) -> Option<f64> {
        self.get(&["codemode", "inlineBudget"]).and_then(Value::as_f64).filter(|b| b.is_finite() && *b >= 0.0)
    }

    /// `defaultProvider`.
    pub fn default_provider(&self) -> Option<&str> {
        self.get_str(&["defaultProvider"])
    }

    /// `defaultModel`.
    pub fn default_model(&self) -> Option<&str> {
        self.get_str(&["defaultModel"])
    }

    /// `defaultThinkingLevel`.
    pub fn default_thinking_level(&self) -> Option<&str> {
        self.get_str(&["defaultThinkingLevel"])
    }

    /// `httpProxy` (user file only).
    pub fn http_proxy(&self) -> Option<&str> {
        self.user.get("httpProxy").and_then(Value::as_str)
    }

    /// `retry.*` with defaults for what is unset.
    pub fn retry(&self) -> RetryConfig {
        let d = RetryConfig::default();
        let num = |k: &str| self.get(&["retry", k]).and_then(Value::as_f64);
        RetryConfig {
            enabled: self.get_bool(&["retry", "enabled"]).unwrap_or(d.enabled),
            max_retries: num("maxRetries").map_or(d.max_retries, |n| n as u32),
            base_delay_ms: num("baseDelayMs").map_or(d.base_delay_ms, |n| n as u64),
            max_delay_ms: num("maxAgentDelayMs").map_or(d.max_delay_ms, |n| n as u64),
        }
    }

    /// `compaction.*` for the model `provider/model_id`: enabled, reserve
    /// tokens, kept tokens (a `modelOverrides` entry wins per value; the
    /// defaults 16384 and 20000 fill what is unset).
    pub fn compaction(&self, provider: &str, model_id: &str) -> (bool, u64, u64) {
        let key = format!("{provider}/{model_id}");
        let over = |k: &str| self.get(&["compaction", "modelOverrides", &key, k]).and_then(Value::as_u64);
        let base = |k: &str| self.get(&["compaction", k]).and_then(Value::as_u64);
        let enabled = self.get_bool(&["compaction", "enabled"]).unwrap_or(true);
        let reserve = over("reserveTokens").or_else(|| base("reserveTokens")).unwrap_or(COMPACTION_RESERVE_TOKENS);
        let keep =
            over("keepRecentTokens").or_else(|| base("keepRecentTokens")).unwrap_or(COMPACTION_KEEP_RECENT_TOKENS);
        (enabled, reserve, keep)
    }

    /// `retry.provider.maxRetryDelayMs` (default 60000; `0`: no limit): the
    /// longest wait a server may ask for with `Retry-After` before a retry;
    /// a longer one fails at once with the server's message.
    pub fn provider_max_retry_delay_ms(&self) -> u64 {
        self.get(&["retry", "provider", "maxRetryDelayMs"])
            .and_then(Value::as_f64)
            .map_or(DEFAULT_PROVIDER_MAX_RETRY_DELAY_MS, |n| n as u64)
    }

    /// A resource list from both files, user entries first (a later entry
    /// such as `-builtin:mcp` in the project file overrides an earlier one).
    pub fn resources(&self, kind: ResourceKind) -> Vec<ResourceEntry> {
        let mut out = Vec::new();
        let layers =
            [(Scope::User, &self.user, self.agent_dir.clone()), (Scope::Project, &self.project, self.cwd.join(".pi"))];
        for (scope, layer, base) in layers {
            for entry in string_array(layer.get(kind.key())).unwrap_or_default() {
                out.push(ResourceEntry { entry, scope, base_dir: base.clone() });
            }
        }
        out
    }

    /// The `extensions` entries of both files, user entries first.
    pub fn extensions(&self) -> Vec<String> {
        self.resources(ResourceKind::Extensions).into_iter().map(|e| e.entry).collect()
    }

    /// Set (`Some`) or remove (`None`) one key of the user file.
    pub fn write_user(&mut self, path: &[&str], value: Option<Value>) -> Result<(), SettingsError> {
        self.write(Scope::User, path, value)
    }

    /// Set (`Some`) or remove (`None`) one key of the project file; refused
    /// when the project is untrusted (`Project is not trusted; refusing to
    /// write project settings`). Creates `<cwd>/.pi/` when needed.
    pub fn write_project(&mut self, path: &[&str], value: Option<Value>) -> Result<(), SettingsError> {
        self.write(Scope::Project, path, value)
    }

    fn write(&mut self, scope: Scope, path: &[&str], value: Option<Value>) -> Result<(), SettingsError> {
        if scope == Scope::Project && !self.project_trusted {
            return Err(SettingsError::ProjectNotTrusted);
        }
        let Some(first) = path.first() else {
            return Err(SettingsError::Invalid(text::SETTINGS_EMPTY_KEY.to_string()));
        };
        let (user_path, file) = (
            self.user_path(),
            match scope {
                Scope::User => self.user_path(),
                Scope::Project => self.project_path(),
            },
        );
        if scope == Scope::Project && GLOBAL_ONLY_KEYS.contains(first) {
            return Err(SettingsError::Invalid(text::settings_global_only(&file, first, &user_path)));
        }
        if let Some(v) = &value {
            let bad = if path == ["defaultProjectTrust"] {
                v.as_str()
                    .and_then(DefaultTrust::parse)
                    .is_none()
                    .then(|| "one of \"ask\", \"always\", \"never\"".to_string())
            } else {
                validate::rule_for(path).filter(|c| !c.ok(v)).map(|c| c.expected())
            };
            if let Some(expected) = bad {
                return Err(SettingsError::Invalid(text::settings_write_wrong_type(&path.join("."), &expected)));
            }
        }
        let io = |e: std::io::Error| SettingsError::Io { path: file.clone(), message: e.to_string() };
        if let Some(dir) = file.parent() {
            crate::files::create_private_dir(dir).map_err(io)?;
        }
        let lock_path = fsio::lock_path_for(&file);
        let _guard = fsio::lock(&lock_path).map_err(|e| match e {
            LockError::Busy => SettingsError::Locked(lock_path.clone()),
            LockError::Io(e) => io(e),
        })?;
        let mut doc = match fsio::read_text(&file).map_err(io)? {
            None => Map::new(),
            Some(t) => match serde_json::from_str::<Value>(&t) {
                Ok(Value::Object(m)) => m,
                Ok(_) => {
                    return Err(SettingsError::Invalid(text::settings_invalid_file(
                        &file,
                        text::SETTINGS_EXPECTED_OBJECT,
                    )));
                }
                Err(e) => return Err(SettingsError::Invalid(text::settings_invalid_file(&file, &e.to_string()))),
            },
        };
        set_path(&mut doc, path, value);
        // As the reference writes it: two-space JSON, no newline at the end.
        let out = serde_json::to_string_pretty(&Value::Object(doc.clone()))
            .map_err(|e| SettingsError::Io { path: file.clone(), message: e.to_string() })?;
        fsio::write_atomic(&file, out.as_bytes()).map_err(io)?;
        let checked = check_layer(doc, scope, &file, &user_path, &mut Vec::new());
        match scope {
            Scope::User => self.user = checked,
            Scope::Project => self.project = checked,
        }
        self.remerge();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_max_retry_delay() {
        let t = tempfile::tempdir().unwrap();
        let (agent, cwd) = (t.path().join("agent"), t.path().join("proj"));
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        let load = |text: &str| {
            std::fs::write(agent.join("settings.json"), text).unwrap();
            Settings::load(&agent, &cwd, true).0.provider_max_retry_delay_ms()
        };
        assert_eq!(load("{}"), 60_000);
        assert_eq!(load(r#"{"retry": {"provider": {"maxRetryDelayMs": 2500}}}"#), 2500);
        assert_eq!(load(r#"{"retry": {"provider": {"maxRetryDelayMs": 0}}}"#), 0);
        // The old `retry.maxDelayMs` is read as this setting, as the reference migrates it.
        assert_eq!(load(r#"{"retry": {"maxDelayMs": 1000}}"#), 1000);
        // Invalid: ignored (with a diagnostic), the default applies.
        assert_eq!(load(r#"{"retry": {"provider": {"maxRetryDelayMs": -1}}}"#), 60_000);
    }
}
