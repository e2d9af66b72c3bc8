//! `mcp.json`: the user's `<agent-dir>/mcp.json` and, in a trusted project,
//! `.pi/mcp.json`. A project entry with the same name replaces the user's; a
//! project entry without `command`, `url` or `type` only overrides the user
//! entry's `enabled`, `exposure` and `toolExposure`. Every entry is checked on
//! its own: an invalid one is reported (file and key) and skipped, the rest
//! connect.

mod error;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

pub use error::ConfigError;

use crate::exposure::ServerExposure;
use crate::text;

/// How a server is reached.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The executable.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment (values before substitution).
        env: Vec<(String, String)>,
        /// Working folder (absolute after `~/` and session-folder resolution).
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// Extra headers (values before substitution).
        headers: Vec<(String, String)>,
    },
}

/// One valid server entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// Its key in `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// `enabled` (default true).
    pub enabled: bool,
    /// Per-request timeout, reset by progress.
    pub timeout: Duration,
    /// The server's exposure.
    pub exposure: ServerExposure,
    /// Per-tool exposure by the server's own tool names or `*` patterns, in file order.
    pub tool_exposure: Vec<(String, ServerExposure)>,
    /// One line for the system prompt.
    pub description: Option<String>,
    /// The file the entry came from.
    pub file: PathBuf,
}

/// An entry that was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: mcpServers.{key}: {error}", file.display())]
pub struct ConfigProblem {
    /// The file.
    pub file: PathBuf,
    /// The server's key (or the top-level key).
    pub key: String,
    /// What is wrong.
    pub error: ConfigError,
}

/// The merged configuration.
#[derive(Debug, Clone, Default)]
pub struct McpConfig {
    /// Valid entries, user file order then project additions.
    pub servers: Vec<ServerConfig>,
    /// `autoEnableCodemode` (default true; the project's wins when set).
    pub auto_enable_codemode: bool,
    /// Entries reported and skipped.
    pub problems: Vec<ConfigProblem>,
    /// The session folder (relative `cwd`s; offered to servers as their root).
    pub session_dir: Option<PathBuf>,
}

/// The user file of `agent_dir`.
pub fn user_file(agent_dir: &Path) -> PathBuf {
    agent_dir.join("mcp.json")
}

/// The project file of `cwd`.
pub fn project_file(cwd: &Path) -> PathBuf {
    cwd.join(".pi").join("mcp.json")
}

/// A parsed file: its entries in order, and `autoEnableCodemode`.
struct FileEntries {
    file: PathBuf,
    servers: Vec<(String, Value)>,
    auto_codemode: Option<bool>,
    /// Entries of another file read with this one (see [`load_with`]).
    extra: Vec<(String, Value, PathBuf)>,
}

fn read_file(path: &Path, problems: &mut Vec<ConfigProblem>) -> Option<FileEntries> {
    let raw = std::fs::read_to_string(path).ok()?;
    let problem = |error: ConfigError| ConfigProblem { file: path.to_path_buf(), key: String::new(), error };
    let value: Value = match serde_json::from_str(&raw) {
        Ok(v) => v,
        Err(e) => {
            problems.push(problem(ConfigError::InvalidJson(e.to_string())));
            return None;
        }
    };
    let Some(obj) = value.as_object() else {
        problems.push(problem(ConfigError::FileNotObject));
        return None;
    };
    let servers = match obj.get("mcpServers") {
        None => Vec::new(),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(_) => {
            problems.push(problem(ConfigError::ServersNotObject));
            Vec::new()
        }
    };
    let auto_codemode = obj.get("autoEnableCodemode").and_then(Value::as_bool);
    Some(FileEntries { file: path.to_path_buf(), servers, auto_codemode, extra: Vec::new() })
}

/// The environment variable naming a file of more servers, in `mcp.json`'s
/// shape, read as the user's own (after the user file, before the
/// project's): ACP mode passes the servers an editor gives a session this way.
pub const EXTRA_FILE_ENV: &str = "PI_MCP_EXTRA_CONFIG";

