//! An engine: one QuickJS runtime and context on one thread
//! ([`super::looper`]), shared by the extensions loaded together (as the
//! reference's extensions share one Node.js process), and the handle that
//! starts it. pi's glue, the Node globals and pi's built-in modules are set
//! up once per engine instead of once per extension, which is what made
//! starting many extensions slow and heavy.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::protocol::{ExtId, ExtSender, Msg};
use crate::api::Limits;

/// Engine ids, for telling an engine's own thread apart.
static NEXT_REALM: AtomicUsize = AtomicUsize::new(1);

/// The handle to an engine thread; extensions are started in it with
/// [`super::Engine::start`]. Dropping it tells the thread that no more will
/// come: it ends when the last extension's handle is gone.
pub(crate) struct EngineThread {
    tx: mpsc::Sender<(ExtId, Msg)>,
    next_ext: AtomicU32,
    /// This engine's id.
    pub(crate) id: usize,
}

impl EngineThread {
    /// Start the thread, with the heap limit of `limits` for all its
    /// extensions together; `cwd` is `process.cwd()`.
    pub(crate) fn spawn(limits: Limits, cwd: PathBuf) -> std::io::Result<EngineThread> {
        let (tx, rx) = mpsc::channel();
        let id = NEXT_REALM.fetch_add(1, Ordering::Relaxed);
        let thread_tx = tx.clone();
        std::thread::Builder::new()
            .name("pi-ext".into())
            .stack_size(crate::api::ENGINE_THREAD_STACK)
            .spawn(move || super::looper::run_thread(id, limits, cwd, rx, thread_tx))?;
        Ok(EngineThread { tx, next_ext: AtomicU32::new(1), id })
    }

    /// A new extension's id and its side of the channel.
    pub(crate) fn new_extension(&self) -> ExtSender {
        let ext = self.next_ext.fetch_add(1, Ordering::Relaxed);
        ExtSender::new(self.tx.clone(), ext)
    }
}

impl Drop for EngineThread {
    fn drop(&mut self) {
        let _ = self.tx.send((0, Msg::Sealed));
    }
}
