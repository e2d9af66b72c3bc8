//! The host side of the glue: the functions JavaScript calls (`host.done`,
//! `host.op`, `host.emit`, `host.sync`, timers, logging), and loading the
//! extension's module.

use std::collections::HashSet;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Ctx, Function, Module, Object};
use serde_json::{Value, json};

use super::error::{EngineError, LoadError};
use super::protocol::{CallMsg, ExtId, HostOp, HostSync, Msg};
use super::state::{Realm, State};
use crate::api::NotifyLevel;
use crate::bytecode::{Cached, eval_script};
use crate::convert;
use crate::report::{describe_caught, stderr_line};
use crate::tool_meta::ToolMeta;

/// What the glue's `load` reports when the module's default export is not a function.
const NOT_A_FACTORY: &str = "\u{0}not-a-factory";

/// The realm's glue: console, timers, web APIs, the registry of extensions.
static REALM: Cached = Cached::new("pi:realm.js", include_str!("../js/realm.js"));
/// The glue of one extension: the `pi` object, the handlers' `ctx`.
static BOOTSTRAP: Cached = Cached::new("pi:bootstrap.js", include_str!("../js/bootstrap.js"));
/// The session's views and changes (`ctx.sessionManager`, `pi.appendEntry`, …), used by the glue.
static SESSION: Cached = Cached::new("pi:session.js", include_str!("../js/session.js"));
/// `Buffer`, `process` and the other Node globals, over `__pi_node`.
static NODE_GLOBALS: Cached = Cached::new("pi:node-globals.js", include_str!("../js/node/globals.js"));
/// The web platform's classes (events, `Headers`, `Blob`, streams, `Response`, …).
static WEB: Cached = Cached::new("pi:web.js", include_str!("../js/web.js"));
/// A small `Intl` (the engine has none).
static INTL: Cached = Cached::new("pi:intl.js", include_str!("../js/intl.js"));
/// The getters that define the web classes and `Intl` on first use.
static LAZY_GLOBALS: Cached = Cached::new("pi:lazy-globals.js", include_str!("../js/lazy-globals.js"));

/// `r`, a throw caught as the load error it makes.
fn js<T>(ctx: &Ctx<'_>, r: rquickjs::Result<T>) -> Result<T, LoadError> {
    r.catch(ctx).map_err(|e| LoadError::Js(describe_caught(e)))
}

/// Set up the realm the engine's extensions share: the realm glue with its
/// host functions, the Node built-ins' host object and globals. Once per engine.
pub(super) fn install_realm<'js>(ctx: &Ctx<'js>, realm: &Rc<Realm>, cwd: &std::path::Path) -> Result<(), LoadError> {
    let host = js(ctx, realm_host(ctx, realm))?;
    let config = js(ctx, Object::new(ctx.clone()))?;
    let cwd = cwd.to_string_lossy().into_owned();
    js(ctx, config.set("cwd", cwd.as_str()))?;
    js(ctx, config.set("version", env!("CARGO_PKG_VERSION")))?;
    let parts = js(ctx, Object::new(ctx.clone()))?;
    let session: Function = js(ctx, eval_script(ctx, &SESSION))?;
    js(ctx, parts.set("session", session))?;
    let make: Function = js(ctx, eval_script(ctx, &BOOTSTRAP))?;
    js(ctx, parts.set("makeExtension", make))?;
    let glue: Function = js(ctx, eval_script(ctx, &REALM))?;
    js(ctx, glue.call::<_, ()>((host, config.clone(), parts)))?;
    js(ctx, crate::node::install(ctx, realm.clone()))?;
    js(ctx, crate::node::cjs::install(ctx))?;
    let globals: Function = js(ctx, eval_script(ctx, &NODE_GLOBALS))?;
    js(ctx, globals.call::<_, ()>((config.clone(),)))?;
    // The web classes and `Intl`: compiled and defined on first use (js/lazy-globals.js).
    let load_web = js(
        ctx,
        Function::new(ctx.clone(), |ctx: Ctx<'js>, config: Object<'js>| -> rquickjs::Result<()> {
            let web: Function = eval_script(&ctx, &WEB)?;
            web.call::<_, ()>((config,))
        }),
    )?;
    let load_intl = js(
        ctx,
        Function::new(ctx.clone(), |ctx: Ctx<'js>| -> rquickjs::Result<()> {
            let intl: Function = eval_script(&ctx, &INTL)?;
            intl.call::<_, ()>(())
        }),
    )?;
    let lazy: Function = js(ctx, eval_script(ctx, &LAZY_GLOBALS))?;
    js(ctx, lazy.call::<_, ()>((load_web, load_intl, config)))?;
    Ok(())
}

