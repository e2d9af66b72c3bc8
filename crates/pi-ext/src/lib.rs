//! The JavaScript/TypeScript extension host of `pi`: Pi extensions, written
//! against the reference's extension API, run as they are (beyond.md B7).
//!
//! The extensions loaded together share one QuickJS engine on its own thread
//! (one JavaScript realm, as the reference's share one Node.js process), with
//! a time limit for each extension's turns and a memory limit for the engine. TypeScript is stripped with oxc; relative imports load
//! files; the reference's packages (`@earendil-works/pi-coding-agent`,
//! `@mariozechner/pi-coding-agent`, `typebox`, `@sinclair/typebox`,
//! `@earendil-works/pi-ai`) are built in. An extension's default export is
//! called with `pi`; its `tool_call`/`tool_result` handlers become one
//! [`pi_agent::Interceptor`] and its tools [`pi_agent::AgentTool`]s, so every
//! call goes through the one dispatch pipeline of `pi-agent`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), pi_ext::ExtError> {
//! use pi_ext::{ExtensionHost, HostOptions};
//! let opts = HostOptions { cwd: std::env::current_dir().unwrap(), ..Default::default() };
//! let loaded = ExtensionHost::load(&["./permission-gate.ts".into()], opts).await?;
//! let mut dispatcher = pi_agent::Dispatcher::new(pi_agent::Registry::new());
//! dispatcher.interceptors.extend(loaded.interceptors.iter().cloned());
//! for tool in &loaded.tools {
//!     dispatcher.registry.register(tool.clone());
//! }
//! for error in loaded.session_start("startup").await {
//!     eprintln!("{error}");
//! }
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod api;
mod builtins;
mod bytecode;
mod commands;
mod compile;
mod convert;
mod engine;
mod interceptor;
mod mcp_registry;
mod memory;
mod modules;
mod node;
mod report;
mod resolve;
mod strip;
pub mod text;
mod theme;
mod tool;
mod tool_meta;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_agent::{AgentTool, Interceptor};
use serde_json::{Value, json};

pub use api::{
    CommandOp, ComponentSlot, DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, ExtCommand, ExtComponent, HostOptions,
    InputOutcome, Limits, Mode, NotifyLevel, SessionApi, SessionCall, ToolsApi, UiBridge, UiFire, UiRequest,
    UiResponse,
};
pub use commands::{BeforeAgentStart, RunOpening, command_names, run_before_agent_start, run_input};
pub use engine::prompt_span::PromptSpans;
pub use mcp_registry::McpCheck;
pub use theme::ExtTheme;

use engine::protocol::{CallMsg, Entry, Hook};
use engine::{CallEnv, Engine, EngineConfig};
use interceptor::ExtInterceptor;
use tool::ExtTool;
use tool_meta::ToolMeta;

/// A load failure. Its `Display` is what pi prints before exiting with code 1:
/// `Failed to load extension "<path>": <error>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtError {
    /// The extension's absolute path.
    pub path: String,
    /// What went wrong (`Extension path does not exist: …`, `Failed to load extension: …`, …).
    pub message: String,
}

impl fmt::Display for ExtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&text::load_error(&self.path, &self.message))
    }
}

impl std::error::Error for ExtError {}

/// A handler failure to report (not fatal): `Extension error (<path>): <error>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionError {
    /// The extension's path.
    pub path: String,
    /// The event whose handler failed (`session_start`, …).
    pub event: String,
    /// The error message.
    pub error: String,
}

impl fmt::Display for ExtensionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&text::extension_error(&self.path, &self.error))
    }
}

/// The decision of a `project_trust` handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustDecision {
    /// `"yes"` → true, `"no"` → false.
    pub trusted: bool,
    /// Save the decision for exactly this folder.
    pub remember: bool,
    /// The extension that decided.
    pub path: String,
}

/// What the `project_trust` handlers said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustOutcome {
    /// The first yes/no, if any handler gave one.
    pub decision: Option<TrustDecision>,
    /// Failed handlers: `Extension "<path>" project_trust error: <message>`.
    pub warnings: Vec<String>,
}

/// The resource paths extensions add on `resources_discover`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscoveredResources {
    /// Skill files or folders (as `--skill` takes them).
    pub skill_paths: Vec<String>,
    /// Prompt-template files or folders (as `--prompt-template` takes them).
    pub prompt_paths: Vec<String>,
    /// Each path above and the extension that added it.
    pub added_by: Vec<(String, String)>,
}

