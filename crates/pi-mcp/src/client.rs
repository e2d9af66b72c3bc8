//! One connection to one server over rmcp: spawn (stdio) or connect, run
//! `initialize` and `tools/list`, call tools with the per-request timeout
//! that progress notifications reset, and stop (close stdin, SIGTERM, then
//! SIGKILL to the server's process group, so `npx`/`uvx` wrappers' children
//! die too).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, NumberOrString, ProgressToken, RequestMetaObject};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{ServerConfig, Transport};
use crate::logfile::LogFile;
use crate::process::{Groups, Process};
use crate::stdio::{self, Stash};
use crate::subst;
use crate::text;

/// What the connection tells its owner.
pub type ListChanged = Arc<dyn Fn() + Send + Sync>;

#[allow(deprecated)] // Roots (SEP-2577), still asked for by servers of earlier versions.
/// The client side's handler: progress resets the running requests' clocks,
/// logging goes to `mcp.log`, a tool-list change is passed on.
#[derive(Clone)]
pub(crate) struct Handler {
    server: String,
    last_progress: Arc<Mutex<Instant>>,
    log: LogFile,
    list_changed: ListChanged,
    /// The session folder, offered as the one root (`roots/list`).
    roots: Vec<rmcp::model::Root>,
}

impl ClientHandler for Handler {
    async fn on_progress(
        &self,
        _params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        *self.last_progress.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    // Logging is deprecated by SEP-2577, but servers of earlier protocol versions still send it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let line = serde_json::to_string(&params.data).unwrap_or_default();
        self.log.append(&self.server, &format!("{:?}: {line}", params.level));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.list_changed)();
    }

    #[allow(deprecated)]
    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(rmcp::model::ListRootsResult::new(self.roots.clone()))
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        if !self.roots.is_empty() {
            info.capabilities.roots = Some(Default::default());
        }
        info.client_info.name = "pi".into();
        info.client_info.version = env!("CARGO_PKG_VERSION").into();
        info
    }
}

/// A failed connection or call.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Spawning, initialize or the transport failed.
    #[error("{0}")]
    Connect(String),
    /// The request ran out of time.
    #[error("{}", text::timed_out(.0.as_secs_f64()))]
    Timeout(Duration),
    /// The call was aborted.
    #[error("{}", text::CALL_ABORTED)]
    Aborted,
    /// The server answered with a protocol error, or the connection dropped.
    #[error("{0}")]
    Service(String),
    /// An HTTP server's network error or transient status (408, 429, 5xx): worth another attempt.
    #[error("{0}")]
    Transient(String),
    /// An `env` or `headers` value could not be resolved.
    #[error(transparent)]
    Value(#[from] crate::subst::SubstError),
    /// An HTTP request answered with a failure status, worded as the
    /// reference words it (`MCP HTTP request failed with status 503: busy`);
    /// a tool call shows it as it is.
    #[error("{0}")]
    Http(String),
}

/// A live connection.
pub struct Connection {
    service: RunningService<RoleClient, Handler>,
    /// A stdio server's process.
    process: Option<Process>,
    /// Raw answers to resource requests (read from stdio or the HTTP bodies).
    stash: Arc<Stash>,
    last_progress: Arc<Mutex<Instant>>,
    timeout: Duration,
    /// The server's tools, as listed at connection.
    pub tools: Vec<rmcp::model::Tool>,
    /// `instructions` of `initialize`.
    pub instructions: Option<String>,
    /// Whether the server offers resources.
    pub resources: bool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("pid", &self.process.as_ref().map(|p| p.pid))
            .field("tools", &self.tools.len())
            .finish()
    }
}

/// The session folder as an MCP root (`file://` URL, its base name). Roots
/// are deprecated by SEP-2577 but servers of earlier versions still ask.
#[allow(deprecated)]
fn roots(session_dir: Option<&std::path::Path>) -> Vec<rmcp::model::Root> {
    let Some(dir) = session_dir else { return Vec::new() };
    let Ok(url) = url::Url::from_file_path(dir) else { return Vec::new() };
    let mut root = rmcp::model::Root::new(url.to_string());
    root.name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    vec![root]
}