/// The realm's host functions: logging, timers (kept by the extension whose
/// turn sets them) and which extension is running.
fn realm_host<'js>(ctx: &Ctx<'js>, realm: &Rc<Realm>) -> rquickjs::Result<Object<'js>> {
    let host = Object::new(ctx.clone())?;
    host.set("log", Function::new(ctx.clone(), |_level: String, message: String| stderr_line(&message))?)?;
    let r = realm.clone();
    host.set(
        "timer",
        Function::new(ctx.clone(), move |id: f64, ms: f64| {
            let ms = if ms.is_finite() && ms > 0.0 { ms.min(1e12) } else { 0.0 };
            if let Some(s) = r.current_state() {
                s.timers.borrow_mut().insert(id as u64, Instant::now() + Duration::from_micros((ms * 1000.0) as u64));
            }
        })?,
    )?;
    let r = realm.clone();
    host.set(
        "clearTimer",
        Function::new(ctx.clone(), move |id: f64| {
            for s in r.exts.borrow().values() {
                s.timers.borrow_mut().remove(&(id as u64));
            }
        })?,
    )?;
    let r = realm.clone();
    host.set("current", Function::new(ctx.clone(), move || r.current.get())?)?;
    Ok(host)
}

/// Create the extension's glue (its `pi` object and the functions Rust calls).
pub(super) fn start_extension(ctx: &Ctx<'_>, state: &Rc<State>) -> Result<(), LoadError> {
    let host = js(ctx, host_object(ctx, state))?;
    let config = js(ctx, Object::new(ctx.clone()))?;
    let cwd = state.cfg.cwd.to_string_lossy().into_owned();
    js(
        ctx,
        (|| -> rquickjs::Result<()> {
            config.set("id", state.id)?;
            config.set("cwd", cwd.as_str())?;
            config.set("mode", state.cfg.mode.as_str())?;
            config.set("hasUI", state.cfg.has_ui)?;
            config.set("projectTrusted", state.cfg.project_trusted)?;
            config.set("path", state.path.as_str())?;
            config.set("version", env!("CARGO_PKG_VERSION"))?;
            Ok(())
        })(),
    )?;
    let realm: Object = js(ctx, ctx.globals().get("__pi_realm"))?;
    let session: Function = js(ctx, realm.get("session"))?;
    js(ctx, config.set("session", session))?;
    let make: Function = js(ctx, realm.get("makeExtension"))?;
    js(ctx, make.call::<_, ()>((host, config)))
}

/// `host.done(id, ok, payload)`: a call's outcome (JSON text, or an error's line).
fn done(state: &State, id: u64, ok: bool, payload: String) {
    let result = if id == 0 {
        finish_load(state, ok, payload)
    } else if ok {
        Ok(serde_json::from_str(&payload).unwrap_or(Value::Null))
    } else {
        Err(EngineError::Js(payload))
    };
    state.outbox.borrow_mut().push((id, result));
}

/// `host.op(id, op, kind, payload)`: hand an operation to the call's Rust
/// future; when the call has ended, answer it at once as its kind allows.
fn op(state: &State, id: u64, op: u64, request: HostOp) {
    let fallback = request.after_call_ended();
    let sent = state.calls.borrow().get(&id).map(|s| s.send(CallMsg::Op { op, request }).is_ok()).unwrap_or(false);
    if !sent {
        state.defer(Msg::Complete { op, result: fallback });
    }
}

fn host_object<'js>(ctx: &Ctx<'js>, state: &Rc<State>) -> rquickjs::Result<Object<'js>> {
    let host = Object::new(ctx.clone())?;
    let s = state.clone();
    host.set(
        "done",
        Function::new(ctx.clone(), move |id: f64, ok: bool, payload: String| done(&s, id as u64, ok, payload))?,
    )?;
    let s = state.clone();
    host.set(
        "op",
        Function::new(ctx.clone(), move |id: f64, o: f64, kind: String, payload: String| {
            op(&s, id as u64, o as u64, HostOp::parse(&kind, &payload))
        })?,
    )?;
    let s = state.clone();
    host.set(
        "emit",
        Function::new(ctx.clone(), move |id: f64, _kind: String, payload: String| {
            if let Some(sink) = s.calls.borrow().get(&(id as u64)) {
                let partial = serde_json::from_str(&payload).unwrap_or(Value::Null);
                let _ = sink.send(CallMsg::Update(partial));
            }
        })?,
    )?;
    let s = state.clone();
    host.set(
        "sync",
        Function::new(ctx.clone(), move |kind: String, payload: String| -> String {
            host_sync(&s, HostSync::parse(&kind, &payload)).to_string()
        })?,
    )?;
    host.set("log", Function::new(ctx.clone(), |_level: String, message: String| stderr_line(&message))?)?;
    Ok(host)
}