/// Event `event` as handlers get it: `type` first, then `payload`'s fields.
fn typed(event: &str, payload: Value) -> Value {
    let mut ev = serde_json::Map::new();
    ev.insert("type".into(), json!(event));
    if let Value::Object(m) = payload {
        ev.extend(m);
    }
    Value::Object(ev)
}

/// Loads extensions.
pub struct ExtensionHost;

impl ExtensionHost {
    /// Load `paths` in order (relative paths resolve against `opts.cwd`; a folder
    /// means its `package.json` `pi.extensions` entries, else its `index.ts` or
    /// `index.js`). Each extension's factory runs to completion. The first
    /// failure, in load order, is the error.
    pub async fn load(paths: &[PathBuf], opts: HostOptions) -> Result<LoadedExtensions, ExtError> {
        Self::load_in(paths, opts, None).await
    }

    /// [`ExtensionHost::load`] in the engine `previous` runs in (a session
    /// replacement, as the reference does it): a module that engine already
    /// evaluated is not evaluated again, its factory runs again with a new
    /// `pi`, so module-level state carries over. Without an engine to reuse
    /// (none was loaded) this is a fresh load.
    pub async fn load_again(
        previous: &LoadedExtensions,
        paths: &[PathBuf],
        opts: HostOptions,
    ) -> Result<LoadedExtensions, ExtError> {
        Self::load_in(paths, opts, previous.thread.clone()).await
    }

    async fn load_in(
        paths: &[PathBuf],
        opts: HostOptions,
        reuse: Option<Arc<engine::EngineThread>>,
    ) -> Result<LoadedExtensions, ExtError> {
        let mut entries = Vec::new();
        for p in paths {
            let abs = resolve::normalize(&opts.cwd.join(p));
            entries.extend(entry_points(&abs)?);
        }
        // One engine thread for all of them (they share one JavaScript realm,
        // as the reference's share one Node.js process); results are taken in order.
        let reuse_module = reuse.is_some();
        let thread = match reuse {
            Some(t) => t,
            None => Arc::new(
                engine::EngineThread::spawn(opts.limits, opts.cwd.clone())
                    .map_err(|e| ExtError { path: String::new(), message: text::load_failed(&e.to_string()) })?,
            ),
        };
        // The files compile on worker threads meanwhile; each starts in the
        // engine as soon as it and the ones before it are compiled.
        let mut compiled = compile::start(&entries);
        let mut ready: Vec<Option<compile::Compiled>> = entries.iter().map(|_| None).collect();
        let mut started = Vec::new();
        for (i, path) in entries.iter().enumerate() {
            while ready[i].is_none() {
                match compiled.recv().await {
                    Some((at, out)) => ready[at] = Some(out),
                    None => break,
                }
            }
            let cfg = EngineConfig {
                path: path.clone(),
                cwd: opts.cwd.clone(),
                has_ui: opts.has_ui,
                mode: opts.mode,
                project_trusted: opts.project_trusted,
                ui: opts.ui.clone(),
                limits: opts.limits,
                theme: opts.theme.clone(),
                mcp_check: opts.mcp_check.clone(),
                prompt_spans: opts.prompt_spans.clone(),
                compiled: ready[i].take(),
                reuse_module,
            };
            let shown = path.to_string_lossy().into_owned();
            let (engine, rx) = Engine::start(&thread, cfg)
                .map_err(|e| ExtError { path: shown.clone(), message: text::load_failed(&e.to_string()) })?;
            started.push((shown, engine, rx));
        }
        let mut extensions = Vec::new();
        for (shown, engine, mut rx) in started {
            let metas = loop {
                match rx.recv().await {
                    Some(CallMsg::Done(Ok(json))) => break json,
                    Some(CallMsg::Done(Err(e))) => return Err(ExtError { path: shown, message: e.to_string() }),
                    Some(_) => continue,
                    None => {
                        return Err(ExtError {
                            path: shown.clone(),
                            message: text::load_failed(&text::stopped(&shown)),
                        });
                    }
                }
            };
            let metas: Vec<Value> = match metas {
                Value::Array(list) => list,
                _ => Vec::new(),
            };
            let tools = metas
                .iter()
                .map(|m| Arc::new(ExtTool::new(engine.clone(), ToolMeta::from_json(m, &shown))) as Arc<dyn AgentTool>)
                .collect();
            extensions.push(Extension { engine, tools });
        }
        let interceptors = extensions
            .iter()
            .map(|e| Arc::new(ExtInterceptor { engine: e.engine.clone() }) as Arc<dyn Interceptor>)
            .collect();
        let loaded = LoadedExtensions { extensions, interceptors, tools: Vec::new(), thread: Some(thread) };
        let mut tools: Vec<Arc<dyn AgentTool>> = Vec::new();
        for e in &loaded.extensions {
            for t in &e.tools {
                if let Some(first) = tools.iter().find(|k| k.def().name == t.def().name) {
                    return Err(conflict(&t.def().name, first.as_ref(), &e.engine.path));
                }
                tools.push(t.clone());
            }
        }
        Ok(LoadedExtensions { tools, ..loaded })
    }
}

