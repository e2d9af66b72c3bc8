//! The Node.js built-ins extensions use, over std: the host functions behind
//! the glue's `node:fs`, `node:child_process`, `node:os`, `node:crypto`,
//! `Buffer` and `process` (`js/node/*.js`). Extensions are trusted code
//! (they run only when the user or a trusted project loads them), so these
//! reach the real system. Bytes cross into Rust as *byte strings* (one
//! character per byte, as Node's `latin1`) and come back as `Uint8Array`s.
//!
//! Chosen over `rquickjs-extra` (whose timers need rquickjs's tokio
//! `AsyncRuntime`, while each engine here runs its own loop on its own
//! thread, and which has no `fs`, `child_process`, `crypto` or `Buffer`) and
//! AWS's `llrt_modules` (built on rquickjs 0.11, so its values cannot reach a
//! 0.14 runtime).

pub(crate) mod child;
pub(crate) mod cjs;
pub(crate) mod error;
pub(crate) mod fs;
mod sys;

use std::rc::Rc;

use rquickjs::{Ctx, Function, Object, TypedArray, Value as JsValue};
use serde_json::{Value, json};

use error::NodeError;

/// Bytes as a byte string (one char per byte).
pub(crate) fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|b| *b as char).collect()
}

/// A byte string back to bytes (chars above 255 keep their low byte, as Node's `latin1`).
pub(crate) fn from_latin1(s: &str) -> Vec<u8> {
    s.chars().map(|c| c as u32 as u8).collect()
}

/// A [`NodeError`] as the JSON the glue turns into an `Error`.
pub(crate) fn error_json(e: &NodeError) -> Value {
    let mut v = json!({"message": e.message, "code": e.code});
    if e.errno != 0 {
        v["errno"] = json!(e.errno);
        v["syscall"] = json!(e.syscall);
    }
    if let Some(p) = &e.path {
        v["path"] = json!(p);
    }
    if let Some(d) = &e.dest {
        v["dest"] = json!(d);
    }
    v
}

/// Throw `e` as a Node-shaped `Error` (`code`, `errno`, `syscall`, `path`).
fn throw(ctx: &Ctx<'_>, e: &NodeError) -> rquickjs::Error {
    let build = || -> rquickjs::Result<JsValue<'_>> {
        let make: Function = ctx.globals().get("Error")?;
        let obj: Object = make.call((e.message.as_str(),))?;
        for (k, v) in error_json(e).as_object().into_iter().flatten() {
            if k == "message" {
                continue;
            }
            match v {
                Value::String(s) => obj.set(k.as_str(), s.as_str())?,
                Value::Number(n) => obj.set(k.as_str(), n.as_f64().unwrap_or(0.0))?,
                _ => {}
            }
        }
        Ok(obj.into_value())
    };
    match build() {
        Ok(v) => ctx.throw(v),
        Err(err) => err,
    }
}

