//! One configured server: its state, its connection (made again when it
//! dropped), its tools (registered as listed, withdrawn when no longer
//! listed) and its calls.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use pi_agent::{AgentTool, Exposure};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::cache::{Answer, ToolCache};
use super::shared::{Shared, lock};
use super::terms::{Admit, Status};
use crate::client::{self, ClientError, Connection};
use crate::config::ServerConfig;
use crate::exposure::{ServerExposure, possible, tool_exposure};
use crate::tool::McpTool;
use crate::{naming, text};

/// One configured server.
pub struct Server {
    pub(super) me: Weak<Server>,
    pub(super) config: ServerConfig,
    pub(super) shared: Arc<Shared>,
    pub(super) status: Mutex<Status>,
    pub(super) conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    pub(super) settled: watch::Sender<bool>,
    pub(super) tools: Mutex<Vec<Arc<McpTool>>>,
    pub(super) instructions: Mutex<Option<String>>,
    /// Whether the server offered resources when it last connected.
    pub(super) resources: std::sync::atomic::AtomicBool,
    /// The cached answer its tools came from, until it answers itself.
    pub(super) cached: Mutex<Option<Answer>>,
    /// Its place among the servers in the order they first offered tools
    /// (`u64::MAX`: not yet).
    pub(super) arrived: std::sync::atomic::AtomicU64,
}

impl Server {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The `instructions` of its `initialize` answer, once connected.
    pub fn instructions(&self) -> Option<String> {
        lock(&self.instructions).clone()
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
    pub(super) async fn connection(&self) -> Result<Arc<Connection>, ClientError> {
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
                let answer = Answer { tools: c.tools.clone(), resources: c.resources };
                let cached = lock(&self.cached).take();
                // The cached tools stand when the server lists the same ones.
                let n = match &cached {
                    Some(kept) if kept.tools == c.tools => lock(&self.tools).len(),
                    _ => self.install(&c.tools),
                };
                if self.has(ServerExposure::Direct)
                    && cached.as_ref() != Some(&answer)
                    && let Some(cache) = self.shared.cache.get()
                {
                    cache.save(&ToolCache::key(&self.config), &answer);
                }
                self.set_status(Status::Connected(n));
                *slot = Some(c.clone());
                self.shared.update_resource_tools();
                Ok(c)
            }
            Err(e) => {
                // Tools offered from the cache go with a server that cannot connect.
                if lock(&self.cached).take().is_some() {
                    self.install(&[]);
                    self.resources.store(false, std::sync::atomic::Ordering::SeqCst);
                    self.shared.update_resource_tools();
                }
                self.shared.log.append(&self.config.name, &e.to_string());
                self.set_status(Status::Failed(e.to_string()));
                Err(e)
            }
        };
        self.settled.send_replace(true);
        out
    }

    /// Offer the tools of the server's answer among the `kept` ones, if it
    /// has `direct` tools and one is kept (before it connects).
    pub(super) fn install_cached(&self, kept: &mut std::collections::BTreeMap<String, Answer>) {
        if !self.has(ServerExposure::Direct) {
            return;
        }
        let Some(answer) = kept.remove(&ToolCache::key(&self.config)) else { return };
        self.resources.store(answer.resources, std::sync::atomic::Ordering::SeqCst);
        self.install(&answer.tools);
        *lock(&self.cached) = Some(answer);
        self.shared.update_resource_tools();
    }

    /// Whether its tools come from the cache (it has not answered yet).
    pub(super) fn offered_from_cache(&self) -> bool {
        lock(&self.cached).is_some()
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

    /// Build and register the tools of `listed`; withdraw the ones no longer
    /// listed. Returns the count. Names are looked up in sets: linear in the
    /// number of tools (a server may list thousands).
    fn install(&self, listed: &[rmcp::model::Tool]) -> usize {
        let Some(me) = self.me.upgrade() else { return 0 };
        let mut mine = lock(&self.tools);
        let previous: HashMap<&str, String> = mine.iter().map(|m| (m.remote_name(), m.def().name.clone())).collect();
        let mut fresh: Vec<Arc<McpTool>> = Vec::new();
        let mut out: Vec<Arc<dyn AgentTool>> = Vec::new();
        for t in listed {
            let exposure = tool_exposure(self.config.exposure, &self.config.tool_exposure, &t.name);
            let name = previous.get(t.name.as_ref()).cloned().unwrap_or_else(|| {
                let taken = lock(&self.shared.taken);
                naming::tool_name(&self.config.name, &t.name, |n| taken.contains(n))
            });
            let Admit::Register { activate } = (self.shared.admit)(&name) else { continue };
            let registered = exposure.registered();
            let active = registered == Exposure::Direct && activate;
            lock(&self.shared.taken).insert(name.clone());
            let tool = Arc::new(McpTool::new(me.clone(), t, name, registered, active));
            fresh.push(tool.clone());
            out.push(tool);
        }
        let kept: HashSet<&str> = fresh.iter().map(|f| f.def().name.as_str()).collect();
        for old in mine.iter().filter(|o| !kept.contains(o.def().name.as_str())) {
            out.push(Arc::new(old.withdrawn()));
        }
        drop(kept);
        drop(previous);
        let n = fresh.len();
        *mine = fresh;
        // Its first offer takes the next place (under the tools' lock: one install at a time).
        if self.arrived.load(SeqCst) == u64::MAX {
            self.arrived.store(self.shared.arrivals.fetch_add(1, SeqCst), SeqCst);
        }
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
    pub(crate) async fn resources(&self, kind: crate::resources::Kind, params: Value) -> Result<Value, ClientError> {
        let conn = self.connection().await?;
        conn.resources(kind, params).await
    }

    /// Wait until the current connection attempt settled (or `timeout`).
    pub(super) async fn wait_settled(&self, timeout: Duration) {
        let mut rx = self.settled.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|s| *s)).await;
    }

    pub(super) fn has(&self, e: ServerExposure) -> bool {
        possible(self.config.exposure, &self.config.tool_exposure).contains(&e)
    }
}
