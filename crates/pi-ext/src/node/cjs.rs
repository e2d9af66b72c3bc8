//! CommonJS in the engine: the host functions behind the glue's `require`
//! (`js/node/cjs.js`) and the ES-module facade through which `import` reaches
//! a CommonJS file (its `module.exports` as the default export, its own
//! enumerable keys that are identifiers as named exports, as Node gives them).

use std::path::Path;

use rquickjs::context::EvalOptions;
use rquickjs::{Ctx, Error, Function, Module, Object, Value};
use serde_json::json;

use super::error::NodeError;
use crate::bytecode::{Cached, eval_script};
use crate::resolve::{self, Format, Mode, ResolveError};
use crate::text;

/// The glue: the module cache, `require`, `module`, `createRequire`.
static CJS: Cached = Cached::new("pi:cjs.js", include_str!("../js/node/cjs.js"));

/// Set up `globalThis.__pi_cjs` (once per engine, after `__pi_node`).
pub(crate) fn install<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<()> {
    let host = Object::new(ctx.clone())?;
    host.set(
        "resolve",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, from: String, spec: String| -> rquickjs::Result<String> {
            resolve_for_require(&from, &spec)
                .map_err(|e| super::throw(&ctx, &NodeError::invalid(text::MODULE_NOT_FOUND, e.to_string())))
        })?,
    )?;
    host.set(
        "compile",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, path: String| -> rquickjs::Result<Function<'js>> {
            compile(&ctx, &path)
        })?,
    )?;
    host.set(
        "importSync",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, name: String| -> rquickjs::Result<Object<'js>> {
            let promise = Module::import(&ctx, name.clone())?;
            match promise.finish::<Object>() {
                Err(Error::WouldBlock) => {
                    Err(super::throw(&ctx, &NodeError::invalid(text::REQUIRE_ASYNC, text::require_async(&name))))
                }
                other => other,
            }
        })?,
    )?;
    let make: Function = eval_script(ctx, &CJS)?;
    make.call::<_, ()>((host,))
}

/// What `require(spec)` from the file `from` loads, as JSON:
/// `{"builtin": name}` or `{"path": file, "format": "cjs" | "esm" | "json"}`.
fn resolve_for_require(from: &str, spec: &str) -> Result<String, ResolveError> {
    if let Some(b) = crate::builtins::builtin(spec) {
        return Ok(json!({ "builtin": b }).to_string());
    }
    let path = resolve::resolve_path(from, spec, Mode::Require)?;
    let source = std::fs::read_to_string(&path).unwrap_or_default();
    let format = resolve::format_of(&path, &source);
    Ok(json!({ "path": path, "format": format.name() }).to_string())
}

/// A CommonJS file as the function Node wraps it in, compiled with its path as the file name.
fn compile<'js>(ctx: &Ctx<'js>, path: &str) -> rquickjs::Result<Function<'js>> {
    let p = Path::new(path);
    let failed = |e: String| crate::modules::throw_whole(ctx, Error::new_loading_message(path, e));
    let source = std::fs::read_to_string(p).map_err(|e| failed(e.to_string()))?;
    let js = crate::strip::to_javascript(p, &source).map_err(|e| failed(e.to_string()))?;
    let body = match js.strip_prefix("#!") {
        Some(rest) => rest.find('\n').map_or("", |i| &rest[i..]),
        None => js.as_str(),
    };
    let wrapped = format!("(function (exports, require, module, __filename, __dirname) {{{body}\n}})");
    let mut options = EvalOptions::default();
    options.strict = false;
    options.filename = Some(path.to_string());
    ctx.eval_with_options(wrapped, options)
}

/// The ES module standing for the file `path` in format `format` (JSON or CommonJS).
pub(crate) fn facade(ctx: &Ctx<'_>, path: &str, source: &str, format: Format) -> rquickjs::Result<String> {
    if format == Format::Json {
        let text = source.strip_prefix('\u{feff}').unwrap_or(source);
        serde_json::from_str::<serde_json::Value>(text).map_err(|e| {
            let e = Error::new_loading_message(path, text::bad_json(path, &e.to_string()));
            crate::modules::throw_whole(ctx, e)
        })?;
        return Ok(format!("export default {text}\n;"));
    }
    let Ok(cjs) = ctx.globals().get::<_, Object>("__pi_cjs") else {
        // Compiling ahead (crate::compile) declares the importer only: the
        // engine loads its imports again, and runs the CommonJS module there.
        return Ok(String::new());
    };
    let load: Function = cjs.get("load")?;
    let names: Function = cjs.get("names")?;
    let exports: Value = load.call((path, "cjs"))?;
    let keys: Vec<String> = names.call((exports,))?;
    let quoted = serde_json::Value::String(path.to_string()).to_string();
    let mut out = format!("const __cjs = globalThis.__pi_cjs.load({quoted}, \"cjs\");\nexport default __cjs;\n");
    for k in keys.iter().filter(|k| k.as_str() != "__cjs") {
        out.push_str(&format!("export const {k} = __cjs.{k};\n"));
    }
    Ok(out)
}
