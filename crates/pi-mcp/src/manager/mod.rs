//! The session's MCP servers: each connects in the background at start, its
//! tools are registered as they arrive (through a [`Registrar`], applied
//! before the next request and at once for nested calls), a dropped server
//! reconnects on the next call, and `tools/list_changed` adds and withdraws
//! tools.

mod cache;
mod server;
mod shared;
mod terms;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pi_agent::AgentTool;
use tokio::sync::watch;

pub use cache::CACHE_FILE;
pub use server::Server;
use shared::{Shared, lock};
pub use terms::{Admit, AdmitFn, Registrar, Status};

use crate::ClientError;

use crate::config::{ConfigProblem, McpConfig};
use crate::exposure::ServerExposure;
use crate::logfile::LogFile;
use crate::resources::Servers;
use crate::text;

/// Why `/mcp reconnect` could not connect a server.
#[derive(Debug, thiserror::Error)]
pub enum ReconnectError {
    /// No server of this name is configured.
    #[error("{}", text::no_server_named(.0))]
    NoServer(String),
    /// The server did not connect.
    #[error(transparent)]
    Connect(#[from] ClientError),
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
            taken: Mutex::new(Default::default()),
            servers: Servers::default(),
            groups: Default::default(),
            resource_tools: Mutex::new((None, Vec::new())),
            cache: OnceLock::new(),
            arrivals: std::sync::atomic::AtomicU64::new(0),
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
                    cached: Mutex::new(None),
                    arrived: std::sync::atomic::AtomicU64::new(u64::MAX),
                })
            })
            .collect::<Vec<_>>();
        let _ = shared.servers.set(servers.iter().map(Arc::downgrade).collect());
        McpManager { servers, shared, config }
    }

    /// Keep the last answer of each server with `direct` tools in `file`
    /// ([`CACHE_FILE`] in the agent dir), and start from it: see
    /// `manager/cache.rs`. Call before [`McpManager::start`].
    pub fn with_tool_cache(self, file: std::path::PathBuf) -> Self {
        let _ = self.shared.cache.set(cache::ToolCache::new(file));
        self
    }

    /// Connect every enabled server in the background (needs a Tokio
    /// runtime); a server with `direct` tools whose last answer is cached
    /// offers those tools at once.
    pub fn start(&self) {
        let mut kept = self.shared.cache.get().map(cache::ToolCache::load_all).unwrap_or_default();
        for s in self.servers.iter().filter(|s| s.config.enabled) {
            s.install_cached(&mut kept);
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
        // In the order the servers offered them (as the reference registers
        // them as they come), the resource tools right after the first server
        // that offers resources.
        let resource_tools: Vec<Arc<dyn AgentTool>> = lock(&self.shared.resource_tools).1.clone();
        let mut resources_placed = false;
        let mut tools: Vec<Arc<dyn AgentTool>> = Vec::new();
        let mut servers: Vec<&Arc<Server>> = self.servers.iter().collect();
        servers.sort_by_key(|s| s.arrived.load(std::sync::atomic::Ordering::SeqCst));
        for s in servers {
            tools.extend(lock(&s.tools).iter().map(|t| t.clone() as Arc<dyn AgentTool>));
            if !resources_placed && s.has_resources() {
                tools.extend(resource_tools.iter().cloned());
                resources_placed = true;
            }
        }
        if !resources_placed {
            tools.extend(resource_tools);
        }
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

    /// Wait (up to 10 s) for the servers with `direct` tools, before the
    /// first prompt; a server whose tools came from the cache is not waited for.
    pub async fn wait_direct(&self) {
        self.wait(|s| s.has(ServerExposure::Direct) && !s.offered_from_cache(), text::DIRECT_WAIT).await;
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
    pub async fn reconnect(&self, name: &str) -> Result<Status, ReconnectError> {
        let s =
            self.servers.iter().find(|s| s.name() == name).ok_or_else(|| ReconnectError::NoServer(name.to_string()))?;
        let old = s.conn.lock().await.take();
        if let Some(c) = old {
            c.stop().await;
        }
        s.connection().await?;
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
