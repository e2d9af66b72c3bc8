//! The session's MCP servers: each connects in the background at start, its
//! tools are registered as they arrive (through a [`Registrar`], applied
//! before the next request and at once for nested calls), a dropped server
//! reconnects on the next call, and `tools/list_changed` adds and withdraws
//! tools.

use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use pi_agent::{AgentTool, Exposure};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::client::{self, ClientError, Connection};
use crate::config::{ConfigProblem, McpConfig, ServerConfig};
use crate::exposure::{ServerExposure, possible, tool_exposure};
use crate::logfile::LogFile;
use crate::resources::{ResourceTool, Servers, offers_resources};
use crate::tool::McpTool;
use crate::{naming, text};

/// Where the servers' tools go (the session's pending tool changes).
pub trait Registrar: Send + Sync {
    /// Register (or replace, by name) these tools.
    fn register(&self, tools: Vec<Arc<dyn AgentTool>>);
    /// The session's tool named `name` (registered or pending).
    fn tool(&self, name: &str) -> Option<Arc<dyn AgentTool>>;
}

/// What the tool selection says about an MCP tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Not registered (`--exclude-tools`, an allowlist that names MCP tools).
    Skip,
    /// Registered; a `direct` tool is activated only when `activate`.
    Register {
        /// Whether a `direct` tool becomes active.
        activate: bool,
    },
}

/// Decides [`Admit`] by tool name.
pub type AdmitFn = Arc<dyn Fn(&str) -> Admit + Send + Sync>;

/// A server's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// `enabled: false`.
    Disabled,
    /// Starting or reconnecting.
    Connecting,
    /// Up, with this many tools.
    Connected(usize),
    /// The connection dropped; the next call reconnects.
    Disconnected,
    /// The last attempt failed.
    Failed(String),
}

/// The resource tools as last registered: their exposure (`None`: no server
/// offers resources) and the tools.
type ResourceTools = (Option<Exposure>, Vec<Arc<dyn AgentTool>>);

/// Shared by the servers of a session.
struct Shared {
    log: LogFile,
    session_dir: Option<std::path::PathBuf>,
    admit: AdmitFn,
    registrar: OnceLock<Arc<dyn Registrar>>,
    taken: Mutex<Vec<String>>,
    /// Every configured server, for the resource tools.
    servers: Servers,
    /// The process groups of the stdio servers started and not stopped yet.
    groups: crate::process::Groups,
    /// The resource tools as last registered (exposure, tools).
    resource_tools: Mutex<ResourceTools>,
}

impl Shared {
    /// Register (again) the resource tools when the widest exposure among the
    /// servers with resources changed.
    fn update_resource_tools(self: &Arc<Self>) {
        let all = self.servers.get().map(Vec::as_slice).unwrap_or_default();
        let exposures = all.iter().filter_map(Weak::upgrade).filter(|s| offers_resources(s)).map(|s| s.config.exposure);
        let widest = exposures.fold(None, |w: Option<ServerExposure>, e| match (w, e) {
            (Some(ServerExposure::Direct), _) | (_, ServerExposure::Direct) => Some(ServerExposure::Direct),
            (Some(w), _) => Some(w),
            (None, e) => Some(e),
        });
        let exposure = widest.map(ServerExposure::registered);
        let mut current = lock(&self.resource_tools);
        if current.0 == exposure {
            return;
        }
        let mut tools: Vec<Arc<dyn AgentTool>> = Vec::new();
        for kind in crate::resources::spec::KINDS {
            let Admit::Register { activate } = (self.admit)(kind.name()) else { continue };
            let registered = exposure.unwrap_or(Exposure::Hidden);
            let active = registered == Exposure::Direct && activate;
            tools.push(Arc::new(ResourceTool::new(kind, self.servers.clone(), registered, active)));
        }
        *current = (exposure, tools.clone());
        drop(current);
        if let Some(r) = self.registrar.get() {
            r.register(tools);
        }
    }

