//! `pi mcp add|remove|list`: change `mcp.json` and check servers without
//! starting a session. `add` and `remove` edit the user's file, or with
//! `-l`/`--local` the project's `.pi/mcp.json`, keeping everything else in
//! it; `list` connects to every enabled server and exits 1 when an entry is
//! invalid or an enabled server is not connected.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::text;

/// Why `pi mcp add|remove|login|logout` failed; shown as it is.
#[derive(Debug, thiserror::Error)]
enum McpCmdError {
    /// The command line is not `add <server> …` or `remove <server>`.
    #[error("{}", text::MCP_USAGE)]
    Usage,
    /// An option that needs a value came last.
    #[error("{}", text::mcp_missing_value(.0))]
    MissingValue(String),
    /// `--env`/`--header` without `KEY=VALUE`.
    #[error("{}", text::mcp_bad_pair(.flag, .value))]
    BadPair {
        /// The option.
        flag: String,
        /// What was given.
        value: String,
    },
    /// An option `add` does not know.
    #[error("{}", text::mcp_unknown_option(.0))]
    UnknownOption(String),
    /// A second name before `--`.
    #[error("{}", text::mcp_unexpected(.0))]
    Unexpected(String),
    /// Neither or both of a command and `--url`.
    #[error("{}", text::MCP_ADD_NEEDS_ONE)]
    NeedsOne,
    /// The entry `pi_mcp` would refuse (its message).
    #[error("{0}")]
    Invalid(pi_mcp::ConfigError),
    /// `mcp.json` (or its folder) could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `mcp.json` is not JSON.
    #[error("{}: invalid JSON: {source}", .path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// `mcp.json` holds something other than an object.
    #[error("{}: the file must hold a JSON object", .0.display())]
    NotObject(PathBuf),
    /// `mcp.json`'s `mcpServers` is not an object.
    #[error("{}: mcpServers must be an object", .0.display())]
    ServersNotObject(PathBuf),
    /// The edited file could not be written out as JSON.
    #[error(transparent)]
    Serialize(serde_json::Error),
    /// `remove` names no server of the file.
    #[error("{}", text::mcp_no_server(.scope, .name, .path))]
    NoServer {
        /// `global` or `project`.
        scope: &'static str,
        /// The server's name.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// `pi mcp login|logout`.
    #[error("{}", text::MCP_OAUTH_UNSUPPORTED)]
    OAuthUnsupported,
}

/// Which file a command edits.
fn target(local: bool) -> (PathBuf, &'static str) {
    if local {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        (pi_mcp::config::project_file(&cwd), "project")
    } else {
        (pi_mcp::config::user_file(&pi_config::agent_dir()), "global")
    }
}

/// The file as a JSON object (empty when missing); `Err` when unreadable or not an object.
fn read_object(path: &Path) -> Result<Map<String, Value>, McpCmdError> {
    let raw = match std::fs::read_to_string(path) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(source) => return Err(McpCmdError::Io { path: path.to_path_buf(), source }),
    };
    match serde_json::from_str::<Value>(&raw) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(McpCmdError::NotObject(path.to_path_buf())),
        Err(source) => Err(McpCmdError::Json { path: path.to_path_buf(), source }),
    }
}

fn write_object(path: &Path, obj: &Map<String, Value>) -> Result<(), McpCmdError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| McpCmdError::Io { path: dir.to_path_buf(), source })?;
    }
    let mut body = serde_json::to_string_pretty(obj).map_err(McpCmdError::Serialize)?;
    body.push('\n');
    std::fs::write(path, body).map_err(|source| McpCmdError::Io { path: path.to_path_buf(), source })
}

fn key_value(s: &str) -> Option<(String, String)> {
    s.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).filter(|(k, _)| !k.is_empty())
}

/// The options of `add`.
#[derive(Default)]
struct AddArgs {
    local: bool,
    name: Option<String>,
    url: Option<String>,
    env: Map<String, Value>,
    headers: Map<String, Value>,
    cwd: Option<String>,
    exposure: Option<String>,
    description: Option<String>,
    command: Vec<String>,
}

fn parse_add(argv: &[String]) -> Result<AddArgs, McpCmdError> {
    let mut a = AddArgs::default();
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| McpCmdError::MissingValue(flag.to_string()));
        match arg.as_str() {
            "-l" | "--local" => a.local = true,
            "--url" => a.url = Some(value(arg)?),
            "--cwd" => a.cwd = Some(value(arg)?),
            "--exposure" => a.exposure = Some(value(arg)?),
            "--description" => a.description = Some(value(arg)?),
            "--env" | "--header" => {
                let v = value(arg)?;
                let (k, val) =
                    key_value(&v).ok_or_else(|| McpCmdError::BadPair { flag: arg.clone(), value: v.clone() })?;
                let map = if arg == "--env" { &mut a.env } else { &mut a.headers };
                map.insert(k, Value::String(val));
            }
            "--bearer-token-env-var" => {
                let var = value(arg)?;
                a.headers.insert("Authorization".into(), Value::String(format!("Bearer ${{{var}}}")));
            }
            "--" => {
                a.command = it.by_ref().cloned().collect();
                break;
            }
            s if s.starts_with('-') => return Err(McpCmdError::UnknownOption(s.to_string())),
            s if a.name.is_none() => a.name = Some(s.to_string()),
            s => return Err(McpCmdError::Unexpected(s.to_string())),
        }
    }
    Ok(a)
}

