//! What an engine is started with and what its thread shares with the
//! handle: the settings of one extension ([`EngineConfig`]) and the
//! registrations the handle reads ([`Shared`]).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::api::{Limits, Mode, SessionApi, UiBridge};
use crate::compile::Compiled;

/// Settings of one engine.
pub(crate) struct EngineConfig {
    pub path: PathBuf,
    pub cwd: PathBuf,
    pub has_ui: bool,
    pub mode: Mode,
    pub project_trusted: bool,
    pub ui: Option<Arc<dyn UiBridge>>,
    pub limits: Limits,
    /// The run's theme (`ctx.ui.theme`).
    pub theme: crate::ExtTheme,
    /// The front end's check of registered MCP servers.
    pub mcp_check: Option<Arc<crate::McpCheck>>,
    /// The run's prompt spans (`ui_prompt_start`/`ui_prompt_end`).
    pub prompt_spans: super::prompt_span::PromptSpans,
    /// The module compiled ahead (`None`: the engine compiles the file).
    pub compiled: Option<Compiled>,
    /// Run the factory of the module this realm already evaluated for this
    /// path, if any (a session replacement), instead of evaluating it again.
    pub reuse_module: bool,
}

/// What the engine thread shares with the handle (read by other threads).
#[derive(Clone, Default)]
pub(crate) struct Shared {
    /// The events with handlers.
    pub events: Arc<RwLock<HashSet<String>>>,
    /// The registered commands: `[{name, description}]`, in registration order.
    pub commands: Arc<RwLock<Vec<Value>>>,
    /// The registered keyboard shortcuts: `[{key, description}]`.
    pub shortcuts: Arc<RwLock<Vec<Value>>>,
    /// The custom message types with a renderer.
    pub renderers: Arc<RwLock<Vec<String>>>,
    /// The custom entry types with a renderer.
    pub entry_renderers: Arc<RwLock<Vec<String>>>,
    /// The tools with `renderCall` or `renderResult`.
    pub tool_renderers: Arc<RwLock<Vec<String>>>,
    /// The MCP servers registered: `[{name, config}]`.
    pub mcp_servers: Arc<RwLock<Vec<Value>>>,
    /// The session, once bound.
    pub session: Arc<RwLock<Option<Arc<dyn SessionApi>>>>,
}
