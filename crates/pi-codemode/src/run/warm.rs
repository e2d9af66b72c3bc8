//! A runtime made ready ahead of the next script. Freezing the realm is most
//! of a script's start-up cost (a few milliseconds), so once a script has
//! run, the next one's runtime is prepared on its own thread and waits; a
//! script that finds it ready starts at once. A process that never runs a
//! script prepares none.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use super::vm::{self, FromVm, Job};

/// A ready runtime waiting for its job.
pub(crate) struct Spare {
    pub jobs: mpsc::Sender<Job>,
    pub stop: Arc<AtomicBool>,
}

static SPARE: Mutex<Option<Spare>> = Mutex::new(None);
static PREPARING: AtomicBool = AtomicBool::new(false);

/// The ready runtime, if there is one.
pub(crate) fn take() -> Option<Spare> {
    SPARE.lock().unwrap_or_else(|p| p.into_inner()).take()
}

/// Prepare a runtime for the next script unless one is ready or on its way.
pub(crate) fn replenish() {
    if SPARE.lock().unwrap_or_else(|p| p.into_inner()).is_some() || PREPARING.swap(true, Ordering::SeqCst) {
        return;
    }
    let spawned = vm::thread("pi-codemode").spawn(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let ready = vm::prepare(stop.clone());
        let (jobs, waiting) = mpsc::channel::<Job>();
        if ready.is_ok() {
            *SPARE.lock().unwrap_or_else(|p| p.into_inner()) = Some(Spare { jobs, stop });
        }
        PREPARING.store(false, Ordering::SeqCst);
        let (Ok(ready), Ok(job)) = (ready, waiting.recv()) else { return };
        if let Err(message) = vm::run(ready, &job.launch, &job.events, job.answers) {
            let _ = job.events.send(FromVm::Crash(message));
        }
        drop(job.slot);
    });
    if spawned.is_err() {
        PREPARING.store(false, Ordering::SeqCst);
    }
}