/// Connect to `config`'s server and list its tools; `session_dir` is
/// offered as the root. An HTTP server's network errors and transient
/// statuses are retried twice (the whole connection, as the reference does).
pub async fn connect(
    config: &ServerConfig,
    log: LogFile,
    list_changed: ListChanged,
    session_dir: Option<&std::path::Path>,
    groups: &Groups,
) -> Result<Connection, ClientError> {
    let retries = if matches!(config.transport, Transport::Http { .. }) { text::HTTP_RETRIES } else { 0 };
    let mut attempt = 0;
    loop {
        match connect_once(config, log.clone(), list_changed.clone(), session_dir, groups).await {
            Err(ClientError::Transient(why)) if attempt < retries => {
                attempt += 1;
                log.append(&config.name, &text::retrying(&why, attempt));
                tokio::time::sleep(text::HTTP_RETRY_DELAY * attempt).await;
            }
            Err(ClientError::Transient(why)) => return Err(ClientError::Connect(why)),
            r => return r,
        }
    }
}

async fn connect_once(
    config: &ServerConfig,
    log: LogFile,
    list_changed: ListChanged,
    session_dir: Option<&std::path::Path>,
    groups: &Groups,
) -> Result<Connection, ClientError> {
    let last_progress = Arc::new(Mutex::new(Instant::now()));
    let handler = Handler {
        server: config.name.clone(),
        last_progress: last_progress.clone(),
        log: log.clone(),
        list_changed,
        roots: roots(session_dir),
    };
    let stash = Arc::new(Stash::default());
    let (service, process) = match &config.transport {
        Transport::Stdio { command, args, env, cwd } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args);
            for (k, v) in env {
                cmd.env(k, subst::value(&config.name, &format!("env \"{k}\""), v)?);
            }
            if let Some(dir) = cwd {
                cmd.current_dir(dir);
            }
            let spawned = stdio::spawn(cmd, log.stdio(), stash.clone())
                .map_err(|e| ClientError::Connect(format!("cannot start \"{command}\": {e}")))?;
            let process = Process::new(spawned.child, groups.clone());
            match tokio::time::timeout(config.timeout, handler.serve((spawned.stdout, spawned.stdin))).await {
                Ok(Ok(s)) => (s, Some(process)),
                Ok(Err(e)) => {
                    process.kill();
                    return Err(ClientError::Connect(e.to_string()));
                }
                Err(_) => {
                    process.kill();
                    return Err(ClientError::Connect(text::CONNECT_TIMED_OUT.into()));
                }
            }
        }
        Transport::Http { url, headers } => {
            let (s, _) =
                crate::http::connect(&config.name, url, headers, handler, config.timeout, stash.clone()).await?;
            (s, None)
        }
    };
    let instructions = service.peer_info().and_then(|i| i.instructions.clone());
    let tools = match tokio::time::timeout(config.timeout, service.list_all_tools()).await {
        Ok(Ok(t)) => t,
        Ok(Err(e)) if process.is_none() && crate::http::transient(&e) => {
            return Err(ClientError::Transient(e.to_string()));
        }
        Ok(Err(e)) => return Err(ClientError::Connect(e.to_string())),
        Err(_) => return Err(ClientError::Timeout(config.timeout)),
    };
    let resources = service.peer_info().is_some_and(|i| i.capabilities.resources.is_some());
    Ok(Connection { service, process, stash, last_progress, timeout: config.timeout, tools, instructions, resources })
}

impl Connection {
    /// Whether the transport is still up.
    pub fn is_closed(&self) -> bool {
        self.service.is_transport_closed()
    }

    /// List the tools again (after `tools/list_changed`).
    pub async fn relist(&self) -> Result<Vec<rmcp::model::Tool>, ClientError> {
        match tokio::time::timeout(self.timeout, self.service.list_all_tools()).await {
            Ok(r) => r.map_err(|e| ClientError::Service(e.to_string())),
            Err(_) => Err(ClientError::Timeout(self.timeout)),
        }
    }