/// Read, merge and check the files. `session_dir` resolves relative `cwd`s;
/// `home` expands `~/`. The project file is read only when `trusted`.
pub fn load(agent_dir: &Path, cwd: &Path, trusted: bool, home: Option<&Path>) -> McpConfig {
    load_with(agent_dir, cwd, trusted, home, None)
}

/// As [`load`], with `extra` (a file in `mcp.json`'s shape) read as the
/// user's own after the user file (its entries replace same-named ones).
pub fn load_with(agent_dir: &Path, cwd: &Path, trusted: bool, home: Option<&Path>, extra: Option<&Path>) -> McpConfig {
    let mut problems = Vec::new();
    let mut user = read_file(&user_file(agent_dir), &mut problems);
    if let Some(more) = extra.and_then(|f| read_file(f, &mut problems)) {
        user = Some(match user {
            None => more,
            Some(mut u) => {
                for (name, value) in more.servers {
                    u.servers.retain(|(k, _)| *k != name);
                    u.extra.push((name, value, more.file.clone()));
                }
                u
            }
        });
    }
    let project = if trusted { read_file(&project_file(cwd), &mut problems) } else { None };
    merge(user, project, cwd, home, problems)
}

/// Whether a project entry only overrides fields of a user entry.
fn is_override(v: &Value) -> bool {
    v.as_object().is_some_and(|o| !o.contains_key("command") && !o.contains_key("url") && !o.contains_key("type"))
}

/// Fields a project override may change.
const OVERRIDE_FIELDS: &[&str] = &["enabled", "exposure", "toolExposure"];

fn merge(
    user: Option<FileEntries>,
    project: Option<FileEntries>,
    cwd: &Path,
    home: Option<&Path>,
    mut problems: Vec<ConfigProblem>,
) -> McpConfig {
    let mut entries: Vec<(String, Value, PathBuf)> = Vec::new();
    let mut auto = true;
    if let Some(u) = user {
        auto = u.auto_codemode.unwrap_or(true);
        entries.extend(u.servers.into_iter().map(|(k, v)| (k, v, u.file.clone())));
        entries.extend(u.extra);
    }
    if let Some(p) = project {
        auto = p.auto_codemode.unwrap_or(auto);
        for (name, value) in p.servers {
            if value.pointer("/auth/provider").is_some() {
                let error = ConfigError::ProjectAuthProvider;
                problems.push(ConfigProblem { file: p.file.clone(), key: name, error });
                continue;
            }
            let existing = entries.iter_mut().find(|(k, _, _)| *k == name);
            match existing {
                Some((_, base, _)) if is_override(&value) => {
                    if let (Some(b), Some(o)) = (base.as_object_mut(), value.as_object()) {
                        for f in OVERRIDE_FIELDS {
                            if let Some(v) = o.get(*f) {
                                b.insert((*f).into(), v.clone());
                            }
                        }
                    }
                }
                Some(slot) => *slot = (name, value, p.file.clone()),
                None => entries.push((name, value, p.file.clone())),
            }
        }
    }
    let mut servers: Vec<ServerConfig> = Vec::new();
    for (name, value, file) in entries {
        let clash = servers.iter().find(|s| s.name != name && s.name.replace('-', "_") == name.replace('-', "_"));
        let checked = match clash {
            Some(other) => Err(ConfigError::NameClash { name: name.clone(), other: other.name.clone() }),
            None => validate(&name, &value, &file, cwd, home),
        };
        match checked {
            Ok(s) => servers.push(s),
            Err(error) => problems.push(ConfigProblem { file, key: name, error }),
        }
    }
    McpConfig { servers, auto_enable_codemode: auto, problems, session_dir: Some(cwd.to_path_buf()) }
}

fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn string_map(v: Option<&Value>, what: &'static str) -> Result<Vec<(String, String)>, ConfigError> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())).ok_or(ConfigError::NotStringMap(what)))
            .collect(),
        Some(_) => Err(ConfigError::NotStringMap(what)),
    }
}

