//! How many scripts run at once: at most two script runtimes are alive for
//! the codemode tools of a session ([`Runtimes`]; pi makes one per process)
//! (`PI_CODEMODE_MAX_WORKERS` changes it), as the reference's workers, so
//! parallel scripts cannot hold more than that many 256 MB heaps.
//! Scripts wait for a free runtime in arrival order; a runtime stays taken
//! until its thread ends (a stopped script whose built-in does not check for
//! the stop keeps it until the built-in returns). The wait counts toward
//! `timeout_ms`, and ends after 60 seconds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::error::AdmitError;
use crate::text;

/// The script runtimes the codemode tools of a session may have alive at
/// once. Made once with the tools' options ([`crate::CodemodeOptions`]);
/// clones share the limit, so every tool built from those options, before
/// and after a reload, counts against the same one.
#[derive(Clone)]
pub struct Runtimes {
    slots: Arc<Semaphore>,
    max: usize,
}

impl Runtimes {
    /// The limit of the environment: `PI_CODEMODE_MAX_WORKERS` (a positive
    /// integer), else two.
    pub fn new() -> Self {
        let max = std::env::var(text::MAX_WORKERS_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(text::DEFAULT_MAX_WORKERS);
        Runtimes { slots: Arc::new(Semaphore::new(max)), max }
    }
}

impl Default for Runtimes {
    fn default() -> Self {
        Runtimes::new()
    }
}

impl std::fmt::Debug for Runtimes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtimes").field("max", &self.max).field("free", &self.slots.available_permits()).finish()
    }
}

/// A free runtime, and how long the script waited for it.
pub(crate) struct Slot {
    pub permit: OwnedSemaphorePermit,
    pub waited: Duration,
}

/// Wait for a free runtime; `Err` is the error line of a script that did not
/// start (aborted, its deadline passed, or no runtime within a minute).
pub(crate) async fn admit(
    runtimes: &Runtimes,
    abort: &CancellationToken,
    timeout_ms: Option<u64>,
) -> Result<Slot, AdmitError> {
    let started = Instant::now();
    let limit = timeout_ms.map(Duration::from_millis).map_or(text::WORKER_WAIT, |t| t.min(text::WORKER_WAIT));
    tokio::select! {
        biased;
        _ = abort.cancelled() => Err(AdmitError::Aborted),
        permit = runtimes.slots.clone().acquire_owned() => match permit {
            Ok(permit) => Ok(Slot { permit, waited: started.elapsed() }),
            Err(_) => Err(AdmitError::NoWorker { max: runtimes.max }),
        },
        _ = tokio::time::sleep(limit) => Err(match timeout_ms {
            Some(ms) if Duration::from_millis(ms) <= text::WORKER_WAIT => AdmitError::TimedOut { ms },
            _ => AdmitError::NoWorker { max: runtimes.max },
        }),
    }
}