/// The load error of extension `path` registering tool `name` that `first` already registered.
fn conflict(name: &str, first: &dyn AgentTool, path: &str) -> ExtError {
    let first = first.source_path().unwrap_or_default().to_string();
    ExtError { path: path.to_string(), message: text::tool_conflict(name, &first) }
}

/// Refuse `later` when one of its tools has the name of a tool `earlier`
/// extensions registered (as the reference: the later extension fails to
/// load with `Tool "<name>" conflicts with <path>`).
pub fn check_conflicts(earlier: &[Arc<LoadedExtensions>], later: &LoadedExtensions) -> Result<(), ExtError> {
    for t in &later.tools {
        let first = earlier.iter().flat_map(|l| l.tools.iter()).find(|k| k.def().name == t.def().name);
        if let Some(first) = first {
            return Err(conflict(&t.def().name, first.as_ref(), t.source_path().unwrap_or_default()));
        }
    }
    Ok(())
}

/// The extension files a path stands for.
fn entry_points(abs: &Path) -> Result<Vec<PathBuf>, ExtError> {
    let shown = abs.to_string_lossy().into_owned();
    if !abs.exists() {
        return Err(ExtError { path: shown.clone(), message: text::path_missing(&shown) });
    }
    if !abs.is_dir() {
        return Ok(vec![abs.to_path_buf()]);
    }
    if let Ok(pkg) = std::fs::read_to_string(abs.join("package.json"))
        && let Ok(v) = serde_json::from_str::<Value>(&pkg)
        && let Some(list) = v.pointer("/pi/extensions").and_then(Value::as_array)
    {
        let out: Vec<PathBuf> =
            list.iter().filter_map(Value::as_str).map(|s| resolve::normalize(&abs.join(s))).collect();
        if !out.is_empty() {
            for p in &out {
                if !p.exists() {
                    let s = p.to_string_lossy().into_owned();
                    return Err(ExtError { path: s.clone(), message: text::path_missing(&s) });
                }
            }
            return Ok(out);
        }
    }
    for index in ["index.ts", "index.js", "index.mjs"] {
        if abs.join(index).is_file() {
            return Ok(vec![abs.join(index)]);
        }
    }
    Err(ExtError { path: shown.clone(), message: text::no_entry_point(&shown) })
}

pub(crate) struct Extension {
    pub(crate) engine: Arc<Engine>,
    tools: Vec<Arc<dyn AgentTool>>,
}

/// Loaded extensions, in load order.
pub struct LoadedExtensions {
    extensions: Vec<Extension>,
    /// One interceptor per extension (its `tool_call` and `tool_result`
    /// handlers), in load order: add them to the dispatcher.
    pub interceptors: Vec<Arc<dyn Interceptor>>,
    /// The tools registered while loading: within one extension the last
    /// registration of a name wins; two extensions registering one name is
    /// a load error (`Tool "<name>" conflicts with <path>`). Register them
    /// after the built-ins (an extension tool replaces a built-in of its name).
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// The engine they run in (kept for a session replacement to load into;
    /// the engine ends once no loaded set holds it and its extensions stopped).
    thread: Option<Arc<engine::EngineThread>>,
}

impl LoadedExtensions {
    /// The extensions' paths, in load order.
    pub fn paths(&self) -> Vec<&str> {
        self.extensions.iter().map(|e| e.engine.path.as_str()).collect()
    }