    /// Call `tool` with `args`; the result as JSON. The clock restarts on
    /// every progress notification.
    pub async fn call(&self, tool: &str, args: Value, abort: &CancellationToken) -> Result<Value, ClientError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = args.as_object().cloned();
        static NEXT: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(1);
        let token = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        params.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(NumberOrString::Number(token))));
        let started = Instant::now();
        let call = self.service.call_tool(params);
        tokio::pin!(call);
        loop {
            let last = (*self.last_progress.lock().unwrap_or_else(|p| p.into_inner())).max(started);
            let deadline = tokio::time::Instant::from_std(last + self.timeout);
            tokio::select! {
                r = &mut call => {
                    let r = r.map_err(|e| http_failure(e.to_string()))?;
                    return serde_json::to_value(&r).map_err(|e| ClientError::Service(e.to_string()));
                }
                _ = tokio::time::sleep_until(deadline) => {
                    let now_last = *self.last_progress.lock().unwrap_or_else(|p| p.into_inner());
                    if now_last <= last {
                        return Err(ClientError::Timeout(self.timeout));
                    }
                }
                _ = abort.cancelled() => return Err(ClientError::Aborted),
            }
        }
    }

    /// One resource request (`resources/list`, `resources/templates/list`,
    /// `resources/read` with `params`); the server's raw `result` when it came
    /// over stdio, else the typed answer as JSON.
    pub async fn resources(&self, kind: crate::resources::Kind, params: Value) -> Result<Value, ClientError> {
        // Over HTTP, a transient failure is retried once.
        let retries = if self.process.is_none() { text::HTTP_RESOURCE_RETRIES } else { 0 };
        let mut attempt = 0;
        loop {
            match self.resources_once(kind, params.clone()).await {
                Err(ClientError::Transient(_)) if attempt < retries => {
                    attempt += 1;
                    tokio::time::sleep(text::HTTP_RETRY_DELAY * attempt).await;
                }
                Err(ClientError::Transient(why)) => return Err(ClientError::Service(why)),
                r => return r,
            }
        }
    }

    async fn resources_once(&self, kind: crate::resources::Kind, params: Value) -> Result<Value, ClientError> {
        use crate::resources::Kind;
        use rmcp::model::{ClientRequest, Request, RequestOptionalParam};
        let bad = |e: serde_json::Error| ClientError::Service(e.to_string());
        let request = match kind {
            Kind::List => ClientRequest::ListResourcesRequest(RequestOptionalParam::with_param(
                serde_json::from_value(params).map_err(bad)?,
            )),
            Kind::Templates => ClientRequest::ListResourceTemplatesRequest(RequestOptionalParam::with_param(
                serde_json::from_value(params).map_err(bad)?,
            )),
            Kind::Read => {
                ClientRequest::ReadResourceRequest(Request::new(serde_json::from_value(params).map_err(bad)?))
            }
        };
        self.stash.want();
        let answer = async {
            let options = rmcp::service::PeerRequestOptions::no_options();
            let handle = self.service.peer().send_request_with_option(request, options).await.map_err(service_error)?;
            let id = serde_json::to_value(&handle.id).unwrap_or_default();
            let typed = match tokio::time::timeout(self.timeout, handle.await_response()).await {
                Ok(r) => r.map_err(|e| {
                    let retry = self.process.is_none() && crate::http::transient(&e);
                    match service_error(e) {
                        ClientError::Service(why) if retry => ClientError::Transient(why),
                        other => other,
                    }
                })?,
                Err(_) => return Err(ClientError::Timeout(self.timeout)),
            };
            match self.stash.take(&id) {
                Some(raw) => Ok(raw),
                None => serde_json::to_value(&typed).map_err(|e| ClientError::Service(e.to_string())),
            }
        }
        .await;
        self.stash.done();
        answer
    }

    /// Stop the server: close the connection (its standard input), give it a
    /// moment to exit, then SIGTERM and SIGKILL to its process group.
    pub async fn stop(&self) {
        self.service.cancellation_token().cancel();
        if let Some(p) = &self.process {
            p.stop().await;
        }
    }
}

/// A server's error answer as the reference shows it: its message alone.
fn service_error(e: rmcp::ServiceError) -> ClientError {
    match e {
        rmcp::ServiceError::McpError(d) => ClientError::Service(d.message.to_string()),
        other => ClientError::Service(http_wording(other.to_string())),
    }
}

/// A failed HTTP request of pi's own reads as the reference words it,
/// without what rmcp's transport layers put before it.
fn http_wording(shown: String) -> String {
    match shown.find(text::HTTP_FAILED_PREFIX) {
        Some(at) => shown[at..].to_string(),
        None => shown,
    }
}

/// A failed call: [`ClientError::Http`] when an HTTP request of pi's own failed.
fn http_failure(shown: String) -> ClientError {
    match shown.find(text::HTTP_FAILED_PREFIX) {
        Some(at) => ClientError::Http(shown[at..].to_string()),
        None => ClientError::Service(shown),
    }
}
