//! Compiled JavaScript of pi's own glue and built-in modules, shared by every
//! engine of the process.
//!
//! Every extension has its own engine, and each evaluates the same glue
//! (about 60 kB) and most of the same built-in modules (`pi-coding-agent`,
//! `pi-tui`, `typebox`, …). Parsing them dominated an engine's start. So the
//! first engine that needs one of them compiles it, writes QuickJS bytecode
//! into a process-wide slot, and every later engine reads that bytecode
//! instead of parsing the source again. The bytecode never leaves the process
//! (it is only valid for the QuickJS build that wrote it) and is written
//! without the functions' source text (pi's own code; `toString()` of a glue
//! function is not part of any contract). Should writing or reading fail, the
//! source is parsed as before.

use std::ffi::CString;
use std::sync::OnceLock;

use rquickjs::module::Declared;
use rquickjs::{Ctx, FromJs, Module, Value, WriteOptions, qjs};

/// A piece of pi's JavaScript and, once compiled, its bytecode.
pub(crate) struct Cached {
    /// The name errors and stack traces show (a module's name for modules).
    pub name: &'static str,
    /// The source.
    pub source: &'static str,
    bytes: OnceLock<Option<Box<[u8]>>>,
}

impl Cached {
    /// A slot for `source`, compiled on first use.
    pub(crate) const fn new(name: &'static str, source: &'static str) -> Self {
        Cached { name, source, bytes: OnceLock::new() }
    }
}

/// Evaluate the script `code` (strict global code, as `Ctx::eval`) and convert its value.
pub(crate) fn eval_script<'js, V: FromJs<'js>>(ctx: &Ctx<'js>, code: &'static Cached) -> rquickjs::Result<V> {
    let bytes = code.bytes.get_or_init(|| compile_script(ctx, code));
    if let Some(bytes) = bytes
        && let Some(value) = run_script(ctx, bytes)
    {
        return V::from_js(ctx, value?);
    }
    let mut options = rquickjs::context::EvalOptions::default();
    options.filename = Some(code.name.to_string());
    ctx.eval_with_options(code.source, options)
}

/// Declare the module `code` (not yet evaluated), from bytecode when it can.
/// The first declaration in the process compiles the source and keeps that
/// module (declaring a second one of the same name would leave two in the
/// context, and imports would find the one never evaluated).
pub(crate) fn declare_module<'js>(ctx: &Ctx<'js>, code: &'static Cached) -> rquickjs::Result<Module<'js, Declared>> {
    if let Some(Some(bytes)) = code.bytes.get() {
        // SAFETY: the bytes were written by `Module::write` of this process's
        // QuickJS (the same build that reads them) and are never changed.
        #[allow(unsafe_code)]
        let loaded = unsafe { Module::load(ctx.clone(), bytes) };
        if let Ok(module) = loaded {
            return Ok(module);
        }
    }
    let module = Module::declare(ctx.clone(), code.name, code.source)?;
    code.bytes.get_or_init(|| module.write(write_options()).ok().map(Vec::into_boxed_slice));
    Ok(module)
}

fn write_options() -> WriteOptions {
    WriteOptions { strip_source: true, ..Default::default() }
}

/// Compile `code` as global code and write its bytecode; `None` when either fails.
#[allow(unsafe_code)]
fn compile_script(ctx: &Ctx<'_>, code: &Cached) -> Option<Box<[u8]>> {
    let source = CString::new(code.source).ok()?;
    let name = CString::new(code.name).ok()?;
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: `raw` is the live context of `ctx`; the source and name are
    // NUL-terminated and outlive the call; every value made here is freed
    // here, and the buffer QuickJS allocates is copied, then freed with its
    // own allocator.
    unsafe {
        let flags = (qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_STRICT | qjs::JS_EVAL_FLAG_COMPILE_ONLY) as i32;
        let function = qjs::JS_Eval(raw, source.as_ptr(), code.source.len() as _, name.as_ptr(), flags);
        if qjs::JS_IsException(function) {
            drop(Value::from_raw(ctx.clone(), qjs::JS_GetException(raw)));
            return None;
        }
        let mut len = std::mem::MaybeUninit::<qjs::size_t>::uninit();
        let buf = qjs::JS_WriteObject(raw, len.as_mut_ptr(), function, write_options().to_flag());
        qjs::JS_FreeValue(raw, function);
        if buf.is_null() {
            drop(Value::from_raw(ctx.clone(), qjs::JS_GetException(raw)));
            return None;
        }
        let bytes = std::slice::from_raw_parts(buf, len.assume_init() as usize).to_vec().into_boxed_slice();
        qjs::js_free(raw, buf.cast());
        Some(bytes)
    }
}