fn exposure_field(o: &Map<String, Value>) -> Result<(ServerExposure, Vec<(String, ServerExposure)>), ConfigError> {
    let exposure = match o.get("exposure") {
        None => ServerExposure::Codemode,
        Some(v) => {
            v.as_str().and_then(ServerExposure::parse).ok_or_else(|| ConfigError::BadExposure("exposure".into()))?
        }
    };
    let mut per_tool = Vec::new();
    match o.get("toolExposure") {
        None => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                let e = v
                    .as_str()
                    .and_then(ServerExposure::parse)
                    .ok_or_else(|| ConfigError::BadExposure(format!("toolExposure.{k}")))?;
                per_tool.push((k.clone(), e));
            }
        }
        Some(_) => return Err(ConfigError::ToolExposureNotMap),
    }
    Ok((exposure, per_tool))
}

/// Check one entry.
fn validate(name: &str, v: &Value, file: &Path, cwd: &Path, home: Option<&Path>) -> Result<ServerConfig, ConfigError> {
    if !is_valid_name(name) {
        return Err(ConfigError::InvalidName(name.into()));
    }
    let Some(o) = v.as_object() else { return Err(ConfigError::NotObject(name.into())) };
    let enabled = match o.get("enabled") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(ConfigError::EnabledNotBool),
    };
    let description = match o.get("description") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(ConfigError::DescriptionNotString),
    };
    let timeout = match o.get("timeout") {
        None => text::DEFAULT_TIMEOUT_SECS,
        Some(t) => t.as_f64().filter(|t| *t > 0.0 && t.is_finite()).ok_or(ConfigError::BadTimeout)?,
    };
    let (exposure, tool_exposure) = exposure_field(o)?;
    let ty = o.get("type").map(|t| t.as_str().unwrap_or("<not a string>"));
    if ty == Some("sse") {
        return Err(ConfigError::LegacySse);
    }
    let transport = match (o.get("url").and_then(Value::as_str), o.get("command").and_then(Value::as_str), ty) {
        (Some(url), _, None | Some("http" | "streamable-http")) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ConfigError::BadUrl);
            }
            Transport::Http { url: url.into(), headers: string_map(o.get("headers"), "headers")? }
        }
        (_, Some(command), None | Some("stdio")) => {
            let args = match o.get("args") {
                None => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| x.as_str().map(String::from).ok_or(ConfigError::ArgsNotStrings))
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(ConfigError::ArgsNotStrings),
            };
            let dir = match o.get("cwd") {
                None => None,
                Some(Value::String(s)) => Some(resolve_dir(s, cwd, home)),
                Some(_) => return Err(ConfigError::CwdNotString),
            };
            Transport::Stdio { command: command.into(), args, env: string_map(o.get("env"), "env")?, cwd: dir }
        }
        _ => return Err(ConfigError::NoTransport(name.into())),
    };
    Ok(ServerConfig {
        name: name.into(),
        transport,
        enabled,
        timeout: Duration::from_secs_f64(timeout),
        exposure,
        tool_exposure,
        description,
        file: file.to_path_buf(),
    })
}

/// Add a server an extension registered (`pi.registerMcpServer`): an
/// `mcp.json` server of the same name takes precedence (the registration is
/// left out); a bad entry is a problem of `source` (the extension's file).
pub fn add_registered(config: &mut McpConfig, name: &str, value: &Value, source: &Path, home: Option<&Path>) {
    if config.servers.iter().any(|s| s.name == name) {
        return;
    }
    let cwd = config.session_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    match validate(name, value, source, &cwd, home) {
        Ok(s) => config.servers.push(s),
        Err(error) => config.problems.push(ConfigProblem { file: source.to_path_buf(), key: name.into(), error }),
    }
}

/// Check one `mcpServers` entry as `pi mcp add` writes it.
pub fn check_entry(name: &str, value: &Value) -> Result<(), ConfigError> {
    validate(name, value, Path::new(""), Path::new("."), None).map(|_| ())
}

/// `~/x` under the home folder, a relative path under the session folder.
fn resolve_dir(s: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    match (s.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ if s == "~" && home.is_some() => home.map(Path::to_path_buf).unwrap_or_default(),
        _ => cwd.join(s),
    }
}

#[cfg(test)]
mod tests;