    /// Let extensions see and change the session's tools (`pi.getAllTools()`,
    /// `pi.getActiveTools()`, `pi.setActiveTools()`, later `registerTool` calls).
    /// Tools registered before binding (in `session_start`, say) reach the
    /// registry before this returns, so the first request declares them.
    pub async fn bind_tools(&self, api: Arc<dyn ToolsApi>) {
        futures::future::join_all(self.extensions.iter().map(|e| e.engine.bind(api.clone()))).await;
    }

    /// The command-line flags the extensions registered (`pi.registerFlag`),
    /// in load order: the name and whether it takes a value (every type but
    /// `boolean` does).
    pub async fn flags(&self) -> Vec<(String, bool)> {
        let mut out: Vec<(String, bool)> = Vec::new();
        for e in &self.extensions {
            let Ok(Value::Array(list)) = e.engine.hook(Hook::Flags, "", Value::Null).await else { continue };
            for f in list {
                let Some(name) = f.get("name").and_then(Value::as_str) else { continue };
                let takes_value = f.get("type").and_then(Value::as_str) != Some("boolean");
                if !out.iter().any(|(n, _)| n == name) {
                    out.push((name.to_string(), takes_value));
                }
            }
        }
        out
    }

    /// Give the extensions the values of their flags from the command line
    /// (`true` for a boolean flag, the text otherwise); `pi.getFlag` returns
    /// them from then on (before, the registered default).
    pub async fn set_flag_values(&self, values: &serde_json::Map<String, Value>) {
        if values.is_empty() {
            return;
        }
        let payload = Value::Object(values.clone());
        for e in &self.extensions {
            let _ = e.engine.hook(Hook::SetFlags, "", payload.clone()).await;
        }
    }

    /// Tell every extension the session's final trust decision, which
    /// `ctx.isProjectTrusted()` answers from now on (extensions loaded
    /// before trust was resolved saw `false` until then).
    pub async fn set_project_trusted(&self, trusted: bool) {
        for e in &self.extensions {
            let _ = e.engine.hook(Hook::SetTrust, "", Value::Bool(trusted)).await;
        }
    }

    /// Run the `project_trust` handlers in load order until one says yes or
    /// no. A failing handler is a warning and the next one is asked.
    pub async fn project_trust(&self, cwd: &Path) -> TrustOutcome {
        let mut out = TrustOutcome::default();
        let payload = pi_agent::HookEvent::ProjectTrust { cwd: cwd.to_string_lossy().into_owned() }.to_value();
        for e in &self.extensions {
            if !e.engine.handles("project_trust") {
                continue;
            }
            let v = match e.engine.invoke(Entry::ProjectTrust, payload.clone(), &CallEnv::default()).await {
                Ok(v) => v,
                Err(error) => {
                    out.warnings.push(text::project_trust_error(&e.engine.path, &error.to_string()));
                    continue;
                }
            };
            for err in v.get("errors").and_then(Value::as_array).into_iter().flatten() {
                out.warnings.push(text::project_trust_error(&e.engine.path, err.as_str().unwrap_or("")));
            }
            if let Some(t) = v.get("trusted").and_then(Value::as_str) {
                out.decision = Some(TrustDecision {
                    trusted: t == "yes",
                    remember: v.get("remember").and_then(Value::as_bool) == Some(true),
                    path: e.engine.path.clone(),
                });
                break;
            }
        }
        out
    }

    /// Run the handlers of a notification event (`session_start`,
    /// `session_shutdown`, `agent_start`, …) in load order; `payload` is the
    /// event object without `type`. Failures are returned for reporting.
    pub async fn emit(&self, event: &str, payload: Value) -> Vec<ExtensionError> {
        self.emit_answers(event, payload).await.1
    }

    /// [`LoadedExtensions::emit`], with each extension's answer.
    async fn emit_answers(&self, event: &str, payload: Value) -> (Vec<(String, Value)>, Vec<ExtensionError>) {
        let payload = typed(event, payload);
        let (mut answers, mut errors) = (Vec::new(), Vec::new());
        for e in &self.extensions {
            if !e.engine.handles(event) {
                continue;
            }
            let outcome = e.engine.invoke(Entry::Event(event.to_string()), payload.clone(), &CallEnv::default()).await;
            errors.extend(commands::handler_errors(&e.engine.path, event, &outcome));
            if let Ok(v) = outcome {
                answers.push((e.engine.path.clone(), v));
            }
        }
        (answers, errors)
    }