/// The factory finished: on success the outcome is the registered tools.
fn finish_load(state: &State, ok: bool, payload: String) -> Result<Value, EngineError> {
    if ok {
        state.loaded.set(true);
        return Ok(Value::Array(state.tools.borrow().iter().map(|m| m.raw.clone()).collect()));
    }
    Err(EngineError::Load(if payload == NOT_A_FACTORY {
        LoadError::NotAFactory { path: state.path.clone() }
    } else {
        LoadError::Js(payload)
    }))
}

/// A tool definition from `pi.registerTool`: replace one of the same name,
/// and after load, hand it to the session (or keep it until the tools are bound).
fn register_tool(state: &State, raw: &Value) {
    let meta = ToolMeta::from_json(raw, &state.path);
    {
        let mut tools = state.tools.borrow_mut();
        match tools.iter().position(|t| t.def.name == meta.def.name) {
            Some(i) => tools[i] = meta.clone(),
            None => tools.push(meta.clone()),
        }
    }
    if state.loaded.get() {
        let api = state.tools_api.borrow().clone();
        match (api, state.handle()) {
            (Some(api), Some(engine)) => api.register_tool(engine.tool(meta)),
            _ => state.pending_tools.borrow_mut().push(meta),
        }
    }
}

/// Answer a synchronous request of JavaScript.
/// Put what the extension registered where the handle reads it.
fn publish<T>(slot: &std::sync::RwLock<T>, value: T) -> Value {
    if let Ok(mut c) = slot.write() {
        *c = value;
    }
    Value::Null
}

fn host_sync(state: &State, request: HostSync) -> Value {
    let api = state.tools_api.borrow().clone();
    match request {
        HostSync::Events(names) => {
            if state.poisoned.borrow().is_none()
                && let Ok(mut e) = state.shared.events.write()
            {
                *e = names.into_iter().collect::<HashSet<String>>();
            }
            Value::Null
        }
        HostSync::Commands(list) => publish(&state.shared.commands, list),
        HostSync::RegisterMcpServer { name, config } => {
            crate::mcp_registry::problem(state.cfg.mcp_check.as_deref(), &name, &config)
                .map_or(Value::Null, Value::String)
        }
        HostSync::McpServers(list) => publish(&state.shared.mcp_servers, list),
        HostSync::ToolRenderers(list) => publish(&state.shared.tool_renderers, list),
        HostSync::Renderers(list) => publish(&state.shared.renderers, list),
        HostSync::EntryRenderers(list) => publish(&state.shared.entry_renderers, list),
        HostSync::Shortcuts(list) => publish(&state.shared.shortcuts, list),
        HostSync::Session(call) => session_call(state, call),
        HostSync::RegisterTool(raw) => {
            register_tool(state, &raw);
            Value::Null
        }
        HostSync::GetAllTools => match &api {
            Some(api) => Value::Array(api.all_tools().iter().map(|t| convert::tool_info(t.as_ref())).collect()),
            None => Value::Array(vec![]),
        },
        HostSync::ReachesTools { name, input } => {
            let tool = api.as_ref().and_then(|a| a.all_tools().into_iter().find(|t| t.def().name == name));
            match tool.and_then(|t| t.reaches_tools(&input)) {
                Some(r) => convert::reach_json(&r),
                None => Value::Null,
            }
        }
        HostSync::GetActiveTools => match &api {
            Some(api) => json!(api.active_tools()),
            None => json!([]),
        },
        HostSync::SetActiveTools(names) => {
            if let Some(api) = &api {
                api.set_active_tools(&names);
            }
            Value::Null
        }
        HostSync::Notify { message, level } => {
            if let Some(ui) = &state.cfg.ui {
                let level = match level.as_str() {
                    "warning" => NotifyLevel::Warning,
                    "error" => NotifyLevel::Error,
                    _ => NotifyLevel::Info,
                };
                ui.notify(&message, level);
            }
            Value::Null
        }
        HostSync::Ui(call) => {
            if let Some(ui) = &state.cfg.ui {
                ui.fire(call);
            }
            Value::Null
        }
        HostSync::BuiltinSpec(name) => match name.parse::<pi_tools::ToolName>() {
            Ok(tool) => {
                let spec = pi_tools::ToolSpec::of(tool);
                json!({"name": spec.name, "label": spec.label, "description": spec.description,
                    "parameters": spec.parameters, "promptSnippet": spec.prompt_snippet,
                    "promptGuidelines": spec.prompt_guidelines})
            }
            Err(_) => Value::Null,
        },
        HostSync::FormatSize(n) => Value::String(pi_tools::truncate::format_size(n.max(0.0) as usize)),
        HostSync::Truncate(options) => convert::truncation(&options),
        HostSync::TruncateLine { line, max_chars } => {
            let max = max_chars.unwrap_or(pi_tools::limits::GREP_MAX_LINE_LENGTH as u64);
            let (text, cut) = pi_tools::truncate::truncate_line(&line, max as usize);
            json!({"text": text, "wasTruncated": cut})
        }
        HostSync::NewComponent => json!(super::component::new_id()),
        HostSync::Theme => state.cfg.theme.current(),
        HostSync::Place { slot, id } => {
            let thread = state.handle().map(|e| e.thread());
            if let (Some(ui), Some(thread)) = (&state.cfg.ui, thread) {
                let component = id.map(|id| {
                    Box::new(super::component::JsComponent::new(state.tx.clone(), thread, id))
                        as Box<dyn crate::api::ExtComponent>
                });
                ui.place(slot, component);
            }
            Value::Null
        }
        HostSync::Unknown(_) => Value::Null,
    }
}

