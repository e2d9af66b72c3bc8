//! The process's one terminal: who may draw on it, and whether the UI holds
//! it (raw mode, maybe the alternate screen) and so must give it back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The terminal's state.
struct Terminal {
    /// Held while a start-up dialog draws: one dialog at a time.
    drawing: Mutex<()>,
    /// Whether the UI holds the terminal now.
    active: AtomicBool,
}

/// A static because there is one terminal per process, and the panic hook
/// and the signal handler that restore it get no context argument.
static TERMINAL: Terminal = Terminal { drawing: Mutex::new(()), active: AtomicBool::new(false) };

/// Wait until no other dialog draws on the terminal; it is ours while the
/// guard lives.
pub(crate) fn lock() -> MutexGuard<'static, ()> {
    TERMINAL.drawing.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether the UI holds the terminal.
pub(crate) fn active() -> bool {
    TERMINAL.active.load(Ordering::SeqCst)
}

/// Note that the UI took (`true`) or gave back the terminal.
pub(crate) fn set_active(on: bool) {
    TERMINAL.active.store(on, Ordering::SeqCst);
}