    /// A cancellable event (`session_before_switch`, `session_before_fork`;
    /// `payload` without `type`): true when a handler answers `{cancel: true}`
    /// (the ones after it are not asked). Failures are returned for reporting.
    pub async fn gate(&self, event: &str, payload: Value) -> (bool, Vec<ExtensionError>) {
        let payload = typed(event, payload);
        let mut errors = Vec::new();
        for e in self.extensions.iter().filter(|e| e.engine.handles(event)) {
            let outcome = e.engine.invoke(Entry::Event(event.to_string()), payload.clone(), &CallEnv::default()).await;
            errors.extend(commands::handler_errors(&e.engine.path, event, &outcome));
            if outcome.is_ok_and(|v| v.get("cancel").and_then(Value::as_bool) == Some(true)) {
                return (true, errors);
            }
        }
        (false, errors)
    }

    /// [`Extensions::gate`] whose handlers may also answer with fields
    /// (`session_before_tree`: a `summary`, `customInstructions`, `label`):
    /// `{cancel: true}` from the first that cancels, else every object
    /// answer's fields, a later handler's over an earlier's (`None`: no
    /// handler answered with an object).
    pub async fn gate_answer(&self, event: &str, payload: Value) -> (Option<Value>, Vec<ExtensionError>) {
        let payload = typed(event, payload);
        let mut errors = Vec::new();
        let mut merged: Option<serde_json::Map<String, Value>> = None;
        for e in self.extensions.iter().filter(|e| e.engine.handles(event)) {
            let outcome = e.engine.invoke(Entry::Event(event.to_string()), payload.clone(), &CallEnv::default()).await;
            errors.extend(commands::handler_errors(&e.engine.path, event, &outcome));
            let Ok(Value::Object(answer)) = outcome else { continue };
            if answer.get("cancel").and_then(Value::as_bool) == Some(true) {
                return (Some(Value::Object(answer)), errors);
            }
            merged.get_or_insert_with(Default::default).extend(answer);
        }
        (merged.map(Value::Object), errors)
    }

    /// Hand notification `event` (`payload` without `type`) to every
    /// extension that handles it, without waiting; failures are reported
    /// on standard error as `Extension error (<path>): …`.
    pub fn post(&self, event: &str, payload: Value) {
        let payload = typed(event, payload);
        for e in self.extensions.iter().filter(|e| e.engine.handles(event)) {
            e.engine.post(Entry::Event(event.to_string()), payload.clone());
        }
    }

    /// `resources_discover` (after `session_start`; `reason` is `"startup"`
    /// or `"reload"`): the skill and prompt-template paths the handlers
    /// add, in load order (relative ones against `cwd`), and the failures.
    pub async fn discover_resources(&self, cwd: &Path, reason: &str) -> (DiscoveredResources, Vec<ExtensionError>) {
        let payload =
            pi_agent::HookEvent::ResourcesDiscover { cwd: cwd.to_string_lossy().into_owned(), reason }.to_value();
        let (answers, errors) = self.emit_answers("resources_discover", payload).await;
        let mut found = DiscoveredResources::default();
        let paths = |v: &Value, key: &str| -> Vec<String> {
            let list = v.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
            list.map(|p| resolve::normalize(&cwd.join(p)).to_string_lossy().into_owned()).collect()
        };
        for (extension, a) in &answers {
            for (key, list) in [("skillPaths", &mut found.skill_paths), ("promptPaths", &mut found.prompt_paths)] {
                let added = paths(a, key);
                found.added_by.extend(added.iter().map(|p| (p.clone(), extension.clone())));
                list.extend(added);
            }
        }
        (found, errors)
    }

    /// `session_start` with `reason` (`"startup"`, `"reload"`, `"new"`, `"resume"`, `"fork"`).
    pub async fn session_start(&self, reason: &str) -> Vec<ExtensionError> {
        self.emit("session_start", json!({"reason": reason})).await
    }

    /// `session_shutdown` with `reason` (`"quit"`, `"reload"`, …).
    pub async fn session_shutdown(&self, reason: &str) -> Vec<ExtensionError> {
        self.emit("session_shutdown", json!({"reason": reason})).await
    }
}
