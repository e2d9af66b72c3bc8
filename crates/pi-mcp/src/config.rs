//! `mcp.json`: the user's `<agent-dir>/mcp.json` and, in a trusted project,
//! `.pi/mcp.json`. A project entry with the same name replaces the user's; a
//! project entry without `command`, `url` or `type` only overrides the user
//! entry's `enabled`, `exposure` and `toolExposure`. Every entry is checked on
//! its own: an invalid one is reported (file and key) and skipped, the rest
//! connect.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

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
#[error("{}: mcpServers.{key}: {message}", file.display())]
pub struct ConfigProblem {
    /// The file.
    pub file: PathBuf,
    /// The server's key (or the top-level key).
    pub key: String,
    /// What is wrong.
    pub message: String,
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
}

fn read_file(path: &Path, problems: &mut Vec<ConfigProblem>) -> Option<FileEntries> {
    let raw = std::fs::read_to_string(path).ok()?;
    let problem = |key: &str, message: String| ConfigProblem { file: path.to_path_buf(), key: key.into(), message };
    let value: Value = match serde_json::from_str(&raw) {
        Ok(v) => v,
        Err(e) => {
            problems.push(problem("", format!("invalid JSON: {e}")));
            return None;
        }
    };
    let Some(obj) = value.as_object() else {
        problems.push(problem("", "the file must hold a JSON object".into()));
        return None;
    };
    let servers = match obj.get("mcpServers") {
        None => Vec::new(),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(_) => {
            problems.push(problem("", "mcpServers must be an object".into()));
            Vec::new()
        }
    };
    let auto_codemode = obj.get("autoEnableCodemode").and_then(Value::as_bool);
    Some(FileEntries { file: path.to_path_buf(), servers, auto_codemode })
}

/// Read, merge and check the files. `session_dir` resolves relative `cwd`s;
/// `home` expands `~/`. The project file is read only when `trusted`.
pub fn load(agent_dir: &Path, cwd: &Path, trusted: bool, home: Option<&Path>) -> McpConfig {
    let mut problems = Vec::new();
    let user = read_file(&user_file(agent_dir), &mut problems);
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
    }
    if let Some(p) = project {
        auto = p.auto_codemode.unwrap_or(auto);
        for (name, value) in p.servers {
            if value.pointer("/auth/provider").is_some() {
                let message = "auth.provider is not allowed in a project file".to_string();
                problems.push(ConfigProblem { file: p.file.clone(), key: name, message });
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
            Some(other) => Err(format!(
                "server name \"{name}\" clashes with \"{}\" (\"-\" and \"_\" are the same in tool names)",
                other.name
            )),
            None => validate(&name, &value, &file, cwd, home),
        };
        match checked {
            Ok(s) => servers.push(s),
            Err(message) => problems.push(ConfigProblem { file, key: name, message }),
        }
    }
    McpConfig { servers, auto_enable_codemode: auto, problems, session_dir: Some(cwd.to_path_buf()) }
}

fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn string_map(v: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|s| (k.clone(), s.to_string()))
                    .ok_or_else(|| format!("{what} must map names to strings"))
            })
            .collect(),
        Some(_) => Err(format!("{what} must map names to strings")),
    }
}

fn exposure_field(o: &Map<String, Value>) -> Result<(ServerExposure, Vec<(String, ServerExposure)>), String> {
    let exposure = match o.get("exposure") {
        None => ServerExposure::Codemode,
        Some(v) => v.as_str().and_then(ServerExposure::parse).ok_or_else(|| text_bad_exposure("exposure"))?,
    };
    let mut per_tool = Vec::new();
    match o.get("toolExposure") {
        None => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                let e = v
                    .as_str()
                    .and_then(ServerExposure::parse)
                    .ok_or_else(|| text_bad_exposure(&format!("toolExposure.{k}")))?;
                per_tool.push((k.clone(), e));
            }
        }
        Some(_) => return Err("toolExposure must map tool names to exposures".into()),
    }
    Ok((exposure, per_tool))
}

fn text_bad_exposure(key: &str) -> String {
    format!("{key} must be one of \"codemode\", \"codemode-deferred\", \"deferred\", \"direct\", \"hidden\"")
}

/// Check one entry.
fn validate(name: &str, v: &Value, file: &Path, cwd: &Path, home: Option<&Path>) -> Result<ServerConfig, String> {
    if !is_valid_name(name) {
        return Err(format!("invalid server name \"{name}\" (use letters, digits, \"_\" and \"-\")"));
    }
    let Some(o) = v.as_object() else { return Err(format!("server \"{name}\" must be an object")) };
    let enabled = match o.get("enabled") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("enabled must be a boolean".into()),
    };
    let description = match o.get("description") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("description must be a string".into()),
    };
    let timeout = match o.get("timeout") {
        None => text::DEFAULT_TIMEOUT_SECS,
        Some(t) => {
            t.as_f64().filter(|t| *t > 0.0 && t.is_finite()).ok_or("timeout must be a positive number of seconds")?
        }
    };
    let (exposure, tool_exposure) = exposure_field(o)?;
    let ty = o.get("type").map(|t| t.as_str().unwrap_or("<not a string>"));
    if ty == Some("sse") {
        return Err("legacy SSE transport is not supported; use the streamable HTTP URL".into());
    }
    let transport = match (o.get("url").and_then(Value::as_str), o.get("command").and_then(Value::as_str), ty) {
        (Some(url), _, None | Some("http" | "streamable-http")) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err("url must be an http or https URL".into());
            }
            Transport::Http { url: url.into(), headers: string_map(o.get("headers"), "headers")? }
        }
        (_, Some(command), None | Some("stdio")) => {
            let args = match o.get("args") {
                None => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| x.as_str().map(String::from).ok_or("args must be an array of strings"))
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("args must be an array of strings".into()),
            };
            let dir = match o.get("cwd") {
                None => None,
                Some(Value::String(s)) => Some(resolve_dir(s, cwd, home)),
                Some(_) => return Err("cwd must be a string".into()),
            };
            Transport::Stdio { command: command.into(), args, env: string_map(o.get("env"), "env")?, cwd: dir }
        }
        _ => return Err(format!("server \"{name}\" needs either \"command\" (stdio) or \"url\" (streamable HTTP)")),
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
        Err(message) => config.problems.push(ConfigProblem { file: source.to_path_buf(), key: name.into(), message }),
    }
}

/// Check one `mcpServers` entry as `pi mcp add` writes it.
pub fn check_entry(name: &str, value: &Value) -> Result<(), String> {
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