/// Read compiled global code and run it: `None` when the bytes cannot be
/// read (parse the source instead), else what running it gave.
#[allow(unsafe_code)]
fn run_script<'js>(ctx: &Ctx<'js>, bytes: &[u8]) -> Option<rquickjs::Result<Value<'js>>> {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: the bytes were written by `compile_script` of this process's
    // QuickJS; `JS_EvalFunction` takes the function read and gives back an
    // owned value (or an exception, left pending for the caller's `catch`).
    unsafe {
        let function = qjs::JS_ReadObject(raw, bytes.as_ptr(), bytes.len() as _, qjs::JS_READ_OBJ_BYTECODE as i32);
        if qjs::JS_IsException(function) {
            drop(Value::from_raw(ctx.clone(), qjs::JS_GetException(raw)));
            return None;
        }
        let value = qjs::JS_EvalFunction(raw, function);
        if qjs::JS_IsException(value) {
            return Some(Err(rquickjs::Error::Exception));
        }
        Some(Ok(Value::from_raw(ctx.clone(), value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rquickjs::{Context, Runtime};

    static SCRIPT: Cached =
        Cached::new("glue.js", "(function (a) { 'use strict'; return a * 2 + String(this === undefined); })");
    static BAD: Cached = Cached::new("bad.js", "(function (");
    static MODULE: Cached = Cached::new("pi:test-module", "export const answer = 6 * 7;");

    fn with_ctx(f: impl FnOnce(&Ctx<'_>)) {
        let rt = Runtime::new().unwrap();
        let context = Context::full(&rt).unwrap();
        context.with(|ctx| f(&ctx));
    }

    #[test]
    fn a_script_gives_the_same_value_compiled_and_from_bytecode_in_another_runtime() {
        for _ in 0..2 {
            with_ctx(|ctx| {
                let f: rquickjs::Function = eval_script(ctx, &SCRIPT).unwrap();
                let out: String = f.call((4,)).unwrap();
                assert_eq!(out, "8true");
            });
        }
        assert!(SCRIPT.bytes.get().unwrap().is_some(), "the bytecode is kept for later engines");
    }

    #[test]
    fn a_script_that_does_not_parse_is_a_syntax_error_every_time() {
        for _ in 0..2 {
            with_ctx(|ctx| {
                let r: rquickjs::Result<Value> = eval_script(ctx, &BAD);
                assert!(matches!(r, Err(rquickjs::Error::Exception)));
                let e = ctx.catch();
                let message: String = e.as_object().unwrap().get("message").unwrap();
                assert!(!message.is_empty());
            });
        }
    }

    #[test]
    fn a_module_declared_once_is_the_one_later_imports_find() {
        static SHARED: Cached = Cached::new("pi:test-shared", "export const token = {};");
        let rt = Runtime::new().unwrap();
        let context = Context::full(&rt).unwrap();
        context.with(|ctx| {
            // The loader declares it for the first import; a later import finds it, evaluated once.
            let module = declare_module(&ctx, &SHARED).unwrap();
            let (module, promise) = module.eval().unwrap();
            promise.finish::<()>().unwrap();
            let first: rquickjs::Object = module.namespace().unwrap().get("token").unwrap();
            let importer = Module::declare(
                ctx.clone(),
                "importer",
                "import { token } from 'pi:test-shared'; globalThis.again = token;",
            )
            .unwrap();
            let (_m, promise) = importer.eval().unwrap();
            promise.finish::<()>().unwrap();
            let again: rquickjs::Object = ctx.globals().get("again").unwrap();
            assert!(first == again, "one instance of the module");
        });
    }

    #[test]
    fn a_module_from_bytecode_evaluates_like_its_source() {
        for _ in 0..3 {
            with_ctx(|ctx| {
                let module = declare_module(ctx, &MODULE).unwrap();
                let (module, promise) = module.eval().unwrap();
                promise.finish::<()>().unwrap();
                let ns = module.namespace().unwrap();
                let answer: i32 = ns.get("answer").unwrap();
                assert_eq!(answer, 42);
            });
        }
    }
}
