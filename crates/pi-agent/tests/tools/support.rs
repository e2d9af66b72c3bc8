//! One tool call made in-process exactly as `pi tool NAME ARGS --cwd DIR`
//! makes it (crates/pi-cli/src/tool_cmd.rs): a registry of every built-in,
//! all active; the dispatcher; `Caller::Model`; a context for the folder
//! with the sandbox of a user who has no `sandbox` settings and gives no
//! flag. What comes back is what the process would show: the printed JSON
//! on stdout, the message of an invalid call on stderr, and the exit status
//! (0, 1 for an error result, 2 for an invalid call).
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_agent::{BuiltinTool, CallRequest, Caller, Dispatcher, Finished, RawArgs, Refusal, Registry};
use pi_tools::{ToolContext, args};
use serde_json::Value;

/// The call id `pi tool` gives its one call.
const CALL_ID: &str = "pi-tool-1";

/// `pi tool`'s status for an invalid call.
const EXIT_INVALID: i32 = 2;

/// The exit status of the call, read as a process's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(i32);

impl Status {
    /// The exit code (always there: no signal ends an in-process call).
    pub fn code(&self) -> Option<i32> {
        Some(self.0)
    }

    /// Exit code 0.
    pub fn success(&self) -> bool {
        self.0 == 0
    }
}

/// What `pi tool` would have printed, and its exit status.
#[derive(Debug)]
pub struct Output {
    /// The exit status.
    pub status: Status,
    /// The result's JSON, pretty-printed with a final newline (empty for an invalid call).
    pub stdout: Vec<u8>,
    /// The message of an invalid call with a final newline (empty otherwise).
    pub stderr: Vec<u8>,
}

fn invalid(message: &str) -> Output {
    Output { status: Status(EXIT_INVALID), stdout: Vec::new(), stderr: format!("{message}\n").into_bytes() }
}

/// The sandbox `pi tool` runs under when the user's settings have no
/// `sandbox` object and neither `--sandbox` nor `--sandbox-network` is given
/// (the project layer is never read by `pi tool`).
fn default_sandbox(cwd: &Path) -> pi_sandbox::Sandbox {
    let agent_dir = pi_config::agent_dir();
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let user_file = agent_dir.join(pi_config::settings::SETTINGS_FILE_NAME);
    let project_file = cwd.join(".pi").join(pi_config::settings::SETTINGS_FILE_NAME);
    let user = pi_sandbox::Layer { value: None, file: &user_file };
    let project = pi_sandbox::Layer { value: None, file: &project_file };
    let base = pi_sandbox::Base { home: home.as_deref(), cwd };
    let (policy, warnings) = pi_sandbox::from_settings(user, Some(project), pi_sandbox::Flags::default(), base);
    assert!(warnings.is_empty(), "no settings, no warnings: {warnings:?}");
    pi_sandbox::Sandbox::new(policy, home, Some(agent_dir))
}

/// Every built-in, all callable by name.
fn registry() -> Registry {
    let mut registry = Registry::new();
    for tool in BuiltinTool::all() {
        registry.register(tool);
    }
    let names: Vec<String> = registry.all().iter().map(|t| t.def().name.clone()).collect();
    registry.reset_active(&names);
    registry
}

/// The call; `Err` when `pi tool` would stop before dispatching it.
async fn call(tool: &str, raw: &str, cwd: PathBuf) -> Result<Finished, Output> {
    let mut registry = registry();
    registry.refresh_loadout().await;
    let mut dispatcher = Dispatcher::new(registry);
    dispatcher.tool_changes.apply(&mut dispatcher.registry);
    if dispatcher.registry.get(tool).is_none() {
        return Err(invalid(&pi_tools::UnknownToolName(tool.to_string()).to_string()));
    }
    let parsed = args::parse_raw(tool, raw).map_err(|e| invalid(&e.to_string()))?;
    let req = CallRequest { id: CALL_ID.into(), name: tool.to_string(), args: RawArgs::Json(parsed), parent: None };
    let mut ctx = ToolContext::new(cwd.clone());
    ctx.sandbox = Arc::new(default_sandbox(&cwd));
    Ok(dispatcher.call(req, Caller::Model, &ctx).await)
}

/// `pi tool <tool> <raw> --cwd <cwd>`, in-process.
pub fn pi_tool(tool: &str, raw: &str, cwd: &Path) -> Output {
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let cwd = pi_tools::paths::resolve_lexical(&here, cwd);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let finished = match runtime.block_on(call(tool, raw, cwd)) {
        Ok(f) => f,
        Err(out) => return out,
    };
    match finished.refusal {
        Some(Refusal::NotFound | Refusal::InvalidArguments) => invalid(&finished.result.text_content()),
        _ => {
            let value = serde_json::to_value(&finished.result).unwrap_or_default();
            let stdout = format!("{}\n", serde_json::to_string_pretty(&value).unwrap_or_default()).into_bytes();
            Output { status: Status(if finished.result.is_error { 1 } else { 0 }), stdout, stderr: Vec::new() }
        }
    }
}

// ---------- the helpers the tool tests share ----------

/// What `pi tool` printed, with the exit status already checked against `isError`.
pub struct Out {
    /// The text blocks joined by newlines.
    pub text: String,
    /// `details`.
    pub details: Value,
    /// `isError`.
    pub is_error: bool,
}

/// Run `pi tool <tool> <args> --cwd <dir>`.
pub fn run_tool(tool: &str, dir: &Path, args: &Value) -> Out {
    let o = pi_tool(tool, &args.to_string(), dir);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| {
        panic!("not JSON: {} / {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    });
    let text =
        v["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n");
    let is_error = v["isError"].as_bool().unwrap();
    assert_eq!(o.status.code(), Some(if is_error { 1 } else { 0 }));
    Out { text, details: v["details"].clone(), is_error }
}

/// Write `content` to `dir/rel`, creating folders.
pub fn write(dir: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

/// What `pi tool` printed, as JSON, with its exit status (not checked).
pub struct Raw {
    /// The printed result.
    pub json: Value,
    /// The exit status.
    pub code: i32,
}

impl Raw {
    /// The first content block's text.
    pub fn text(&self) -> &str {
        self.json["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text block: {}", self.json))
    }
    /// `isError`.
    pub fn is_error(&self) -> bool {
        self.json["isError"].as_bool().unwrap()
    }
}

/// Run `pi tool <tool> <args> --cwd <cwd>`; the printed JSON must parse.
pub fn run_raw(tool: &str, args: &Value, cwd: &Path) -> Raw {
    let out = pi_tool(tool, &args.to_string(), cwd);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    Raw { json, code: out.status.code().unwrap_or(-1) }
}

/// A successful call's text, checked to be no error (exit 0).
pub fn ok_text(tool: &str, args: Value, cwd: &Path) -> String {
    let out = run_raw(tool, &args, cwd);
    assert!(!out.is_error(), "unexpected error: {}", out.json);
    assert_eq!(out.code, 0);
    out.text().to_string()
}

/// A failed call's text, checked to be an error result (exit 1).
pub fn err_text(tool: &str, args: Value, cwd: &Path) -> String {
    let out = run_raw(tool, &args, cwd);
    assert!(out.is_error(), "expected an error: {}", out.json);
    assert_eq!(out.code, 1);
    out.text().to_string()
}