/// A session call: `{value}` (absent for `undefined`) or `{error}`. Before
/// the session is bound, reads are empty and changes do nothing.
fn session_call(state: &State, call: crate::api::SessionCall) -> Value {
    use crate::api::SessionCall as C;
    let api = state.shared.session.read().ok().and_then(|s| s.clone());
    let answer = match api {
        Some(api) => api.call(call),
        None => Ok(match call {
            C::Entries | C::Branch(_) | C::Tree | C::Models | C::AvailableModels | C::Commands => Some(json!([])),
            C::LeafId | C::Header => Some(Value::Null),
            C::SessionId | C::SessionDir => Some(json!("")),
            C::ThinkingLevel => Some(json!("off")),
            C::IsIdle => Some(json!(true)),
            _ => None,
        }),
    };
    match answer {
        Ok(Some(v)) => json!({ "value": v }),
        Ok(None) => json!({}),
        Err(e) => json!({ "error": e }),
    }
}

/// The extension `ext`'s internal function `name` (bootstrap.js's `internal`).
pub(super) fn internal<'js>(ctx: &Ctx<'js>, ext: ExtId, name: &str) -> rquickjs::Result<Function<'js>> {
    let realm: Object = ctx.globals().get("__pi_realm")?;
    let exts: Object = realm.get("exts")?;
    let internal: Object = exts.get(ext)?;
    internal.get(name)
}

/// Declare and evaluate the extension's module, then call its factory (call 0).
pub(super) fn load_module(ctx: &Ctx<'_>, state: &State) -> Result<(), LoadError> {
    let failed = |e: CaughtError<'_>| LoadError::Js(describe_caught(e));
    let path = &state.cfg.path;
    let modules: rquickjs::Object = ctx
        .globals()
        .get::<_, rquickjs::Object>("__pi_realm")
        .and_then(|r| r.get("modules"))
        .catch(ctx)
        .map_err(failed)?;
    let cache_get: rquickjs::Function = modules.get("get").catch(ctx).map_err(failed)?;
    let cache_set: rquickjs::Function = modules.get("set").catch(ctx).map_err(failed)?;
    if state.cfg.reuse_module {
        let cached: rquickjs::Value = cache_get
            .call((rquickjs::function::This(modules.clone()), state.path.as_str()))
            .catch(ctx)
            .map_err(failed)?;
        if let Some(namespace) = cached.into_object() {
            state.compiled.borrow_mut().take();
            let load = internal(ctx, state.id, "load").catch(ctx).map_err(failed)?;
            load.call::<_, ()>((0.0, rquickjs::Undefined, namespace)).catch(ctx).map_err(failed)?;
            return Ok(());
        }
    }
    let declared = match state.compiled.borrow_mut().take() {
        Some(Err(load_error)) => return Err(load_error),
        // SAFETY: the bytes were written by `Module::write` of this
        // process's QuickJS (crate::compile) and are read once, unchanged.
        #[allow(unsafe_code)]
        Some(Ok(bytes)) => unsafe { Module::load(ctx.clone(), &bytes) }.ok(),
        None => None,
    };
    let declared = match declared {
        Some(m) => m,
        None => {
            let source = std::fs::read_to_string(path)?;
            let js = crate::strip::to_javascript(path, &source)?;
            Module::declare(ctx.clone(), state.path.clone(), js).catch(ctx).map_err(failed)?
        }
    };
    crate::modules::set_meta(&declared, path).catch(ctx).map_err(failed)?;
    let (module, promise) = declared.eval().catch(ctx).map_err(failed)?;
    let namespace = module.namespace().catch(ctx).map_err(failed)?;
    cache_set
        .call::<_, rquickjs::Value>((rquickjs::function::This(modules), state.path.as_str(), namespace.clone()))
        .catch(ctx)
        .map_err(failed)?;
    let load = internal(ctx, state.id, "load").catch(ctx).map_err(failed)?;
    load.call::<_, ()>((0.0, promise, namespace)).catch(ctx).map_err(failed)?;
    Ok(())
}