fn entry(a: &AddArgs) -> Result<Value, McpCmdError> {
    let mut e = Map::new();
    match (&a.url, a.command.split_first()) {
        (Some(url), None) => {
            e.insert("url".into(), json!(url));
            if !a.headers.is_empty() {
                e.insert("headers".into(), Value::Object(a.headers.clone()));
            }
        }
        (None, Some((cmd, args))) => {
            e.insert("command".into(), json!(cmd));
            if !args.is_empty() {
                e.insert("args".into(), json!(args));
            }
            if !a.env.is_empty() {
                e.insert("env".into(), Value::Object(a.env.clone()));
            }
            if let Some(c) = &a.cwd {
                e.insert("cwd".into(), json!(c));
            }
        }
        _ => return Err(McpCmdError::NeedsOne),
    }
    if let Some(x) = &a.exposure {
        e.insert("exposure".into(), json!(x));
    }
    if let Some(d) = &a.description {
        e.insert("description".into(), json!(d));
    }
    Ok(Value::Object(e))
}

fn add(argv: &[String]) -> Result<(), McpCmdError> {
    let a = parse_add(argv)?;
    let name = a.name.clone().ok_or(McpCmdError::Usage)?;
    let value = entry(&a)?;
    pi_mcp::config::check_entry(&name, &value).map_err(McpCmdError::Invalid)?;
    let (path, scope) = target(a.local);
    let mut obj = read_object(&path)?;
    let servers = obj.entry("mcpServers").or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(McpCmdError::ServersNotObject(path));
    };
    servers.insert(name.clone(), value);
    write_object(&path, &obj)?;
    println!("{}", text::mcp_added(scope, &name, &path));
    Ok(())
}

fn remove(argv: &[String]) -> Result<(), McpCmdError> {
    let local = argv.iter().any(|a| a == "-l" || a == "--local");
    let names: Vec<&String> = argv.iter().filter(|a| !a.starts_with('-')).collect();
    let [name] = names.as_slice() else { return Err(McpCmdError::Usage) };
    let (path, scope) = target(local);
    let mut obj = read_object(&path)?;
    let removed = obj.get_mut("mcpServers").and_then(Value::as_object_mut).and_then(|m| m.shift_remove(name.as_str()));
    if removed.is_none() {
        return Err(McpCmdError::NoServer { scope, name: name.to_string(), path });
    }
    write_object(&path, &obj)?;
    println!("{}", text::mcp_removed(scope, name, &path));
    Ok(())
}

/// Whether the working folder's project is trusted already (no prompt).
fn project_trusted(agent_dir: &Path, cwd: &Path) -> bool {
    let input = pi_config::trust::TrustInput::new(cwd, pi_config::trust::TrustStore::new(agent_dir));
    pi_config::trust::resolve_trust(input).is_ok_and(|t| t.trusted)
}

fn list() -> ExitCode {
    let agent_dir = pi_config::agent_dir();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let config = pi_mcp::config::load(&agent_dir, &cwd, project_trusted(&agent_dir, &cwd), home.as_deref());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(pi_mcp::block_sigpipe_in_this_thread)
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let user = pi_mcp::config::user_file(&agent_dir);
    let admit: pi_mcp::AdmitFn = Arc::new(|_: &str| pi_mcp::Admit::Register { activate: true });
    let manager = pi_mcp::McpManager::new(config, pi_mcp::LogFile(Some(agent_dir.join("mcp.log"))), admit);
    let mut failed = !manager.problems().is_empty();
    runtime.block_on(async {
        manager.start();
        manager.wait(|_| true, Duration::from_secs(120)).await;
    });
    for s in manager.servers() {
        let c = s.config();
        let scope = if c.file == user { "global" } else { "project" };
        let (state, error) = match s.status() {
            pi_mcp::Status::Connected(n) => (format!("connected, {n} tools"), None),
            pi_mcp::Status::Disabled => ("disabled".to_string(), None),
            pi_mcp::Status::Failed(e) => ("failed".to_string(), Some(e)),
            other => (format!("{other:?}").to_lowercase(), None),
        };
        failed |= c.enabled && !matches!(s.status(), pi_mcp::Status::Connected(_));
        println!("{}: {state} ({}, {scope})", c.name, c.exposure.as_str());
        let target = match &c.transport {
            pi_mcp::Transport::Stdio { command, args, .. } => {
                std::iter::once(command.clone()).chain(args.iter().cloned()).collect::<Vec<_>>().join(" ")
            }
            pi_mcp::Transport::Http { url, .. } => url.clone(),
        };
        println!("  {target}");
        let tools: Vec<String> = s.tool_names().into_iter().map(|(_, remote)| remote).collect();
        if !tools.is_empty() {
            println!("  tools: {}", tools.join(", "));
        }
        if let Some(e) = error {
            println!("  {}", e.replace('\n', "\n  "));
        }
    }
    for p in manager.problems() {
        println!("config error: {p}");
    }
    runtime.block_on(manager.shutdown());
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// `pi mcp …`.
pub fn main(argv: &[String]) -> ExitCode {
    let result = match argv.first().map(String::as_str) {
        Some("add") => add(&argv[1..]),
        Some("remove") => remove(&argv[1..]),
        Some("list") => return list(),
        Some("login" | "logout") => Err(McpCmdError::OAuthUnsupported),
        _ => {
            println!("{}", text::MCP_USAGE);
            return ExitCode::SUCCESS;
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}