fn parse(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

/// What the Node built-ins need of the engine they run in: its clock, and
/// the child processes of its extensions.
pub(crate) trait NodeHost {
    /// Waiting on a command ended: the running turn's time limit counts from now.
    fn restart_clock(&self);
    /// Start `spec` as a child of the extension whose turn runs: its id and
    /// pid, or why it did not start; `None` when no extension's turn runs.
    fn spawn_child(&self, spec: &child::SpawnSpec) -> Option<Result<(u64, u32), NodeError>>;
    /// Run `f` on child process `id`, whichever extension started it (not
    /// at all when there is none).
    fn with_child(&self, id: u64, f: &mut dyn FnMut(&mut child::Running));
}

/// Install the `__pi_node` host object the glue's Node modules use (once per
/// engine; child processes belong to the extension whose turn starts them).
pub(crate) fn install<'js>(ctx: &Ctx<'js>, host: Rc<dyn NodeHost>) -> rquickjs::Result<()> {
    let node = Object::new(ctx.clone())?;
    node.set(
        "fs",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, op: String, args: String| -> rquickjs::Result<String> {
            fs::call(&op, &parse(&args)).map(|v| v.to_string()).map_err(|e| throw(&ctx, &e))
        })?,
    )?;
    // JSON Schema checks and coercion for `typebox/value` and `typebox/compile`
    // (pi's own checker, the one tool arguments go through).
    node.set(
        "schemaCheck",
        Function::new(ctx.clone(), |schema: String, value: String| -> String {
            let issues = pi_tools::check_schema(&parse(&schema), &parse(&value));
            let list: Vec<serde_json::Value> =
                issues.iter().map(|i| serde_json::json!({"path": i.path, "message": i.message})).collect();
            serde_json::Value::Array(list).to_string()
        })?,
    )?;
    node.set(
        "schemaCoerce",
        Function::new(ctx.clone(), |schema: String, value: String| -> String {
            pi_tools::coerce_to_schema(&parse(&schema), parse(&value)).to_string()
        })?,
    )?;
    node.set(
        "readFile",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, path: String, utf8: bool| -> rquickjs::Result<JsValue<'js>> {
            let bytes = fs::read(&path).map_err(|e| throw(&ctx, &e))?;
            if utf8 {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                return Ok(rquickjs::String::from_str(ctx.clone(), &text)?.into_value());
            }
            Ok(TypedArray::<u8>::new(ctx.clone(), bytes)?.into_value())
        })?,
    )?;
    node.set(
        "writeFile",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             path: String,
             data: String,
             binary: bool,
             flags: String,
             mode: f64|
             -> rquickjs::Result<()> {
                let bytes = if binary { from_latin1(&data) } else { data.into_bytes() };
                let mode = (mode.is_finite() && mode >= 0.0).then_some(mode as u32);
                let (append, exclusive) = (flags.contains('a'), flags.contains('x'));
                fs::write(&path, &bytes, append, exclusive, mode).map_err(|e| throw(&ctx, &e))
            },
        )?,
    )?;
    let r = host.clone();
    node.set(
        "spawnSync",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, spec: String, input: Option<String>| -> rquickjs::Result<String> {
                let spec: child::SpawnSpec = serde_json::from_str(&spec).map_err(|e| invalid(&ctx, &e.to_string()))?;
                let out = child::spawn_sync(&spec, input.map(|i| from_latin1(&i)));
                // Waiting on a command is not running JavaScript: the time limit starts again.
                r.restart_clock();
                Ok(out.to_string())
            },
        )?,
    )?;
    let r = host.clone();
    node.set(
        "spawn",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, spec: String| -> rquickjs::Result<String> {
            let spec: child::SpawnSpec = serde_json::from_str(&spec).map_err(|e| invalid(&ctx, &e.to_string()))?;
            match r.spawn_child(&spec) {
                None => Err(invalid(&ctx, crate::text::node::NO_EXTENSION)),
                Some(Ok((id, pid))) => Ok(json!({"id": id, "pid": pid}).to_string()),
                Some(Err(e)) => Ok(json!({"error": error_json(&e)}).to_string()),
            }
        })?,
    )?;
    let r = host.clone();
    node.set(
        "childWrite",
        Function::new(ctx.clone(), move |id: f64, data: String| -> bool {
            use std::io::Write;
            with_child(r.as_ref(), id, |c| {
                c.stdin.as_mut().is_some_and(|stdin| stdin.write_all(&from_latin1(&data)).is_ok())
            })
            .unwrap_or(false)
        })?,
    )?;
    let r = host.clone();
    node.set(
        "childEnd",
        Function::new(ctx.clone(), move |id: f64| {
            with_child(r.as_ref(), id, |c| c.stdin = None);
        })?,
    )?;
    let r = host;
    node.set(
        "childKill",
        Function::new(ctx.clone(), move |id: f64, signal: String| -> bool {
            let pid = with_child(r.as_ref(), id, |c| c.pid);
            pid.is_some_and(|p| child::kill_group(p, &signal))
        })?,
    )?;
    sys::install(ctx, &node)?;
    ctx.globals().set("__pi_node", node)?;
    Ok(())
}

/// Run `f` on child process `id`, whichever extension started it.
fn with_child<R>(host: &dyn NodeHost, id: f64, f: impl FnOnce(&mut child::Running) -> R) -> Option<R> {
    let mut f = Some(f);
    let mut out = None;
    host.with_child(id as u64, &mut |c| out = f.take().map(|f| f(c)));
    out
}

fn invalid(ctx: &Ctx<'_>, message: &str) -> rquickjs::Error {
    throw(ctx, &NodeError::invalid(crate::text::node::INVALID_ARG_CODE, message.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_strings_round_trip() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(from_latin1(&latin1(&all)), all);
        assert_eq!(from_latin1("\u{263a}"), vec![0x3a]);
    }
}
