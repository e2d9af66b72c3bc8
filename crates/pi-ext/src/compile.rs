//! Extension files compiled ahead, in parallel: reading, stripping the
//! types and compiling a module is most of an extension's start, and the
//! engine's one thread would do it for each in turn. Workers (one per core,
//! at most [`WORKERS`]) each compile with a QuickJS runtime of their own and
//! hand over bytecode, which the engine reads (valid across runtimes of this
//! process's QuickJS) while the next files are still compiling. A file that
//! fails is handed over as the load error the engine would have given.

use std::path::PathBuf;

use rquickjs::{CatchResultExt, Context, Module, Runtime, WriteOptions};
use tokio::sync::mpsc;

use crate::engine::error::LoadError;

/// At most this many compiling threads.
pub(crate) const WORKERS: usize = 2;

/// A compiled extension file: its module's bytecode, or the load error.
pub(crate) type Compiled = Result<Box<[u8]>, LoadError>;

/// Compile `paths` on worker threads; the receiver gets `(index, outcome)`
/// for each, in whatever order they finish.
pub(crate) fn start(paths: &[PathBuf]) -> mpsc::UnboundedReceiver<(usize, Compiled)> {
    let (tx, rx) = mpsc::unbounded_channel();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let workers = WORKERS.min(cores).min(paths.len()).max(1);
    for w in 0..workers {
        let mine: Vec<(usize, PathBuf)> =
            paths.iter().enumerate().skip(w).step_by(workers).map(|(i, p)| (i, p.clone())).collect();
        let tx = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("pi-ext-compile".into())
            .stack_size(crate::api::ENGINE_THREAD_STACK)
            .spawn(move || compile_all(&mine, &tx));
        if spawned.is_err() {
            // No worker: the engine compiles these itself.
            break;
        }
    }
    rx
}

fn compile_all(paths: &[(usize, PathBuf)], tx: &mpsc::UnboundedSender<(usize, Compiled)>) {
    let Ok(rt) = Runtime::new() else { return };
    rt.set_max_stack_size(crate::api::JS_STACK);
    // Declaring a module resolves its imports, so they are found as the engine finds them.
    rt.set_loader(crate::modules::PiResolver, crate::modules::PiLoader);
    let Ok(context) = Context::full(&rt) else { return };
    for (i, path) in paths {
        let out = context.with(|ctx| compile(&ctx, path));
        if tx.send((*i, out)).is_err() {
            return;
        }
    }
}

/// One file: the bytecode of its module (its source kept, for `toString()`).
fn compile(ctx: &rquickjs::Ctx<'_>, path: &std::path::Path) -> Compiled {
    let source = std::fs::read_to_string(path)?;
    let js = crate::strip::to_javascript(path, &source)?;
    let name = path.to_string_lossy().into_owned();
    let failed = |e| LoadError::Js(crate::report::describe_caught(e));
    let module = Module::declare(ctx.clone(), name, js).catch(ctx).map_err(failed)?;
    let bytes = module.write(WriteOptions::default()).catch(ctx).map_err(failed)?;
    Ok(bytes.into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_file_comes_back_compiled_or_with_its_load_error() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.ts");
        std::fs::write(&good, "const n: number = 1; export default function () { return n; }").unwrap();
        let bad = dir.path().join("bad.js");
        std::fs::write(&bad, "export default function ( {").unwrap();
        let missing = dir.path().join("missing.js");
        let mut rx = start(&[good, bad, missing]);
        let mut got = [None, None, None];
        for _ in 0..3 {
            let (i, out) = rx.recv().await.unwrap();
            got[i] = Some(out);
        }
        assert!(got[0].as_ref().unwrap().as_ref().is_ok_and(|b| !b.is_empty()));
        let bad = got[1].as_ref().unwrap().as_ref().unwrap_err().to_string();
        assert!(bad.starts_with("Failed to load extension: SyntaxError"), "{bad}");
        let missing = got[2].as_ref().unwrap().as_ref().unwrap_err().to_string();
        assert!(missing.starts_with("Failed to load extension: "), "{missing}");
    }
}