    /// Whether `read_mcp_resource` is registered (resource links then say how to read them).
    fn offers_read(&self) -> bool {
        let current = lock(&self.resource_tools);
        current.0.is_some_and(|e| e != Exposure::Hidden)
            && current.1.iter().any(|t| t.def().name == crate::resources::spec::READ)
    }
}

/// One configured server.
pub struct Server {
    me: Weak<Server>,
    config: ServerConfig,
    shared: Arc<Shared>,
    status: Mutex<Status>,
    conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    settled: watch::Sender<bool>,
    tools: Mutex<Vec<Arc<McpTool>>>,
    instructions: Mutex<Option<String>>,
    /// Whether the server offered resources when it last connected.
    resources: std::sync::atomic::AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Server {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Its configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Its state.
    pub fn status(&self) -> Status {
        lock(&self.status).clone()
    }

    /// Its registered tools (name, name on the server).
    pub fn tool_names(&self) -> Vec<(String, String)> {
        lock(&self.tools).iter().map(|t| (t.def().name.clone(), t.remote_name().to_string())).collect()
    }

    fn set_status(&self, s: Status) {
        *lock(&self.status) = s;
    }

    /// The live connection, connecting (again) when there is none.
    async fn connection(&self) -> Result<Arc<Connection>, ClientError> {
        let mut slot = self.conn.lock().await;
        if let Some(c) = slot.as_ref().filter(|c| !c.is_closed()) {
            return Ok(c.clone());
        }
        slot.take();
        self.set_status(Status::Connecting);
        self.settled.send_replace(false);
        let weak = self.me.clone();
        let list_changed: client::ListChanged = Arc::new(move || {
            if let Some(s) = weak.upgrade() {
                tokio::spawn(async move { s.refresh_tools().await });
            }
        });
        // A panic below (a dependency's) must not leave the server "connecting" forever.
        let connecting = client::connect(
            &self.config,
            self.shared.log.clone(),
            list_changed,
            self.shared.session_dir.as_deref(),
            &self.shared.groups,
        );
        let result = match futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(connecting)).await {
            Ok(r) => r,
            Err(_) => Err(ClientError::Connect(text::CONNECT_PANICKED.into())),
        };
        let out = match result {
            Ok(c) => {
                let c = Arc::new(c);
                *lock(&self.instructions) = c.instructions.clone();
                self.resources.store(c.resources, std::sync::atomic::Ordering::SeqCst);
                let n = self.install(&c.tools);
                self.set_status(Status::Connected(n));
                *slot = Some(c.clone());
                self.shared.update_resource_tools();
                Ok(c)
            }
            Err(e) => {
                self.shared.log.append(&self.config.name, &e.to_string());
                self.set_status(Status::Failed(e.to_string()));
                Err(e)
            }
        };
        self.settled.send_replace(true);
        out
    }

    /// After `tools/list_changed`: list again and register the difference.
    async fn refresh_tools(&self) {
        let conn = self.conn.lock().await.clone();
        if let Some(c) = conn
            && let Ok(tools) = c.relist().await
        {
            let n = self.install(&tools);
            self.set_status(Status::Connected(n));
        }
    }

    /// Build and register the tools of `listed`; withdraw the ones no longer listed. Returns the count.
    fn install(&self, listed: &[rmcp::model::Tool]) -> usize {
        let Some(me) = self.me.upgrade() else { return 0 };
        let mut mine = lock(&self.tools);
        let mut fresh: Vec<Arc<McpTool>> = Vec::new();
        let mut out: Vec<Arc<dyn AgentTool>> = Vec::new();
        for t in listed {
            let exposure = tool_exposure(self.config.exposure, &self.config.tool_exposure, &t.name);
            let previous = mine.iter().find(|m| m.remote_name() == t.name).map(|m| m.def().name.clone());
            let name = previous.unwrap_or_else(|| {
                let taken = lock(&self.shared.taken);
                naming::tool_name(&self.config.name, &t.name, |n| taken.iter().any(|k| k == n))
            });
            let Admit::Register { activate } = (self.shared.admit)(&name) else { continue };
            let registered = exposure.registered();
            let active = registered == Exposure::Direct && activate;
            lock(&self.shared.taken).push(name.clone());
            let tool = Arc::new(McpTool::new(me.clone(), t, name, registered, active));
            fresh.push(tool.clone());
            out.push(tool);
        }
        for old in mine.iter().filter(|o| !fresh.iter().any(|f| f.def().name == o.def().name)) {
            out.push(Arc::new(old.withdrawn()));
        }
        let n = fresh.len();
        *mine = fresh;
        drop(mine);
        if let Some(r) = self.shared.registrar.get() {
            r.register(out);
        }
        n
    }

    /// Call `tool`; a dropped connection is reported and reconnects on the next call.
    pub async fn call(&self, tool: &str, args: Value, abort: &CancellationToken) -> Result<Value, ClientError> {
        let conn = self.connection().await?;
        let r = conn.call(tool, args, abort).await;
        if r.is_err() && conn.is_closed() {
            self.set_status(Status::Disconnected);
            return Err(ClientError::Service(text::SERVER_CLOSED.into()));
        }
        r
    }

    /// Whether the server offered resources when it last connected.
    pub fn has_resources(&self) -> bool {
        self.resources.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Whether results of this server's tools may point at `read_mcp_resource`.
    pub(crate) fn offers_read(&self) -> bool {
        self.shared.offers_read()
    }

    /// One resource request (see [`Connection::resources`]); a dropped connection reconnects first.
    pub(crate) async fn resources(&self, kind: crate::resources::Kind, params: Value) -> Result<Value, String> {
        let conn = self.connection().await.map_err(|e| e.to_string())?;
        conn.resources(kind, params).await.map_err(|e| e.to_string())
    }

    /// Wait until the current connection attempt settled (or `timeout`).
    async fn wait_settled(&self, timeout: Duration) {
        let mut rx = self.settled.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|s| *s)).await;
    }

    fn has(&self, e: ServerExposure) -> bool {
        possible(self.config.exposure, &self.config.tool_exposure).contains(&e)
    }
}

/// The servers of a session.
pub struct McpManager {
    servers: Vec<Arc<Server>>,
    shared: Arc<Shared>,
    config: McpConfig,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager").field("servers", &self.servers.len()).finish()
    }
}

impl McpManager {
    /// The servers of `config`; nothing connects until [`McpManager::start`].
    pub fn new(config: McpConfig, log: LogFile, admit: AdmitFn) -> Self {
        let shared = Arc::new(Shared {
            log,
            session_dir: config.session_dir.clone(),
            admit,
            registrar: OnceLock::new(),
            taken: Mutex::new(Vec::new()),
            servers: Servers::default(),
            groups: Default::default(),
            resource_tools: Mutex::new((None, Vec::new())),
        });
        let servers = config
            .servers
            .iter()
            .map(|c| {
                Arc::new_cyclic(|me| Server {
                    me: me.clone(),
                    config: c.clone(),
                    shared: shared.clone(),
                    status: Mutex::new(if c.enabled { Status::Connecting } else { Status::Disabled }),
                    conn: tokio::sync::Mutex::new(None),
                    settled: watch::channel(!c.enabled).0,
                    tools: Mutex::new(Vec::new()),
                    instructions: Mutex::new(None),
                    resources: std::sync::atomic::AtomicBool::new(false),
                })
            })
            .collect::<Vec<_>>();
        let _ = shared.servers.set(servers.iter().map(Arc::downgrade).collect());
        McpManager { servers, shared, config }
    }

    /// Connect every enabled server in the background (needs a Tokio runtime).
    pub fn start(&self) {
        for s in self.servers.iter().filter(|s| s.config.enabled) {
            let s = s.clone();
            s.settled.send_replace(false);
            tokio::spawn(async move {
                let _ = s.connection().await;
            });
        }
    }

    /// Send tools to `registrar` from now on (and the ones already listed).
    pub fn bind(&self, registrar: Arc<dyn Registrar>) {
        if self.shared.registrar.set(registrar.clone()).is_err() {
            return;
        }
        let mut tools: Vec<Arc<dyn AgentTool>> = self
            .servers
            .iter()
            .flat_map(|s| lock(&s.tools).iter().map(|t| t.clone() as Arc<dyn AgentTool>).collect::<Vec<_>>())
            .collect();
        tools.extend(lock(&self.shared.resource_tools).1.iter().cloned());
        if !tools.is_empty() {
            registrar.register(tools);
        }
    }

    /// The session's tool named `name`, once bound.
    pub fn tool(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        self.shared.registrar.get().and_then(|r| r.tool(name))
    }

    /// The configured servers.
    pub fn servers(&self) -> &[Arc<Server>] {
        &self.servers
    }

    /// Entries that were skipped.
    pub fn problems(&self) -> &[ConfigProblem] {
        &self.config.problems
    }

    /// Wait for the enabled servers `which` picks to finish connecting, at most `timeout`.
    pub async fn wait(&self, which: impl Fn(&Server) -> bool, timeout: Duration) {
        let waits = self.servers.iter().filter(|s| s.config.enabled && which(s)).map(|s| s.wait_settled(timeout));
        futures::future::join_all(waits).await;
    }

    /// Wait (up to 10 s) for the servers with `direct` tools, before the first prompt.
    pub async fn wait_direct(&self) {
        self.wait(|s| s.has(ServerExposure::Direct), text::DIRECT_WAIT).await;
    }

    /// Whether codemode (`.0`) and tool_search (`.1`) should be switched on.
    pub fn activation(&self) -> (bool, bool) {
        let enabled = || self.servers.iter().filter(|s| s.config.enabled);
        let codemode = self.config.auto_enable_codemode && enabled().any(|s| s.has(ServerExposure::Codemode));
        let search = enabled().any(|s| s.has(ServerExposure::Deferred));
        (codemode, search)
    }

    /// Whether some enabled server has tools the model reaches only through codemode or tool_search.
    pub fn has_indirect(&self) -> bool {
        self.servers
            .iter()
            .filter(|s| s.config.enabled)
            .any(|s| s.has(ServerExposure::Codemode) || s.has(ServerExposure::Deferred))
    }

    /// The `<mcp_servers>` section of the system prompt.
    pub fn prompt_section(&self) -> Option<String> {
        crate::prompt::section(&self.config.servers, |name| {
            self.servers.iter().find(|s| s.name() == name).and_then(|s| lock(&s.instructions).clone())
        })
    }

    /// Reconnect `name` (`/mcp reconnect`).
    pub async fn reconnect(&self, name: &str) -> Result<Status, String> {
        let s =
            self.servers.iter().find(|s| s.name() == name).ok_or_else(|| format!("No MCP server named \"{name}\"."))?;
        let old = s.conn.lock().await.take();
        if let Some(c) = old {
            c.stop().await;
        }
        s.connection().await.map_err(|e| e.to_string())?;
        Ok(s.status())
    }

    /// Stop every server (all at once; each closes its standard input, then
    /// its process group gets SIGTERM and SIGKILL after grace periods).
    pub async fn shutdown(&self) {
        let stops = self.servers.iter().map(|s| async move {
            // A server still connecting holds the slot: it is killed below.
            let old = tokio::time::timeout(text::STOP_GRACE, s.conn.lock()).await.ok().and_then(|mut c| c.take());
            if let Some(c) = old {
                c.stop().await;
            }
        });
        futures::future::join_all(stops).await;
        crate::process::kill_all(Some(&self.shared.groups));
    }
}
